package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/refactor"
)

// verifyEnv is a session with its changeset engine wired to a verifier,
// as tools.NewEnv wires them.
type verifyEnv struct {
	ctx context.Context
	s   *nvim.Session
	c   *lsp.Client
	e   *edit.Engine
	v   *lsp.Verifier
}

func newVerifyEnv(t testing.TB, s *nvim.Session, c *lsp.Client) verifyEnv {
	t.Helper()
	v := lsp.NewVerifier(c)
	t.Cleanup(v.Close)
	e := edit.NewEngine(s)
	e.Verifier = v
	return verifyEnv{ctx: testenv.Context(t), s: s, c: c, e: e, v: v}
}

func (v verifyEnv) open(t testing.TB, files ...string) {
	t.Helper()
	for _, f := range files {
		if _, err := v.c.Open(v.ctx, f); err != nil {
			t.Fatal(err)
		}
	}
}

// editLine replaces one line (1-based) and returns the result's delta.
func (v verifyEnv) editLine(t *testing.T, file string, line int, text string, opts edit.Options) (edit.Result, *diagdelta.Delta) {
	t.Helper()
	r, err := v.e.EditLines(v.ctx, file, []edit.LineEdit{{LineStart: line, LineEnd: line, NewText: text}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.Diagnostics == nil {
		t.Fatalf("no diagnostics delta in %+v", r)
	}
	return r, r.Diagnostics
}

// rename plans a rename, applies it and returns the result's delta.
func (v verifyEnv) rename(t *testing.T, req refactor.RenameRequest) (edit.Result, *diagdelta.Delta) {
	t.Helper()
	plan, err := refactor.Rename(v.ctx, v.c, req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.e.Submit(v.ctx, plan.Changeset, edit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Diagnostics == nil {
		t.Fatalf("no diagnostics delta in %+v", r)
	}
	return r, r.Diagnostics
}

func hasItem(items []diagdelta.Item, file, msg string) *diagdelta.Item {
	for i := range items {
		if items[i].File == file && strings.Contains(items[i].Message, msg) {
			return &items[i]
		}
	}
	return nil
}

func wantComplete(t *testing.T, d *diagdelta.Delta) {
	t.Helper()
	if !d.Complete {
		t.Fatalf("delta incomplete: %s (%+v)", d.Incomplete, d)
	}
	if strings.Contains(d.Verdict, "no new errors") && len(d.Introduced) > 0 {
		t.Fatalf("verdict %q with introduced %+v", d.Verdict, d.Introduced)
	}
}

func wantLine(t *testing.T, v verifyEnv, file string, line int, want string) {
	t.Helper()
	got, err := v.c.Lines(v.ctx, map[string][]int{v.s.Root().Dir() + "/" + file: {line - 1}})
	if err != nil {
		t.Fatal(err)
	}
	if g := got[v.s.Root().Dir()+"/"+file][line-1]; g != want {
		t.Fatalf("%s:%d is %q, want %q", file, line, g, want)
	}
}

// TestVerifiedEditsGo: the diagnostics delta of applies with real gopls.
// A rename over 21 files introduces nothing; renaming a function's
// declaration alone introduces "undefined" errors in its callers, in the
// same package and in main.go (a file whose own text does not change: the
// wait for it is gopls's diagnosis progress, not a publish, and right
// after the apply get_diagnostics on main.go sees the new error); undoing
// it resolves them; lines inserted above an error move it without
// counting it.
func TestVerifiedEditsGo(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	s, c := testenv.Embedded(t, testenv.CopySample(t, "go"))
	testenv.TraceLSP(t, s)
	v := newVerifyEnv(t, s, c)
	v.open(t, "main.go", "orders/orders.go")

	t.Run("rename introduces nothing", func(t *testing.T) {
		r, d := v.rename(t, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 12, Symbol: "NewWidget"}, NewName: "MakeWidget"})
		wantComplete(t, d)
		if len(d.Introduced) != 0 || !strings.HasPrefix(d.Verdict, "no new errors (gopls, ") {
			t.Fatalf("rename: verdict %q, introduced %+v", d.Verdict, d.Introduced)
		}
		if !strings.Contains(r.Summary(), "Diagnostics: no new errors (gopls") {
			t.Fatalf("summary lacks the verdict:\n%s", r.Summary())
		}
	})

	t.Run("edit introduces errors in callers", func(t *testing.T) {
		_, d := v.editLine(t, "orders/orders.go", 33, "func Proces(o Order) (Total, error) {", edit.Options{Save: true})
		wantComplete(t, d)
		inMain := hasItem(d.Introduced, "main.go", "Process")
		inBatch := hasItem(d.Introduced, "orders/batch.go", "Process")
		if inMain == nil || inBatch == nil {
			t.Fatalf("introduced %+v, want errors in main.go and orders/batch.go", d.Introduced)
		}
		if inMain.Line != 27 || !strings.Contains(inMain.Text, "orders.Process(order)") || inMain.Severity != "error" {
			t.Fatalf("main.go's error: %+v", *inMain)
		}
		if !strings.HasPrefix(d.Verdict, "introduces ") || !strings.Contains(d.Verdict, "main.go (") {
			t.Fatalf("verdict %q", d.Verdict)
		}
		// get_diagnostics on the dependant right away: current, not the
		// answer for the old orders.go.
		rep, err := c.DiagnosticsFor(v.ctx, lsp.DiagnosticsQuery{File: "main.go"})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, x := range rep.Diagnostics {
			found = found || strings.Contains(x.Message, "Process")
		}
		if !found || !*rep.DiagnosticsComplete {
			t.Fatalf("get_diagnostics main.go after the apply: %+v", rep)
		}
		// The quick fix gopls offers for the caller in the package, with
		// the apply_code_action arguments that apply it; get_diagnostics
		// include_fixes lists the same.
		if len(inBatch.Fixes) == 0 {
			t.Fatalf("no quick fix for %+v", *inBatch)
		}
		fix := inBatch.Fixes[0]
		if fix.ApplyCodeAction["file"] != "orders/batch.go" || fix.ApplyCodeAction["line"] != 7 || fix.ApplyCodeAction["title"] != fix.Title || fix.Server != "gopls" {
			t.Fatalf("fix %+v", fix)
		}
		withFixes, err := c.DiagnosticsFor(v.ctx, lsp.DiagnosticsQuery{File: "orders/batch.go", IncludeFixes: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(withFixes.Diagnostics) == 0 || len(withFixes.Diagnostics[0].Fixes) == 0 || withFixes.Diagnostics[0].Fixes[0].Title != fix.Title {
			t.Fatalf("get_diagnostics include_fixes: %+v", withFixes.Diagnostics)
		}
		t.Logf("verdict: %s; fixes: %+v", d.Verdict, inBatch.Fixes)
	})

	t.Run("edit resolves them", func(t *testing.T) {
		_, d := v.editLine(t, "orders/orders.go", 33, "func Process(o Order) (Total, error) {", edit.Options{})
		wantComplete(t, d)
		if len(d.Introduced) != 0 || hasItem(d.Resolved, "main.go", "Process") == nil || hasItem(d.Resolved, "orders/batch.go", "Process") == nil {
			t.Fatalf("introduced %+v, resolved %+v", d.Introduced, d.Resolved)
		}
		if !strings.Contains(d.Verdict, "resolves ") || !strings.HasPrefix(d.Verdict, "no new errors") {
			t.Fatalf("verdict %q", d.Verdict)
		}
	})

	t.Run("moved diagnostic not counted", func(t *testing.T) {
		_, d := v.editLine(t, "orders/format.go", 10, `	return fmt.Sprintf("%s for %s: %d items, %d cents", Normalize(o.ID), name, t.Items, t.Amount) + undefinedThing`, edit.Options{})
		wantComplete(t, d)
		if hasItem(d.Introduced, "orders/format.go", "undefinedThing") == nil {
			t.Fatalf("introduced %+v", d.Introduced)
		}
		r, err := v.e.EditLines(v.ctx, "orders/format.go", []edit.LineEdit{{LineStart: 2, LineEnd: 1, NewText: "// one\n// two"}}, edit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d = r.Diagnostics
		wantComplete(t, d)
		if len(d.Introduced) != 0 || len(d.Resolved) != 0 {
			t.Fatalf("a moved diagnostic counted: introduced %+v resolved %+v", d.Introduced, d.Resolved)
		}
		rep, err := c.DiagnosticsFor(v.ctx, lsp.DiagnosticsQuery{File: "orders/format.go"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Diagnostics) == 0 || rep.Diagnostics[0].Line != 12 {
			t.Fatalf("the error did not move to line 12: %+v", rep.Diagnostics)
		}
	})
}

// TestVerifiedMixedServers: a changeset touching a Go file and a JSON
// file: gopls (silent: it reports no end of its diagnosis runs) and the
// JSON server are not asked the same way, so the pulled delta does not
// apply; gopls is asked about the change's scope all the same (the
// answers handled as its publishes) and the JSON server's publish is
// waited for. Renaming the type Line introduces errors in main.go (open)
// and refactor/pricing.go (another package, not open: only gopls's full
// diagnosis, a second after the change, would publish it): both named.
func TestVerifiedMixedServers(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go", "vscode-json-language-server")
	root := testenv.CopySample(t, "go")
	if err := os.WriteFile(filepath.Join(root, "settings.json"), []byte("{\"name\": \"x\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, c := testenv.Embedded(t, root)
	v := newVerifyEnv(t, s, c)
	v.open(t, "main.go", "orders/orders.go", "settings.json")
	orders, err := os.ReadFile(filepath.Join(root, "orders", "orders.go"))
	if err != nil {
		t.Fatal(err)
	}
	cs := preview.Changeset{Files: []preview.FileChange{
		{Kind: preview.OpEdit, Path: "orders/orders.go", Old: preview.ParseDocument(string(orders)),
			Edits: []preview.TextEdit{{StartLine: 9, StartCol: 5, EndLine: 9, EndCol: 9, NewText: "Item"}}},
		{Kind: preview.OpEdit, Path: "settings.json", Old: preview.ParseDocument("{\"name\": \"x\"}\n"),
			Edits: []preview.TextEdit{{StartLine: 0, StartCol: 10, EndLine: 0, EndCol: 11, NewText: "y"}}},
	}}
	r, err := v.e.Submit(v.ctx, cs, edit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Diagnostics
	wantComplete(t, d)
	if hasItem(d.Introduced, "main.go", "Line") == nil || hasItem(d.Introduced, "refactor/pricing.go", "Line") == nil {
		t.Fatalf("introduced %+v, want the users' errors (files checked %v, waited on %s)", d.Introduced, d.FilesChecked, d.WaitedOn)
	}
	if strings.HasPrefix(d.WaitedOn, "pull:") || !strings.Contains(d.WaitedOn, "vscode-json-language-server") {
		t.Fatalf("waited on %q", d.WaitedOn)
	}
	wantLine(t, v, "settings.json", 1, "{\"name\": \"y\"}")
}
