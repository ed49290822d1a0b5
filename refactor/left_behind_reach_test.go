package refactor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// TestLeftBehindReachAskedOnDemand: a rename asks the server where the
// symbol is declared (and what it is there) only once its answer shows the
// scan could find something, so what that answer decides must still hold
// when it is asked afterwards: a top-level function renamed from a use in
// another package still lists its use in a file gopls's build excludes
// (which imports the declaring package, not the file the rename was asked
// in), and a function's local of the same name as identifiers in such a
// file lists nothing (the file names another t).
func TestLeftBehindReachAskedOnDemand(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	write := func(rel, text string) {
		t.Helper()
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("report/report_ignored.go", "//go:build ignore\n\npackage report\n\nimport \"example.com/shop/orders\"\n\nfunc run(o orders.Order) {\n\torders.Process(o)\n}\n")
	write("orders/tally_ignored.go", "//go:build ignore\n\npackage orders\n\nfunc tally(t *Total, l Line) {\n\tt.Add(l)\n}\n")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	leftBehind := func(plan refactor.RenamePlan) string {
		var got []string
		for _, lb := range plan.LeftBehind {
			got = append(got, lb.File+":"+strings.TrimSpace(lb.Context))
		}
		return strings.Join(got, "|")
	}

	// Asked at the call in main.go: declared in orders/orders.go.
	plan, err := refactor.Rename(ctx, client, refactor.RenameRequest{File: "main.go", Target: lsp.Target{Line: 27, Symbol: "Process"}, NewName: "Handle"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := leftBehind(plan), "report/report_ignored.go:orders.Process(o)"; got != want || plan.LeftBehindTotal != 1 {
		t.Errorf("Process: left behind %q (total %d), want %q", got, plan.LeftBehindTotal, want)
	}
	if !strings.Contains(strings.Join(plan.Files, " "), "orders/orders.go") {
		t.Errorf("Process: the rename does not change its declaration: %v", plan.Files)
	}

	// Process's local t: tally_ignored.go's t is its own parameter.
	plan, err = refactor.Rename(ctx, client, refactor.RenameRequest{File: "orders/orders.go", Target: lsp.Target{Line: 37, Symbol: "t"}, NewName: "acc"})
	if err != nil {
		t.Fatal(err)
	}
	if got := leftBehind(plan); got != "" || plan.LeftBehindTotal != 0 || plan.EditCount != 3 {
		t.Errorf("local t: left behind %q (total %d), %d edits, want none and 3 edits", got, plan.LeftBehindTotal, plan.EditCount)
	}
}
