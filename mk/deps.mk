# Test dependencies (Neovim >= 0.10, gopls, dlv, pyright, typescript-language-server),
# installed and cached under .deps/ by scripts/deps.sh. Included by the top-level Makefile.
DEPS_BIN := $(CURDIR)/.deps/bin
# Recipes (and the tests they run) find nvim, gopls, ... in .deps/bin first.
export PATH := $(DEPS_BIN):$(PATH)

.PHONY: deps
deps:
	bash scripts/deps.sh
