package lsp_test

// The navigation features against real pyright on a copy of
// testdata/samples/python (landmarks: testdata/samples/README.md).

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestNavigationPython(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("workspace symbols before any file is open", func(t *testing.T) {
		// Nothing is open: nvbridge opens the shallowest .py file (the root
		// holds pyproject.toml) and waits for pyright to analyse it; asked
		// at once, pyright would answer an empty list.
		r, err := client.Symbols(ctx, lsp.SymbolsQuery{Query: "charge", Kinds: []string{"method"}})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Opened, []string{"shop/__init__.py"}) || !reflect.DeepEqual(r.Servers, []string{"pyright"}) || len(r.NotReady) != 0 {
			t.Fatalf("result = %+v", r)
		}
		got := symbolWheres(r.Symbols)
		sort.Strings(got)
		want := []string{"method charge shop/methods/card.py:11:8", "method charge shop/methods/card.py:27:8",
			"method charge shop/methods/invoice.py:13:8", "method charge shop/methods/wallet.py:10:8", "method charge shop/payment.py:15:8"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("charge methods = %v, want %v", got, want)
		}
	})

	t.Run("definition after multibyte text", func(t *testing.T) {
		// Line 15: greeting = "héllo 世界 🎉 " + name; name at character 31
		// (UTF-16 32, byte 39).
		r, err := client.Definition(ctx, "shop/text.py", lsp.Target{Line: 15, Symbol: "name"})
		if err != nil {
			t.Fatal(err)
		}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, []string{"shop/text.py:14:10"}) || r.From != "shop/text.py:15:31" || r.Server != "pyright" {
			t.Fatalf("definition = %v from %s, want shop/text.py:14:10", got, r.From)
		}
		r, err = client.Definition(ctx, "shop/app.py", lsp.Target{Line: 14, Symbol: "process"})
		if err != nil {
			t.Fatal(err)
		}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, []string{"shop/orders.py:37:4"}) ||
			!strings.HasPrefix(r.Locations[0].Declaration, "def process(order: Order) -> Total:\n") {
			t.Fatalf("definition of process = %v %q", got, r.Locations[0].Declaration)
		}
	})

	t.Run("a warm read is one round trip once pyright has analysed the file", func(t *testing.T) {
		// The definition above waited for pyright's analysis of app.py
		// (pyright answers partial results before it): read.lua is told
		// so (the analysed servers of the file's buffer) and sends the
		// request in the same call as the open.
		before := s.RoundTrips()
		r, err := client.Definition(ctx, "shop/app.py", lsp.Target{Line: 14, Symbol: "process"})
		if err != nil {
			t.Fatal(err)
		}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, []string{"shop/orders.py:37:4"}) {
			t.Fatalf("definition of process = %v", got)
		}
		if n := s.RoundTrips() - before; n != 1 {
			t.Fatalf("the warm definition took %d round trips to Neovim, want 1", n)
		}
	})

	t.Run("references", func(t *testing.T) {
		r, err := client.References(ctx, "shop/orders.py", lsp.Target{Line: 37, Symbol: "process"}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"shop/__init__.py:3:44", "shop/__init__.py:5:38", "shop/app.py:8:37", "shop/app.py:14:12",
			"shop/orders.py:37:4", "shop/orders.py:51:18", "tests/test_orders.py:3:54", "tests/test_orders.py:9:16", "tests/test_orders.py:15:12"}
		if got := refWheres(r); !reflect.DeepEqual(got, want) || r.Total != 9 || r.FileCount != 4 {
			t.Fatalf("references = %v (total %d, files %d), want %v", got, r.Total, r.FileCount, want)
		}
		// After "naïve café 🙂 世界" (combining mark, surrogate pair, CJK):
		// the second utf8_len is at character 43 (UTF-16 44, byte 52).
		r, err = client.References(ctx, "shop/text.py", lsp.Target{Line: 20, Column: col(43)}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		want = []string{"shop/text.py:9:4", "shop/text.py:15:45", "shop/text.py:20:12", "shop/text.py:20:43"}
		if got := refWheres(r); !reflect.DeepEqual(got, want) || r.Symbol != "utf8_len" {
			t.Fatalf("references of utf8_len = %v (symbol %q), want %v", got, r.Symbol, want)
		}
		verifiedBy(t, ctx, client, "python", "pyright", "find_references")
	})

	t.Run("hover", func(t *testing.T) {
		r, err := client.Hover(ctx, "shop/app.py", lsp.Target{Line: 14, Symbol: "process"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Found || r.Kind != "markdown" || !strings.Contains(r.Contents, "def process(order: Order) -> Total") ||
			!strings.Contains(r.Contents, "Validate order and compute its total.") {
			t.Fatalf("hover = %+v", r)
		}
		if r.Range == nil || where(r.Range.File, r.Range.Line, r.Range.Column) != "shop/app.py:14:12" {
			t.Fatalf("range = %+v", r.Range)
		}
	})

	t.Run("document symbols", func(t *testing.T) {
		r, err := client.Symbols(ctx, lsp.SymbolsQuery{File: "shop/methods/card.py", Kinds: []string{"class", "method"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range r.Symbols {
			got = append(got, s.Container+"|"+symbolWheres([]lsp.Symbol{s})[0])
		}
		want := []string{"|class Card shop/methods/card.py:4:6", "Card|method __init__ shop/methods/card.py:7:8",
			"Card|method charge shop/methods/card.py:11:8", "Card|method name shop/methods/card.py:16:8",
			"|class PremiumCard shop/methods/card.py:20:6", "PremiumCard|method __init__ shop/methods/card.py:23:8",
			"PremiumCard|method charge shop/methods/card.py:27:8"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("symbols = %v\nwant %v", got, want)
		}
	})

	t.Run("signature help", func(t *testing.T) {
		// Line 14: total = process(order); column 20 is inside the call.
		r, err := client.SignatureHelp(ctx, "shop/app.py", lsp.Target{Line: 14, Column: col(20)})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Found || len(r.Signatures) != 1 || r.ActiveParameter == nil || *r.ActiveParameter != 0 {
			t.Fatalf("signature help = %+v", r)
		}
		if s := r.Signatures[0]; !strings.Contains(s.Label, "(order: Order) -> Total") || len(s.Parameters) != 1 || s.Parameters[0].Label != "order: Order" {
			t.Fatalf("signature = %+v", s)
		}
	})

	t.Run("implementations are unsupported", func(t *testing.T) {
		_, err := client.Implementations(ctx, "shop/payment.py", lsp.Target{Line: 12, Symbol: "PaymentMethod"})
		const want = "UNSUPPORTED: pyright does not support textDocument/implementation; it offers " +
			"textDocument/definition, textDocument/declaration, textDocument/typeDefinition, textDocument/references, " +
			"textDocument/hover, textDocument/documentSymbol, workspace/symbol, textDocument/completion, " +
			"textDocument/signatureHelp, textDocument/prepareCallHierarchy"
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant %s", err, want)
		}
		e := apierr.As(err)
		if !strings.Contains(e.Remediation, "find_references") {
			t.Fatalf("remediation = %q", e.Remediation)
		}
		details, _ := e.Details.(map[string]any)
		if details["method"] != "textDocument/implementation" || !reflect.DeepEqual(details["servers"], []string{"pyright"}) {
			t.Fatalf("details = %#v", e.Details)
		}
		verifiedUnsupportedBy(t, ctx, client, "python", "pyright", "find_implementations")
	})

	t.Run("diagnostics of a clean file", func(t *testing.T) {
		r, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "shop/orders.py"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != 0 || r.DiagnosticsComplete == nil || !*r.DiagnosticsComplete {
			t.Fatalf("diagnostics = %+v", r)
		}
	})
}
