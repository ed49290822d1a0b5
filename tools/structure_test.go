package tools

// The structure tools through their MCP handlers, on real gopls: argument
// decoding, structured content, summaries and structured errors (AMBIGUOUS
// with its candidates). One Neovim for all.

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

var structureToolNames = []string{"analyze_dependencies", "batch", "explore", "get_call_hierarchy", "get_project_structure", "get_type_hierarchy", "prepare_change", "detect_changes", "understand_symbol"}

func TestStructureCatalog(t *testing.T) {
	required := map[string][]string{
		"analyze_dependencies":  {"file"},
		"batch":                 nil,
		"explore":               {"target"},
		"get_call_hierarchy":    {"file", "line"},
		"get_project_structure": nil,
		"get_type_hierarchy":    {"file", "line"},
		"prepare_change":        {"file", "line"},
		"detect_changes":        nil,
		"understand_symbol":     nil,
	}
	env := &Env{}
	checkCatalog(t, "structure", env, structureTools(env), structureToolNames, required, func(def mcp.Tool) {
		a := def.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s: annotations %+v, want read-only, not destructive", def.Name, a)
		}
	})
}

func TestStructureTools(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	s, client := testenv.Embedded(t, testenv.CopySample(t, "go"))
	env := NewEnv(s, client, t.Logf)
	ctx := testenv.Context(t)

	t.Run("get_call_hierarchy", func(t *testing.T) {
		res := call(t, ctx, env, "get_call_hierarchy", `{"file":"graph/walk.go","line":13,"symbol":"Visit","direction":"outgoing","depth":3}`)
		ok(t, res)
		for _, want := range []string{
			"call hierarchy of function Visit (graph/walk.go:13:5, gopls), depth 3",
			"\n  function expand  graph/walk.go:21:5\n    call at graph/walk.go:17:54  return strings.Repeat",
			"\n      function Visit  graph/walk.go:13:5  [cycle]",
			"[outside the workspace]",
		} {
			if !strings.Contains(text(res), want) {
				t.Fatalf("summary lacks %q:\n%s", want, text(res))
			}
		}
		m := structured(t, res)
		if m["incoming"] != nil || m["outgoing"] == nil || m["truncated"] != false {
			t.Fatalf("structured = %v", m)
		}
		res = call(t, ctx, env, "get_call_hierarchy", `{"file":"graph/walk.go","line":13,"symbol":"Visit","depth":0.5}`)
		failed(t, res, "INVALID_PARAMETER", "invalid arguments")
		res = call(t, ctx, env, "get_call_hierarchy", `{"file":"graph/walk.go","line":13,"symbol":"Visit","levels":2}`)
		failed(t, res, "INVALID_PARAMETER", "levels")
	})

	t.Run("get_type_hierarchy", func(t *testing.T) {
		res := call(t, ctx, env, "get_type_hierarchy", `{"file":"payment/payment.go","line":16,"symbol":"RefundableMethod"}`)
		ok(t, res)
		want := "supertypes: 1 direct, 1 in all\n  interface Method  payment/payment.go:10:5  example.com/shop/payment\nsubtypes: 1 direct, 1 in all\n  class Card  payment/card.go:4:5"
		if !strings.Contains(text(res), want) {
			t.Fatalf("summary lacks %q:\n%s", want, text(res))
		}
		if m := structured(t, res); m["source"] != "typeHierarchy" {
			t.Fatalf("source = %v", m["source"])
		}
	})

	t.Run("understand_symbol", func(t *testing.T) {
		res := call(t, ctx, env, "understand_symbol", `{"query":"orders.Process","max_references":1}`)
		ok(t, res)
		for _, want := range []string{
			"function Process declared at orders/orders.go:33:5",
			"definition (lines 33-42):\nfunc Process(o Order) (Total, error) {",
			"references: 4 in 3 file(s) (first 1 listed)",
			"callers: 3", "callees: 1", "test files: 1\n  orders/orders_test.go (2 reference(s)) via TestProcess",
			"not applicable:\n  implementations: ",
		} {
			if !strings.Contains(text(res), want) {
				t.Fatalf("summary lacks %q:\n%s", want, text(res))
			}
		}
		res = call(t, ctx, env, "understand_symbol", `{"query":"Normalize"}`)
		failed(t, res, "AMBIGUOUS", `named "Normalize"`)
		m := structured(t, res)
		details := m["error"].(map[string]any)["details"].(map[string]any)
		matches := details["matches"].([]any)
		if len(matches) != 2 || matches[0].(map[string]any)["file"] != "orders/orders.go" || matches[1].(map[string]any)["line"] != 7.0 {
			t.Fatalf("matches = %v", matches)
		}
		res = call(t, ctx, env, "understand_symbol", `{}`)
		failed(t, res, "INVALID_PARAMETER", "neither file nor query")
	})

	t.Run("prepare_change", func(t *testing.T) {
		res := call(t, ctx, env, "prepare_change", `{"file":"config/config.go","line":45,"symbol":"validateConfig"}`)
		ok(t, res)
		for _, want := range []string{
			"risk low (score 1) for changing function validateConfig (private, package config)",
			"+1 tests = 0: no test file references it",
			"transitive callers (to depth 3): 2\n  [2] LoadConfig  config/config.go:17:5  (calls parseConfig)\n  [3] main  main.go:17:5  (calls LoadConfig)",
		} {
			if !strings.Contains(text(res), want) {
				t.Fatalf("summary lacks %q:\n%s", want, text(res))
			}
		}
		if m := structured(t, res); m["risk"] != "low" || m["exported"] != false {
			t.Fatalf("structured = %v", m)
		}
	})

	t.Run("analyze_dependencies", func(t *testing.T) {
		res := call(t, ctx, env, "analyze_dependencies", `{"file":"orders/orders.go"}`)
		ok(t, res)
		for _, want := range []string{
			"orders/orders.go (go): 2 import(s) (read by documentLink), 2 importer(s) (read by scanner",
			"imported as example.com/shop/orders by:\n  main.go:10:2  example.com/shop/orders\n  refactor/pricing.go:7:2",
		} {
			if !strings.Contains(text(res), want) {
				t.Fatalf("summary lacks %q:\n%s", want, text(res))
			}
		}
		res = call(t, ctx, env, "analyze_dependencies", `{"file":"go.mod"}`)
		failed(t, res, "UNSUPPORTED", "no import reader")
	})
}
