package refactor_test

// Refactorings with real gopls through Neovim on a copy of the Go sample:
// rename across 22 files (one changeset, one undo step per buffer, undo
// restores every byte), extract variable and function with a caller-given
// name, organize imports, code actions (resolve, a command whose applyEdit
// is captured, duplicate titles, unknown kinds, flagged commands), and the
// bad inputs. After the changes are saved, `go build ./...` passes.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

func TestRefactorGo(t *testing.T) {
	e := newRefactorEnv(t, "go", "gopls", "go", "git")
	// Two calls of an undefined function: gopls offers "Create function
	// missing" once per diagnostic, two actions with the same title.
	e.write("refactor/dup.go", "package refactor\n\nfunc dup() {\n\tmissing(1)\n\tmissing(2)\n}\n")
	e.start()
	ctx := testenv.Context(t)
	c := e.client

	t.Run("rename bad input changes nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("widgets/widget.go", "refactor/pricing.go")
		_, err := refactor.Rename(ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 99, Symbol: "Widget"}, NewName: "Gadget"})
		wantRefactorCode(t, "stale line", err, apierr.InvalidParameter, "line 99")
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 7, Column: refInt(60)}, NewName: "Gadget"})
		wantRefactorCode(t, "column past the end", err, apierr.InvalidParameter, "column 60")
		for _, bad := range []string{"1Gadget", "Gad-get", "func", "Gad get", ""} {
			_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 7, Symbol: "Widget"}, NewName: bad})
			wantRefactorCode(t, "new name "+bad, err, apierr.InvalidParameter, "not a valid Go identifier")
		}
		// A comment: prepareRename answers null.
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 1, Column: refInt(4)}, NewName: "Gadget"})
		wantRefactorCode(t, "comment", err, apierr.PreconditionFailed, "gopls", "cannot be renamed")
		// The standard library: gopls would edit GOROOT.
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "refactor/pricing.go", Target: lsp.Target{Line: 23, Symbol: "Sprintf"}, NewName: "Format"})
		wantRefactorCode(t, "stdlib", err, apierr.PreconditionFailed, "outside the workspace")
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 7, Symbol: "Widget"}, NewName: "Widget"})
		wantRefactorCode(t, "same name", err, apierr.InvalidParameter, "already named")
		e.unchanged(snap)
	})

	t.Run("code actions: list, resolve, errors", func(t *testing.T) {
		e := e.with(t)
		at := func(line, col int) lsp.RangeSpec {
			return lsp.RangeSpec{Start: lsp.Target{Line: line, Column: refInt(col)}}
		}
		snap := e.snapshot("refactor/dup.go", "refactor/pricing.go")
		plan, err := refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "refactor/dup.go", Range: at(4, 1)})
		if err != nil {
			t.Fatal(err)
		}
		var creates []int
		for _, a := range plan.Actions {
			if a.Title == "Create function missing" {
				creates = append(creates, a.Index)
				if a.Kind != "quickfix" || !a.NeedsResolve {
					t.Errorf("action %+v", a)
				}
			}
			if a.Kind == "gopls.doc.features" && a.NotRunnable == "" {
				t.Errorf("%q is not flagged", a.Title)
			}
		}
		if plan.Diagnostics < 1 {
			t.Errorf("no diagnostics passed in the context")
		}
		wide := lsp.RangeSpec{Start: lsp.Target{Line: 4, Column: refInt(1)}, EndLine: 5, EndColumn: refInt(11)}
		_, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "refactor/dup.go", Range: wide, Pick: refactor.ActionPick{Title: "Create function missing"}})
		wantRefactorCode(t, "duplicate titles", err, apierr.Ambiguous, "indexes")
		_, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "refactor/dup.go", Range: at(4, 1), Pick: refactor.ActionPick{Kind: "refactor.rewrite.nothing"}})
		wantRefactorCode(t, "unknown kind", err, apierr.Unsupported, "kinds offered", "quickfix")
		_, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "refactor/dup.go", Range: at(9, 0), Pick: refactor.ActionPick{Kind: "quickfix"}})
		wantRefactorCode(t, "stale position", err, apierr.InvalidParameter, "line 9")
		_, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "refactor/dup.go", Range: at(4, 1), Pick: refactor.ActionPick{Title: "Browse gopls feature documentation"}})
		wantRefactorCode(t, "flagged command", err, apierr.Unsupported, "gopls.client_open_url")
		_, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "refactor/dup.go", Range: at(4, 1), Pick: refactor.ActionPick{Index: refInt(99)}})
		wantRefactorCode(t, "index", err, apierr.InvalidParameter)
		e.unchanged(snap)

		// The duplicates picked by index: resolved lazily, then applied.
		plan, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "refactor/dup.go", Range: wide, Pick: refactor.ActionPick{Title: "Create function missing", Index: refInt(creates[0])}})
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Outcome.Resolved {
			t.Errorf("outcome %+v, want resolved", plan.Outcome)
		}
		e.submit("go_code_action_create_function", plan.Changeset, true)
		e.run("go", "build", "./...")
	})

	t.Run("rename Widget across 22 files, undo restores every byte", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.Rename(ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 7, Symbol: "Widget"}, NewName: "Gadget"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.OldName != "Widget" || plan.Server != "gopls" || len(plan.Files) != 22 || plan.EditCount < 25 {
			t.Fatalf("plan: old %q server %s files %d edits %d", plan.OldName, plan.Server, len(plan.Files), plan.EditCount)
		}
		before := map[string]string{}
		for _, f := range plan.Files {
			before[f] = e.disk(f)
		}
		res := e.submitNoSave("go_rename_widget", plan.Changeset)
		if len(res.Files) != 22 || res.EditCount != plan.EditCount {
			t.Fatalf("applied %d files, %d edits", len(res.Files), res.EditCount)
		}
		for _, f := range plan.Files {
			text, modified := e.buffer(f)
			if !modified || text == before[f] || !strings.Contains(text, "Gadget") {
				t.Fatalf("%s not renamed in its buffer (modified=%v)", f, modified)
			}
		}
		// One undo step per buffer brings each back byte for byte.
		for _, f := range plan.Files {
			if _, err := e.engine.Undo(ctx, f); err != nil {
				t.Fatalf("undo %s: %v", f, err)
			}
			text, modified := e.buffer(f)
			if text != before[f] || modified {
				t.Errorf("%s after one undo: modified=%v, differs from the original: %v", f, modified, text != before[f])
			}
		}
		// Again, saved this time: the module still builds.
		plan, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 7, Symbol: "Widget"}, NewName: "Gadget"})
		if err != nil {
			t.Fatal(err)
		}
		saved := e.submit("go_rename_widget", plan.Changeset, true)
		for _, f := range saved.Files {
			if !f.Saved {
				t.Errorf("%s not saved: %s", f.Path, f.Note)
			}
		}
		if !strings.Contains(e.disk("main.go"), "[]*widgets.Gadget{") {
			t.Errorf("main.go on disk not renamed")
		}
		e.run("go", "build", "./...")
	})

	t.Run("multibyte lines: rename and extract", func(t *testing.T) {
		e := e.with(t)
		// name on line 15 follows é, CJK and an emoji (char 29, UTF-16 30, byte 37).
		plan, err := refactor.Rename(ctx, c, refactor.RenameRequest{File: "text/unicode.go", Target: lsp.Target{Line: 14, Symbol: "name"}, NewName: "who"})
		if err != nil {
			t.Fatal(err)
		}
		e.submit("go_rename_multibyte", plan.Changeset, true)
		if !strings.Contains(e.disk("text/unicode.go"), "\tgreeting := \"héllo 世界 🎉 \" + who\n") {
			t.Errorf("unicode.go:\n%s", e.disk("text/unicode.go"))
		}
		// utf8Len(label) after "naïve café 🙂 世界" (combining mark, emoji, CJK): chars 40-54.
		ex, err := refactor.Extract(ctx, c, refactor.ExtractRequest{File: "text/unicode.go", Kind: refactor.ExtractVariable,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 21, Column: refInt(40)}, EndLine: 21, EndColumn: refInt(54)}, Name: "labelWidth"})
		if err != nil {
			t.Fatal(err)
		}
		e.submit("go_extract_variable_multibyte", ex.Changeset, true)
		if text := e.disk("text/unicode.go"); !strings.Contains(text, "\tlabelWidth := utf8Len(label)\n\twidth := utf8Len(\"naïve caf") || !strings.Contains(text, "🙂 世界\") + labelWidth\n") {
			t.Errorf("unicode.go:\n%s", e.disk("text/unicode.go"))
		}
		e.run("go", "build", "./...")
	})

	t.Run("extract bad input", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("refactor/pricing.go")
		_, err := refactor.Extract(ctx, c, refactor.ExtractRequest{File: "refactor/pricing.go", Kind: refactor.ExtractFunction,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 13}, EndLine: 500}})
		wantRefactorCode(t, "past the end", err, apierr.InvalidParameter, "line 500")
		_, err = refactor.Extract(ctx, c, refactor.ExtractRequest{File: "refactor/pricing.go", Kind: refactor.ExtractVariable,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 13}, EndLine: 14}, Name: "x y"})
		wantRefactorCode(t, "bad name", err, apierr.InvalidParameter)
		_, err = refactor.Extract(ctx, c, refactor.ExtractRequest{File: "refactor/pricing.go", Kind: refactor.ExtractVariable,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 13}, EndLine: 12}})
		wantRefactorCode(t, "inverted", err, apierr.InvalidParameter, "ends before it starts")
		// A name the file already uses clashes.
		_, err = refactor.Extract(ctx, c, refactor.ExtractRequest{File: "refactor/pricing.go", Kind: refactor.ExtractVariable,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 15, Column: refInt(14)}, EndLine: 15, EndColumn: refInt(33)}, Name: "cents"})
		wantRefactorCode(t, "clash", err, apierr.Conflict, "cents")
		e.unchanged(snap)
	})

	t.Run("extract variable with a name", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.Extract(ctx, c, refactor.ExtractRequest{File: "refactor/pricing.go", Kind: refactor.ExtractVariable,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 15, Column: refInt(14)}, EndLine: 15, EndColumn: refInt(33)}, Name: "lineTotal"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.ServerName != "newVar" || plan.Name != "lineTotal" || plan.Renamed != 2 || plan.Kind != "refactor.extract.variable" {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("go_extract_variable", plan.Changeset, true)
		if !strings.Contains(e.disk("refactor/pricing.go"), "\t\tlineTotal := l.Qty * l.UnitPrice\n\t\tsubtotal += lineTotal\n") {
			t.Errorf("pricing.go:\n%s", e.disk("refactor/pricing.go"))
		}
		e.run("go", "build", "./...")
	})

	t.Run("extract function with a name", func(t *testing.T) {
		e := e.with(t)
		// Lines 13-22 now (the extracted variable added a line).
		plan, err := refactor.Extract(ctx, c, refactor.ExtractRequest{File: "refactor/pricing.go", Kind: refactor.ExtractFunction,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 13}, EndLine: 22}, Name: "totals"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.ServerName != "newFunction" || plan.Renamed != 2 || plan.Server != "gopls" {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("go_extract_function", plan.Changeset, true)
		text := e.disk("refactor/pricing.go")
		if !strings.Contains(text, "subtotal, tax, discount := totals(lines, taxPercent)") || !strings.Contains(text, "\nfunc totals(lines []orders.Line, taxPercent int) (int, int, int) {") {
			t.Errorf("pricing.go:\n%s", text)
		}
		e.run("go", "build", "./...")
	})

	t.Run("organize imports", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.OrganizeImports(ctx, c, "orders/format.go")
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Changed || len(plan.Removed) != 0 || len(plan.Added) != 0 || plan.Server != "gopls" {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("go_organize_imports", plan.Changeset, true)
		if !strings.Contains(e.disk("orders/format.go"), "import (\n\t\"fmt\"\n\t\"strings\"\n)\n") {
			t.Errorf("format.go:\n%s", e.disk("orders/format.go"))
		}
		e.run("go", "build", "./...")
		// Again: nothing left to do.
		plan, err = refactor.OrganizeImports(ctx, c, "orders/format.go")
		if err != nil {
			t.Fatal(err)
		}
		if plan.Changed || plan.Note == "" {
			t.Errorf("second organize: %+v", plan)
		}
	})

	t.Run("code action with a command: applyEdit captured, not applied", func(t *testing.T) {
		e := e.with(t)
		test := filepath.Join(e.root, "refactor", "pricing_test.go")
		plan, err := refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "refactor/pricing.go",
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 11, Symbol: "Invoice"}}, Pick: refactor.ActionPick{Kind: "source.addTest"}})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Outcome.RanCommand != "gopls.add_test" || plan.Outcome.Captured != 1 {
			t.Fatalf("outcome %+v", plan.Outcome)
		}
		if _, err := os.Stat(test); !os.IsNotExist(err) {
			t.Fatalf("the command's edit reached the disk before the changeset was applied: %v", err)
		}
		var bufs int
		if err := e.s.ExecLua(ctx, "return vim.fn.bufexists(...)", &bufs, test); err != nil || bufs != 0 {
			t.Fatalf("the command's edit reached Neovim before the changeset was applied (bufexists=%d, %v)", bufs, err)
		}
		res := e.submit("go_code_action_add_test", plan.Changeset, true)
		if len(res.Files) != 1 || res.Files[0].Op != "create" {
			t.Fatalf("result %+v", res)
		}
		if !strings.Contains(e.disk("refactor/pricing_test.go"), "func TestInvoice(t *testing.T)") {
			t.Errorf("pricing_test.go:\n%s", e.disk("refactor/pricing_test.go"))
		}
		e.run("go", "vet", "./refactor")
	})
}
