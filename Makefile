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

.PHONY: all build install test vet staticcheck fmt-check lua-check shell-check demo bench bench-side bench-report fuzz clean matrix

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

# The Lua that runs in Neovim (lua/, plugin/) checked by luacheck against .luacheckrc;
# make deps installs the pinned luacheck in .deps/bin. Without it the target fails.
LUACHECK ?= $(DEPS_BIN)/luacheck
lua-check:
	@test -x "$(LUACHECK)" || { echo "lua-check: $(LUACHECK) not found: run make deps (or bash scripts/deps.sh luacheck)"; exit 1; }
	$(LUACHECK) --no-color -q lua/ plugin/

# staticcheck (pinned, installed into .deps/bin by make deps) with its default
# checks; a finding that is meant carries a //lint:ignore with the reason.
staticcheck: deps
	$(DEPS_BIN)/staticcheck ./...

# shellcheck (bookworm's, installed into .deps/bin by make deps for
# bash-language-server) on the project's own shell scripts.
shell-check: deps
	$(DEPS_BIN)/shellcheck scripts/*.sh .ci/run

test: deps fmt-check vet staticcheck lua-check shell-check
	$(GO) test -race -timeout $(TEST_TIMEOUT) ./...

# The language matrix (lang/matrix.json, README, get_status, nvbridge version),
# written from what the tests verified: lsp's, refactor's and dap's tests record each tool
# they verified for a language (testenv.Verified), then TestMatrix writes it.
matrix: deps
	@out=$$(mktemp) && \
	NVBRIDGE_MATRIX_OUT=$$out $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./lsp ./refactor ./dap && \
	$(GO) test -count=1 -run '^TestMatrix$$' ./internal/testenv -args -update-matrix=$$out; \
	rc=$$?; rm -f $$out; exit $$rc

demo: deps build
	./nvbridge --root testdata/samples/go demo

# Go benchmarks (3 iterations each) and a one-round smoke run of the
# side-by-side harness on the sample.
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 3x -timeout $(TEST_TIMEOUT) ./...
	$(GO) run ./bench/cmd/sidebyside -rounds 2 -modules sample -cold 1 -attached 1

# Every read tool and the hierarchies through nvbridge (a real MCP session
# with the built binary) vs the same requests straight to gopls, interleaved,
# p50/p95 and ratios, on the sample and on real modules fetched from the Go
# module proxy (zap v1.21.0, golang.org/x/tools v0.30.0).
BENCH_ROUNDS ?= 20
BENCH_MODULES ?= sample,zap,x/tools
bench-side: deps
	$(GO) run ./bench/cmd/sidebyside -rounds $(BENCH_ROUNDS) -modules $(BENCH_MODULES)

# bench/results/REPORT.md and chart.png from a full run (tens of minutes on
# x/tools): the side-by-side harness plus the Go->Neovim round trip and the
# changeset throughput benchmarks, 5 runs (each run measures every variant
# in turn, so nvbridge's apply and Neovim's alternate), and a shorter
# harness run with nvbridge's log on, for where its time goes (-phases).
# Issue 30's goals: verified edits, edits over MCP, reads on zap, the user's
# Neovim under agent load; then the standard library in place (GOROOT/src,
# fewer rounds: a first request there can take a minute). The reads' own
# time is a difference of medians a tenth of a millisecond apart: 200
# rounds (about two minutes) narrow its interval.
PERF2_ARGS = -modules zap -rounds 20 -edits 30 -responsive 6 -cold 1 -attached 0
PERF2_STD_ARGS = -modules std -rounds 8 -cold 1 -attached 0
MICRO_BENCH = $(GO) test -run '^$$' -bench 'BenchmarkRoundTrip$$|BenchmarkBigBuffer' -benchtime 10x -count 1 -timeout $(TEST_TIMEOUT) ./bench ./edit
bench-report: deps
	mkdir -p bench/results
	rm -f bench/results/microbench.txt
	for i in 1 2 3 4 5; do $(MICRO_BENCH) >> bench/results/microbench.txt || exit 1; done
	$(GO) run ./bench/cmd/sidebyside -rounds $(BENCH_ROUNDS) -modules $(BENCH_MODULES) -json bench/results/sidebyside.json > bench/results/sidebyside.txt
	$(GO) run ./bench/cmd/sidebyside -rounds 20 -modules zap,x/tools -cold 0 -attached 0 -phases -json bench/results/phases.json > bench/results/phases.txt
	$(GO) run ./bench/cmd/sidebyside $(PERF2_ARGS) -json bench/results/perf2.json > bench/results/perf2.txt
	$(GO) run ./bench/cmd/sidebyside $(PERF2_STD_ARGS) -json bench/results/perf2-std.json > bench/results/perf2-std.txt
	$(GO) run ./bench/cmd/sidebyside -modules sample -skip-reads -bigedit 20 -cold 0 -attached 0 -json bench/results/perf2-bigedit.json > bench/results/perf2-bigedit.txt
	$(GO) run ./bench/cmd/sidebyside -modules zap -rounds 200 -cold 0 -attached 0 -json bench/results/perf2-reads.json > bench/results/perf2-reads.txt
	$(GO) run ./bench/cmd/report -side bench/results/sidebyside.json -micro bench/results/microbench.txt -micro-cmd "5 x $(MICRO_BENCH)" -phases bench/results/phases.json -perf2 bench/results/perf2.json,bench/results/perf2-std.json,bench/results/perf2-bigedit.json -reads bench/results/perf2-reads.json -out bench/results

# The swap race at full length (a folder and a symlink out of the root
# swapped while commits and agents write: SWAP_ROUNDS rounds; make test
# runs a few hundred), then every fuzz target (patch parsing, edit round
# trips, buffer plans) for FUZZTIME each; go test fuzzes one target at a
# time. The seed corpora run in make test already.
FUZZTIME ?= 1m
SWAP_ROUNDS ?= 2000
fuzz: deps
	NVBRIDGE_SWAP_ROUNDS=$(SWAP_ROUNDS) $(GO) test -count=1 -run 'TestCommitSwapRace$$|TestSwapRaceOverMCP$$' -timeout $(TEST_TIMEOUT) ./workspace ./cmd/nvbridge
	for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
		for target in $$(grep -h '^func Fuzz' $$dir/*_test.go | sed 's/^func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$dir || exit 1; \
		done; \
	done

clean:
	rm -f nvbridge
