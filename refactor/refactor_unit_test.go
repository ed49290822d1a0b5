package refactor

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

func TestImportChanges(t *testing.T) {
	goDiff := `--- a/orders/format.go
+++ b/orders/format.go
@@ -1,6 +1,8 @@
 package orders
 
-import "strings"
-
-import "fmt"
+import (
+	"fmt"
+	"strings"
+)
 
`
	if removed, added := importChanges(lang.Go, goDiff); len(removed) != 0 || len(added) != 0 {
		t.Errorf("go merge: removed %q added %q, want none (only regrouped)", removed, added)
	}
	tsDiff := `--- a/src/imports.ts
+++ b/src/imports.ts
@@ -1,6 +1,5 @@
 // Imports deliberately unsorted.
-import { visit } from "./graph";
-import { utf8Len } from "./text";
 import { Card } from "./methods/card";
 import { normalize, process, type Order } from "./orders";
+import { utf8Len } from "./text";
`
	removed, added := importChanges(lang.TypeScript, tsDiff)
	if !reflect.DeepEqual(removed, []string{`import { visit } from "./graph"`}) || len(added) != 0 {
		t.Errorf("ts: removed %q added %q", removed, added)
	}
	pyDiff := `@@ -1,3 +1,4 @@
-import sys
 import os
+import json
+import sys
-from shop import text, orders
+from shop import orders, text
`
	removed, added = importChanges(lang.Python, pyDiff)
	if !reflect.DeepEqual(removed, []string{"from shop import text, orders"}) ||
		!reflect.DeepEqual(added, []string{"import json", "from shop import orders, text"}) {
		t.Errorf("python: removed %q added %q", removed, added)
	}
}

func TestDecodePrepareRename(t *testing.T) {
	r := protocol.Range{Start: protocol.Position{Line: 1, Character: 2}, End: protocol.Position{Line: 1, Character: 5}}
	cases := []struct {
		raw         string
		ok          bool
		range_      bool
		placeholder string
	}{
		{`null`, false, false, ""},
		{``, false, false, ""},
		{`{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}`, true, true, ""},
		{`{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}},"placeholder":"Widget"}`, true, true, "Widget"},
		{`{"defaultBehavior":true}`, true, false, ""},
		{`{"defaultBehavior":false}`, false, false, ""},
	}
	for _, c := range cases {
		p, ok, err := decodePrepareRename(json.RawMessage(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		if ok != c.ok || (p.Range != nil) != c.range_ || p.Placeholder != c.placeholder {
			t.Errorf("%s: got %+v ok=%v", c.raw, p, ok)
		}
		if p.Range != nil && *p.Range != r {
			t.Errorf("%s: range %+v, want %+v", c.raw, *p.Range, r)
		}
	}
}

func TestPickAction(t *testing.T) {
	actions := []lsp.CodeAction{
		{Index: 1, Title: "Extract function", Kind: "refactor.extract.function", Server: "s"},
		{Index: 2, Title: "Extract variable", Kind: "refactor.extract.variable", Server: "s"},
		{Index: 3, Title: "Fix it", Kind: "quickfix", Server: "s"},
		{Index: 4, Title: "Fix it", Kind: "quickfix", Server: "s"},
		{Index: 5, Title: "Move to file", Kind: "refactor.move.file", NotRunnable: "needs a target file", Server: "s"},
		{Index: 6, Title: "Inline", Kind: "refactor.inline.call", Disabled: "not a call", Server: "s"},
		{Index: 7, Title: "Organize Imports", Kind: "source.organizeImports", Server: "s"},
	}
	idx := func(i int) *int { return &i }
	cases := []struct {
		name  string
		pick  ActionPick
		want  int
		code  apierr.Code
		words []string
	}{
		{"by index", ActionPick{Index: idx(2)}, 2, "", nil},
		{"by title", ActionPick{Title: "Extract function"}, 1, "", nil},
		{"title case-insensitive", ActionPick{Title: "organize imports"}, 7, "", nil},
		{"kind prefix", ActionPick{Kind: "source"}, 7, "", nil},
		{"kind exact", ActionPick{Kind: "refactor.extract.function"}, 1, "", nil},
		{"kind not a prefix of a word", ActionPick{Kind: "refactor.extract.func"}, 0, apierr.Unsupported, []string{"quickfix", "refactor.extract.function"}},
		{"kind ambiguous", ActionPick{Kind: "refactor.extract"}, 0, apierr.Ambiguous, []string{"1", "2"}},
		{"duplicate titles", ActionPick{Title: "Fix it"}, 0, apierr.Ambiguous, []string{"3", "4"}},
		{"duplicate titles, index picks", ActionPick{Title: "Fix it", Index: idx(4)}, 4, "", nil},
		{"no such title", ActionPick{Title: "Nope"}, 0, apierr.ResourceNotFound, []string{"Extract function"}},
		{"index out of range", ActionPick{Index: idx(8)}, 0, apierr.InvalidParameter, []string{"8"}},
		{"index and wrong title", ActionPick{Index: idx(1), Title: "Fix it"}, 0, apierr.Conflict, nil},
		{"not runnable", ActionPick{Title: "Move to file"}, 0, apierr.Unsupported, []string{"needs a target file"}},
		{"disabled", ActionPick{Kind: "refactor.inline"}, 0, apierr.PreconditionFailed, []string{"not a call"}},
		{"nothing", ActionPick{}, 0, apierr.InvalidParameter, nil},
	}
	for _, c := range cases {
		got, err := PickAction(actions, c.pick, "f.go:1:0")
		if c.code != "" {
			if apierr.CodeOf(err) != c.code {
				t.Errorf("%s: err %v, want %s", c.name, err, c.code)
				continue
			}
			for _, w := range c.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q does not mention %q", c.name, err, w)
				}
			}
			continue
		}
		if err != nil || got.Index != c.want {
			t.Errorf("%s: got %v, %v; want index %d", c.name, got, err, c.want)
		}
	}
}

func TestKindMatches(t *testing.T) {
	for _, c := range []struct {
		kind, want string
		ok         bool
	}{
		{"refactor.extract.function", "refactor", true},
		{"refactor.extract.function", "refactor.extract", true},
		{"refactor", "refactor", true},
		{"refactor.extract.variable-all", "refactor.extract.variable", false},
		{"refactorx", "refactor", false},
		{"source.organizeImports.ts", "source.organizeImports", true},
	} {
		if lsp.KindMatches(c.kind, c.want) != c.ok {
			t.Errorf("KindMatches(%q, %q) != %v", c.kind, c.want, c.ok)
		}
	}
}

// gopls's extract-function edit on refactor/pricing.go (lines 11-24
// replaced), as received from gopls v0.23.
const pricingGo = "// Package refactor holds code that is a good target for extract/inline refactorings.\npackage refactor\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/shop/orders\"\n)\n\n// Invoice renders a priced invoice for lines with the given tax rate.\nfunc Invoice(lines []orders.Line, taxPercent int) string {\n\theader := \"INVOICE\"\n\tsubtotal := 0\n\tfor _, l := range lines {\n\t\tsubtotal += l.Qty * l.UnitPrice\n\t}\n\ttax := taxOf(subtotal, taxPercent)\n\tdiscount := 0\n\tif subtotal > 1000 {\n\t\tdiscount = subtotal / 10\n\t}\n\ttotal := subtotal + tax - discount\n\treturn fmt.Sprintf(\"%s\\nsubtotal %s\\ntax %s\\ntotal %s\", header, cents(subtotal), cents(tax), cents(total))\n}\n\n// taxOf computes the tax on subtotal; it is called from exactly one place.\nfunc taxOf(subtotal, percent int) int {\n\treturn subtotal * percent / 100\n}\n\n// cents formats an amount of cents as euros.\nfunc cents(amount int) string {\n\treturn fmt.Sprintf(\"%d.%02d\", amount/100, amount%100)\n}\n"

const pricingExtract = "func Invoice(lines []orders.Line, taxPercent int) string {\n\theader := \"INVOICE\"\n\tsubtotal, tax, discount := newFunction(lines, taxPercent)\n\ttotal := subtotal + tax - discount\n\treturn fmt.Sprintf(\"%s\\nsubtotal %s\\ntax %s\\ntotal %s\", header, cents(subtotal), cents(tax), cents(total))\n}\n\nfunc newFunction(lines []orders.Line, taxPercent int) (int, int, int) {\n\tsubtotal := 0\n\tfor _, l := range lines {\n\t\tsubtotal += l.Qty * l.UnitPrice\n\t}\n\ttax := taxOf(subtotal, taxPercent)\n\tdiscount := 0\n\tif subtotal > 1000 {\n\t\tdiscount = subtotal / 10\n\t}\n\treturn subtotal, tax, discount\n}"

func pricingChangeset() preview.Changeset {
	old := preview.ParseDocument(pricingGo)
	return preview.Changeset{Files: []preview.FileChange{{
		Kind: preview.OpEdit, Path: "refactor/pricing.go", Old: old,
		Edits: []preview.TextEdit{{StartLine: 10, StartCol: 0, EndLine: 23, EndCol: 1, NewText: pricingExtract}},
	}}}
}

func TestNameIntroducedGo(t *testing.T) {
	cs := pricingChangeset()
	got, err := nameIntroduced(cs, lang.Go, preview.UTF16, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if got.serverName != "newFunction" || got.name != "newFunction" || got.count != 0 {
		t.Fatalf("no name: %+v", got)
	}
	got, err = nameIntroduced(cs, lang.Go, preview.UTF16, nil, "lineTotals")
	if err != nil {
		t.Fatal(err)
	}
	if got.serverName != "newFunction" || got.name != "lineTotals" || got.count != 2 {
		t.Fatalf("named: server %q name %q count %d", got.serverName, got.name, got.count)
	}
	after, err := preview.Apply(got.cs.Files[0].Old, got.cs.Files[0].Edits)
	if err != nil {
		t.Fatal(err)
	}
	text := string(after.Bytes())
	if strings.Contains(text, "newFunction") || strings.Count(text, "lineTotals(") != 2 {
		t.Errorf("renamed text:\n%s", text)
	}
	want, _ := preview.Apply(cs.Files[0].Old, cs.Files[0].Edits)
	if strings.ReplaceAll(string(want.Bytes()), "newFunction", "lineTotals") != text {
		t.Errorf("renamed text differs from the extract with the name replaced:\n%s", text)
	}
	// The original file's untouched lines stay out of the edits.
	for _, e := range got.cs.Files[0].Edits {
		if e.StartLine < 10 {
			t.Errorf("edit %v touches the file's head", e)
		}
	}

	// A name already used in the file clashes.
	if _, err := nameIntroduced(cs, lang.Go, preview.UTF16, nil, "cents"); apierr.CodeOf(err) != apierr.Conflict {
		t.Errorf("name cents: %v, want CONFLICT", err)
	}
}

func TestNameIntroducedHintAndStrings(t *testing.T) {
	// A TS extract whose new code mentions the server's name in a string
	// and a comment: only the code occurrences are renamed; the hint
	// (_typescript.rename) names the identifier.
	old := preview.ParseDocument("export function f(x: number) {\n  return x * 2;\n}\n")
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "src/a.ts", Old: old, Edits: []preview.TextEdit{
		{StartLine: 1, StartCol: 9, EndLine: 1, EndCol: 14, NewText: "newLocal"},
		{StartLine: 1, StartCol: 0, EndLine: 1, EndCol: 0, NewText: "  const newLocal = x * 2; // newLocal\n  const label = \"newLocal\";\n"},
	}}}}
	hints := map[string][]protocol.Position{"src/a.ts": {{Line: 3, Character: 9}}}
	got, err := nameIntroduced(cs, lang.TypeScript, preview.UTF16, hints, "doubled")
	if err != nil {
		t.Fatal(err)
	}
	after, _ := preview.Apply(old, got.cs.Files[0].Edits)
	want := "export function f(x: number) {\n  const doubled = x * 2; // newLocal\n  const label = \"newLocal\";\n  return doubled;\n}\n"
	if string(after.Bytes()) != want || got.count != 2 {
		t.Errorf("got (%d renamed):\n%s\nwant:\n%s", got.count, after.Bytes(), want)
	}
}

// BenchmarkNameIntroduced: applying gopls's extract to a copy of the text,
// finding the introduced name and renaming it (pure, no Neovim).
func BenchmarkNameIntroduced(b *testing.B) {
	cs := pricingChangeset()
	for b.Loop() {
		if _, err := nameIntroduced(cs, lang.Go, preview.UTF16, nil, "totals"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAheadFormatKeeps: the FormatKeeps a rename made ahead of the file
// it was asked in stands for that file's text only; any other file or
// text is parsed as before. formattedTexts takes it: a rename that would
// realign a struct's fields is still formatted when the check made ahead
// says so.
func TestAheadFormatKeeps(t *testing.T) {
	src := "package p\n\ntype T struct {\n\tA  int\n\tBB int\n}\n"
	keeps := lang.Go.FormatKeeps(src, "A")
	h := ahead{rel: "p/t.go", got: func() parsedFile { return parsedFile{text: src, keeps: keeps} }}
	doc := preview.ParseDocument
	if h.formatKeeps("p/t.go", doc(src)) == nil {
		t.Errorf("the check made ahead is not taken for its own text")
	}
	if h.formatKeeps("p/u.go", doc(src)) != nil || h.formatKeeps("p/t.go", doc(src+"\n")) != nil || (ahead{}).formatKeeps("p/t.go", doc(src)) != nil {
		t.Errorf("a check made ahead stands for another file or text")
	}
	// Made ahead with its document: told by its lines and final newline.
	withDoc := ahead{rel: "p/t.go", got: func() parsedFile { return parsedFile{text: src, keeps: keeps, doc: doc(src)} }}
	if withDoc.formatKeeps("p/t.go", doc(src)) == nil {
		t.Errorf("the check made ahead with its document is not taken for its own text")
	}
	other := strings.Replace(src, "BB", "CC", 1)
	if withDoc.formatKeeps("p/t.go", doc(other)) != nil || withDoc.formatKeeps("p/t.go", doc(strings.TrimSuffix(src, "\n"))) != nil ||
		withDoc.formatKeeps("p/t.go", doc(src+"\n")) != nil {
		t.Errorf("a check made ahead with its document stands for another text")
	}
	// A renamed to AAAA: gofmt realigns the fields.
	old := preview.ParseDocument(src)
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "p/t.go", Old: old,
		Edits: []preview.TextEdit{{StartLine: 3, StartCol: 1, EndLine: 3, EndCol: 2, NewText: "AAAA"}}}}}
	texts := formattedTexts(cs, "AAAA", h.formatKeeps)
	if want := "package p\n\ntype T struct {\n\tAAAA int\n\tBB   int\n}\n"; texts["p/t.go"] != want {
		t.Errorf("formatted: %q, want %q", texts["p/t.go"], want)
	}
}
