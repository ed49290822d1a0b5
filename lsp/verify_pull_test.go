package lsp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestVerifiedPullImporters: a user's gopls without nvbridge's settings
// (silent: the delta asks it, pull) and only the changed file open. A
// change that breaks an importer that is not open (main.go) names its
// error: the pull asks about the files of every workspace package that
// imports the changed one (main.go, refactor/pricing.go), not about the
// others (payment). The package's test file, not open, is not asked about
// and the delta says so; open, it is asked about and its error named.
// Undoing the change resolves the errors, and a comment's delta is
// complete and empty (its baseline is the last answer: nothing changed
// since).
func TestVerifiedPullImporters(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	addr := testenv.Listening(t, root, testenv.UserLSPConfig(t, "user-gopls")...)
	s, c := testenv.Attached(t, addr, root)
	v := newVerifyEnv(t, s, c)
	v.open(t, "orders/orders.go")

	_, d := v.editLine(t, "orders/orders.go", 33, "func Proces(o Order) (Total, error) {", edit.Options{})
	wantComplete(t, d)
	if !strings.HasPrefix(d.WaitedOn, "pull: user-gopls") {
		t.Fatalf("waited on %q, want a pull", d.WaitedOn)
	}
	inMain := hasItem(d.Introduced, "main.go", "Process")
	if inMain == nil || inMain.Line != 27 || inMain.Severity != "error" || hasItem(d.Introduced, "orders/batch.go", "Process") == nil {
		t.Fatalf("introduced %+v, want the errors of main.go (not open) and orders/batch.go (files checked %v)", d.Introduced, d.FilesChecked)
	}
	for _, f := range []string{"main.go", "refactor/pricing.go", "orders/batch.go", "orders/format.go"} {
		if !slices.Contains(d.FilesChecked, f) {
			t.Fatalf("%s not checked: %v", f, d.FilesChecked)
		}
	}
	for _, f := range d.FilesChecked {
		if strings.HasPrefix(f, "payment/") || strings.HasSuffix(f, "_test.go") {
			t.Fatalf("%s checked (imports nothing changed, or a test file not open): %v", f, d.FilesChecked)
		}
	}
	if !strings.Contains(d.Note, "1 test file(s) (_test.go) the change can affect were not checked") {
		t.Fatalf("note %q does not say orders_test.go was not checked", d.Note)
	}

	_, d = v.editLine(t, "orders/orders.go", 33, "func Process(o Order) (Total, error) {", edit.Options{})
	wantComplete(t, d)
	if len(d.Introduced) != 0 || hasItem(d.Resolved, "main.go", "Process") == nil {
		t.Fatalf("undo: introduced %+v, resolved %+v", d.Introduced, d.Resolved)
	}
	_, d = v.editLine(t, "orders/orders.go", 9, "// Line is one item of an order (a comment changes no diagnostic).", edit.Options{})
	wantComplete(t, d)
	if len(d.Introduced)+len(d.Resolved) != 0 {
		t.Fatalf("a comment: %+v", d)
	}

	v.open(t, "orders/orders_test.go")
	_, d = v.editLine(t, "orders/orders.go", 33, "func Proces(o Order) (Total, error) {", edit.Options{})
	wantComplete(t, d)
	if hasItem(d.Introduced, "orders/orders_test.go", "Process") == nil || hasItem(d.Introduced, "main.go", "Process") == nil {
		t.Fatalf("introduced %+v, want the open test file's error and main.go's", d.Introduced)
	}
	if strings.Contains(d.Note, "test file") {
		t.Fatalf("note %q: the test file is open, and checked", d.Note)
	}
}
