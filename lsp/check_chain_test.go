package lsp_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestCheckChain: several previews checked as one, in order, on the
// check's copy. Go (gopls): a clean comment, then the definition's rename
// in the same file (previewed against the same text: carried onto the
// first step's result), then the callers' fix: the second step is the
// first to introduce an error, the third and fourth resolve those of the
// callers they fix, the chain as a whole leaves only the test file's
// calls broken (open: gopls is asked about the test files it has open,
// the others the change can affect are counted in the note); in reverse
// order the fix comes first and breaks the callers' calls by itself.
// Nothing is applied.
func TestCheckChain(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	s, c := testenv.Embedded(t, testenv.CopySample(t, "go"))
	v := newVerifyEnv(t, s, c)
	v.open(t, "main.go", "orders/orders.go", "orders/orders_test.go")
	preview := func(file string, line int, text string) string {
		t.Helper()
		r, err := v.e.EditLines(v.ctx, file, []edit.LineEdit{{LineStart: line, LineEnd: line, NewText: text}}, edit.Options{Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.ChangesetID
	}
	comment := preview("orders/orders.go", 32, "// Process validates o and computes its total (checked).")
	rename := preview("orders/orders.go", 33, "func Proces(o Order) (Total, error) {")
	wantLine(t, v, "main.go", 27, "\ttotal, err := orders.Process(order)")
	wantLine(t, v, "orders/batch.go", 7, "\t\tt, err := Process(o)")
	fixMain := preview("main.go", 27, "\ttotal, err := orders.Proces(order)")
	fixBatch := preview("orders/batch.go", 7, "\t\tt, err := Proces(o)")

	r, err := v.e.CheckChain(v.ctx, []string{comment, rename, fixMain, fixBatch})
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstError != 2 || len(r.Steps) != 4 {
		t.Fatalf("first_error %d, steps %+v", r.FirstError, r.Steps)
	}
	if len(r.Steps[0].Introduced) != 0 || hasItem(r.Steps[1].Introduced, "main.go", "Process") == nil || hasItem(r.Steps[1].Introduced, "orders/batch.go", "Process") == nil {
		t.Fatalf("steps: %+v", r.Steps)
	}
	wantComplete(t, r.Delta)
	// The chain fixed main.go and batch.go; orders_test.go, which the
	// chain leaves alone, still calls Process.
	for _, it := range r.Delta.Introduced {
		if it.File != "orders/orders_test.go" {
			t.Fatalf("chain delta introduces %+v", it)
		}
	}
	if hasItem(r.Delta.Introduced, "orders/orders_test.go", "Process") == nil || !strings.HasPrefix(r.Verdict, "step 2 (") {
		t.Fatalf("chain delta %+v, verdict %q", r.Delta, r.Verdict)
	}
	t.Logf("verdict: %s", r.Verdict)

	// The fixes first: the callers call what does not exist yet.
	r, err = v.e.CheckChain(v.ctx, []string{fixMain, rename})
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstError != 1 || hasItem(r.Steps[0].Introduced, "main.go", "Proces") == nil {
		t.Fatalf("fix first: %+v", r)
	}
	// batch.go still calls Process: the chain's delta names it.
	if hasItem(r.Delta.Introduced, "orders/batch.go", "Process") == nil {
		t.Fatalf("chain delta %+v", r.Delta)
	}
	wantLine(t, v, "orders/orders.go", 33, "func Process(o Order) (Total, error) {")
	if modified(t, v, "orders/orders.go") || modified(t, v, "main.go") {
		t.Fatal("a chain check modified a buffer")
	}
	// Two steps changing the same line do not chain.
	again := preview("orders/orders.go", 33, "func Processed(o Order) (Total, error) {")
	if _, err := v.e.CheckChain(v.ctx, []string{rename, again}); apierr.As(err).Code != apierr.Conflict {
		t.Fatalf("overlapping steps: %v, want CONFLICT", err)
	}
}

// TestCheckChainPythonTypeScript: with pyright and
// typescript-language-server, a clean comment (on the blank line above
// the definition) then the definition's rename in the same file (the two
// previews joined): the second step is the first to introduce an error, in
// the caller; nothing is applied. (Two previews changing the same line do
// not join: CONFLICT.)
func TestCheckChainPythonTypeScript(t *testing.T) {
	for _, tc := range requireCases[1:] {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Require(t, append([]string{"nvim"}, tc.needs...)...)
			s, c := testenv.Embedded(t, testenv.CopySample(t, tc.sample))
			v := newVerifyEnv(t, s, c)
			v.open(t, tc.caller, tc.file)
			preview := func(line int, text string) string {
				t.Helper()
				r, err := v.e.EditLines(v.ctx, tc.file, []edit.LineEdit{{LineStart: line, LineEnd: line, NewText: text}}, edit.Options{Preview: true})
				if err != nil {
					t.Fatal(err)
				}
				return r.ChangesetID
			}
			wantLine(t, v, tc.file, tc.defLine-1, "")
			comment := preview(tc.defLine-1, tc.comment)
			rename := preview(tc.defLine, tc.broken)
			sameLine := preview(tc.defLine, tc.comment+"\n"+tc.def)
			r, err := v.e.CheckChain(v.ctx, []string{comment, rename})
			if err != nil {
				t.Fatal(err)
			}
			if r.FirstError != 2 || len(r.Steps[0].Introduced) != 0 || hasItem(r.Steps[1].Introduced, tc.caller, tc.callerMessage) == nil {
				t.Fatalf("chain: first_error %d, steps %+v", r.FirstError, r.Steps)
			}
			wantComplete(t, r.Delta)
			if _, err := v.e.CheckChain(v.ctx, []string{sameLine, rename}); apierr.As(err).Code != apierr.Conflict {
				t.Fatalf("two previews of the same line: %v, want CONFLICT", err)
			}
			wantLine(t, v, tc.file, tc.defLine, tc.def)
			if modified(t, v, tc.file) {
				t.Fatal("a chain check modified the buffer")
			}
		})
	}
}
