package lsp_test

// YAML through the registry (lang/yaml.go) against real
// yaml-language-server on a copy of testdata/samples/yaml: symbols (merged
// keys listed where the anchor declares them), parse diagnostics, an
// alias's definition at its anchor, UNSUPPORTED naming the server for
// references.

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

func TestYAMLLanguage(t *testing.T) {
	e := newLangEnv(t, "yaml", "yaml", "yaml-language-server", "yaml-language-server")

	t.Run("symbols", func(t *testing.T) {
		anchored := []string{"number replicas deploy.yaml:3:2", "string image deploy.yaml:4:2", "module env deploy.yaml:5:2", "string LOG_LEVEL deploy.yaml:6:4"}
		want := append([]string{"module defaults deploy.yaml:2:0"}, anchored...)
		want = append(want, "module services deploy.yaml:8:0", "module web deploy.yaml:9:2", "module << deploy.yaml:10:4")
		want = append(want, anchored...)
		want = append(want, "number port deploy.yaml:11:4", "module worker deploy.yaml:12:2", "module << deploy.yaml:13:4")
		want = append(want, anchored...)
		want = append(want, "number replicas deploy.yaml:14:4")
		e.symbols(t, "deploy.yaml", want...)
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, "deploy.yaml")
		e.diagnostics(t, "broken.yaml",
			"4 error YAML: Map keys must be unique",
			"6 error YAML: Flow sequence in block collection must be sufficiently indented and end with a ]")
	})
	t.Run("definition of an alias", func(t *testing.T) {
		// The anchored node: the mapping under "defaults: &defaults".
		e.definition(t, "deploy.yaml", lsp.Target{Line: 10, Symbol: "defaults"}, "deploy.yaml:3:2")
	})
	t.Run("references are UNSUPPORTED", func(t *testing.T) {
		_, err := e.client.References(e.ctx, "deploy.yaml", lsp.Target{Line: 2, Symbol: "defaults"}, lsp.ReferencesOptions{})
		e.unsupported(t, "find_references", "textDocument/references", err)
	})
}
