package refactor_test

// Refactorings with real typescript-language-server and pyright through
// Neovim on copies of the TypeScript and Python samples. After the changes
// are saved, `tsc --noEmit -p .` passes and pyright reports no new errors.

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

func TestRefactorTypeScript(t *testing.T) {
	e := newRefactorEnv(t, "ts", "typescript-language-server", "tsc", "git")
	e.start()
	ctx := testenv.Context(t)
	c := e.client
	e.run("tsc", "--noEmit", "-p", ".")

	t.Run("rename bad input changes nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("src/orders.ts", "src/extract.ts")
		_, err := refactor.Rename(ctx, c, refactor.RenameRequest{File: "src/orders.ts", Target: lsp.Target{Line: 25, Symbol: "process"}, NewName: "let"})
		wantRefactorCode(t, "reserved word", err, apierr.InvalidParameter, "TypeScript")
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "src/orders.ts", Target: lsp.Target{Line: 25, Symbol: "process"}, NewName: "process-order"})
		wantRefactorCode(t, "dash", err, apierr.InvalidParameter)
		// The standard library (Math.floor): tsserver refuses.
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "src/extract.ts", Target: lsp.Target{Line: 11, Symbol: "floor"}, NewName: "floorOf"})
		wantRefactorCode(t, "stdlib", err, apierr.PreconditionFailed, "typescript-language-server")
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "src/orders.ts", Target: lsp.Target{Line: 250, Symbol: "process"}, NewName: "processOrder"})
		wantRefactorCode(t, "stale", err, apierr.InvalidParameter, "line 250")
		e.unchanged(snap)
	})

	t.Run("rename across files", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.Rename(ctx, c, refactor.RenameRequest{File: "src/orders.ts", Target: lsp.Target{Line: 25, Symbol: "process"}, NewName: "processOrder"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.OldName != "process" || len(plan.Files) != 3 || plan.EditCount != 6 {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("ts_rename_process", plan.Changeset, true)
		e.run("tsc", "--noEmit", "-p", ".")
	})

	t.Run("extract variable with a name", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.Extract(ctx, c, refactor.ExtractRequest{File: "src/extract.ts", Kind: refactor.ExtractVariable,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 8, Column: refInt(16)}, EndLine: 8, EndColumn: refInt(41)}, Name: "lineTotal"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.ServerName != "newLocal" || plan.Renamed != 2 || plan.Kind != "refactor.extract.constant" {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("ts_extract_variable", plan.Changeset, true)
		e.run("tsc", "--noEmit", "-p", ".")
	})

	t.Run("extract function with a name", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.Extract(ctx, c, refactor.ExtractRequest{File: "src/extract.ts", Kind: refactor.ExtractFunction,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 6}, EndLine: 12}, Name: "computeTotals"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.ServerName != "newFunction" || plan.Renamed != 2 || plan.Action != "Extract to function in module scope" || len(plan.Alternatives) != 1 {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("ts_extract_function", plan.Changeset, true)
		text := e.disk("src/extract.ts")
		if !strings.Contains(text, "= computeTotals(lines, taxPercent);") || !strings.Contains(text, "\nfunction computeTotals(lines: Line[], taxPercent: number) {") {
			t.Errorf("extract.ts:\n%s", text)
		}
		e.run("tsc", "--noEmit", "-p", ".")
	})

	t.Run("multibyte line: extract constant", func(t *testing.T) {
		e := e.with(t)
		// utf8Len(label) after "naïve café 🙂 世界": chars 46-60 (UTF-16 47-61).
		plan, err := refactor.Extract(ctx, c, refactor.ExtractRequest{File: "src/text.ts", Kind: refactor.ExtractVariable,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 19, Column: refInt(46)}, EndLine: 19, EndColumn: refInt(60)}, Name: "labelWidth"})
		if err != nil {
			t.Fatal(err)
		}
		e.submit("ts_extract_variable_multibyte", plan.Changeset, true)
		if text := e.disk("src/text.ts"); !strings.Contains(text, "const labelWidth = utf8Len(label);\n") || !strings.Contains(text, "🙂 世界\") + labelWidth;\n") {
			t.Errorf("text.ts:\n%s", e.disk("src/text.ts"))
		}
		e.run("tsc", "--noEmit", "-p", ".")
	})

	t.Run("organize imports removes the unused one", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.OrganizeImports(ctx, c, "src/imports.ts")
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Changed || len(plan.Removed) != 1 || plan.Removed[0] != `import { visit } from "./graph"` || len(plan.Added) != 0 {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("ts_organize_imports", plan.Changeset, true)
		e.run("tsc", "--noEmit", "-p", ".")
	})

	t.Run("code actions: flagged, unknown kind, command captured", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("src/graph.ts")
		rng := lsp.RangeSpec{Start: lsp.Target{Line: 9, Column: refInt(2)}, EndLine: 9}
		plan, err := refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "src/graph.ts", Range: rng})
		if err != nil {
			t.Fatal(err)
		}
		var move *lsp.CodeAction
		for i, a := range plan.Actions {
			if a.Title == "Move to file" {
				move = &plan.Actions[i]
			}
		}
		if move == nil || !strings.Contains(move.NotRunnable, "target file") {
			t.Fatalf("Move to file not flagged: %+v", plan.Actions)
		}
		_, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "src/graph.ts", Range: rng, Pick: refactor.ActionPick{Title: "Move to file"}})
		wantRefactorCode(t, "interactive", err, apierr.Unsupported, "target file")
		_, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "src/graph.ts", Range: rng, Pick: refactor.ActionPick{Kind: "refactor.inline.nothing"}})
		wantRefactorCode(t, "unknown kind", err, apierr.Unsupported, "refactor.move.file")
		e.unchanged(snap)
	})
}

func TestRefactorPython(t *testing.T) {
	e := newRefactorEnv(t, "python", "pyright-langserver", "pyright", "git")
	e.write("shop/messy.py", "import sys\nimport os\nfrom shop.orders import Line\nimport json\n\n\ndef describe() -> str:\n    return os.sep + sys.platform + json.dumps(1) + str(Line)\n")
	e.start()
	ctx := testenv.Context(t)
	c := e.client
	baseline := pyrightErrors(t, e)

	t.Run("rename bad input changes nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("shop/orders.py", "shop/extract.py")
		_, err := refactor.Rename(ctx, c, refactor.RenameRequest{File: "shop/orders.py", Target: lsp.Target{Line: 37, Symbol: "process"}, NewName: "class"})
		wantRefactorCode(t, "keyword name", err, apierr.InvalidParameter, "Python")
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "shop/orders.py", Target: lsp.Target{Line: 37, Symbol: "def"}, NewName: "go"})
		wantRefactorCode(t, "on a keyword", err, apierr.PreconditionFailed, "pyright")
		_, err = refactor.Rename(ctx, c, refactor.RenameRequest{File: "shop/extract.py", Target: lsp.Target{Line: 5, Symbol: "List"}, NewName: "Sequence"})
		wantRefactorCode(t, "stdlib", err, apierr.PreconditionFailed)
		e.unchanged(snap)
	})

	t.Run("rename across files", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.Rename(ctx, c, refactor.RenameRequest{File: "shop/orders.py", Target: lsp.Target{Line: 37, Symbol: "process"}, NewName: "process_order"})
		if err != nil {
			t.Fatal(err)
		}
		if plan.OldName != "process" || len(plan.Files) < 4 {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("py_rename_process", plan.Changeset, true)
		if got := pyrightErrors(t, e); got > baseline {
			t.Errorf("pyright: %d errors after the rename, %d before", got, baseline)
		}
	})

	t.Run("extract is unsupported, saying what pyright offers", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("shop/extract.py")
		_, err := refactor.Extract(ctx, c, refactor.ExtractRequest{File: "shop/extract.py", Kind: refactor.ExtractFunction,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 12}, EndLine: 16}, Name: "totals"})
		wantRefactorCode(t, "extract function", err, apierr.Unsupported, "pyright", "source.organizeImports")
		_, err = refactor.Extract(ctx, c, refactor.ExtractRequest{File: "shop/extract.py", Kind: refactor.ExtractVariable,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 14, Column: refInt(20)}, EndLine: 14, EndColumn: refInt(46)}})
		wantRefactorCode(t, "extract variable", err, apierr.Unsupported, "pyright")
		_, err = refactor.PlanCodeAction(ctx, c, refactor.ActionQuery{File: "shop/extract.py", Range: lsp.RangeSpec{Start: lsp.Target{Line: 14, Column: refInt(20)}}, Pick: refactor.ActionPick{Kind: "refactor"}})
		wantRefactorCode(t, "code action kind", err, apierr.Unsupported, "refactor")
		e.unchanged(snap)
	})

	t.Run("organize imports through pyright's command, captured", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.OrganizeImports(ctx, c, "shop/messy.py")
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Changed || plan.Via != "command pyright.organizeimports" || len(plan.Removed) != 0 || len(plan.Added) != 0 {
			t.Fatalf("plan: %+v", plan)
		}
		if text, modified := e.buffer("shop/messy.py"); modified || !strings.HasPrefix(text, "import sys\n") {
			t.Fatalf("the command's edit was applied behind the caller's back")
		}
		e.submit("py_organize_imports", plan.Changeset, true)
		if !strings.HasPrefix(e.disk("shop/messy.py"), "import json\nimport os\nimport sys\n\nfrom shop.orders import Line\n") {
			t.Errorf("messy.py:\n%s", e.disk("shop/messy.py"))
		}
		if got := pyrightErrors(t, e); got > baseline {
			t.Errorf("pyright: %d errors after organizing, %d before", got, baseline)
		}
	})
}

// pyrightErrors runs the pyright CLI on the sample copy and counts errors.
func pyrightErrors(t *testing.T, e *refactorEnv) int {
	t.Helper()
	cmd := exec.Command("pyright", "--outputjson", ".")
	cmd.Dir = e.root
	out, _ := cmd.Output() // exit status 1 when there are errors
	var report struct {
		Summary struct {
			ErrorCount int `json:"errorCount"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("pyright --outputjson: %v\n%s", err, out)
	}
	return report.Summary.ErrorCount
}
