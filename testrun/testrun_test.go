package testrun_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/testrun"
)

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunGo: go test -json through run_tests on the Go sample. The tests
// of Process (orders/orders.go:33) are TestProcess, found through its
// callers; they pass, with progress per test. A broken assertion is
// reported with its file, line and message; the tests of a test file, of
// changed files (their packages and importers) run too; a test that does
// not finish within the bound is TIMEOUT naming it.
func TestRunGo(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	write(t, root, "orders/slow_test.go", "package orders\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Hour) }\n")
	_, c := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	var mu sync.Mutex
	var events []string
	pctx := progress.With(ctx, func(done, total float64, msg string) {
		mu.Lock() // the search for the tests reports from several goroutines
		defer mu.Unlock()
		events = append(events, msg)
	})

	r, err := testrun.Tests(pctx, c, testrun.Request{File: "orders/orders.go", Symbol: true, Target: lsp.Target{Line: 33, Symbol: "Process"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 1 || r.Failed != 0 || !slices.Equal(r.Selection.Names, []string{"TestProcess"}) || !slices.Equal(r.Selection.Targets, []string{"./orders"}) {
		t.Fatalf("tests of Process: %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(events, "TestProcess pass") {
		t.Fatalf("progress %q", events)
	}

	// A broken assertion.
	test := filepath.Join(root, "orders", "orders_test.go")
	data, _ := os.ReadFile(test)
	write(t, root, "orders/orders_test.go", strings.Replace(string(data), "got.Amount != 300", "got.Amount != 301", 1))
	r, err = testrun.Tests(ctx, c, testrun.Request{File: "orders/orders_test.go"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != 1 || len(r.Failures) != 1 {
		t.Fatalf("a broken assertion: %+v", r)
	}
	f := r.Failures[0]
	if f.Test != "TestProcess" || f.File != "orders/orders_test.go" || f.Line != 12 || !strings.Contains(f.Message, "want {300 2}") || !strings.Contains(f.Output, "want {300 2}") {
		t.Fatalf("failure %+v", f)
	}
	if !slices.Equal(r.Selection.Names, []string{"TestProcess"}) {
		t.Fatalf("the tests of a test file (not those of slow_test.go): %+v", r.Selection)
	}
	t.Logf("failure: %+v", f)

	// Changed files: their packages and their importers' (main.go's
	// package, the root, imports orders).
	_, err = testrun.Tests(ctx, c, testrun.Request{Changed: []string{"orders/orders.go"}}, 1)
	ae := apierr.As(err)
	if ae.Code != apierr.Timeout {
		t.Fatalf("changed files with a 1ns bound: %v", err)
	}
	res, ok := ae.Details.(testrun.Result)
	if !ok || !slices.Contains(res.Selection.Targets, "./orders") || !slices.Contains(res.Selection.Targets, ".") || res.Complete ||
		!slices.Contains(res.Unfinished, "every test of ./orders") || !slices.Contains(res.Unfinished, "every test of .") {
		t.Fatalf("details %#v", ae.Details)
	}

	// The slow test: TIMEOUT naming it, whether go test had started it or
	// was still building when the bound stopped it (a busy machine).
	write(t, root, "orders/orders_test.go", string(data))
	_, err = testrun.Tests(ctx, c, testrun.Request{File: "orders/slow_test.go"}, 40e9)
	ae = apierr.As(err)
	res, _ = ae.Details.(testrun.Result)
	if ae.Code != apierr.Timeout || !slices.Equal(res.Unfinished, []string{"TestSlow"}) || !strings.Contains(ae.Message, "TestSlow") {
		t.Fatalf("a test that does not finish: %v %+v", err, res)
	}
}

// TestRunPython: pytest through run_tests on the Python sample: the
// tests of process (shop/orders.py:37) are the test methods reaching it;
// a broken assertion is reported with the test file's line.
func TestRunPython(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver", "python3-deps")
	root := testenv.CopySample(t, "python")
	_, c := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	data, _ := os.ReadFile(filepath.Join(root, "tests", "test_orders.py"))
	write(t, root, "tests/test_orders.py", strings.Replace(string(data), "assert total.amount == 300", "assert total.amount == 301", 1))
	r, err := testrun.Tests(ctx, c, testrun.Request{File: "shop/orders.py", Symbol: true, Target: lsp.Target{Line: 37, Symbol: "process"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// test_batch reaches process through process_batch.
	if r.Failed != 1 || r.Passed != 2 || len(r.Failures) != 1 || !slices.Equal(r.Selection.Names, []string{"test_batch", "test_empty", "test_total"}) {
		t.Fatalf("tests of process: %+v", r)
	}
	f := r.Failures[0]
	if f.Test != "test_total" || f.File != "tests/test_orders.py" || f.Line != 10 || !strings.Contains(f.Message, "301") {
		t.Fatalf("failure %+v", f)
	}
	if _, err := os.Stat(filepath.Join(root, ".pytest_cache")); err == nil {
		t.Fatal("pytest left a cache in the workspace")
	}
	t.Logf("failure: %+v", f)
}

// TestRunTypeScriptUnconfigured: a TypeScript project that configures no
// runner nvbridge runs: UNSUPPORTED saying what was looked for.
func TestRunTypeScriptUnconfigured(t *testing.T) {
	testenv.Require(t, "nvim", "typescript-language-server")
	root := testenv.CopySample(t, "ts")
	write(t, root, "src/text.test.ts", "import { describe } from './text';\n\nexport const ok = describe('x');\n")
	_, c := testenv.Embedded(t, root)
	_, err := testrun.Tests(testenv.Context(t), c, testrun.Request{File: "src/text.test.ts"}, 0)
	if ae := apierr.As(err); ae.Code != apierr.Unsupported || !strings.Contains(ae.Message, "vitest") {
		t.Fatalf("no runner: %v", err)
	}
}

// linkVitest gives the project at root the node_modules a project that
// configures vitest has after npm install: node_modules/vitest and
// node_modules/.bin/vitest, here links to the vitest `make deps`
// installs (.deps/vitest), so nothing is installed into the sample copy
// and nothing is written into the repository.
func linkVitest(t *testing.T, root string) {
	t.Helper()
	testenv.Require(t, "vitest")
	found, err := exec.LookPath("vitest")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := filepath.EvalSymlinks(found) // .deps/vitest/node_modules/vitest/vitest.mjs
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "node_modules", ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"vitest": filepath.Dir(bin), ".bin/vitest": bin} {
		if err := os.Symlink(to, filepath.Join(root, "node_modules", filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunTypeScript: vitest, configured in the sample's package.json,
// through run_tests on testdata/samples/tsvitest: the tests of a test
// file with a broken assertion report 2 passed and 1 failed, the failure
// with the test's name, the test file's line and vitest's message (its
// JUnit report).
func TestRunTypeScript(t *testing.T) {
	testenv.Require(t, "nvim", "typescript-language-server")
	root := testenv.CopySample(t, "tsvitest")
	linkVitest(t, root)
	data, _ := os.ReadFile(filepath.Join(root, "src", "cart.test.ts"))
	write(t, root, "src/cart.test.ts", strings.Replace(string(data), "toBe(630)", "toBe(631)", 1))
	_, c := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	r, err := testrun.Tests(ctx, c, testrun.Request{File: "src/cart.test.ts"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 2 || r.Failed != 1 || len(r.Failures) != 1 || len(r.Runs) != 1 || r.Runs[0].Runner != "vitest" ||
		!slices.Equal(r.Selection.Targets, []string{"src/cart.test.ts"}) {
		t.Fatalf("the tests of a test file: %+v", r)
	}
	f := r.Failures[0]
	if f.Test != "cart > total with a discount" || f.File != "src/cart.test.ts" || f.Line != 15 ||
		!strings.Contains(f.Message, "expected 630 to be 631") || !strings.Contains(f.Output, "631") {
		t.Fatalf("failure %+v", f)
	}
	t.Logf("failure: %+v", f)
}
