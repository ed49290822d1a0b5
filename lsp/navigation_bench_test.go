package lsp_test

import (
	"path/filepath"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// BenchmarkNavigationGo measures each navigation feature end to end (Go ->
// Neovim -> gopls -> Neovim -> Go, positions converted, source lines read)
// on the Go sample, warm: the first call of each is made before timing.
func BenchmarkNavigationGo(b *testing.B) {
	testenv.Require(b, "nvim", "gopls", "go")
	_, client := testenv.Embedded(b, testenv.CopySample(b, "go"))
	ctx := testenv.Context(b)
	process := lsp.Target{Line: 33, Symbol: "Process"}
	cases := []struct {
		name string
		run  func() error
	}{
		{"definition", func() error {
			_, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
			return err
		}},
		{"references", func() error {
			_, err := client.References(ctx, "orders/orders.go", process, lsp.ReferencesOptions{IncludeDeclaration: true})
			return err
		}},
		{"references_22_files", func() error {
			_, err := client.References(ctx, "widgets/widget.go", lsp.Target{Line: 7, Symbol: "Widget"}, lsp.ReferencesOptions{IncludeDeclaration: true})
			return err
		}},
		{"hover", func() error {
			_, err := client.Hover(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
			return err
		}},
		// Declared in the file asked about: where it is declared is asked
		// once more (an import there would lead to a package's files).
		{"hover_same_file", func() error {
			_, err := client.Hover(ctx, "orders/orders.go", lsp.Target{Line: 39, Symbol: "Add"})
			return err
		}},
		{"document_symbols", func() error {
			_, err := client.Symbols(ctx, lsp.SymbolsQuery{File: "orders/orders.go"})
			return err
		}},
		{"workspace_symbols", func() error {
			_, err := client.Symbols(ctx, lsp.SymbolsQuery{Query: "Process"})
			return err
		}},
		{"completion", func() error {
			_, err := client.Completions(ctx, "main.go", lsp.Target{Line: 27, Column: col(22)}, lsp.CompletionOptions{})
			return err
		}},
		{"signature_help", func() error {
			_, err := client.SignatureHelp(ctx, "main.go", lsp.Target{Line: 27, Column: col(30)})
			return err
		}},
		{"implementations", func() error {
			_, err := client.Implementations(ctx, "payment/payment.go", lsp.Target{Line: 10, Symbol: "Method"})
			return err
		}},
		{"diagnostics_file", func() error {
			_, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "main.go"})
			return err
		}},
	}
	for _, c := range cases {
		if err := c.run(); err != nil {
			b.Fatalf("%s: %v", c.name, err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFirstRequestNewFileGo measures the first request in a file just
// opened (gopls already loaded): what an agent pays on every new file. gopls
// answers from the opened text (lang.ServerSpec.AnswersAfterOpen), so there
// is no wait for its first publish of the file; the buffer is wiped between
// iterations (outside the timing) so each iteration opens the file afresh.
func BenchmarkFirstRequestNewFileGo(b *testing.B) {
	testenv.Require(b, "nvim", "gopls", "go")
	root := testenv.CopySample(b, "go")
	s, client := testenv.Embedded(b, root)
	ctx := testenv.Context(b)
	if _, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"}); err != nil {
		b.Fatal(err)
	}
	const wipe = `local path = ...
local b = vim.fn.bufnr(vim.fn.resolve(path))
if b <= 0 then return false end
vim.api.nvim_buf_delete(b, { force = true })
return true`
	for b.Loop() {
		if _, err := client.Definition(ctx, "widgets/w01.go", lsp.Target{Line: 5, Symbol: "NewWidget"}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		var wiped bool
		if err := s.ExecLua(ctx, wipe, &wiped, filepath.Join(root, "widgets", "w01.go")); err != nil || !wiped {
			b.Fatalf("wipe the buffer: %v %v", wiped, err)
		}
		b.StartTimer()
	}
}
