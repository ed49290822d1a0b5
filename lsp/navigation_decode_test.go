package lsp

// Table tests of the pure parts of the navigation features: decoding the
// LSP unions go.lsp.dev/protocol gets wrong, and the small text helpers.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

func TestDecodeHover(t *testing.T) {
	rng := &protocol.Range{Start: protocol.Position{Line: 2, Character: 4}, End: protocol.Position{Line: 2, Character: 9}}
	tests := []struct {
		name, raw string
		want      Hover
	}{
		{"null", `null`, Hover{}},
		{"empty", ``, Hover{}},
		{"markup markdown", `{"contents":{"kind":"markdown","value":"` + "```go\\nfunc F()\\n```" + `"}}`,
			Hover{Kind: "markdown", Value: "```go\nfunc F()\n```"}},
		{"markup plaintext with range", `{"contents":{"kind":"plaintext","value":"int x "},"range":{"start":{"line":2,"character":4},"end":{"line":2,"character":9}}}`,
			Hover{Kind: "plaintext", Value: "int x", Range: rng}},
		{"marked string", `{"contents":"**bold**"}`, Hover{Kind: "markdown", Value: "**bold**"}},
		{"marked code", `{"contents":{"language":"python","value":"def f(): ...\n"}}`,
			Hover{Kind: "markdown", Value: "```python\ndef f(): ...\n```"}},
		{"marked array", `{"contents":[{"language":"ts","value":"let x: number"},"","doc *text*"]}`,
			Hover{Kind: "markdown", Value: "```ts\nlet x: number\n```\n\ndoc *text*"}},
		{"null contents", `{"contents":null}`, Hover{}},
		{"empty array", `{"contents":[]}`, Hover{Kind: "markdown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeHover(json.RawMessage(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, err := DecodeHover(json.RawMessage(`{"contents":[42]}`)); err == nil {
		t.Fatal("a number as a MarkedString decoded without error")
	}
	// A MarkupContent, as the servers send it, is read in one pass; the
	// other shapes go to encoding/json.
	for _, tt := range tests {
		_, scanned := scanHover([]byte(tt.raw))
		if want := strings.HasPrefix(tt.name, "markup"); scanned != want {
			t.Errorf("%s: read in one pass %v, want %v", tt.name, scanned, want)
		}
	}
}

// FuzzScanHover: whatever the one pass takes from a hover answer,
// encoding/json takes too, with the same result.
func FuzzScanHover(f *testing.F) {
	f.Add(`{"contents":{"kind":"markdown","value":"` + "```" + `go\nfunc (log *Logger) Sugar() *SugaredLogger\n` + "```" + `\n\nSugar wraps \u00e9 \t\\ \/"},"range":{"start":{"line":130,"character":19},"end":{"line":130,"character":24}}}`)
	f.Add(`{"range":null,"contents":{"value":" x ","kind":"plaintext","extra":[1,{"a":null}]}}`)
	f.Add(`{"contents":{"kind":"markdown","value":"a","Kind":"plaintext"}}`)
	f.Add(`{"contents":{"language":"go","value":"x"},"range":{}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		fast, ok := scanHover([]byte(raw))
		if !ok {
			return
		}
		std, err := decodeHoverStd(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("the one pass took what encoding/json refuses (%v): %q", err, raw)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q\none pass:      %#v\nencoding/json: %#v", raw, fast, std)
		}
	})
}

func TestDecodeSymbols(t *testing.T) {
	const doc = protocol.DocumentURI("file:///w/a.py")
	r := func(l1, c1, l2, c2 uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
	}
	sel := func(l1, c1, l2, c2 uint32) *protocol.Range { x := r(l1, c1, l2, c2); return &x }

	tree := `[{"name":"Card","kind":5,"range":{"start":{"line":3,"character":0},"end":{"line":9,"character":0}},
	  "selectionRange":{"start":{"line":3,"character":6},"end":{"line":3,"character":10}},
	  "children":[{"name":"charge","kind":6,"detail":"(amount)","range":{"start":{"line":5,"character":4},"end":{"line":7,"character":0}},
	    "selectionRange":{"start":{"line":5,"character":8},"end":{"line":5,"character":14}},
	    "children":[{"name":"amount","kind":13,"range":{"start":{"line":5,"character":15},"end":{"line":5,"character":21}},
	      "selectionRange":{"start":{"line":5,"character":15},"end":{"line":5,"character":21}}}]}]},
	  {"name":"main","kind":12,"range":{"start":{"line":11,"character":0},"end":{"line":12,"character":0}},
	   "selectionRange":{"start":{"line":11,"character":4},"end":{"line":11,"character":8}}}]`
	got, err := decodeSymbols(json.RawMessage(tree), doc, preview.UTF16)
	if err != nil {
		t.Fatal(err)
	}
	want := []FlatSymbol{
		{Name: "Card", Kind: 5, URI: doc, Range: r(3, 0, 9, 0), Selection: sel(3, 6, 3, 10), Enc: preview.UTF16},
		{Name: "charge", Kind: 6, Detail: "(amount)", Container: "Card", URI: doc, Range: r(5, 4, 7, 0), Selection: sel(5, 8, 5, 14), Enc: preview.UTF16},
		{Name: "amount", Kind: 13, Container: "Card.charge", URI: doc, Range: r(5, 15, 5, 21), Selection: sel(5, 15, 5, 21), Enc: preview.UTF16},
		{Name: "main", Kind: 12, URI: doc, Range: r(11, 0, 12, 0), Selection: sel(11, 4, 11, 8), Enc: preview.UTF16},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tree:\n got %+v\nwant %+v", got, want)
	}

	// SymbolInformation[] and a WorkspaceSymbol whose location has no range.
	flat := `[{"name":"Process","kind":12,"containerName":"orders","location":{"uri":"file:///w/o.go","range":{"start":{"line":32,"character":5},"end":{"line":32,"character":12}}}},
	          {"name":"Lazy","kind":5,"location":{"uri":"file:///w/l.go"}}]`
	got, err = decodeSymbols(json.RawMessage(flat), "", preview.UTF8)
	if err != nil {
		t.Fatal(err)
	}
	want = []FlatSymbol{
		{Name: "Process", Kind: 12, Container: "orders", URI: "file:///w/o.go", Range: r(32, 5, 32, 12), Enc: preview.UTF8},
		{Name: "Lazy", Kind: 5, URI: "file:///w/l.go", Enc: preview.UTF8},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("flat:\n got %+v\nwant %+v", got, want)
	}
	for _, empty := range []string{"null", "{}", "[]", ""} {
		if got, err := decodeSymbols(json.RawMessage(empty), doc, preview.UTF16); err != nil || len(got) != 0 {
			t.Fatalf("%q: got %v, %v; want nothing", empty, got, err)
		}
	}
}

func TestSymbolKindNames(t *testing.T) {
	for k, want := range map[int]string{5: "class", 6: "method", 12: "function", 23: "struct", 26: "type_parameter", 0: "unknown", 27: "unknown"} {
		if got := SymbolKindName(k); got != want {
			t.Errorf("SymbolKindName(%d) = %q, want %q", k, got, want)
		}
	}
	for k, want := range map[int]string{2: "method", 3: "function", 5: "field", 22: "struct", 0: "", 99: ""} {
		if got := CompletionKindName(k); got != want {
			t.Errorf("CompletionKindName(%d) = %q, want %q", k, got, want)
		}
	}
	if _, err := kindFilter([]string{"Function", " struct "}); err != nil {
		t.Fatalf("kind words are case- and space-insensitive: %v", err)
	}
	_, err := kindFilter([]string{"func"})
	if apierr.CodeOf(err) != apierr.InvalidParameter || !strings.Contains(err.Error(), `unknown symbol kind "func"`) {
		t.Fatalf("kindFilter(func) = %v, want INVALID_PARAMETER", err)
	}
}

func TestDecodeCompletion(t *testing.T) {
	labels := func(c completion) []string {
		var out []string
		for _, it := range c.Items {
			out = append(out, it.Label+"="+it.InsertText)
		}
		return out
	}
	// CompletionItem[]: sorted by sortText, then label; insert text from the
	// text edit, textEditText (itemDefaults.editRange), insertText, label.
	arr := `[{"label":"b","sortText":"2","insertText":"b()"},
	         {"label":"a","sortText":"2","textEdit":{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"newText":"a2"}},
	         {"label":"z","sortText":"1","textEditText":"zz"},
	         {"label":"m"}]`
	got, err := decodeCompletion(json.RawMessage(arr))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"z=zz", "a=a2", "b=b()", "m=m"}; !reflect.DeepEqual(labels(got), want) || got.IsIncomplete {
		t.Fatalf("array: got %v incomplete=%v, want %v", labels(got), got.IsIncomplete, want)
	}

	list := `{"isIncomplete":true,"items":[{"label":"Process","kind":3,"detail":" func(o Order) ","filterText":"Process",
	  "documentation":{"kind":"markdown","value":"Process validates o.\n\nMore text that is cut."},"tags":[1]},
	  {"label":"Old","kind":2,"deprecated":true,"documentation":"plain doc"}]}`
	got, err = decodeCompletion(json.RawMessage(list))
	if err != nil {
		t.Fatal(err)
	}
	want := []CompletionItem{
		{Label: "Old", Kind: "method", Documentation: "plain doc", InsertText: "Old", Deprecated: true},
		{Label: "Process", Kind: "function", Detail: "func(o Order)", Documentation: "Process validates o.", InsertText: "Process", Deprecated: true},
	}
	var items []CompletionItem
	for _, it := range got.Items {
		items = append(items, it.CompletionItem)
	}
	if !got.IsIncomplete || !reflect.DeepEqual(items, want) {
		t.Fatalf("list: got %+v incomplete=%v\nwant %+v", items, got.IsIncomplete, want)
	}
	for _, empty := range []string{"null", "{}", "[]", ""} {
		if got, err := decodeCompletion(json.RawMessage(empty)); err != nil || len(got.Items) != 0 {
			t.Fatalf("%q: got %v, %v; want nothing", empty, got, err)
		}
	}
}

func TestDecodeSignatureHelp(t *testing.T) {
	one := 1
	// Offsets are in the server's units: in UTF-16, 🎉 counts 2 and 名 1.
	raw := `{"signatures":[{"label":"f(名前 string, 🎉 int)","documentation":{"kind":"markdown","value":"does f"},
	  "parameters":[{"label":[2,11]},{"label":[13,19],"documentation":"the party"}]},
	  {"label":"g(x int)","parameters":[{"label":"x int"}],"activeParameter":0}],
	  "activeSignature":0,"activeParameter":1}`
	got, err := DecodeSignatureHelp(json.RawMessage(raw), preview.UTF16)
	if err != nil {
		t.Fatal(err)
	}
	want := SignatureHelpResult{Found: true, ActiveSignature: 0, ActiveParameter: &one, Signatures: []Signature{
		{Label: "f(名前 string, 🎉 int)", Documentation: "does f",
			Parameters: []Parameter{{Label: "名前 string"}, {Label: "🎉 int", Documentation: "the party"}}},
		{Label: "g(x int)", Parameters: []Parameter{{Label: "x int"}}, ActiveParameter: new(int)},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// The same label in UTF-8 offsets.
	raw8 := `{"signatures":[{"label":"f(名前 string, 🎉 int)","parameters":[{"label":[2,15]},{"label":[17,25]}]}]}`
	got, err = DecodeSignatureHelp(json.RawMessage(raw8), preview.UTF8)
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Signatures[0].Parameters; p[0].Label != "名前 string" || p[1].Label != "🎉 int" {
		t.Fatalf("utf-8 offsets: %+v", p)
	}
	// A signature's own activeParameter wins; one out of range means none.
	got, err = DecodeSignatureHelp(json.RawMessage(`{"signatures":[{"label":"h()","parameters":[],"activeParameter":0}],"activeParameter":3}`), preview.UTF16)
	if err != nil || got.ActiveParameter != nil {
		t.Fatalf("out-of-range active parameter: %+v, %v", got.ActiveParameter, err)
	}
	got, err = DecodeSignatureHelp(json.RawMessage(`null`), preview.UTF16)
	if err != nil || got.Found || len(got.Signatures) != 0 {
		t.Fatalf("null: %+v, %v", got, err)
	}
	if _, err := DecodeSignatureHelp(json.RawMessage(`{"signatures":[{"label":"f(a)","parameters":[{"label":[3,2]}]}]}`), preview.UTF16); err == nil {
		t.Fatal("reversed offsets decoded without error")
	}
}

func TestIdentifierAt(t *testing.T) {
	line := "\tgreeting := \"héllo 世界 🎉 \" + name"
	at := strings.Index(line, "name")
	for _, tt := range []struct {
		b    int
		want string
	}{{at, "name"}, {at + 2, "name"}, {len(line), "name"}, {1, "greeting"}, {0, ""}, {strings.Index(line, "世"), "世界"}, {strings.Index(line, "🎉"), ""}, {-1, ""}} {
		if got := IdentifierAt(line, tt.b); got != tt.want {
			t.Errorf("IdentifierAt(%d) = %q, want %q", tt.b, got, tt.want)
		}
	}
}

func TestNameColumn(t *testing.T) {
	line := "export function process(order: Order): Total {"
	if got := nameColumn(line, 0, "process"); got != 16 {
		t.Fatalf("nameColumn = %d, want 16", got)
	}
	if got := nameColumn(line, 0, "orders.Order"); got != 31 {
		t.Fatalf("dotted name: %d, want 31", got)
	}
	if got := nameColumn("  const x = 1", 2, "missing"); got != 2 {
		t.Fatalf("absent name: %d, want 2", got)
	}
	if got := nameColumn("é = f(é)", 4, "é"); got != 6 {
		t.Fatalf("multibyte, from 4: %d, want 6", got)
	}
}

func TestShorten(t *testing.T) {
	if got := shorten("  First para.\n\nSecond.", 100); got != "First para." {
		t.Fatalf("first paragraph: %q", got)
	}
	if got := shorten("one two three four five", 12); got != "one two…" {
		t.Fatalf("cut on a word: %q", got)
	}
	if got := shorten("世界世界世界", 3); got != "世界世…" {
		t.Fatalf("cut in characters: %q", got)
	}
}

func TestShallowestFile(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a/deep/x.go", "b/y.go", "b/a.go", "node_modules/m/z.ts", ".hidden/h.go", "src/types.d.ts", "src/z/app.ts"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := shallowestFile(dir, []string{".go"}); got != "b/a.go" {
		t.Fatalf(".go: %q, want b/a.go (shallowest, then by path; hidden folders skipped)", got)
	}
	if got := shallowestFile(dir, []string{".ts"}); got != "src/z/app.ts" {
		t.Fatalf(".ts: %q, want src/z/app.ts (node_modules and .d.ts skipped)", got)
	}
	if got := shallowestFile(dir, []string{".py"}); got != "" {
		t.Fatalf(".py: %q, want none", got)
	}
}

// BenchmarkDecodeHover: gopls's hover on zap's Logger.Sugar, in one pass
// (scan) and by encoding/json (std).
func BenchmarkDecodeHover(b *testing.B) {
	raw := []byte(`{"contents":{"kind":"markdown","value":"` + "```" + `go\nfunc (log *Logger) Sugar() *SugaredLogger\n` + "```" + `\n\n---\n\nSugar wraps the Logger to provide a more ergonomic, but slightly slower, API. Sugaring a Logger is quite inexpensive, so it's reasonable for a single application to use both Loggers and SugaredLoggers, converting between them on the boundaries of performance-sensitive code.\n\n\n---\n\n[` + "`" + `(zap.Logger).Sugar` + "`" + ` on pkg.go.dev](https:\/\/pkg.go.dev\/go.uber.org\/zap#Logger.Sugar)"},"range":{"start":{"line":130,"character":19},"end":{"line":130,"character":24}}}`)
	for name, decode := range map[string]func(json.RawMessage) (Hover, error){"scan": DecodeHover, "std": decodeHoverStd} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if h, err := decode(raw); err != nil || h.Range == nil {
					b.Fatal(h, err)
				}
			}
		})
	}
}
