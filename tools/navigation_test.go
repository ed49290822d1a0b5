package tools

// The navigation tools through their MCP handlers (as `nvbridge call` and an
// MCP client reach them): argument decoding, structured content, the
// summary text and structured errors, on real gopls. One Neovim for all.

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

var navigationToolNames = []string{"find_definition", "find_implementations", "find_references", "get_completions",
	"get_diagnostics", "get_hover_info", "get_signature_help", "get_symbols"}

func TestNavigationCatalog(t *testing.T) {
	required := map[string][]string{
		"find_definition":      {"file", "line"},
		"find_implementations": {"file", "line"},
		"find_references":      {"file", "line"},
		"get_hover_info":       {"file", "line"},
		"get_completions":      {"file", "line"},
		"get_signature_help":   {"file", "line", "column"},
		"get_symbols":          nil,
		"get_diagnostics":      nil,
	}
	env := &Env{}
	checkCatalog(t, "navigation", env, navigationTools(env), navigationToolNames, required, func(def mcp.Tool) {
		a := def.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want read-only, idempotent, not destructive, closed world", def.Name, a)
		}
		if len(def.Description) < 80 {
			t.Errorf("%s: description too short to guide an agent: %q", def.Name, def.Description)
		}
	})
}

// checkCatalog checks a group's tools: listed as names (in that order), each
// checked by each, requiring the arguments required gives it and describing
// every argument, and each registered in env.
func checkCatalog(t *testing.T, group string, env *Env, list []Tool, names []string, required map[string][]string, each func(def mcp.Tool)) {
	t.Helper()
	var listed []string
	for _, tool := range list {
		def := tool.Tool
		listed = append(listed, def.Name)
		each(def)
		body, _ := json.Marshal(def.InputSchema)
		if len(def.RawInputSchema) > 0 {
			body = def.RawInputSchema
		}
		var schema struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(body, &schema); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(schema.Required, required[def.Name]) {
			t.Errorf("%s: required %v, want %v", def.Name, schema.Required, required[def.Name])
		}
		for prop, raw := range schema.Properties {
			if !strings.Contains(string(raw), `"description"`) {
				t.Errorf("%s.%s has no description", def.Name, prop)
			}
		}
	}
	if !reflect.DeepEqual(listed, names) {
		t.Fatalf("%s tools = %v, want %v", group, listed, names)
	}
	for _, name := range names {
		if _, ok := Find(env, name); !ok {
			t.Fatalf("%s is not registered", name)
		}
	}
}

// call runs a tool's handler with JSON arguments.
func call(t *testing.T, ctx context.Context, env *Env, name, args string) *mcp.CallToolResult {
	t.Helper()
	tool, ok := Find(env, name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := tool.Handler(ctx, req)
	if err != nil {
		t.Fatalf("%s %s: protocol error %v", name, args, err)
	}
	return res
}

// text is a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured is a result's structured content as JSON-decoded maps.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func ok(t *testing.T, res *mcp.CallToolResult) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool failed: %s", text(res))
	}
}

func failed(t *testing.T, res *mcp.CallToolResult, code, fragment string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("tool succeeded, want %s: %s", code, text(res))
	}
	body, _ := json.Marshal(res.StructuredContent)
	var e struct {
		Error struct{ Code, Message, Remediation string }
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatal(err)
	}
	if e.Error.Code != code || !strings.Contains(e.Error.Message, fragment) || e.Error.Remediation == "" {
		t.Fatalf("error = %+v, want %s containing %q with a remediation", e.Error, code, fragment)
	}
	if !strings.HasPrefix(text(res), code+": ") {
		t.Fatalf("text = %q", text(res))
	}
}

func TestNavigationTools(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	s, client := testenv.Embedded(t, testenv.CopySample(t, "go"))
	env := NewEnv(s, client, t.Logf)
	ctx := testenv.Context(t)

	t.Run("find_definition", func(t *testing.T) {
		res := call(t, ctx, env, "find_definition", `{"file":"main.go","line":27,"symbol":"Process"}`)
		ok(t, res)
		want := "1 definition(s) of Process at main.go:27:22 (gopls):\norders/orders.go:33:5\n    func Process(o Order) (Total, error) {\n"
		if !strings.HasPrefix(text(res), want) {
			t.Fatalf("text = %q, want prefix %q", text(res), want)
		}
		m := structured(t, res)
		loc := m["locations"].([]any)[0].(map[string]any)
		if loc["file"] != "orders/orders.go" || loc["line"] != 33.0 || loc["column"] != 5.0 || loc["end_column"] != 12.0 ||
			loc["context"] != "func Process(o Order) (Total, error) {" || !strings.HasPrefix(loc["declaration"].(string), "func Process(") {
			t.Fatalf("location = %v", loc)
		}
		if _, present := loc["outside_workspace"]; present {
			t.Fatalf("outside_workspace present for a workspace file: %v", loc)
		}
		// Multibyte: name on line 15 is character 29, whatever the bytes.
		res = call(t, ctx, env, "find_definition", `{"file":"text/unicode.go","line":15,"column":29}`)
		ok(t, res)
		if !strings.Contains(text(res), "\ntext/unicode.go:14:11\n") {
			t.Fatalf("text = %q", text(res))
		}
		res = call(t, ctx, env, "find_definition", `{"file":"main.go","line":36,"symbol":"Println"}`)
		ok(t, res)
		if !strings.Contains(text(res), "/src/fmt/print.go:") || !strings.Contains(text(res), "(outside the workspace)") {
			t.Fatalf("text = %q", text(res))
		}
	})

	t.Run("find_references", func(t *testing.T) {
		res := call(t, ctx, env, "find_references", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`)
		ok(t, res)
		want := "5 reference(s) to Process in 4 file(s) (from orders/orders.go:33:5, gopls)\n" +
			"main.go (1)\n  27:22  total, err := orders.Process(order)\n" +
			"orders/batch.go (1)\n  7:12  t, err := Process(o)\n" +
			"orders/orders.go (1)\n  33:5  func Process(o Order) (Total, error) {\n" +
			"orders/orders_test.go (2)\n  7:13  got, err := Process(o)\n  14:14  if _, err := Process(Order{}); err != ErrEmpty {"
		if text(res) != want {
			t.Fatalf("text =\n%s\nwant\n%s", text(res), want)
		}
		m := structured(t, res)
		if m["total"] != 5.0 || m["file_count"] != 4.0 || m["truncated"] != false || m["include_declaration"] != true {
			t.Fatalf("structured = %v", m)
		}
		res = call(t, ctx, env, "find_references", `{"file":"orders/orders.go","line":33,"symbol":"Process","include_declaration":false,"max_results":1}`)
		ok(t, res)
		if !strings.HasPrefix(text(res), "4 reference(s) to Process in 3 file(s) (from orders/orders.go:33:5, gopls, declaration excluded); showing the first 1\nmain.go (1)") {
			t.Fatalf("text = %q", text(res))
		}
		m = structured(t, res)
		if m["truncated"] != true || m["returned"] != 1.0 || m["total"] != 4.0 {
			t.Fatalf("structured = %v", m)
		}
	})

	t.Run("get_hover_info", func(t *testing.T) {
		res := call(t, ctx, env, "get_hover_info", `{"file":"main.go","line":27,"symbol":"Process"}`)
		ok(t, res)
		if !strings.HasPrefix(text(res), "```go\nfunc orders.Process(o orders.Order) (orders.Total, error)\n```") {
			t.Fatalf("text = %q", text(res))
		}
		m := structured(t, res)
		if m["found"] != true || m["kind"] != "markdown" || m["range"].(map[string]any)["column"] != 22.0 {
			t.Fatalf("structured = %v", m)
		}
		res = call(t, ctx, env, "get_hover_info", `{"file":"main.go","line":1,"column":0}`)
		ok(t, res)
		if text(res) != "no hover information at main.go:1:0 (gopls); point at an identifier" || structured(t, res)["found"] != false {
			t.Fatalf("text = %q", text(res))
		}
	})

	t.Run("get_symbols", func(t *testing.T) {
		res := call(t, ctx, env, "get_symbols", `{"file":"orders/orders.go","kinds":["function","method"]}`)
		ok(t, res)
		want := "4 symbol(s) in orders/orders.go (gopls)\n" +
			"function    Process  orders/orders.go:33:5  func(o Order) (Total, error)\n" +
			"method      (*Total).Add  orders/orders.go:45:16  func(l Line)\n" +
			"method      (Total).IsZero  orders/orders.go:51:15  func() bool\n" +
			"function    Normalize  orders/orders.go:56:5  func(s string) string"
		if text(res) != want {
			t.Fatalf("text =\n%s\nwant\n%s", text(res), want)
		}
		res = call(t, ctx, env, "get_symbols", `{"query":"Normalize"}`)
		ok(t, res)
		m := structured(t, res)
		syms := m["symbols"].([]any)
		var files []string
		for _, s := range syms {
			files = append(files, s.(map[string]any)["file"].(string))
		}
		if m["scope"] != "workspace" || !strings.Contains(strings.Join(files, " "), "orders/orders.go") || !strings.Contains(strings.Join(files, " "), "text/normalize.go") {
			t.Fatalf("structured = %v", m)
		}
		if !strings.Contains(text(res), "outside the workspace left out (include_external)") {
			t.Fatalf("text = %q", text(res))
		}
		failed(t, call(t, ctx, env, "get_symbols", `{}`), "INVALID_PARAMETER", "neither file nor query was given")
		failed(t, call(t, ctx, env, "get_symbols", `{"file":"main.go","kinds":["func"]}`), "INVALID_PARAMETER", `unknown symbol kind "func"`)
	})

	t.Run("get_diagnostics", func(t *testing.T) {
		res := call(t, ctx, env, "get_diagnostics", `{"file":"main.go","severity":"warning"}`)
		ok(t, res)
		if text(res) != "0 diagnostic(s) in main.go, severity warning or worse" {
			t.Fatalf("text = %q", text(res))
		}
		m := structured(t, res)
		if m["diagnostics_complete"] != true || m["scope"] != "file" || len(m["diagnostics"].([]any)) != 0 {
			t.Fatalf("structured = %v", m)
		}
		res = call(t, ctx, env, "get_diagnostics", `{}`)
		ok(t, res)
		if m := structured(t, res); m["scope"] != "workspace" || !reflect.DeepEqual(m["servers"], []any{"gopls"}) {
			t.Fatalf("structured = %v", m)
		}
		failed(t, call(t, ctx, env, "get_diagnostics", `{"severity":"fatal"}`), "INVALID_PARAMETER", `unknown severity "fatal"`)
	})

	t.Run("get_completions", func(t *testing.T) {
		res := call(t, ctx, env, "get_completions", `{"file":"main.go","line":27,"column":22,"prefix":"proc"}`)
		ok(t, res)
		want := "2 completion(s) at main.go:27:22 (gopls); the list is incomplete (typing more narrows it)\n" +
			"function   Process  func(o orders.Order) (orders.Total, error)\n" +
			"function   ProcessBatch  func(batch []orders.Order) (int, error)"
		if text(res) != want {
			t.Fatalf("text =\n%s\nwant\n%s", text(res), want)
		}
		item := structured(t, res)["items"].([]any)[0].(map[string]any)
		if item["label"] != "Process" || item["kind"] != "function" || item["insert_text"] != "Process" {
			t.Fatalf("item = %v", item)
		}
	})

	t.Run("get_signature_help", func(t *testing.T) {
		res := call(t, ctx, env, "get_signature_help", `{"file":"main.go","line":27,"column":30}`)
		ok(t, res)
		want := "> Process(o orders.Order) (orders.Total, error)\n  active parameter 0: o orders.Order\n  Process validates o and computes its total."
		if text(res) != want {
			t.Fatalf("text =\n%s\nwant\n%s", text(res), want)
		}
		failed(t, call(t, ctx, env, "get_signature_help", `{"file":"main.go","line":27,"symbol":"Process"}`), "INVALID_PARAMETER", `unknown field "symbol"`)
	})

	t.Run("find_implementations", func(t *testing.T) {
		res := call(t, ctx, env, "find_implementations", `{"file":"payment/payment.go","line":10,"symbol":"Method"}`)
		ok(t, res)
		if !strings.HasPrefix(text(res), "4 implementation(s) of Method at payment/payment.go:10:5 (gopls):\npayment/card.go:4:5\n    type Card struct {") {
			t.Fatalf("text = %q", text(res))
		}
	})

	t.Run("argument errors", func(t *testing.T) {
		failed(t, call(t, ctx, env, "find_definition", `{"file":"main.go","line":27,"col":22}`), "INVALID_PARAMETER", `unknown field "col"`)
		failed(t, call(t, ctx, env, "find_references", `{"file":"main.go","line":"27","symbol":"Process"}`), "INVALID_PARAMETER", "invalid arguments")
		failed(t, call(t, ctx, env, "find_references", `{"file":"main.go","line":27}`), "INVALID_PARAMETER", "neither column nor symbol was given")
		failed(t, call(t, ctx, env, "get_hover_info", `{"file":"nope.go","line":1,"column":0}`), "RESOURCE_NOT_FOUND", "no such file")
		failed(t, call(t, ctx, env, "find_definition", `{"file":"main.go","line":43,"symbol":"widgets"}`), "AMBIGUOUS", `"widgets" occurs 4 times on line 43`)
	})
}
