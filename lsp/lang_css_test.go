package lsp_test

// CSS through the registry (lang/css.go) against real
// vscode-css-language-server on a copy of testdata/samples/css: selectors
// as symbols, lint and syntax diagnostics, a custom property's definition,
// references and rename, UNSUPPORTED naming the server for call
// hierarchies.

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

func TestCSSLanguage(t *testing.T) {
	e := newLangEnv(t, "css", "css", "vscode-css-language-server", "vscode-css-language-server")

	t.Run("symbols", func(t *testing.T) {
		e.symbols(t, "styles.css", "class :root styles.css:1:0", "class .card styles.css:6:0", "class .card .title styles.css:11:0")
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, "styles.css")
		e.diagnostics(t, "broken.css", "2 warning css: Unknown property: 'colr'", "4 error css: semi-colon expected",
			"5 error css: at-rule or selector expected")
	})
	t.Run("definition of a custom property", func(t *testing.T) {
		e.definition(t, "styles.css", lsp.Target{Line: 7, Symbol: "--brand"}, "styles.css:2:2")
	})
	t.Run("references", func(t *testing.T) {
		e.references(t, "styles.css", lsp.Target{Line: 2, Symbol: "--brand"}, "styles.css:2:2", "styles.css:7:13", "styles.css:12:31")
	})
	t.Run("rename", func(t *testing.T) {
		e.rename(t, "styles.css", lsp.Target{Line: 2, Symbol: "--brand"}, "--accent", []string{"styles.css"},
			"-  --brand: #0b6e4f;", "+  --accent: #0b6e4f;", "-  color: var(--brand);", "+  color: var(--accent);",
			"-  border-bottom: 1px solid var(--brand);", "+  border-bottom: 1px solid var(--accent);")
	})
	t.Run("call hierarchy is UNSUPPORTED", func(t *testing.T) {
		_, err := e.client.CallHierarchy(e.ctx, "styles.css", lsp.Target{Line: 6, Symbol: ".card"}, lsp.CallHierarchyOptions{Direction: "incoming"})
		e.unsupported(t, "get_call_hierarchy", "prepareCallHierarchy", err)
	})
}
