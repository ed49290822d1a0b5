package lsp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func stRefFiles(r *lsp.ReferencesSection) string {
	var out []string
	for _, f := range r.Files {
		out = append(out, fmt.Sprintf("%s:%d", f.File, f.Count))
	}
	return strings.Join(out, " ")
}

func stLocs(locs []lsp.Location) string {
	var out []string
	for _, l := range locs {
		out = append(out, fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column))
	}
	return stSorted(out...)
}

// stAmbiguous checks an AMBIGUOUS error lists exactly files.
func stAmbiguous(t *testing.T, err error, files ...string) {
	t.Helper()
	e := stWantCode(t, err, apierr.Ambiguous)
	d, ok := e.Details.(map[string]any)
	if !ok {
		t.Fatalf("details = %#v", e.Details)
	}
	matches, _ := d["matches"].([]lsp.SymbolMatch)
	var got []string
	for _, m := range matches {
		got = append(got, fmt.Sprintf("%s:%d", m.File, m.Line))
	}
	if stSorted(got...) != stSorted(files...) {
		t.Fatalf("matches = %v, want %v", got, files)
	}
	if !strings.Contains(e.Remediation, "file") || !strings.Contains(e.Remediation, "line") {
		t.Fatalf("remediation %q does not say how to narrow", e.Remediation)
	}
}

func TestUnderstandGopls(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	check := func(t *testing.T, res lsp.UnderstandResult) {
		t.Helper()
		if res.Symbol != (lsp.UnderstandSymbol{Name: "Process", Kind: "function", File: "orders/orders.go", Line: 33, Column: 5}) {
			t.Errorf("symbol = %+v", res.Symbol)
		}
		d := res.Definition
		if d == nil || d.File != "orders/orders.go" || d.Line != 33 || d.SourceStart != 33 || d.SourceEnd != 42 ||
			!strings.HasPrefix(d.Source, "func Process(o Order) (Total, error) {\n") || !strings.HasSuffix(d.Source, "\treturn t, nil\n}") {
			t.Errorf("definition = %+v", d)
		}
		if res.Hover == nil || !strings.Contains(res.Hover.Contents, "Process(o ") ||
			!strings.Contains(res.Hover.Contents, "Process validates o and computes its total.") {
			t.Errorf("hover = %+v", res.Hover)
		}
		if r := res.References; r == nil || r.Total != 4 || r.FileCount != 3 || r.Truncated ||
			stRefFiles(r) != "main.go:1 orders/batch.go:1 orders/orders_test.go:2" {
			t.Errorf("references = %+v", res.References)
		}
		c := res.Calls
		if c == nil || !stEqualStrings(stCallNames(c.Incoming), []string{"ProcessBatch", "TestProcess", "main"}) ||
			!stEqualStrings(stCallNames(c.Outgoing), []string{"Add"}) {
			t.Fatalf("calls = %+v", c)
		}
		if s := stSites(stFindCall(t, c.Incoming, "TestProcess")); len(s) != 2 {
			t.Errorf("TestProcess sites = %v", s)
		}
		if len(res.Tests) != 1 || res.Tests[0].File != "orders/orders_test.go" || res.Tests[0].References != 2 ||
			!stEqualStrings(res.Tests[0].Callers, []string{"TestProcess"}) {
			t.Errorf("tests = %+v", res.Tests)
		}
		// gopls has implementation, but nothing implements a function.
		if res.Implementations != nil || res.NotApplicable["implementations"] == "" || len(res.Errors) != 0 {
			t.Errorf("implementations %+v, not applicable %v, errors %v", res.Implementations, res.NotApplicable, res.Errors)
		}
	}

	t.Run("orders.Process by position", func(t *testing.T) {
		res, err := client.Understand(ctx, lsp.UnderstandRequest{File: "orders/orders.go", Target: stAt(33, "Process")})
		if err != nil {
			t.Fatal(err)
		}
		check(t, res)
		if res.From != "orders/orders.go:33:5" {
			t.Errorf("from = %q", res.From)
		}
	})

	t.Run("from a call site in another file", func(t *testing.T) {
		res, err := client.Understand(ctx, lsp.UnderstandRequest{File: "main.go", Target: stAt(27, "Process")})
		if err != nil {
			t.Fatal(err)
		}
		check(t, res)
	})

	t.Run("by query, plain and qualified", func(t *testing.T) {
		for _, q := range []string{"Process", "orders.Process"} {
			res, err := client.Understand(ctx, lsp.UnderstandRequest{Query: q})
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if res.Query != q {
				t.Errorf("query = %q", res.Query)
			}
			check(t, res)
		}
	})

	t.Run("bounded references", func(t *testing.T) {
		res, err := client.Understand(ctx, lsp.UnderstandRequest{File: "orders/orders.go", Target: stAt(33, "Process"), MaxReferences: 2})
		if err != nil {
			t.Fatal(err)
		}
		r := res.References
		if r.Total != 4 || r.Returned != 2 || !r.Truncated || stRefFiles(r) != "main.go:1 orders/batch.go:1" {
			t.Fatalf("references = %+v", r)
		}
		// Tests still count every reference, not only those listed.
		if len(res.Tests) != 1 || res.Tests[0].References != 2 {
			t.Fatalf("tests = %+v", res.Tests)
		}
	})

	t.Run("interface: implementations, no calls", func(t *testing.T) {
		res, err := client.Understand(ctx, lsp.UnderstandRequest{File: "payment/payment.go", Target: stAt(10, "Method")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Symbol.Kind != "interface" || res.Implementations == nil || res.Implementations.Source != "implementation" ||
			stLocs(res.Implementations.Locations) != stSorted("payment/card.go:4:5", "payment/invoice.go:6:5", "payment/payment.go:16:5", "payment/wallet.go:4:5") {
			t.Fatalf("symbol %+v implementations %+v errors %v", res.Symbol, res.Implementations, res.Errors)
		}
		if res.Calls != nil || res.NotApplicable["calls"] == "" {
			t.Fatalf("calls %+v, not applicable %v", res.Calls, res.NotApplicable)
		}
		if d := res.Definition; d == nil || d.SourceStart != 10 || d.SourceEnd != 13 || !strings.HasSuffix(d.Source, "Name() string\n}") {
			t.Fatalf("definition = %+v", d)
		}
	})

	t.Run("AMBIGUOUS Normalize", func(t *testing.T) {
		_, err := client.Understand(ctx, lsp.UnderstandRequest{Query: "Normalize"})
		stAmbiguous(t, err, "orders/orders.go:56", "text/normalize.go:7")
		// The qualification the remediation suggests narrows it.
		res, err := client.Understand(ctx, lsp.UnderstandRequest{Query: "text.Normalize"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Symbol.File != "text/normalize.go" || res.Symbol.Line != 7 {
			t.Fatalf("symbol = %+v", res.Symbol)
		}
		if res.References == nil || stRefFiles(res.References) != "main.go:1" {
			t.Fatalf("references = %+v", res.References)
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := client.Understand(ctx, lsp.UnderstandRequest{Query: "NoSuchSymbolAnywhere"})
		stWantCode(t, err, apierr.ResourceNotFound)
		_, err = client.Understand(ctx, lsp.UnderstandRequest{})
		stWantCode(t, err, apierr.InvalidParameter)
		_, err = client.Understand(ctx, lsp.UnderstandRequest{File: "orders/orders.go", Target: stAt(33, "Nope")})
		stWantCode(t, err, apierr.ResourceNotFound)
		_, err = client.Understand(ctx, lsp.UnderstandRequest{File: "../outside.go", Target: stAt(1, "x")})
		if err == nil {
			t.Fatal("a path outside the workspace was accepted")
		}
	})
}

func TestUnderstandPyright(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("process: sections, and implementations failing alone", func(t *testing.T) {
		var res lsp.UnderstandResult
		stEventually(ctx, t, "pyright sees every reference to process", func() error {
			var err error
			res, err = client.Understand(ctx, lsp.UnderstandRequest{File: "shop/orders.py", Target: stAt(37, "process")})
			if err == nil && (res.References == nil || res.References.Total < 8) {
				err = fmt.Errorf("references %+v", res.References)
			}
			return err
		})
		if res.Symbol.Kind != "function" || res.Definition == nil || !strings.HasPrefix(res.Definition.Source, "def process(") {
			t.Errorf("symbol %+v definition %+v", res.Symbol, res.Definition)
		}
		if res.Hover == nil || !strings.Contains(res.Hover.Contents, "def process(") {
			t.Errorf("hover = %+v", res.Hover)
		}
		if res.Calls == nil || !stEqualStrings(stCallNames(res.Calls.Incoming), []string{"main", "process_batch", "test_empty", "test_total"}) {
			t.Errorf("calls = %+v", res.Calls)
		}
		if len(res.Tests) != 1 || res.Tests[0].File != "tests/test_orders.py" || !stEqualStrings(res.Tests[0].Callers, []string{"test_empty", "test_total"}) {
			t.Errorf("tests = %+v", res.Tests)
		}
		if e := res.Errors["implementations"]; !strings.HasPrefix(e, "UNSUPPORTED: ") || !strings.Contains(e, "pyright") {
			t.Errorf("errors = %v", res.Errors)
		}
		if res.Implementations != nil {
			t.Errorf("implementations = %+v", res.Implementations)
		}
	})

	t.Run("a class: subtypes stand in for implementations", func(t *testing.T) {
		res, err := client.Understand(ctx, lsp.UnderstandRequest{File: "shop/payment.py", Target: stAt(12, "PaymentMethod")})
		if err != nil {
			t.Fatal(err)
		}
		im := res.Implementations
		if res.Symbol.Kind != "class" || im == nil || im.Source != lsp.TypeSourceFallback || !strings.Contains(im.Note, "pyright") ||
			stLocs(im.Locations) != stSorted("shop/methods/card.py:4:6", "shop/methods/invoice.py:6:6", "shop/methods/wallet.py:4:6") {
			t.Fatalf("symbol %+v implementations %+v errors %v", res.Symbol, im, res.Errors)
		}
	})

	t.Run("AMBIGUOUS normalize", func(t *testing.T) {
		var err error
		stEventually(ctx, t, "pyright finds both normalize", func() error {
			_, err = client.Understand(ctx, lsp.UnderstandRequest{Query: "normalize"})
			if apierr.CodeOf(err) != apierr.Ambiguous {
				return fmt.Errorf("got %v", err)
			}
			return nil
		})
		stAmbiguous(t, err, "shop/orders.py:55", "shop/text.py:4")
	})
}

func TestUnderstandTypeScript(t *testing.T) {
	testenv.Require(t, "nvim", "typescript-language-server")
	root := testenv.CopySample(t, "ts")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("process", func(t *testing.T) {
		var res lsp.UnderstandResult
		stEventually(ctx, t, "tsserver sees every reference to process", func() error {
			var err error
			res, err = client.Understand(ctx, lsp.UnderstandRequest{File: "src/orders.ts", Target: stAt(25, "process")})
			if err == nil && (res.References == nil || res.References.Total < 5) {
				err = fmt.Errorf("references %+v", res.References)
			}
			return err
		})
		if res.Symbol.Kind != "function" || res.Definition == nil || !strings.Contains(res.Definition.Source, "export function process(order: Order): Total") {
			t.Errorf("symbol %+v definition %+v", res.Symbol, res.Definition)
		}
		if res.Calls == nil || !stEqualStrings(stCallNames(res.Calls.Incoming), []string{"main.ts", "processBatch", "receipt"}) {
			t.Errorf("calls = %+v", res.Calls)
		}
		if res.Hover == nil || len(res.Errors) != 0 {
			t.Errorf("hover %+v errors %v", res.Hover, res.Errors)
		}
	})

	t.Run("AMBIGUOUS normalize", func(t *testing.T) {
		_, err := client.Understand(ctx, lsp.UnderstandRequest{Query: "normalize"})
		stAmbiguous(t, err, "src/orders.ts:45", "src/text.ts:4")
	})
}
