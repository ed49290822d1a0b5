package lsp_test

// HTML through the registry (lang/html.go) against real
// vscode-html-language-server on a copy of testdata/samples/html: elements
// as symbols, diagnostics of the embedded style and script, a tag renamed
// with its closing tag, UNSUPPORTED naming the server for call
// hierarchies.

import (
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

func TestHTMLLanguage(t *testing.T) {
	e := newLangEnv(t, "html", "html", "vscode-html-language-server", "vscode-html-language-server")

	t.Run("symbols", func(t *testing.T) {
		e.symbols(t, "index.html", "class .card index.html:6:5", "field html index.html:2:1", "field head index.html:3:1",
			"field title index.html:4:3", "field style index.html:5:3", "field body index.html:9:1",
			"field main#shapes index.html:10:2", "field section.card index.html:11:20", "field h1 index.html:12:7", "field p index.html:13:7")
	})
	t.Run("diagnostics", func(t *testing.T) {
		e.diagnostics(t, "index.html")
		// The CSS service also reads the document's end as an unended
		// declaration (line 15: after </html>).
		e.diagnostics(t, "broken.html", "5 error css: colon expected", "8 error javascript: Expression expected.",
			"15 error css: semi-colon expected")
	})
	t.Run("rename a tag", func(t *testing.T) {
		e.rename(t, "index.html", lsp.Target{Line: 11, Symbol: "section"}, "article", []string{"index.html"},
			`-    <section class="card">`, `+    <article class="card">`, "-    </section>", "+    </article>")
	})
	t.Run("call hierarchy is UNSUPPORTED", func(t *testing.T) {
		_, err := e.client.CallHierarchy(e.ctx, "index.html", lsp.Target{Line: 11, Symbol: "section"}, lsp.CallHierarchyOptions{Direction: "incoming"})
		e.unsupported(t, "get_call_hierarchy", "prepareCallHierarchy", err)
	})
}
