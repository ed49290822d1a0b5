package lsp_test

// The navigation features against real typescript-language-server on a copy
// of testdata/samples/ts (landmarks: testdata/samples/README.md).

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestNavigationTS(t *testing.T) {
	testenv.Require(t, "nvim", "typescript-language-server")
	root := testenv.CopySample(t, "ts")
	s, client := testenv.Embedded(t, root)
	testenv.TraceLSP(t, s) // logged if the test fails
	ctx := testenv.Context(t)

	t.Run("references right after opening", func(t *testing.T) {
		// The first request on a fresh buffer: without waiting for tsserver
		// to load the project it finds only orders.ts's own references.
		r, err := client.References(ctx, "src/orders.ts", lsp.Target{Line: 25, Symbol: "process"}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"src/imports.ts:5:20", "src/imports.ts:8:16", "src/main.ts:7:9", "src/main.ts:21:14", "src/orders.ts:25:16", "src/orders.ts:39:14"}
		if got := refWheres(r); !reflect.DeepEqual(got, want) || r.Server != "typescript-language-server" {
			t.Fatalf("references = %v, want %v", got, want)
		}
		verifiedBy(t, ctx, client, "typescript", "typescript-language-server", "find_references")
	})

	t.Run("multibyte", func(t *testing.T) {
		// Line 14: const greeting = "héllo 世界 🎉 " + name; name at
		// character 35 (UTF-16 36, byte 43).
		r, err := client.Definition(ctx, "src/text.ts", lsp.Target{Line: 14, Symbol: "name"})
		if err != nil {
			t.Fatal(err)
		}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, []string{"src/text.ts:13:22"}) || r.From != "src/text.ts:14:35" {
			t.Fatalf("definition = %v from %s, want src/text.ts:13:22", got, r.From)
		}
		// Line 19: the second utf8Len follows "naïve café 🙂 世界": character
		// 46 (UTF-16 47, byte 55).
		refs, err := client.References(ctx, "src/text.ts", lsp.Target{Line: 19, Column: col(46)}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"src/imports.ts:3:9", "src/imports.ts:11:72", "src/text.ts:9:16", "src/text.ts:14:55", "src/text.ts:19:16", "src/text.ts:19:46"}
		if got := refWheres(refs); !reflect.DeepEqual(got, want) || refs.Symbol != "utf8Len" {
			t.Fatalf("references of utf8Len = %v, want %v", got, want)
		}
	})

	t.Run("hover", func(t *testing.T) {
		r, err := client.Hover(ctx, "src/orders.ts", lsp.Target{Line: 25, Symbol: "process"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Found || r.Kind != "markdown" || !strings.Contains(r.Contents, "function process(order: Order): Total") {
			t.Fatalf("hover = %+v", r)
		}
	})

	t.Run("document symbols", func(t *testing.T) {
		r, err := client.Symbols(ctx, lsp.SymbolsQuery{File: "src/methods/card.ts", Kinds: []string{"class", "method"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range r.Symbols {
			got = append(got, s.Container+"|"+symbolWheres([]lsp.Symbol{s})[0])
		}
		want := []string{"|class Card src/methods/card.ts:4:13", "Card|method charge src/methods/card.ts:9:2",
			"Card|method name src/methods/card.ts:14:2", "|class PremiumCard src/methods/card.ts:20:13",
			"PremiumCard|method charge src/methods/card.ts:23:11"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("symbols = %v\nwant %v", got, want)
		}
		if c := r.Symbols[0]; c.EndLine != 17 || c.EndColumn != 1 {
			t.Fatalf("Card ends at %d:%d, want 17:1", c.EndLine, c.EndColumn)
		}
	})

	t.Run("workspace symbols", func(t *testing.T) {
		r, err := client.Symbols(ctx, lsp.SymbolsQuery{Query: "charge", Kinds: []string{"method"}})
		if err != nil {
			t.Fatal(err)
		}
		got := symbolWheres(r.Symbols)
		sort.Strings(got)
		want := []string{"method charge src/methods/card.ts:23:11", "method charge src/methods/card.ts:9:2",
			"method charge src/methods/invoice.ts:9:2", "method charge src/methods/wallet.ts:7:2", "method charge src/payment.ts:4:2"}
		if !reflect.DeepEqual(got, want) || len(r.Opened) != 0 {
			t.Fatalf("charge methods = %v (opened %v), want %v", got, r.Opened, want)
		}
	})

	t.Run("implementations", func(t *testing.T) {
		r, err := client.Implementations(ctx, "src/payment.ts", lsp.Target{Line: 3, Symbol: "PaymentMethod"})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"src/methods/card.ts:4:13", "src/methods/card.ts:20:13", "src/methods/invoice.ts:4:13", "src/methods/wallet.ts:4:13"}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, want) {
			t.Fatalf("implementations = %v, want %v", got, want)
		}
		verifiedBy(t, ctx, client, "typescript", "typescript-language-server", "find_implementations")
	})

	t.Run("completion and signature help", func(t *testing.T) {
		// Line 23: card.charge(total.amount); column 5 is right after "card.".
		r, err := client.Completions(ctx, "src/main.ts", lsp.Target{Line: 23, Column: col(5)}, lsp.CompletionOptions{Prefix: "ch"})
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]string{}
		for _, it := range r.Items {
			kinds[it.Label] = it.Kind
		}
		if !reflect.DeepEqual(kinds, map[string]string{"charge": "method", "charged": "field"}) {
			t.Fatalf("completions = %+v", r.Items)
		}
		// Line 21: const total = process(order); column 22 is inside the call.
		s, err := client.SignatureHelp(ctx, "src/main.ts", lsp.Target{Line: 21, Column: col(22)})
		if err != nil {
			t.Fatal(err)
		}
		if !s.Found || s.Signatures[0].Label != "process(order: Order): Total" || s.Signatures[0].Parameters[0].Label != "order: Order" {
			t.Fatalf("signature help = %+v", s)
		}
	})

	t.Run("diagnostics", func(t *testing.T) {
		// The only diagnostic of the project: hint 6133 on the unused import.
		r, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "src/imports.ts"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != 1 || r.Diagnostics[0].Line != 2 || r.Diagnostics[0].Column != 0 || r.Diagnostics[0].Severity != "hint" ||
			r.Diagnostics[0].Code != "6133" || r.Diagnostics[0].Message != "'visit' is declared but its value is never read." {
			t.Fatalf("diagnostics = %+v", r)
		}
		r, err = client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "src/imports.ts", MinSeverity: "warning"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != 0 || r.MinSeverity != "warning" {
			t.Fatalf("warnings and worse = %+v", r)
		}
	})
}
