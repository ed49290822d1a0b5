package tools_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// protocolCase is one valid call of a tool on the Go sample
// (testdata/samples/README.md landmarks) and what its structured content
// must hold: path -> value (nil: the path must exist).
type protocolCase struct {
	args string
	// argsFrom builds the arguments from earlier results (by tool name),
	// for tools that act on what another returned (a changeset_id).
	argsFrom func(results map[string]map[string]any) string
	want     map[string]any
}

// mutatingOrder lists the tools that change state, in the order they run
// (after every other tool): each acts on the previous one's result.
var mutatingOrder = []string{
	"edit_buffer", "apply_changeset", "get_buffer_diff", "undo",
	"replace_in_buffer", "check_changeset", "get_changeset_diff", "discard_changeset", "apply_patch", "save_buffer", "discard_buffer",
	// Debugging main.go with dlv: one session, from start to stop.
	"start_debug_session", "set_breakpoints", "control_execution", "inspect_state",
	"get_debug_session_info", "stop_debug_session",
}

func changesetOf(tool string) func(map[string]map[string]any) string {
	return func(results map[string]map[string]any) string {
		id, _ := results[tool]["changeset_id"].(string)
		return fmt.Sprintf(`{"changeset_id":%q}`, id)
	}
}

const w03Patch = `--- a/widgets/w03.go
+++ b/widgets/w03.go
@@ -3,2 +3,2 @@
-// Checkbox returns a checkbox widget showing label.
+// Checkbox returns a checkbox widget labelled label.
 func Checkbox(label string) *Widget {
`

// protocolCases has one entry per tool. A tool listed by the server without
// an entry here fails TestToolsOverMCP: add one when adding a tool.
var protocolCases = map[string]protocolCase{
	"get_editor_context": {args: `{"include_buffers":true}`, want: map[string]any{"attached": nil, "buffers": nil}},
	"suggest_tools":      {args: `{"intent":"rename a function everywhere"}`, want: map[string]any{"suggestions.0.tool": "rename_symbol"}},
	"get_status":         {args: `{}`, want: map[string]any{"health": "available", "mode": "all", "neovim.version": nil, "language_servers.0.state": "ready"}},
	"set_mode":           {args: `{"mode":"all"}`, want: map[string]any{"mode": "all", "previous": "all"}},
	"get_buffer_info": {args: `{"file":"main.go","include_content":false}`, want: map[string]any{
		"file": "main.go", "language": "go", "is_modified": false, "line_count": nil, "changedtick": nil,
		"language_servers.0.name": modeServer,
	}},
	"read_file": {args: `{"file":"orders/orders.go","start_line":33,"end_line":33}`, want: map[string]any{
		"file": "orders/orders.go", "lines.0.line": 33, "lines.0.text": "func Process(o Order) (Total, error) {",
		"diagnostics_complete": nil,
	}},
	"find_definition": {args: `{"file":"main.go","line":27,"symbol":"Process"}`, want: map[string]any{
		"server": modeServer, "count": 1, "locations.0.file": "orders/orders.go", "locations.0.line": 33, "locations.0.column": 5,
	}},
	"find_implementations": {args: `{"file":"payment/payment.go","line":10,"symbol":"Method"}`, want: map[string]any{
		"server": modeServer, "count": 4, "locations.0.file": "payment/card.go",
	}},
	"find_references": {args: `{"file":"orders/orders.go","line":33,"symbol":"Process"}`, want: map[string]any{
		"total": 5, "file_count": 4, "truncated": false, "files.0.file": "main.go",
		"files.0.references.0.line": 27, "files.0.references.0.column": 22,
		"files.0.references.0.context": "total, err := orders.Process(order)",
	}},
	"get_completions": {args: `{"file":"main.go","line":27,"column":22,"prefix":"Proc"}`, want: map[string]any{
		"server": modeServer, "items.0.label": "Process", "items.0.kind": "function", "is_incomplete": nil,
	}},
	"get_diagnostics": {args: `{"severity":"warning"}`, want: map[string]any{
		"scope": "workspace", "total": 0, "diagnostics": nil,
	}},
	"get_hover_info": {args: `{"file":"main.go","line":27,"symbol":"Process"}`, want: map[string]any{
		"server": modeServer, "found": true, "contents": nil, "range.line": 27, "range.column": 22,
	}},
	"get_signature_help": {args: `{"file":"main.go","line":27,"column":30}`, want: map[string]any{
		"found": true, "signatures.0.label": "Process(o orders.Order) (orders.Total, error)", "active_parameter": 0,
	}},
	"get_symbols": {args: `{"file":"orders/orders.go","kinds":["function"]}`, want: map[string]any{
		"scope": "document", "file": "orders/orders.go", "symbols.0.kind": "function",
	}},
	"get_call_hierarchy": {args: `{"file":"config/config.go","line":45,"symbol":"validateConfig","direction":"incoming"}`, want: map[string]any{
		"symbol.name": "validateConfig", "incoming.0.name": "parseConfig", "incoming.0.call_sites.0.line": 41,
	}},
	"analyze_dependencies": {args: `{"file":"main.go"}`, want: map[string]any{
		"file": "main.go", "language": "go", "imports.0.path": "fmt", "imports_source": nil, "importers": nil,
	}},
	"get_project_structure": {args: `{"path":".","max_depth":1}`, want: map[string]any{
		"root.path": ".", "root.children.0.name": "config", "root.children.0.type": "dir", "files": nil, "dirs": nil, "listed": nil,
	}},
	"prepare_change": {args: `{"file":"orders/orders.go","line":33,"symbol":"Process","depth":1}`, want: map[string]any{
		"symbol.name": "Process", "symbol.line": 33, "references": 4, "direct_callers.0.call_sites.0.file": nil, "risk": nil,
	}},
	"batch": {args: `{"searches":["Process","Card","Normalize"],"names":["orders.Process"],"ask":"references"}`, want: map[string]any{
		"searches.0.query": "Process", "searches.1.query": "Card", "searches.2.query": "Normalize", "searches.2.total": nil,
		"symbols.0.name": "orders.Process", "symbols.0.resolved.symbol.line": 33, "symbols.0.references.total": 5, "failed": 0,
	}},
	"explore": {args: `{"target":"orders","max_symbols":3}`, want: map[string]any{
		"path": "orders", "kind": "folder", "package": "example.com/shop/orders", "key_symbols.0.name": "Order",
		"depended_on_by.0.package": nil, "overview.languages.0.language": "go",
	}},
	"understand_symbol": {args: `{"file":"orders/orders.go","line":33,"symbol":"Process"}`, want: map[string]any{
		"symbol.name": "Process", "definition.file": "orders/orders.go", "definition.line": 33, "references.total": 4,
		"hover.contents": nil,
	}},
	// Refactoring tools, previews only (they change nothing).
	"rename_symbol": {args: `{"file":"refactor/pricing.go","line":27,"symbol":"taxOf","new_name":"taxFor"}`, want: map[string]any{
		"old_name": "taxOf", "new_name": "taxFor", "server": modeServer, "affected_files.0": "refactor/pricing.go",
		"changeset_id": nil, "applied": false, "edit_count": 3,
	}},
	"apply_code_action": {args: `{"file":"refactor/pricing.go","line":17,"symbol":"taxOf","action_kind":"refactor.inline.call"}`, want: map[string]any{
		"chosen.kind": "refactor.inline.call", "chosen.title": "Inline call to taxOf", "resolved": true, "changeset_id": nil, "applied": false,
	}},
	"organize_imports": {args: `{"file":"orders/format.go"}`, want: map[string]any{
		"server": modeServer, "changed": true, "removed_imports": nil, "changeset_id": nil, "applied": false,
	}},
	"extract_function": {args: `{"file":"refactor/pricing.go","start_line":13,"end_line":21,"name":"totals"}`, want: map[string]any{
		"server_name": "newFunction", "name": "totals", "renamed_occurrences": 2, "changeset_id": nil, "applied": false,
	}},
	"inline_function": {args: `{"file":"refactor/pricing.go","line":27,"symbol":"taxOf"}`, want: map[string]any{
		"function": "taxOf", "replacements.0.file": "refactor/pricing.go", "replacements.0.line": float64(17),
		"definition_removed": true, "affected_files.0": "refactor/pricing.go", "changeset_id": nil, "applied": false,
	}},
	"extract_variable": {args: `{"file":"refactor/pricing.go","start_line":15,"start_column":14,"end_line":15,"end_column":33}`, want: map[string]any{
		"server_name": "newVar", "name": "newVar", "kind": "refactor.extract.variable", "changeset_id": nil,
	}},
	"move_symbol": {args: `{"file":"refactor/pricing.go","line":32,"symbol":"cents","target_file":"refactor/money.go"}`, want: map[string]any{
		"symbol": "cents", "moved.0": "func cents", "created": true, "to": "refactor/money.go", "server": nil,
		"import_updates.0.file": "refactor/money.go", "import_updates.0.new": "fmt", "changeset_id": nil, "applied": false,
	}},
	"change_signature": {args: `{"file":"refactor/pricing.go","line":27,"symbol":"taxOf","params":[{"name":"rate","from":"percent"},{"name":"subtotal","from":"subtotal"}]}`, want: map[string]any{
		"function": "taxOf", "old_signature": "func taxOf(subtotal, percent int) int", "new_signature": "func taxOf(rate, subtotal int) int",
		"call_sites_updated.0.line": float64(17), "affected_files.0": "refactor/pricing.go", "changeset_id": nil, "applied": false,
	}},
	// Editing, in mutatingOrder, on widgets/w01.go and w03.go (no other
	// case reads them).
	"edit_buffer": {args: `{"file":"widgets/w01.go","edits":[{"line_start":3,"line_end":3,"new_text":"// Button returns a clickable button."}]}`, want: map[string]any{
		"changeset_id": nil, "applied": false, "diff": nil, "files.0.path": "widgets/w01.go",
	}},
	"apply_changeset": {argsFrom: changesetOf("edit_buffer"), want: map[string]any{
		"applied": true, "files.0.path": "widgets/w01.go", "files.0.is_modified": true,
	}},
	"get_buffer_diff": {args: `{"file":"widgets/w01.go"}`, want: map[string]any{
		"file": "widgets/w01.go", "is_modified": true, "has_changes": true, "diff": nil,
	}},
	"undo": {args: `{"file":"widgets/w01.go"}`, want: map[string]any{"remaining_undo": nil}},
	"replace_in_buffer": {args: `{"file":"widgets/w01.go","old":"showing label","new":"with label","count":1}`, want: map[string]any{
		"changeset_id": nil, "applied": false, "matches_replaced": 1,
	}},
	"check_changeset": {argsFrom: func(results map[string]map[string]any) string {
		return fmt.Sprintf(`{"changeset_ids":[%q]}`, results["replace_in_buffer"]["changeset_id"])
	}, want: map[string]any{"first_error": 0, "steps.0.files.0": "widgets/w01.go", "diagnostics_delta.mode": "check", "diagnostics_delta.complete": true}},
	"get_changeset_diff": {argsFrom: changesetOf("replace_in_buffer"), want: map[string]any{
		"changeset_id": nil, "offset": 0, "total_bytes": nil, "diff": nil,
	}},
	"discard_changeset": {argsFrom: changesetOf("replace_in_buffer"), want: map[string]any{}},
	"detect_changes":    {args: `{}`, want: map[string]any{"revision": "HEAD", "commit": nil, "files": nil, "symbols": nil}},
	"run_tests": {args: `{"file":"orders/orders.go","line":33,"symbol":"Process"}`, want: map[string]any{
		"passed": 1, "failed": 0, "selection.names.0": "TestProcess", "runs.0.runner": "go test", "complete": true,
	}},
	"format": {args: `{"file":"widgets/w02.go","start_line":1,"end_line":3}`, want: map[string]any{"file": "widgets/w02.go", "server": modeServer, "changed": false}},
	"apply_patch": {argsFrom: func(map[string]map[string]any) string {
		b, _ := json.Marshal(map[string]any{"patch": w03Patch, "preview": false})
		return string(b)
	}, want: map[string]any{"applied": true, "files.0.path": "widgets/w03.go"}},
	"save_buffer":    {args: `{"file":"widgets/w03.go"}`, want: map[string]any{"saved": true}},
	"discard_buffer": {args: `{"file":"widgets/w01.go"}`, want: map[string]any{"discarded": nil}},
	// Debugging (in mutatingOrder): main.go:27 is the call of orders.Process.
	"start_debug_session": {args: `{"program":".","breakpoints":[{"file":"main.go","line":27}]}`, want: map[string]any{
		"session_id": nil, "adapter": "dlv", "complete": true, "state": "stopped", "reason": "breakpoint",
		"location.file": "main.go", "location.line": 27, "breakpoints.0.breakpoints.0.verified": true,
	}},
	"set_breakpoints": {args: `{"file":"main.go","breakpoints":[{"line":28,"condition":"err != nil"}]}`, want: map[string]any{
		"file": "main.go", "breakpoints.0.line": 28, "breakpoints.0.verified": true,
	}},
	"control_execution": {args: `{"action":"step_over"}`, want: map[string]any{
		"complete": true, "state": "stopped", "location.file": "main.go", "location.line": 28,
	}},
	"inspect_state": {args: `{"expression":"order.ID"}`, want: map[string]any{
		"evaluated.result": `"A-1"`, "location.line": 28, "stack.0.function": "main.main",
	}},
	"get_debug_session_info": {args: `{}`, want: map[string]any{
		"count": 1, "sessions.0.state": "stopped", "sessions.0.last_action.by": "agent",
	}},
	"stop_debug_session": {args: `{}`, want: map[string]any{"state": "terminated", "remaining_processes": 0}},
	"get_type_hierarchy": {args: `{"file":"payment/payment.go","line":16,"symbol":"RefundableMethod","direction":"supertypes"}`, want: map[string]any{
		"symbol.name": "RefundableMethod", "supertypes.0.name": "Method", "supertypes.0.line": 10,
	}},
}

// TestToolsOverMCP runs the protocolCases table in both of nvbridge's modes
// (issue 2): an embedded Neovim that nvbridge starts with its own gopls, and
// a Neovim the test starts listening on a socket, configured as a user's
// would be (its init starts gopls as client "user-gopls"), that nvbridge
// attaches to. Each mode lists the tools through an in-process MCP client
// and calls each one over the protocol with valid arguments (structured
// content, a text summary, isError=false, the same expected content; every
// server a result names is the mode's gopls client), then with an unknown
// field and with a wrongly typed field (INVALID_PARAMETER). A final call
// proves the server still answers after the bad input.
func TestToolsOverMCP(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	for _, mode := range sessionModes {
		t.Run(mode.name, func(t *testing.T) {
			root := testenv.CopySample(t, "go")
			gitCommit(t, root) // detect_changes compares with HEAD
			env := mode.open(t, root)
			toolsOverMCP(t, mcpClient(t, env), mode.server)
			if mode.after != nil {
				t.Run("after", func(t *testing.T) { mode.after(t, env) })
			}
		})
	}
}

// gitCommit makes root a git repository with one commit of its files.
func gitCommit(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// modeServer in a want map of protocolCases stands for the name of the
// mode's gopls client ("gopls" embedded, the user's client attached).
const modeServer = "<mode's gopls client>"

// toolsOverMCP is TestToolsOverMCP on one session: server is the name of
// the client every result must name.
func toolsOverMCP(t *testing.T, c *client.Client, server string) {
	list, err := c.ListTools(testenv.Context(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) == 0 {
		t.Fatal("no tools listed")
	}
	listed := map[string]bool{}
	for _, tool := range list.Tools {
		listed[tool.Name] = true
		if _, ok := protocolCases[tool.Name]; !ok {
			t.Errorf("tool %s has no case in protocolCases (tools/server_test.go): add a valid call and its expected content", tool.Name)
		}
		if tool.Description == "" || tool.InputSchema.Type != "object" {
			t.Errorf("%s: description %q, input schema type %q", tool.Name, tool.Description, tool.InputSchema.Type)
		}
		a := tool.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations not all set: %+v", tool.Name, a)
		} else if *a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("%s: read-only and destructive at once", tool.Name)
		}
	}
	for name := range protocolCases {
		if !listed[name] {
			t.Errorf("protocolCases has %s, which the server does not list", name)
		}
	}

	results := map[string]map[string]any{}
	for _, tool := range callOrder(list.Tools) {
		tc, ok := protocolCases[tool.Name]
		if !ok {
			continue
		}
		t.Run(tool.Name, func(t *testing.T) {
			args := tc.args
			if tc.argsFrom != nil {
				args = tc.argsFrom(results)
			}
			res := callOK(t, c, tool.Name, args)
			if res.StructuredContent == nil {
				t.Fatal("no structuredContent")
			}
			if len(res.Content) == 0 {
				t.Fatal("no text content beside the structured content")
			}
			if txt, ok := res.Content[0].(mcp.TextContent); !ok || strings.TrimSpace(txt.Text) == "" {
				t.Fatalf("first content is not a non-empty text: %#v", res.Content[0])
			}
			checkOutputSchema(t, tool.Name, res)
			got := content(t, res)
			results[tool.Name] = got
			for path, want := range tc.want {
				v, ok := at(got, path)
				if !ok {
					t.Errorf("structuredContent lacks %s", path)
					continue
				}
				if want == modeServer {
					want = server
				}
				if want != nil && fmt.Sprint(v) != fmt.Sprint(want) {
					t.Errorf("%s = %v, want %v", path, v, want)
				}
			}
			for path, name := range serverNames(got, "") {
				if name != server {
					t.Errorf("%s = %q: the result names a server other than %s", path, name, server)
				}
			}
			if t.Failed() {
				body, _ := json.MarshalIndent(got, "", "  ")
				t.Logf("structuredContent:\n%s", body)
			}
		})
	}

	t.Run("unknown field", func(t *testing.T) {
		for _, tool := range sortedTools(list.Tools) {
			args := withField(t, validArgs(protocolCases[tool.Name], results), "bogus_field", 1)
			res := mcpCall(t, c, tool.Name, args)
			t.Run(tool.Name, func(t *testing.T) {
				checkOutputSchema(t, tool.Name, res) // a failure's body too
				wantError(t, res, apierr.InvalidParameter, "bogus_field")
			})
		}
	})

	t.Run("wrong type", func(t *testing.T) {
		for _, tool := range sortedTools(list.Tools) {
			field, bad := wrongTyped(tool)
			if field == "" {
				t.Errorf("%s: no property to mistype", tool.Name)
				continue
			}
			args := withField(t, validArgs(protocolCases[tool.Name], results), field, bad)
			res := mcpCall(t, c, tool.Name, args)
			t.Run(tool.Name, func(t *testing.T) {
				wantError(t, res, apierr.InvalidParameter, field)
			})
		}
	})

	t.Run("not an object", func(t *testing.T) {
		res := mcpCall(t, c, "read_file", `["main.go"]`)
		wantError(t, res, apierr.InvalidParameter)
	})

	t.Run("still serving after bad input", func(t *testing.T) {
		res := mcpCall(t, c, "find_definition", protocolCases["find_definition"].args)
		if e := toolError(t, res); e != nil {
			t.Fatalf("%s: %s", e.Code, e.Message)
		}
		if got, _ := at(content(t, res), "server"); got != server {
			t.Fatalf("server = %v, want %s", got, server)
		}
	})
}

// serverNames collects, by dotted path, every language server a result
// names: "server" fields, the items of "servers" lists and the names in
// "language_servers" (server_name, a name a server proposed, is not one;
// nor the language matrix's servers).
func serverNames(v any, path string) map[string]string {
	out := map[string]string{}
	join := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	switch x := v.(type) {
	case map[string]any:
		for key, val := range x {
			switch key {
			case "server":
				out[join(key)] = fmt.Sprint(val)
				continue
			case "servers":
				list, _ := val.([]any)
				for i, name := range list {
					out[join(key)+"."+strconv.Itoa(i)] = fmt.Sprint(name)
				}
				continue
			case "language_matrix":
				// What nvbridge's own tests ran per language, not this
				// session's servers.
				continue
			case "diagnostics_delta":
				// A check's delta comes from the check's second Neovim,
				// which runs nvbridge's own servers.
				if mode, _ := at(val, "mode"); mode == "check" {
					continue
				}
			case "language_servers":
				list, _ := val.([]any)
				for i, s := range list {
					name, _ := at(s, "name")
					out[join(key)+"."+strconv.Itoa(i)+".name"] = fmt.Sprint(name)
				}
				continue
			}
			for p, name := range serverNames(val, join(key)) {
				out[p] = name
			}
		}
	case []any:
		for i, val := range x {
			for p, name := range serverNames(val, join(strconv.Itoa(i))) {
				out[p] = name
			}
		}
	}
	return out
}

func validArgs(tc protocolCase, results map[string]map[string]any) string {
	if tc.argsFrom != nil {
		return tc.argsFrom(results)
	}
	return tc.args
}

// callOrder is every tool sorted by name, those in mutatingOrder last and
// in that order.
func callOrder(list []mcp.Tool) []mcp.Tool {
	rank := map[string]int{}
	for i, name := range mutatingOrder {
		rank[name] = i + 1
	}
	out := sortedTools(list)
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].Name] < rank[out[j].Name] })
	return out
}

func sortedTools(list []mcp.Tool) []mcp.Tool {
	out := append([]mcp.Tool(nil), list...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// withField returns the JSON object args with field set to value.
func withField(t *testing.T, args, field string, value any) string {
	t.Helper()
	m := map[string]any{}
	if args != "" {
		if err := json.Unmarshal([]byte(args), &m); err != nil {
			t.Fatal(err)
		}
	}
	m[field] = value
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wrongTyped picks a property of the tool's input schema (required ones
// first) and a value of a type the schema does not allow.
func wrongTyped(tool mcp.Tool) (string, any) {
	names := append([]string(nil), tool.InputSchema.Required...)
	var rest []string
	for name := range tool.InputSchema.Properties {
		rest = append(rest, name)
	}
	sort.Strings(rest)
	names = append(names, rest...)
	for _, name := range names {
		prop, _ := tool.InputSchema.Properties[name].(map[string]any)
		var types []string
		switch ty := prop["type"].(type) {
		case string:
			types = []string{ty}
		case []any:
			for _, x := range ty {
				if s, ok := x.(string); ok {
					types = append(types, s)
				}
			}
		}
		allowed := map[string]bool{}
		for _, ty := range types {
			allowed[ty] = true
		}
		switch {
		case len(types) == 0:
			continue
		case !allowed["object"] && !allowed["string"]:
			return name, map[string]any{"x": 1}
		case !allowed["array"] && !allowed["boolean"] && !allowed["integer"] && !allowed["number"]:
			return name, []any{true}
		case !allowed["string"]:
			return name, "not-a-" + types[0]
		}
	}
	return "", nil
}
