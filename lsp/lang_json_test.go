package lsp_test

// JSON through the registry (lang/json.go) against real
// vscode-json-language-server on a copy of testdata/samples/json: symbols,
// parse diagnostics, UNSUPPORTED naming the server for definitions.

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

func TestJSONLanguage(t *testing.T) {
	e := newLangEnv(t, "json", "json", "vscode-json-language-server", "vscode-json-language-server")

	t.Run("symbols", func(t *testing.T) {
		e.symbols(t, "schema.json", "string $schema schema.json:2:2", "string title schema.json:3:2", "string type schema.json:4:2",
			"module properties schema.json:5:2", "module origin schema.json:6:4", "string $ref schema.json:6:16",
			"module corner schema.json:7:4", "string $ref schema.json:7:16", "module definitions schema.json:9:2",
			"module point schema.json:10:4", "string type schema.json:11:6", "module properties schema.json:12:6",
			"module x schema.json:12:22", "string type schema.json:12:29", "module y schema.json:12:49", "string type schema.json:12:56")
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, "schema.json")
		e.diagnostics(t, "broken.json", "3 error json: Trailing comma", "4 error json: Colon expected")
	})
	t.Run("definition is UNSUPPORTED", func(t *testing.T) {
		_, err := e.client.Definition(e.ctx, "schema.json", lsp.Target{Line: 6, Symbol: "$ref"})
		e.unsupported(t, "find_definition", "textDocument/definition", err)
	})
}
