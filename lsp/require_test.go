package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// requireCases: a function's definition and its caller in another file,
// per server; breaking the definition's name breaks the call.
var requireCases = []struct {
	name, sample, file, caller string
	needs                      []string
	defLine                    int
	def, broken, comment       string
	callerMessage              string
}{
	{name: "gopls", sample: "go", needs: []string{"gopls", "go"}, file: "orders/orders.go", caller: "main.go", defLine: 33,
		def: "func Process(o Order) (Total, error) {", broken: "func Proces(o Order) (Total, error) {", comment: "// Process is checked.", callerMessage: "Process"},
	{name: "pyright", sample: "python", needs: []string{"pyright-langserver"}, file: "shop/text.py", caller: "shop/app.py", defLine: 19,
		def: "def describe(label: str) -> str:", broken: "def describ(label: str) -> str:", comment: "# describe is checked.", callerMessage: "describe"},
	{name: "typescript", sample: "ts", needs: []string{"typescript-language-server"}, file: "src/text.ts", caller: "src/main.ts", defLine: 18,
		def: "export function describe(label: string): string {", broken: "export function describ(label: string): string {", comment: "// describe is checked.", callerMessage: "describe"},
}

// TestRequireNoNewErrors: apply_changeset with require: no_new_errors,
// with real gopls, pyright and typescript-language-server. A stored
// preview that renames a function's definition alone (its caller in
// another file breaks) is refused with PRECONDITION_FAILED listing the
// caller's error: nothing is applied (the buffer's text and modified flag
// are as before) and the preview is still there to apply without
// require. A clean change (a comment) applied at once with require is
// applied, and its apply's delta introduces nothing.
func TestRequireNoNewErrors(t *testing.T) {
	for _, tc := range requireCases {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Require(t, append([]string{"nvim"}, tc.needs...)...)
			s, c := testenv.Embedded(t, testenv.CopySample(t, tc.sample))
			v := newVerifyEnv(t, s, c)
			v.open(t, tc.caller, tc.file)
			wantLine(t, v, tc.file, tc.defLine, tc.def)

			r, err := v.e.EditLines(v.ctx, tc.file, []edit.LineEdit{{LineStart: tc.defLine, LineEnd: tc.defLine, NewText: tc.broken}}, edit.Options{Preview: true})
			if err != nil {
				t.Fatal(err)
			}
			applied, err := v.e.ApplyStoredWith(v.ctx, r.ChangesetID, edit.Options{Require: edit.RequireNoNewErrors})
			if err == nil {
				t.Fatalf("a breaking change was applied with require: %+v\ndelta %+v", applied, applied.Diagnostics)
			}
			e := apierr.As(err)
			if e.Code != apierr.PreconditionFailed || !strings.Contains(e.Message, "nothing was changed") || !strings.Contains(e.Message, tc.caller) {
				t.Fatalf("a breaking change with require: %v", err)
			}
			details, _ := e.Details.(map[string]any)
			d, _ := details["diagnostics_delta"].(*diagdelta.Delta)
			if d == nil {
				t.Fatalf("no diagnostics_delta in the details: %#v", e.Details)
			}
			got := hasItem(d.Introduced, tc.caller, tc.callerMessage)
			if got == nil || got.Severity != "error" {
				t.Fatalf("introduced %+v, want an error in %s", d.Introduced, tc.caller)
			}
			fixes := 0
			for _, it := range d.Introduced {
				fixes += len(it.Fixes)
			}
			t.Logf("refused: %s (%d fixes offered)", e.Message, fixes)
			if tc.name == "gopls" {
				// gopls's quick fix for the caller in the same package.
				if it := hasItem(d.Introduced, "orders/batch.go", "Process"); it == nil || len(it.Fixes) == 0 || it.Fixes[0].Server != "gopls" ||
					!strings.Contains(e.Message, "fix: "+it.Fixes[0].Title) {
					t.Fatalf("no quick fix listed for the caller in orders/batch.go: %+v\n%s", d.Introduced, e.Message)
				}
			}
			wantLine(t, v, tc.file, tc.defLine, tc.def)
			if modified(t, v, tc.file) {
				t.Fatalf("%s is modified after a refused apply", tc.file)
			}
			if _, err := v.e.DiffPage(r.ChangesetID, 0); err != nil {
				t.Fatalf("the refused preview is gone: %v", err)
			}

			// A clean change, applied at once with require.
			r, err = v.e.EditLines(v.ctx, tc.file, []edit.LineEdit{{LineStart: tc.defLine, LineEnd: tc.defLine, NewText: tc.comment + "\n" + tc.def}},
				edit.Options{Require: edit.RequireNoNewErrors})
			if err != nil {
				t.Fatalf("a clean change with require: %v", err)
			}
			if !r.Applied || r.Diagnostics == nil || r.Diagnostics.IntroducedCounts["error"] != 0 {
				t.Fatalf("a clean change: %+v", r)
			}
			wantLine(t, v, tc.file, tc.defLine, tc.comment)
		})
	}
}

// blindVerifier is a check that misses what the change breaks (as a
// server that reports late can make it): it answers the real check's
// delta without its introduced diagnostics.
type blindVerifier struct{ edit.Verifier }

func (b blindVerifier) CheckSteps(ctx context.Context, steps [][]diagdelta.CheckFile, fixes bool) ([]*diagdelta.Delta, error) {
	ds, err := b.Verifier.CheckSteps(ctx, steps, fixes)
	for _, d := range ds {
		d.Introduced, d.IntroducedCounts = nil, map[string]int{}
	}
	return ds, err
}

// TestRequireCheckMissed: when the check misses an error the apply then
// finds (its own delta, in the user's Neovim), the change is taken back
// and refused: nothing changed, the error listed.
func TestRequireCheckMissed(t *testing.T) {
	tc := requireCases[0]
	testenv.Require(t, append([]string{"nvim"}, tc.needs...)...)
	s, c := testenv.Embedded(t, testenv.CopySample(t, tc.sample))
	v := newVerifyEnv(t, s, c)
	v.open(t, tc.caller, tc.file)
	v.e.Verifier = blindVerifier{v.v}
	_, err := v.e.EditLines(v.ctx, tc.file, []edit.LineEdit{{LineStart: tc.defLine, LineEnd: tc.defLine, NewText: tc.broken}},
		edit.Options{Require: edit.RequireNoNewErrors, Save: true})
	e := apierr.As(err)
	if err == nil || e.Code != apierr.PreconditionFailed || !strings.Contains(e.Message, "taken back") || !strings.Contains(e.Message, tc.caller) {
		t.Fatalf("a change the check missed: %v", err)
	}
	wantLine(t, v, tc.file, tc.defLine, tc.def)
	if modified(t, v, tc.file) {
		t.Fatalf("%s is modified after the change was taken back", tc.file)
	}
	if data, _ := os.ReadFile(filepath.Join(s.Root().Dir(), tc.file)); strings.Contains(string(data), tc.broken) {
		t.Fatal("the refused change was saved")
	}
}

func modified(t *testing.T, v verifyEnv, file string) bool {
	t.Helper()
	var m bool
	if err := v.s.ExecLua(v.ctx, `return vim.bo[vim.fn.bufnr(...)].modified`, &m, v.s.Root().Dir()+"/"+file); err != nil {
		t.Fatal(err)
	}
	return m
}
