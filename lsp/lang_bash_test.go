package lsp_test

// Bash through the registry (lang/bash.go) against real
// bash-language-server and shellcheck on a copy of testdata/samples/bash:
// symbols, shellcheck's diagnostics, definition, references and rename
// across a sourced file, UNSUPPORTED naming the server for call
// hierarchies.

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

func TestBashLanguage(t *testing.T) {
	e := newLangEnv(t, "bash", "bash", "bash-language-server", "bash-language-server", "shellcheck")

	t.Run("symbols", func(t *testing.T) {
		e.symbols(t, "lib.sh", "function greet lib.sh:4:0", "variable name lib.sh:5:7",
			"function count_words lib.sh:9:0", "variable text lib.sh:10:7")
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, "main.sh")
		e.diagnostics(t, "broken.sh",
			"5 warning shellcheck: unused appears unused. Verify use (or export if used externally).",
			"6 info shellcheck: Double quote to prevent globbing and word splitting.")
	})
	t.Run("definition in the sourced file", func(t *testing.T) {
		e.definition(t, "main.sh", lsp.Target{Line: 9, Symbol: "count_words"}, "lib.sh:9:0")
	})
	t.Run("references across files", func(t *testing.T) {
		e.references(t, "lib.sh", lsp.Target{Line: 4, Symbol: "greet"}, "lib.sh:4:0", "main.sh:8:0", "main.sh:11:0")
	})
	t.Run("rename across files", func(t *testing.T) {
		e.rename(t, "main.sh", lsp.Target{Line: 8, Symbol: "greet"}, "welcome", []string{"lib.sh", "main.sh"},
			"-greet() {", "+welcome() {", `-greet "world"`, `+welcome "world"`, `-greet "again"`, `+welcome "again"`)
	})
	t.Run("call hierarchy is UNSUPPORTED", func(t *testing.T) {
		_, err := e.client.CallHierarchy(e.ctx, "lib.sh", lsp.Target{Line: 4, Symbol: "greet"}, lsp.CallHierarchyOptions{Direction: "incoming"})
		e.unsupported(t, "get_call_hierarchy", "prepareCallHierarchy", err)
	})
}
