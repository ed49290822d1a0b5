package lsp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestCallHierarchyGopls(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("incoming of orders.Process, every call site with context", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "orders/orders.go", stAt(33, "Process"), lsp.CallHierarchyOptions{Direction: "incoming"})
		if err != nil {
			t.Fatal(err)
		}
		if stWhere(res.Symbol) != "Process@orders/orders.go:33:5" || res.Symbol.Kind != "function" || res.Server != "gopls" {
			t.Fatalf("symbol = %+v (server %s)", res.Symbol, res.Server)
		}
		if res.Outgoing != nil {
			t.Fatalf("outgoing asked for? %+v", res.Outgoing)
		}
		if got := stCallNames(res.Incoming); !stEqualStrings(got, []string{"ProcessBatch", "TestProcess", "main"}) {
			t.Fatalf("callers = %v", got)
		}
		tp := stFindCall(t, res.Incoming, "TestProcess")
		if got := stSites(tp); !stEqualStrings(got, []string{"orders/orders_test.go:7:13", "orders/orders_test.go:14:14"}) {
			t.Fatalf("TestProcess call sites = %v", got)
		}
		if tp.CallSites[0].Context != "got, err := Process(o)" {
			t.Fatalf("context = %q", tp.CallSites[0].Context)
		}
		m := stFindCall(t, res.Incoming, "main")
		if stWhere(m.HierarchyEntry) != "main@main.go:17:5" || !stEqualStrings(stSites(m), []string{"main.go:27:22"}) {
			t.Fatalf("main = %+v", m)
		}
		in := res.Totals["incoming"]
		if in == nil || in.Direct != 3 || in.Entries != 3 || in.CallSites != 4 {
			t.Fatalf("totals = %+v", res.Totals)
		}
		// ProcessBatch and TestProcess have no callers; main neither: the
		// depth cut nothing.
		if res.Truncated {
			t.Fatalf("truncated with nothing left out: %+v", res.Incoming)
		}
		verifiedBy(t, ctx, client, "go", "gopls", "get_call_hierarchy")
	})

	t.Run("incoming chain to depth 3", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "config/config.go", stAt(45, "validateConfig"), lsp.CallHierarchyOptions{Direction: "incoming", Depth: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Incoming) != 1 {
			t.Fatalf("incoming = %+v", res.Incoming)
		}
		p := res.Incoming[0]
		if stWhere(p.HierarchyEntry) != "parseConfig@config/config.go:26:5" || !stEqualStrings(stSites(p), []string{"config/config.go:41:13"}) {
			t.Fatalf("level 1 = %+v", p)
		}
		if len(p.Callers) != 1 || stWhere(p.Callers[0].HierarchyEntry) != "LoadConfig@config/config.go:17:5" {
			t.Fatalf("level 2 = %+v", p.Callers)
		}
		l := p.Callers[0]
		if len(l.Callers) != 1 || l.Callers[0].Name != "main" || !stEqualStrings(stSites(l.Callers[0]), []string{"main.go:18:20"}) {
			t.Fatalf("level 3 = %+v", l.Callers)
		}
		if res.Truncated || res.Totals["incoming"].Entries != 3 {
			t.Fatalf("truncated=%v totals=%+v", res.Truncated, res.Totals["incoming"])
		}
	})

	t.Run("depth 2 stops the chain: not truncated, more only when asked", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "config/config.go", stAt(45, "validateConfig"), lsp.CallHierarchyOptions{Direction: "incoming", Depth: 2})
		if err != nil {
			t.Fatal(err)
		}
		l := res.Incoming[0].Callers[0]
		// Nothing within depth 2 was left out; main (depth 3) was not asked.
		if l.Name != "LoadConfig" || l.More != 0 || len(l.Callers) != 0 || res.Truncated {
			t.Fatalf("LoadConfig = %+v truncated=%v", l, res.Truncated)
		}
		res, err = client.CallHierarchy(ctx, "config/config.go", stAt(45, "validateConfig"), lsp.CallHierarchyOptions{Direction: "incoming", Depth: 2, CountMore: true})
		if err != nil {
			t.Fatal(err)
		}
		l = res.Incoming[0].Callers[0]
		if l.Name != "LoadConfig" || l.More != 1 || len(l.Callers) != 0 || res.Truncated {
			t.Fatalf("count_more: LoadConfig = %+v truncated=%v", l, res.Truncated)
		}
	})

	t.Run("outgoing cycle Visit -> expand -> visitChildren -> Visit", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "graph/walk.go", stAt(13, "Visit"), lsp.CallHierarchyOptions{Direction: "outgoing", Depth: 5})
		if err != nil {
			t.Fatal(err)
		}
		if res.Incoming != nil {
			t.Fatal("incoming not asked")
		}
		exp := stFindCall(t, res.Outgoing, "expand")
		if stWhere(exp.HierarchyEntry) != "expand@graph/walk.go:21:5" || !stEqualStrings(stSites(exp), []string{"graph/walk.go:17:54"}) {
			t.Fatalf("expand = %+v", exp)
		}
		rep := stFindCall(t, res.Outgoing, "Repeat")
		if !rep.OutsideWorkspace || len(rep.Callees) != 0 {
			t.Fatalf("strings.Repeat should be listed, outside the workspace, not expanded: %+v", rep)
		}
		vc := stFindCall(t, exp.Callees, "visitChildren")
		if !stEqualStrings(stSites(vc), []string{"graph/walk.go:25:8"}) {
			t.Fatalf("visitChildren = %+v", vc)
		}
		back := stFindCall(t, vc.Callees, "Visit")
		if !back.Cycle || len(back.Callees) != 0 || !stEqualStrings(stSites(back), []string{"graph/walk.go:32:16"}) {
			t.Fatalf("Visit under visitChildren should be a cycle: %+v", back)
		}
		if res.Truncated {
			t.Fatal("depth 5 covers the whole cycle; nothing is truncated")
		}
	})

	t.Run("incoming cycle and both directions", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "graph/walk.go", stAt(21, "expand"), lsp.CallHierarchyOptions{Depth: 4})
		if err != nil {
			t.Fatal(err)
		}
		// expand <- Visit <- {visitChildren <- expand (cycle), main}
		v := stFindCall(t, res.Incoming, "Visit")
		vc := stFindCall(t, v.Callers, "visitChildren")
		if c := stFindCall(t, vc.Callers, "expand"); !c.Cycle {
			t.Fatalf("expand under visitChildren should be a cycle: %+v", c)
		}
		stFindCall(t, v.Callers, "main")
		// expand -> visitChildren -> Visit -> expand (cycle)
		o := stFindCall(t, res.Outgoing, "visitChildren")
		ov := stFindCall(t, o.Callees, "Visit")
		if c := stFindCall(t, ov.Callees, "expand"); !c.Cycle {
			t.Fatalf("expand under Visit should be a cycle: %+v", c)
		}
		if res.Totals["incoming"] == nil || res.Totals["outgoing"] == nil {
			t.Fatalf("totals = %+v", res.Totals)
		}
	})

	t.Run("max_items", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "orders/orders.go", stAt(33, "Process"), lsp.CallHierarchyOptions{Direction: "incoming", MaxItems: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Incoming) != 2 || !res.Truncated || res.Totals["incoming"].More != 1 {
			t.Fatalf("incoming = %v truncated=%v totals=%+v", stCallNames(res.Incoming), res.Truncated, res.Totals["incoming"])
		}
	})

	t.Run("multibyte line: columns in characters", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "text/unicode.go", lsp.Target{Line: 21, Column: stIntp(40)}, lsp.CallHierarchyOptions{Direction: "incoming"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Symbol.Name != "utf8Len" {
			t.Fatalf("symbol = %+v", res.Symbol)
		}
		d := stFindCall(t, res.Incoming, "Describe")
		if !stEqualStrings(stSites(d), []string{"text/unicode.go:21:10", "text/unicode.go:21:40"}) {
			t.Fatalf("Describe call sites = %v", stSites(d))
		}
	})

	t.Run("errors", func(t *testing.T) {
		_, err := client.CallHierarchy(ctx, "orders/orders.go", stAt(24, "Total"), lsp.CallHierarchyOptions{})
		stWantCode(t, err, apierr.ResourceNotFound)
		_, err = client.CallHierarchy(ctx, "orders/orders.go", stAt(33, "Process"), lsp.CallHierarchyOptions{Direction: "sideways"})
		stWantCode(t, err, apierr.InvalidParameter)
		_, err = client.CallHierarchy(ctx, "orders/orders.go", stAt(33, "Process"), lsp.CallHierarchyOptions{Depth: 11})
		stWantCode(t, err, apierr.InvalidParameter)
		_, err = client.CallHierarchy(ctx, "orders/orders.go", stAt(999, "Process"), lsp.CallHierarchyOptions{})
		stWantCode(t, err, apierr.InvalidParameter)
		_, err = client.CallHierarchy(ctx, "nope.go", stAt(1, "x"), lsp.CallHierarchyOptions{})
		stWantCode(t, err, apierr.ResourceNotFound)
	})
}

func TestCallHierarchyPyright(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("incoming of process", func(t *testing.T) {
		var res lsp.CallHierarchyResult
		stEventually(ctx, t, "pyright sees every caller of process", func() error {
			var err error
			res, err = client.CallHierarchy(ctx, "shop/orders.py", stAt(37, "process"), lsp.CallHierarchyOptions{Direction: "incoming"})
			if err == nil && len(res.Incoming) < 4 {
				err = fmt.Errorf("callers %v", stCallNames(res.Incoming))
			}
			return err
		})
		if got := stCallNames(res.Incoming); !stEqualStrings(got, []string{"main", "process_batch", "test_empty", "test_total"}) {
			t.Fatalf("callers = %v", got)
		}
		if s := stSites(stFindCall(t, res.Incoming, "test_total")); !stEqualStrings(s, []string{"tests/test_orders.py:9:16"}) {
			t.Fatalf("test_total call sites = %v", s)
		}
		if s := stSites(stFindCall(t, res.Incoming, "main")); !stEqualStrings(s, []string{"shop/app.py:14:12"}) {
			t.Fatalf("main call sites = %v", s)
		}
		verifiedBy(t, ctx, client, "python", "pyright", "get_call_hierarchy")
	})

	t.Run("cycle visit -> expand -> visit", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "shop/graph.py", stAt(15, "visit"), lsp.CallHierarchyOptions{Direction: "outgoing", Depth: 3})
		if err != nil {
			t.Fatal(err)
		}
		exp := stFindCall(t, res.Outgoing, "expand")
		if stWhere(exp.HierarchyEntry) != "expand@shop/graph.py:20:4" || !stEqualStrings(stSites(exp), []string{"shop/graph.py:17:45"}) {
			t.Fatalf("expand = %+v", exp)
		}
		back := stFindCall(t, exp.Callees, "visit")
		if !back.Cycle || len(back.Callees) != 0 || !stEqualStrings(stSites(back), []string{"shop/graph.py:24:20"}) {
			t.Fatalf("visit under expand should be a cycle: %+v", back)
		}
	})

	t.Run("incoming chain to depth 3", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "shop/config.py", stAt(31, "validate_config"), lsp.CallHierarchyOptions{Direction: "incoming", Depth: 3})
		if err != nil {
			t.Fatal(err)
		}
		p := stFindCall(t, res.Incoming, "parse_config")
		l := stFindCall(t, p.Callers, "load_config")
		m := stFindCall(t, l.Callers, "main")
		if !stEqualStrings(stSites(p), []string{"shop/config.py:27:4"}) || !stEqualStrings(stSites(l), []string{"shop/config.py:16:11"}) ||
			!stEqualStrings(stSites(m), []string{"shop/app.py:12:10"}) {
			t.Fatalf("chain sites: %v %v %v", stSites(p), stSites(l), stSites(m))
		}
	})
}

func TestCallHierarchyTypeScript(t *testing.T) {
	testenv.Require(t, "nvim", "typescript-language-server")
	root := testenv.CopySample(t, "ts")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	t.Run("cycle visit -> expand -> visit, and the module-level caller", func(t *testing.T) {
		var res lsp.CallHierarchyResult
		stEventually(ctx, t, "tsserver sees main.ts calling visit", func() error {
			var err error
			res, err = client.CallHierarchy(ctx, "src/graph.ts", stAt(8, "visit"), lsp.CallHierarchyOptions{Depth: 3})
			if err == nil && len(res.Incoming) < 2 {
				err = fmt.Errorf("callers %v", stCallNames(res.Incoming))
			}
			return err
		})
		exp := stFindCall(t, res.Outgoing, "expand")
		if stWhere(exp.HierarchyEntry) != "expand@src/graph.ts:12:9" || !stEqualStrings(stSites(exp), []string{"src/graph.ts:9:49"}) {
			t.Fatalf("expand = %+v", exp)
		}
		if back := stFindCall(t, exp.Callees, "visit"); !back.Cycle || !stEqualStrings(stSites(back), []string{"src/graph.ts:15:16"}) {
			t.Fatalf("visit under expand should be a cycle: %+v", back)
		}
		if rep := stFindCall(t, res.Outgoing, "repeat"); !rep.OutsideWorkspace || len(rep.CallSites) != 1 {
			t.Fatalf("String.repeat: outside the workspace, its duplicate call site dropped: %+v", rep)
		}
		// Incoming: expand (whose caller visit is a cycle) and the module.
		in := stFindCall(t, res.Incoming, "expand")
		if c := stFindCall(t, in.Callers, "visit"); !c.Cycle {
			t.Fatalf("visit under expand (incoming) should be a cycle: %+v", c)
		}
		mod := stFindCall(t, res.Incoming, "main.ts")
		if !stEqualStrings(stSites(mod), []string{"src/main.ts:25:12"}) {
			t.Fatalf("main.ts = %+v", mod)
		}
		verifiedBy(t, ctx, client, "typescript", "typescript-language-server", "get_call_hierarchy")
	})

	t.Run("incoming chain to depth 3", func(t *testing.T) {
		res, err := client.CallHierarchy(ctx, "src/config.ts", stAt(23, "validateConfig"), lsp.CallHierarchyOptions{Direction: "incoming", Depth: 3})
		if err != nil {
			t.Fatal(err)
		}
		p := stFindCall(t, res.Incoming, "parseConfig")
		l := stFindCall(t, p.Callers, "loadConfig")
		m := stFindCall(t, l.Callers, "main.ts")
		if !stEqualStrings(stSites(p), []string{"src/config.ts:19:2"}) || !stEqualStrings(stSites(l), []string{"src/config.ts:9:9"}) ||
			!stEqualStrings(stSites(m), []string{"src/main.ts:12:12"}) {
			t.Fatalf("chain sites: %v %v %v", stSites(p), stSites(l), stSites(m))
		}
	})

	t.Run("no call hierarchy on an interface", func(t *testing.T) {
		_, err := client.CallHierarchy(ctx, "src/payment.ts", stAt(3, "PaymentMethod"), lsp.CallHierarchyOptions{})
		stWantCode(t, err, apierr.ResourceNotFound)
	})
}

// TestCallHierarchyUnsavedCaller: the first level, asked in the read's
// call to Neovim (read.lua's chain), shows a call site in a caller whose
// buffer holds unsaved changes as the buffer reads, not as the disk does
// (the server answered about the buffer).
func TestCallHierarchyUnsavedCaller(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	doc, err := client.Open(ctx, "main.go")
	if err != nil {
		t.Fatal(err)
	}
	const edited = "\ttotal, err := orders.Process(order) // unsaved in Neovim"
	const set = "local path, text = ...; vim.api.nvim_buf_set_lines(vim.fn.bufnr(path), 26, 27, false, { text })"
	if err := s.ExecLua(ctx, set, nil, doc.Path, edited); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{lsp.DirectionIncoming, lsp.DirectionBoth} {
		res, err := client.CallHierarchy(ctx, "orders/orders.go", stAt(33, "Process"), lsp.CallHierarchyOptions{Direction: dir, Depth: 1})
		if err != nil {
			t.Fatal(err)
		}
		m := stFindCall(t, res.Incoming, "main")
		if len(m.CallSites) != 1 || m.CallSites[0].Context != strings.TrimSpace(edited) {
			t.Fatalf("%s: main's call site %+v, want the buffer's line %q", dir, m.CallSites, strings.TrimSpace(edited))
		}
	}
}
