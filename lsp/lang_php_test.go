package lsp_test

// PHP through the registry (lang/php.go) against real intelephense on a
// copy of testdata/samples/php: symbols, parse errors, definition and
// references across files, and rename, which intelephense keeps for its
// licensed version: UNSUPPORTED naming it.

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

func TestPHPLanguage(t *testing.T) {
	e := newLangEnv(t, "php", "php", "intelephense", "intelephense")

	t.Run("symbols", func(t *testing.T) {
		e.symbols(t, "src/Rect.php", "namespace Sample src/Rect.php:3:10", "class Rect src/Rect.php:5:6",
			"property $width src/Rect.php:7:46", "property $height src/Rect.php:7:68",
			"constructor __construct src/Rect.php:7:20", "variable $width src/Rect.php:7:46", "variable $height src/Rect.php:7:68",
			"method area src/Rect.php:11:20", "function total_area src/Rect.php:17:9",
			"variable $shapes src/Rect.php:17:29", "variable $sum src/Rect.php:19:4", "variable $shape src/Rect.php:20:24")
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, "src/main.php")
		e.diagnostics(t, "src/broken.php",
			"7 error intelephense: Unexpected ';'.",
			"8 error intelephense: Unexpected '}'. Expected ')'.")
	})
	t.Run("definition in another file", func(t *testing.T) {
		e.definition(t, "src/main.php", lsp.Target{Line: 9, Symbol: "total_area"}, "src/Rect.php:17:9")
	})
	t.Run("references across files", func(t *testing.T) {
		e.references(t, "src/Rect.php", lsp.Target{Line: 5, Symbol: "Rect"}, "src/Rect.php:5:6", "src/broken.php:7:26", "src/main.php:8:15", "src/main.php:8:31")
	})
	t.Run("rename is UNSUPPORTED", func(t *testing.T) {
		_, err := refactor.Rename(e.ctx, e.client, refactor.RenameRequest{File: "src/Rect.php", Target: lsp.Target{Line: 17, Symbol: "total_area"}, NewName: "sum_areas"})
		e.unsupported(t, "rename_symbol", "textDocument/rename", err)
	})
}
