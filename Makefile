# nvbridge: `make demo` runs real tools on the bundled Go sample; `make test`
# is what CI runs. Both install what is missing first (make deps, cached
# under .deps/).
include mk/deps.mk

# gopls needs `go` on PATH; CI's environment may not have it there.
export PATH := $(PATH):/usr/local/go/bin

GO ?= go
TEST_TIMEOUT ?= 30m
# make install puts nvbridge in $(PREFIX)/bin; the binary keeps using this
# checkout's .deps (private Neovim and servers) before PATH.
PREFIX ?= $(HOME)/.local
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build install test vet fmt-check demo bench bench-side clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o nvbridge ./cmd/nvbridge

install: deps
	mkdir -p $(PREFIX)/bin
	$(GO) build -ldflags "$(LDFLAGS) -X main.depsBin=$(DEPS_BIN)" -o $(PREFIX)/bin/nvbridge ./cmd/nvbridge
	@echo "installed $(PREFIX)/bin/nvbridge (uses $(DEPS_BIN) first; nvbridge version shows what it finds)"

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.deps/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

test: deps fmt-check vet
	$(GO) test -race -timeout $(TEST_TIMEOUT) ./...

demo: deps build
	./nvbridge --root testdata/samples/go demo

bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 3x -timeout $(TEST_TIMEOUT) ./...

# find_references through nvbridge vs straight to gopls, with the ratio
# (timed runs, unlike the 3x smoke run of `make bench`).
bench-side: deps
	$(GO) run ./bench/cmd/sidebyside

clean:
	rm -f nvbridge
