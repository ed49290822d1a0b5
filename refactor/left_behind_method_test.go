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

// TestLeftBehindGoMethod: gopls names a method after its receiver
// ("(*Total).Add"), and a rename of it must still look for the uses gopls
// does not see (a file its build excludes), as a member: the method
// called after a ".", not a bare function of the same name.
func TestLeftBehindGoMethod(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	ignored := "//go:build ignore\n\npackage orders\n\nfunc tally(t *Total, l Line) {\n\tt.Add(l)\n\tAdd(l)\n}\n\nfunc Add(Line) {}\n"
	if err := os.WriteFile(filepath.Join(root, "orders", "tally_ignored.go"), []byte(ignored), 0o644); err != nil {
		t.Fatal(err)
	}
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	plan, err := refactor.Rename(ctx, client, refactor.RenameRequest{File: "orders/orders.go", Target: lsp.Target{Line: 45, Symbol: "Add"}, NewName: "Append"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, lb := range plan.LeftBehind {
		got = append(got, lb.File+":"+strings.TrimSpace(lb.Context))
	}
	if want := "orders/tally_ignored.go:t.Add(l)"; strings.Join(got, "|") != want || plan.LeftBehindTotal != 1 {
		t.Fatalf("left behind %q (total %d), want %q", got, plan.LeftBehindTotal, want)
	}
}
