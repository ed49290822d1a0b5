package lsp_test

// The navigation features against real gopls through a real headless
// Neovim, on a copy of testdata/samples/go. Expected positions are the
// landmarks of testdata/samples/README.md. One Neovim serves every subtest.

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func col(n int) *int { return &n }

// where renders a location as file:line:column for comparisons.
func where(file string, line, column int) string { return fmt.Sprintf("%s:%d:%d", file, line, column) }

func locWheres(locs []lsp.SourceLocation) []string {
	out := []string{}
	for _, l := range locs {
		out = append(out, where(l.File, l.Line, l.Column))
	}
	return out
}

func refWheres(r lsp.ReferencesResult) []string {
	out := []string{}
	for _, f := range r.Files {
		for _, ref := range f.References {
			out = append(out, where(f.File, ref.Line, ref.Column))
		}
	}
	return out
}

func symbolWheres(syms []lsp.Symbol) []string {
	out := []string{}
	for _, s := range syms {
		out = append(out, s.Kind+" "+s.Name+" "+where(s.File, s.Line, s.Column))
	}
	return out
}

func wantCode(t *testing.T, err error, code apierr.Code, fragment string) {
	t.Helper()
	if apierr.CodeOf(err) != code {
		t.Fatalf("err = %v, want %s", err, code)
	}
	if !strings.Contains(err.Error(), fragment) {
		t.Fatalf("err = %q, want it to contain %q", err, fragment)
	}
	if apierr.As(err).Remediation == "" {
		t.Fatalf("err %v has no remediation", err)
	}
}

func TestNavigationGo(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	// A file no language server serves, for the UNSUPPORTED path.
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("orders.Process is the entry point\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("definition", func(t *testing.T) {
		r, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Symbol != "Process" || r.From != "main.go:27:22" || r.Server != "gopls" || r.Count != 1 {
			t.Fatalf("result = %+v", r)
		}
		l := r.Locations[0]
		if got := where(l.File, l.Line, l.Column); got != "orders/orders.go:33:5" || l.EndLine != 33 || l.EndColumn != 12 || l.OutsideWorkspace {
			t.Fatalf("location = %+v, want orders/orders.go:33:5-33:12", l)
		}
		if l.Context != "func Process(o Order) (Total, error) {" {
			t.Fatalf("context = %q", l.Context)
		}
		wantDecl := "func Process(o Order) (Total, error) {\n\tif len(o.Lines) == 0 {\n\t\treturn Total{}, ErrEmpty\n\t}\n\tvar t Total"
		if l.Declaration != wantDecl {
			t.Fatalf("declaration = %q, want %q", l.Declaration, wantDecl)
		}
	})

	t.Run("definition outside the workspace", func(t *testing.T) {
		r, err := client.Definition(ctx, "main.go", lsp.Target{Line: 36, Symbol: "Println"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Count != 1 {
			t.Fatalf("locations = %+v", r.Locations)
		}
		l := r.Locations[0]
		if !l.OutsideWorkspace || !filepath.IsAbs(l.File) || !strings.HasSuffix(l.File, "/src/fmt/print.go") ||
			!strings.HasPrefix(l.Context, "func Println(a ...any)") || !strings.HasPrefix(l.Declaration, "func Println(") {
			t.Fatalf("location = %+v, want fmt/print.go outside the workspace", l)
		}
	})

	t.Run("definition after multibyte text", func(t *testing.T) {
		// Line 15: greeting := "héllo 世界 🎉 " + name — name is at character
		// 29 (UTF-16 30, byte 37).
		for _, tt := range []struct {
			target lsp.Target
			from   string
		}{
			{lsp.Target{Line: 15, Symbol: "name"}, "text/unicode.go:15:29"},
			{lsp.Target{Line: 15, Column: col(29)}, "text/unicode.go:15:29"},
			{lsp.Target{Line: 15, Column: col(32)}, "text/unicode.go:15:32"}, // inside "name"
		} {
			r, err := client.Definition(ctx, "text/unicode.go", tt.target)
			if err != nil {
				t.Fatal(err)
			}
			if got := locWheres(r.Locations); !reflect.DeepEqual(got, []string{"text/unicode.go:14:11"}) || r.Symbol != "name" || r.From != tt.from {
				t.Fatalf("%+v: definition = %v (symbol %q, from %s), want text/unicode.go:14:11 from %s", tt.target, got, r.Symbol, r.From, tt.from)
			}
		}
	})

	t.Run("references", func(t *testing.T) {
		r, err := client.References(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"main.go:27:22", "orders/batch.go:7:12", "orders/orders.go:33:5", "orders/orders_test.go:7:13", "orders/orders_test.go:14:14"}
		if got := refWheres(r); !reflect.DeepEqual(got, want) {
			t.Fatalf("references = %v, want %v", got, want)
		}
		if r.Total != 5 || r.Returned != 5 || r.FileCount != 4 || r.Truncated || len(r.Files) != 4 || r.Files[3].Count != 2 {
			t.Fatalf("totals = %+v", r)
		}
		if ctx := r.Files[1].References[0].Context; ctx != "t, err := Process(o)" {
			t.Fatalf("context = %q", ctx)
		}

		r, err = client.References(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"}, lsp.ReferencesOptions{IncludeDeclaration: false})
		if err != nil {
			t.Fatal(err)
		}
		want = []string{"main.go:27:22", "orders/batch.go:7:12", "orders/orders_test.go:7:13", "orders/orders_test.go:14:14"}
		if got := refWheres(r); !reflect.DeepEqual(got, want) || r.IncludeDeclaration {
			t.Fatalf("without declaration = %v, want %v", got, want)
		}

		r, err = client.References(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"}, lsp.ReferencesOptions{IncludeDeclaration: true, MaxResults: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := refWheres(r); !reflect.DeepEqual(got, []string{"main.go:27:22", "orders/batch.go:7:12"}) ||
			!r.Truncated || r.Total != 5 || r.Returned != 2 || r.FileCount != 4 {
			t.Fatalf("max_results 2: %v %+v", got, r)
		}
		verifiedBy(t, ctx, client, "go", "gopls", "find_references")
	})

	t.Run("references after multibyte text", func(t *testing.T) {
		r, err := client.References(ctx, "text/unicode.go", lsp.Target{Line: 9, Symbol: "utf8Len"}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		// The second call follows "naïve café 🙂 世界" (combining mark,
		// surrogate pair, CJK): character 40, UTF-16 41, byte 49.
		want := []string{"text/unicode.go:9:5", "text/unicode.go:21:10", "text/unicode.go:21:40"}
		if got := refWheres(r); !reflect.DeepEqual(got, want) {
			t.Fatalf("references = %v, want %v", got, want)
		}
		if ref := r.Files[0].References[2]; ref.EndColumn != 47 {
			t.Fatalf("end column = %d, want 47", ref.EndColumn)
		}
		r, err = client.References(ctx, "text/unicode.go", lsp.Target{Line: 21, Symbol: "label"}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		want = []string{"text/unicode.go:20:14", "text/unicode.go:21:48", "text/unicode.go:22:31"}
		if got := refWheres(r); !reflect.DeepEqual(got, want) || r.From != "text/unicode.go:21:48" {
			t.Fatalf("references of label = %v from %s, want %v", got, r.From, want)
		}
	})

	t.Run("hover", func(t *testing.T) {
		r, err := client.Hover(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Found || r.Kind != "markdown" || !strings.Contains(r.Contents, "func orders.Process(o orders.Order) (orders.Total, error)") ||
			!strings.Contains(r.Contents, "Process validates o and computes its total.") {
			t.Fatalf("hover = %+v", r)
		}
		if r.Range == nil || where(r.Range.File, r.Range.Line, r.Range.Column) != "main.go:27:22" || r.Range.EndColumn != 29 {
			t.Fatalf("range = %+v", r.Range)
		}
		r, err = client.Hover(ctx, "main.go", lsp.Target{Line: 1, Column: col(0)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Found || r.Contents != "" || r.Range != nil {
			t.Fatalf("hover on a comment = %+v, want nothing found", r)
		}
		verifiedBy(t, ctx, client, "go", "gopls", "get_hover_info")
	})

	t.Run("document symbols", func(t *testing.T) {
		r, err := client.Symbols(ctx, lsp.SymbolsQuery{File: "orders/orders.go"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Scope != "document" || r.File != "orders/orders.go" || r.Total != 16 || len(r.Symbols) != 16 || r.Truncated {
			t.Fatalf("result = %+v", r)
		}
		byName := map[string]lsp.Symbol{}
		for _, s := range r.Symbols {
			byName[s.Container+"."+s.Name] = s
		}
		checks := map[string]string{
			".Process":      "function Process orders/orders.go:33:5",
			".Total":        "struct Total orders/orders.go:24:5",
			"Total.Amount":  "field Amount orders/orders.go:25:1",
			".(*Total).Add": "method (*Total).Add orders/orders.go:45:16",
			".Normalize":    "function Normalize orders/orders.go:56:5",
		}
		for key, want := range checks {
			s, ok := byName[key]
			if !ok {
				t.Fatalf("no symbol %s in %v", key, symbolWheres(r.Symbols))
			}
			if got := symbolWheres([]lsp.Symbol{s})[0]; got != want {
				t.Fatalf("%s = %s, want %s", key, got, want)
			}
		}
		if p := byName[".Process"]; p.EndLine != 42 || p.EndColumn != 1 || p.Detail != "func(o Order) (Total, error)" {
			t.Fatalf("Process = %+v, want its body to end at 42:1", p)
		}

		r, err = client.Symbols(ctx, lsp.SymbolsQuery{File: "orders/orders.go", Kinds: []string{"struct"}})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"struct Line orders/orders.go:10:5", "struct Order orders/orders.go:17:5", "struct Total orders/orders.go:24:5"}
		if got := symbolWheres(r.Symbols); !reflect.DeepEqual(got, want) {
			t.Fatalf("structs = %v, want %v", got, want)
		}
		r, err = client.Symbols(ctx, lsp.SymbolsQuery{File: "orders/orders.go", MaxResults: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Symbols) != 2 || r.Total != 16 || !r.Truncated {
			t.Fatalf("max 2: %+v", r)
		}
	})

	t.Run("workspace symbols", func(t *testing.T) {
		r, err := client.Symbols(ctx, lsp.SymbolsQuery{Query: "Charge", Kinds: []string{"method"}})
		if err != nil {
			t.Fatal(err)
		}
		got := symbolWheres(r.Symbols)
		want := []string{"method Card.Charge payment/card.go:15:15", "method Method.Charge payment/payment.go:11:1",
			"method Wallet.Charge payment/wallet.go:9:17", "method Invoice.Charge payment/invoice.go:12:18"}
		if !reflect.DeepEqual(got, want) || r.Scope != "workspace" || !reflect.DeepEqual(r.Servers, []string{"gopls"}) {
			t.Fatalf("Charge methods = %v (servers %v), want %v", got, r.Servers, want)
		}
		if r.ExternalOmitted == 0 {
			t.Fatalf("gopls also matches standard library methods; none were counted as omitted: %+v", r)
		}

		r, err = client.Symbols(ctx, lsp.SymbolsQuery{Query: "Process", IncludeExternal: true, MaxResults: 500})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Symbols) < 4 || r.ExternalOmitted != 0 {
			t.Fatalf("with external: %+v", r)
		}
		if s := r.Symbols[0]; where(s.File, s.Line, s.Column) != "orders/orders.go:33:5" || s.OutsideWorkspace {
			t.Fatalf("first = %+v, want orders.Process", s)
		}
		seenOutside := false
		for _, s := range r.Symbols {
			if s.OutsideWorkspace {
				seenOutside = true
				if !filepath.IsAbs(s.File) {
					t.Fatalf("outside symbol %+v has a relative path", s)
				}
			} else if seenOutside {
				t.Fatalf("workspace symbol %+v listed after an outside one", s)
			}
		}
		if !seenOutside {
			t.Fatal("include_external returned no symbol outside the workspace")
		}
	})

	t.Run("completion", func(t *testing.T) {
		// Line 27: total, err := orders.Process(order); column 22 is right
		// after "orders.".
		r, err := client.Completions(ctx, "main.go", lsp.Target{Line: 27, Column: col(22)}, lsp.CompletionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var process *lsp.CompletionItem
		labels := []string{}
		for i, it := range r.Items {
			labels = append(labels, it.Label)
			if it.Label == "Process" {
				process = &r.Items[i]
			}
		}
		for _, want := range []string{"ErrEmpty", "Line", "Normalize", "Order", "Process", "ProcessBatch", "Summary", "Total"} {
			if !strings.Contains(" "+strings.Join(labels, " ")+" ", " "+want+" ") {
				t.Fatalf("completions %v lack %s", labels, want)
			}
		}
		if process == nil || process.Kind != "function" || process.Detail != "func(o orders.Order) (orders.Total, error)" ||
			process.InsertText != "Process" || process.Documentation != "Process validates o and computes its total." {
			t.Fatalf("Process item = %+v", process)
		}
		if r.From != "main.go:27:22" || r.Server != "gopls" {
			t.Fatalf("result = %+v", r)
		}

		r, err = client.Completions(ctx, "main.go", lsp.Target{Line: 27, Column: col(22)}, lsp.CompletionOptions{Prefix: "norm"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Items) != 1 || r.Items[0].Label != "Normalize" || r.Total != 1 {
			t.Fatalf("prefix norm = %+v", r.Items)
		}
		r, err = client.Completions(ctx, "main.go", lsp.Target{Line: 27, Column: col(22)}, lsp.CompletionOptions{MaxResults: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Items) != 2 || !r.Truncated || r.Total < 8 {
			t.Fatalf("max 2 = %+v", r)
		}
		// With symbol the cursor goes to the word's end: completing "Process".
		r, err = client.Completions(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"}, lsp.CompletionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.From != "main.go:27:29" || len(r.Items) < 2 || r.Items[0].Label != "Process" || r.Items[1].Label != "ProcessBatch" {
			t.Fatalf("completing Process = %+v", r)
		}
	})

	t.Run("signature help", func(t *testing.T) {
		r, err := client.SignatureHelp(ctx, "main.go", lsp.Target{Line: 27, Column: col(30)})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Found || len(r.Signatures) != 1 || r.ActiveSignature != 0 || r.ActiveParameter == nil || *r.ActiveParameter != 0 {
			t.Fatalf("signature help = %+v", r)
		}
		s := r.Signatures[0]
		if s.Label != "Process(o orders.Order) (orders.Total, error)" || len(s.Parameters) != 1 || s.Parameters[0].Label != "o orders.Order" ||
			s.Documentation != "Process validates o and computes its total." {
			t.Fatalf("signature = %+v", s)
		}
		r, err = client.SignatureHelp(ctx, "main.go", lsp.Target{Line: 27, Column: col(1)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Found || len(r.Signatures) != 0 {
			t.Fatalf("outside a call = %+v, want nothing found", r)
		}
	})

	t.Run("implementations", func(t *testing.T) {
		r, err := client.Implementations(ctx, "payment/payment.go", lsp.Target{Line: 10, Symbol: "Method"})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"payment/card.go:4:5", "payment/invoice.go:6:5", "payment/payment.go:16:5", "payment/wallet.go:4:5"}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, want) || r.Count != 4 {
			t.Fatalf("implementations = %v, want %v", got, want)
		}
		if d := r.Locations[0].Declaration; !strings.HasPrefix(d, "type Card struct {\n") {
			t.Fatalf("declaration = %q", d)
		}
		r, err = client.Implementations(ctx, "payment/payment.go", lsp.Target{Line: 11, Symbol: "Charge"})
		if err != nil {
			t.Fatal(err)
		}
		want = []string{"payment/card.go:15:15", "payment/invoice.go:12:18", "payment/wallet.go:9:17"}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, want) {
			t.Fatalf("Charge implementations = %v, want %v", got, want)
		}
		verifiedBy(t, ctx, client, "go", "gopls", "find_implementations")
	})

	t.Run("diagnostics", func(t *testing.T) {
		r, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "main.go"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Scope != "file" || r.File != "main.go" || r.DiagnosticsComplete == nil || !*r.DiagnosticsComplete || r.Total != 0 || len(r.Diagnostics) != 0 {
			t.Fatalf("clean file = %+v", r)
		}
		r, err = client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Scope != "workspace" || r.DiagnosticsComplete != nil || !reflect.DeepEqual(r.Servers, []string{"gopls"}) || r.Total != 0 {
			t.Fatalf("workspace = %+v", r)
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := client.Definition(ctx, "main.go", lsp.Target{Line: 0, Symbol: "main"})
		wantCode(t, err, apierr.InvalidParameter, "line 0 is outside main.go (1-45)")
		_, err = client.References(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Nope"}, lsp.ReferencesOptions{})
		wantCode(t, err, apierr.ResourceNotFound, `"Nope" does not occur as a whole word on line 27 of main.go`)
		_, err = client.Hover(ctx, "main.go", lsp.Target{Line: 43, Symbol: "widgets"})
		wantCode(t, err, apierr.Ambiguous, `"widgets" occurs 4 times on line 43`)
		_, err = client.Definition(ctx, "main.go", lsp.Target{Line: 27, Column: col(99)})
		wantCode(t, err, apierr.InvalidParameter, "column 99 is past the end of the line")
		_, err = client.Definition(ctx, "main.go", lsp.Target{Line: 27})
		wantCode(t, err, apierr.InvalidParameter, "neither column nor symbol was given")
		_, err = client.Definition(ctx, "missing.go", lsp.Target{Line: 1, Column: col(0)})
		wantCode(t, err, apierr.ResourceNotFound, "no such file")
		_, err = client.Definition(ctx, "../outside.go", lsp.Target{Line: 1, Column: col(0)})
		wantCode(t, err, apierr.InvalidParameter, "outside the workspace root")
		_, err = client.References(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"}, lsp.ReferencesOptions{MaxResults: -1})
		wantCode(t, err, apierr.InvalidParameter, "max_results is -1")
		_, err = client.Completions(ctx, "main.go", lsp.Target{Line: 27, Column: col(22)}, lsp.CompletionOptions{MaxResults: -3})
		wantCode(t, err, apierr.InvalidParameter, "max_results is -3")
		_, err = client.Symbols(ctx, lsp.SymbolsQuery{})
		wantCode(t, err, apierr.InvalidParameter, "neither file nor query was given")
		_, err = client.Symbols(ctx, lsp.SymbolsQuery{File: "main.go", Kinds: []string{"func"}})
		wantCode(t, err, apierr.InvalidParameter, `unknown symbol kind "func"`)
		_, err = client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{MinSeverity: "fatal"})
		wantCode(t, err, apierr.InvalidParameter, `unknown severity "fatal"`)
		// No server for .txt: every feature says so instead of answering
		// nothing.
		_, err = client.Definition(ctx, "notes.txt", lsp.Target{Line: 1, Symbol: "Process"})
		wantCode(t, err, apierr.Unsupported, "no language server is attached to notes.txt")
		_, err = client.Symbols(ctx, lsp.SymbolsQuery{File: "notes.txt"})
		wantCode(t, err, apierr.Unsupported, "no language server is attached to notes.txt")
		_, err = client.Symbols(ctx, lsp.SymbolsQuery{File: "notes.txt", Query: "Process"})
		wantCode(t, err, apierr.Unsupported, "no language server is attached to notes.txt")
		// The server still answers after all that.
		r, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
		if err != nil || r.Count != 1 {
			t.Fatalf("after errors: %+v, %v", r, err)
		}
	})
}
