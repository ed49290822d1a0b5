package refactor_test

// Benchmarks of the refactoring path with real gopls through Neovim:
//
//	go test ./lsp -run '^$' -bench 'Refactor' -benchtime 20x
import (
	"testing"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

func benchEnv(b *testing.B) (*lsp.Client, *edit.Engine) {
	b.Helper()
	testenv.Require(b, "nvim", "gopls", "go")
	root := testenv.CopySample(b, "go")
	s, c := testenv.Embedded(b, root)
	// Warm up: the first request waits for gopls to load the module.
	if _, err := refactor.Rename(testenv.Context(b), c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 7, Symbol: "Widget"}, NewName: "Gadget"}); err != nil {
		b.Fatal(err)
	}
	return c, edit.NewEngine(s)
}

// BenchmarkRefactorRenamePreview22Files: prepareRename + rename through
// Neovim, the WorkspaceEdit (22 files, 26 edits) turned into a changeset,
// and its preview (diff) by the engine.
func BenchmarkRefactorRenamePreview22Files(b *testing.B) {
	c, e := benchEnv(b)
	ctx := testenv.Context(b)
	b.ResetTimer()
	for b.Loop() {
		plan, err := refactor.Rename(ctx, c, refactor.RenameRequest{File: "widgets/widget.go", Target: lsp.Target{Line: 7, Symbol: "Widget"}, NewName: "Gadget"})
		if err != nil {
			b.Fatal(err)
		}
		res, err := e.Submit(ctx, plan.Changeset, edit.Options{Preview: true})
		if err != nil {
			b.Fatal(err)
		}
		_ = e.Discard(res.ChangesetID)
	}
}

// BenchmarkRefactorListCodeActions: the diagnostics of the range, then
// textDocument/codeAction, through Neovim.
func BenchmarkRefactorListCodeActions(b *testing.B) {
	c, _ := benchEnv(b)
	ctx := testenv.Context(b)
	q := refactor.ActionQuery{File: "refactor/pricing.go", Range: lsp.RangeSpec{Start: lsp.Target{Line: 13}, EndLine: 21}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := refactor.PlanCodeAction(ctx, c, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefactorExtractFunctionNamed: code actions, codeAction/resolve,
// the changeset, and renaming newFunction in it.
func BenchmarkRefactorExtractFunctionNamed(b *testing.B) {
	c, _ := benchEnv(b)
	ctx := testenv.Context(b)
	req := refactor.ExtractRequest{File: "refactor/pricing.go", Kind: refactor.ExtractFunction,
		Range: lsp.RangeSpec{Start: lsp.Target{Line: 13}, EndLine: 21}, Name: "totals"}
	b.ResetTimer()
	for b.Loop() {
		if _, err := refactor.Extract(ctx, c, req); err != nil {
			b.Fatal(err)
		}
	}
}
