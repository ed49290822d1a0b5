package lsp_test

// C through the registry (lang/c.go), end to end against real clangd 14 on
// a copy of testdata/samples/c (a compile_commands.json rooted project;
// landmarks: testdata/samples/README.md): navigation, call hierarchy,
// rename, diagnostics, and UNSUPPORTED naming clangd where it lacks a
// method.

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestClangdNavigation(t *testing.T) {
	testenv.Require(t, "nvim", "clangd")
	root := testenv.CopySample(t, "c")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("references across files need the background index", func(t *testing.T) {
		// Asked from the definition right after the first open: main.c's
		// use is known only from clangd's background index, which starts
		// after attaching; nvbridge waits for its $/progress to end.
		r, err := client.References(ctx, "src/geometry.c", lsp.Target{Line: 8, Symbol: "area"}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"include/geometry.h:13:7", "src/geometry.c:8:7", "src/geometry.c:20:9", "src/main.c:14:18"}
		if got := refWheres(r); !reflect.DeepEqual(got, want) || r.Server != "clangd" || r.Symbol != "area" {
			t.Fatalf("references of area = %v (server %s, symbol %q), want %v", got, r.Server, r.Symbol, want)
		}
	})

	t.Run("definition from another file", func(t *testing.T) {
		r, err := client.Definition(ctx, "src/main.c", lsp.Target{Line: 13, Symbol: "total_area"})
		if err != nil {
			t.Fatal(err)
		}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, []string{"src/geometry.c:16:7"}) ||
			!strings.HasPrefix(r.Locations[0].Declaration, "double total_area(const struct shape *shapes, int count)") {
			t.Fatalf("definition of total_area = %v %+v", got, r.Locations)
		}
	})

	t.Run("multibyte columns", func(t *testing.T) {
		// Line 18 of text.c: "héllo 世界 🎉 " precedes the calls; the
		// second utf8_len is at character 72 (UTF-16 73, byte 80).
		r, err := client.Definition(ctx, "src/text.c", lsp.Target{Line: 18, Column: col(81)})
		if err != nil {
			t.Fatal(err)
		}
		if got := locWheres(r.Locations); !reflect.DeepEqual(got, []string{"src/text.c:16:22"}) || r.From != "src/text.c:18:81" {
			t.Fatalf("definition of name = %v from %s", got, r.From)
		}
		refs, err := client.References(ctx, "src/text.c", lsp.Target{Line: 18, Column: col(72)}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"include/text.h:4:4", "src/text.c:5:4", "src/text.c:18:51", "src/text.c:18:72"}
		if got := refWheres(refs); !reflect.DeepEqual(got, want) || refs.Symbol != "utf8_len" {
			t.Fatalf("references of utf8_len = %v (%q), want %v", got, refs.Symbol, want)
		}
	})

	t.Run("hover and document symbols", func(t *testing.T) {
		h, err := client.Hover(ctx, "src/geometry.c", lsp.Target{Line: 3, Symbol: "square"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(h.Contents, "static double square(double x)") {
			t.Fatalf("hover = %q", h.Contents)
		}
		s, err := client.Symbols(ctx, lsp.SymbolsQuery{File: "src/geometry.c"})
		if err != nil {
			t.Fatal(err)
		}
		got := symbolWheres(s.Symbols)
		want := []string{"function square src/geometry.c:3:14", "function area src/geometry.c:8:7", "function total_area src/geometry.c:16:7"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("symbols = %v, want %v", got, want)
		}
	})
}

func TestClangdCallHierarchy(t *testing.T) {
	testenv.Require(t, "nvim", "clangd")
	root := testenv.CopySample(t, "c")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("incoming to depth 3 with the cycle", func(t *testing.T) {
		r, err := client.CallHierarchy(ctx, "src/graph.c", stAt(6, "visit"), lsp.CallHierarchyOptions{Direction: "incoming", Depth: 3})
		if err != nil {
			t.Fatal(err)
		}
		if r.Server != "clangd" || stWhere(r.Symbol) != "visit@src/graph.c:6:4" {
			t.Fatalf("symbol %s from %s", stWhere(r.Symbol), r.Server)
		}
		if got := stCallNames(r.Incoming); !reflect.DeepEqual(got, []string{"expand", "main"}) {
			t.Fatalf("callers of visit = %v", got)
		}
		expand := stFindCall(t, r.Incoming, "expand")
		if got := stSites(expand); !reflect.DeepEqual(got, []string{"src/graph.c:16:8", "src/graph.c:16:37"}) {
			t.Fatalf("expand's calls of visit = %v", got)
		}
		// expand is called by visit: the walk stops there, marking the cycle.
		back := stFindCall(t, expand.Callers, "visit")
		if !back.Cycle {
			t.Fatalf("visit under expand is not marked as a cycle: %+v", back)
		}
		main := stFindCall(t, r.Incoming, "main")
		if got := stSites(main); !reflect.DeepEqual(got, []string{"src/main.c:15:16"}) {
			t.Fatalf("main's calls of visit = %v", got)
		}
	})

	t.Run("outgoing is UNSUPPORTED naming clangd", func(t *testing.T) {
		_, err := client.CallHierarchy(ctx, "src/geometry.c", stAt(16, "total_area"), lsp.CallHierarchyOptions{Direction: "outgoing"})
		e := stWantCode(t, err, apierr.Unsupported)
		if !strings.Contains(e.Message, "clangd") || !strings.Contains(e.Message, "outgoingCalls") {
			t.Fatalf("message %q names neither clangd nor outgoingCalls", e.Message)
		}
	})

	t.Run("both directions report incoming and say outgoing is missing", func(t *testing.T) {
		r, err := client.CallHierarchy(ctx, "src/geometry.c", stAt(8, "area"), lsp.CallHierarchyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := stCallNames(r.Incoming); !reflect.DeepEqual(got, []string{"main", "total_area"}) {
			t.Fatalf("callers of area = %v", got)
		}
		joined := strings.Join(r.Notes, "\n")
		if len(r.Outgoing) != 0 || !strings.Contains(joined, "clangd") || !strings.Contains(joined, "outgoing") {
			t.Fatalf("outgoing %v, notes %q: want none and a note naming clangd", r.Outgoing, r.Notes)
		}
	})
}
