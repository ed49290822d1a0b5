package lsp_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// stTypes renders entries as sorted "Name@file:line:column".
func stTypes(entries []lsp.TypeEntry) string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, stWhere(e.HierarchyEntry))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func stSorted(s ...string) string {
	sort.Strings(s)
	return strings.Join(s, " ")
}

func stFindType(t *testing.T, entries []lsp.TypeEntry, name string) lsp.TypeEntry {
	t.Helper()
	for _, e := range entries {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no type %q among %s", name, stTypes(entries))
	return lsp.TypeEntry{}
}

func TestTypeHierarchyGopls(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	const (
		method     = "Method@payment/payment.go:10:5"
		refundable = "RefundableMethod@payment/payment.go:16:5"
		card       = "Card@payment/card.go:4:5"
		wallet     = "Wallet@payment/wallet.go:4:5"
		invoice    = "Invoice@payment/invoice.go:6:5"
	)
	for _, tc := range []struct {
		name             string
		file             string
		target           lsp.Target
		symbol           string
		supers, subtypes string
	}{
		{"RefundableMethod both ways", "payment/payment.go", stAt(16, "RefundableMethod"), refundable, method, card},
		{"Method: every implementation", "payment/payment.go", stAt(10, "Method"), method, "", stSorted(card, invoice, refundable, wallet)},
		{"Card: both interfaces", "payment/card.go", stAt(4, "Card"), card, stSorted(method, refundable), ""},
		{"from a use of the type", "main.go", stAt(32, "Method"), method, "", stSorted(card, invoice, refundable, wallet)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := client.TypeHierarchy(ctx, tc.file, tc.target, lsp.TypeHierarchyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Source != lsp.TypeSourceServer || res.Note != "" || res.Server != "gopls" {
				t.Fatalf("source %q note %q server %q", res.Source, res.Note, res.Server)
			}
			if stWhere(res.Symbol) != tc.symbol {
				t.Fatalf("symbol = %s, want %s", stWhere(res.Symbol), tc.symbol)
			}
			if got := stTypes(res.Supertypes); got != tc.supers {
				t.Errorf("supertypes = %q\nwant %q", got, tc.supers)
			}
			if got := stTypes(res.Subtypes); got != tc.subtypes {
				t.Errorf("subtypes = %q\nwant %q", got, tc.subtypes)
			}
			if res.Totals["supertypes"].Direct != len(res.Supertypes) || res.Totals["subtypes"].Direct != len(res.Subtypes) {
				t.Errorf("totals = %+v", res.Totals)
			}
		})
	}

	t.Run("kinds, depth and repeated", func(t *testing.T) {
		res, err := client.TypeHierarchy(ctx, "payment/payment.go", stAt(10, "Method"), lsp.TypeHierarchyOptions{Direction: "subtypes", Depth: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Supertypes != nil || res.Symbol.Kind != "interface" {
			t.Fatalf("supertypes %v, symbol %+v", res.Supertypes, res.Symbol)
		}
		c := stFindType(t, res.Subtypes, "Card")
		if c.Kind != "class" { // gopls calls a struct type a class here
			t.Fatalf("Card kind = %q", c.Kind)
		}
		// Card is also a subtype of RefundableMethod, itself a subtype of
		// Method: expanded once, reported as repeated below.
		r := stFindType(t, res.Subtypes, "RefundableMethod")
		if got := stTypes(r.Subtypes); got != card {
			t.Fatalf("RefundableMethod subtypes = %q", got)
		}
		if !r.Subtypes[0].Repeated && !c.Repeated {
			t.Fatalf("Card expanded twice: %+v / %+v", c, r.Subtypes[0])
		}
	})

	t.Run("supertypes to depth 2 from Card", func(t *testing.T) {
		res, err := client.TypeHierarchy(ctx, "payment/card.go", stAt(4, "Card"), lsp.TypeHierarchyOptions{Direction: "supertypes", Depth: 2})
		if err != nil {
			t.Fatal(err)
		}
		r := stFindType(t, res.Supertypes, "RefundableMethod")
		if got := stTypes(r.Supertypes); got != method {
			t.Fatalf("RefundableMethod supertypes = %q", got)
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := client.TypeHierarchy(ctx, "orders/orders.go", stAt(33, "Process"), lsp.TypeHierarchyOptions{})
		stWantCode(t, err, apierr.ResourceNotFound)
		_, err = client.TypeHierarchy(ctx, "payment/card.go", stAt(4, "Card"), lsp.TypeHierarchyOptions{Direction: "incoming"})
		stWantCode(t, err, apierr.InvalidParameter)
	})
}

func TestTypeHierarchyFallbackTypeScript(t *testing.T) {
	testenv.Require(t, "nvim", "typescript-language-server")
	root := testenv.CopySample(t, "ts")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	const (
		pm      = "PaymentMethod@src/payment.ts:3:17"
		card    = "Card@src/methods/card.ts:4:13"
		premium = "PremiumCard@src/methods/card.ts:20:13"
		wallet  = "Wallet@src/methods/wallet.ts:4:13"
		invoice = "Invoice@src/methods/invoice.ts:4:13"
	)
	t.Run("PaymentMethod subtypes by implementation", func(t *testing.T) {
		var res lsp.TypeHierarchyResult
		stEventually(ctx, t, "tsserver finds the implementations", func() error {
			var err error
			res, err = client.TypeHierarchy(ctx, "src/payment.ts", stAt(3, "PaymentMethod"), lsp.TypeHierarchyOptions{})
			if err == nil && len(res.Subtypes) < 4 {
				err = fmt.Errorf("subtypes %s", stTypes(res.Subtypes))
			}
			return err
		})
		if res.Source != lsp.TypeSourceFallback || !strings.Contains(res.Note, "typescript-language-server does not offer type hierarchy") ||
			!strings.Contains(res.Note, "textDocument/implementation") {
			t.Fatalf("source %q note %q", res.Source, res.Note)
		}
		if stWhere(res.Symbol) != pm || res.Symbol.Kind != "interface" {
			t.Fatalf("symbol = %+v", res.Symbol)
		}
		if got, want := stTypes(res.Subtypes), stSorted(card, premium, invoice, wallet); got != want {
			t.Fatalf("subtypes = %q\nwant %q", got, want)
		}
		if k := stFindType(t, res.Subtypes, "Card").Kind; k != "class" {
			t.Fatalf("Card kind = %q", k)
		}
		if len(res.Supertypes) != 0 {
			t.Fatalf("supertypes = %s", stTypes(res.Supertypes))
		}
	})

	t.Run("PremiumCard supertypes to depth 2, from a use", func(t *testing.T) {
		res, err := client.TypeHierarchy(ctx, "src/methods/card.ts", stAt(20, "Card"), lsp.TypeHierarchyOptions{Direction: "supertypes", Depth: 2})
		if err != nil {
			t.Fatal(err)
		}
		// Pointing at "Card" in "extends Card" resolves to Card itself.
		if stWhere(res.Symbol) != card || stTypes(res.Supertypes) != pm {
			t.Fatalf("symbol %s supertypes %s", stWhere(res.Symbol), stTypes(res.Supertypes))
		}
		res, err = client.TypeHierarchy(ctx, "src/methods/card.ts", stAt(20, "PremiumCard"), lsp.TypeHierarchyOptions{Direction: "supertypes", Depth: 2})
		if err != nil {
			t.Fatal(err)
		}
		c := stFindType(t, res.Supertypes, "Card")
		if stWhere(c.HierarchyEntry) != card || stTypes(c.Supertypes) != pm {
			t.Fatalf("PremiumCard supertypes = %+v", res.Supertypes)
		}
	})
}

func TestTypeHierarchyFallbackPyright(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	const (
		pm      = "PaymentMethod@shop/payment.py:12:6"
		card    = "Card@shop/methods/card.py:4:6"
		premium = "PremiumCard@shop/methods/card.py:20:6"
		wallet  = "Wallet@shop/methods/wallet.py:4:6"
		invoice = "Invoice@shop/methods/invoice.py:6:6"
	)
	t.Run("PaymentMethod subclasses by references, to depth 2", func(t *testing.T) {
		var res lsp.TypeHierarchyResult
		stEventually(ctx, t, "pyright finds the subclasses", func() error {
			var err error
			res, err = client.TypeHierarchy(ctx, "shop/payment.py", stAt(12, "PaymentMethod"), lsp.TypeHierarchyOptions{Depth: 2})
			if err == nil && len(res.Subtypes) < 3 {
				err = fmt.Errorf("subtypes %s", stTypes(res.Subtypes))
			}
			return err
		})
		if res.Source != lsp.TypeSourceFallback || !strings.Contains(res.Note, "pyright does not offer type hierarchy") ||
			!strings.Contains(res.Note, "textDocument/references") {
			t.Fatalf("source %q note %q", res.Source, res.Note)
		}
		if stWhere(res.Symbol) != pm || res.Symbol.Kind != "class" {
			t.Fatalf("symbol = %+v", res.Symbol)
		}
		if got, want := stTypes(res.Subtypes), stSorted(card, invoice, wallet); got != want {
			t.Fatalf("subtypes = %q\nwant %q", got, want)
		}
		c := stFindType(t, res.Subtypes, "Card")
		if stTypes(c.Subtypes) != premium {
			t.Fatalf("Card subtypes = %s", stTypes(c.Subtypes))
		}
		if len(res.Supertypes) != 0 {
			t.Fatalf("supertypes = %s", stTypes(res.Supertypes))
		}
	})

	t.Run("PremiumCard supertypes to depth 2", func(t *testing.T) {
		res, err := client.TypeHierarchy(ctx, "shop/methods/card.py", stAt(20, "PremiumCard"), lsp.TypeHierarchyOptions{Direction: "supertypes", Depth: 2})
		if err != nil {
			t.Fatal(err)
		}
		c := stFindType(t, res.Supertypes, "Card")
		if stWhere(c.HierarchyEntry) != card || stTypes(c.Supertypes) != pm {
			t.Fatalf("supertypes = %+v", res.Supertypes)
		}
		if res.Truncated {
			t.Fatal("PaymentMethod has no bases: nothing is truncated")
		}
	})

	t.Run("no identifier", func(t *testing.T) {
		_, err := client.TypeHierarchy(ctx, "shop/payment.py", lsp.Target{Line: 2, Column: stIntp(0)}, lsp.TypeHierarchyOptions{})
		stWantCode(t, err, apierr.InvalidParameter)
	})
}
