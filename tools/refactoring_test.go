package tools_test

// The refactoring tools over the MCP protocol: schemas and annotations, the
// list -> preview -> apply_changeset loop, one undo step per buffer, the
// structured errors of bad input (nothing changed), and UNSUPPORTED from a
// server without the refactoring. Per-language golden diffs are pinned in
// lsp/refactor_*_test.go.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

func TestRefactoringCatalog(t *testing.T) {
	// Required in the schema; file and lines are required too, unless at:
	// "cursor" or range: "selection" stands for them (where.go), which
	// their descriptions say.
	required := map[string][]string{
		"rename_symbol":     {"new_name"},
		"apply_code_action": {},
		"organize_imports":  {"file"},
		"extract_function":  {},
		"extract_variable":  {},
		"move_symbol":       {"target_file"},
		"change_signature":  {"params"},
	}
	list := map[string]bool{}
	for _, tool := range tools.All(&tools.Env{}) {
		want, ok := required[tool.Tool.Name]
		if !ok {
			continue
		}
		list[tool.Tool.Name] = true
		a := tool.Tool.Annotations
		if a.ReadOnlyHint == nil || *a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want mutating, not destructive, closed world", tool.Tool.Name, a)
		}
		var schema struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		body := tool.Tool.RawInputSchema
		if len(body) == 0 {
			body, _ = json.Marshal(tool.Tool.InputSchema)
		}
		if err := json.Unmarshal(body, &schema); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(schema.Required, want) && !(len(want) == 0 && len(schema.Required) == 0) {
			t.Errorf("%s: required %v, want %v", tool.Tool.Name, schema.Required, want)
		}
		if tool.Tool.Name != "organize_imports" && !strings.Contains(string(schema.Properties["file"]), "required unless") {
			t.Errorf("%s: file is %s, want it required unless at/range is given", tool.Tool.Name, schema.Properties["file"])
		}
		for _, p := range []string{"preview", "save"} {
			if _, ok := schema.Properties[p]; !ok {
				t.Errorf("%s has no %s argument", tool.Tool.Name, p)
			}
		}
		for prop, raw := range schema.Properties {
			if !strings.Contains(string(raw), `"description"`) {
				t.Errorf("%s.%s has no description", tool.Tool.Name, prop)
			}
		}
	}
	if len(list) != len(required) {
		t.Errorf("listed %v, want %d tools", list, len(required))
	}
}

func TestRefactoringToolsGo(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	if err := os.WriteFile(filepath.Join(root, "refactor", "dup.go"), []byte("package refactor\n\nfunc dup() {\n\tmissing(1)\n\tmissing(2)\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, nil))
	okCall := func(name, args string) (map[string]any, string) {
		t.Helper()
		res := callOK(t, c, name, args)
		return content(t, res), res.Content[0].(mcp.TextContent).Text
	}
	disk := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	original := disk("widgets/widget.go")

	t.Run("bad input: clear errors, nothing changed", func(t *testing.T) {
		wantError(t, mcpCall(t, c, "rename_symbol", `{"file":"widgets/widget.go","line":70,"symbol":"Widget","new_name":"Gadget"}`), apierr.InvalidParameter, "line 70")
		wantError(t, mcpCall(t, c, "rename_symbol", `{"file":"widgets/widget.go","line":7,"symbol":"Widget","new_name":"Gad get"}`), apierr.InvalidParameter, "not a valid Go identifier")
		wantError(t, mcpCall(t, c, "rename_symbol", `{"file":"widgets/widget.go","line":7,"symbol":"Widget","new_name":"type"}`), apierr.InvalidParameter, "keyword")
		wantError(t, mcpCall(t, c, "apply_code_action", `{"file":"refactor/dup.go","line":4,"column":1,"action_kind":"refactor.nothing"}`), apierr.Unsupported, "kinds offered")
		wantError(t, mcpCall(t, c, "apply_code_action", `{"file":"refactor/dup.go","line":4,"column":1,"end_line":5,"title":"Create function missing"}`), apierr.Ambiguous, "indexes")
		wantError(t, mcpCall(t, c, "extract_function", `{"file":"refactor/pricing.go","start_line":13,"end_line":90}`), apierr.InvalidParameter, "line 90")
		wantError(t, mcpCall(t, c, "change_signature", `{"file":"refactor/pricing.go","line":27,"symbol":"taxOf","params":[{"name":"subtotal","from":"subtotal"},{"name":"percent","from":"percent"},{"name":"round","type":"bool"}]}`), apierr.InvalidParameter, "needs a default")
		wantError(t, mcpCall(t, c, "change_signature", `{"file":"refactor/pricing.go","line":27,"symbol":"taxOf","params":[{"name":"percent","from":"percent"}]}`), apierr.PreconditionFailed, "still used")
		wantError(t, mcpCall(t, c, "change_signature", `{"file":"refactor/pricing.go","line":23,"symbol":"header","params":[]}`), apierr.InvalidParameter, "not a function")
		info, _ := okCall("get_buffer_info", `{"file":"widgets/widget.go","include_content":false}`)
		if mustAt(t, info, "is_modified") != false || disk("widgets/widget.go") != original {
			t.Fatal("bad input changed something")
		}
	})

	t.Run("list code actions", func(t *testing.T) {
		got, text := okCall("apply_code_action", `{"file":"refactor/pricing.go","line":17,"symbol":"taxOf"}`)
		actions := mustAt(t, got, "actions").([]any)
		if len(actions) == 0 {
			t.Fatalf("listing: %v", got)
		}
		if _, ok := got["changeset_id"]; ok {
			t.Errorf("a listing carries a changeset_id: %v", got)
		}
		if !strings.Contains(text, "Inline call to taxOf") || !strings.Contains(text, "not runnable") {
			t.Errorf("summary:\n%s", text)
		}
	})

	t.Run("rename preview, apply_changeset, undo", func(t *testing.T) {
		pv, text := okCall("rename_symbol", `{"file":"widgets/widget.go","line":7,"symbol":"Widget","new_name":"Gadget"}`)
		if mustAt(t, pv, "applied") != false || len(mustAt(t, pv, "affected_files").([]any)) != 22 || !strings.Contains(text, "Rename Widget -> Gadget (gopls)") {
			t.Fatalf("preview: %v\n%s", pv, text)
		}
		if disk("widgets/widget.go") != original {
			t.Fatal("the preview changed the disk")
		}
		ap, _ := okCall("apply_changeset", `{"changeset_id":"`+mustAt(t, pv, "changeset_id").(string)+`"}`)
		if mustAt(t, ap, "applied") != true || len(mustAt(t, ap, "files").([]any)) != 22 {
			t.Fatalf("apply: %v", ap)
		}
		for _, f := range mustAt(t, pv, "affected_files").([]any) {
			okCall("undo", `{"file":"`+f.(string)+`"}`)
			got, _ := okCall("get_buffer_diff", `{"file":"`+f.(string)+`"}`)
			if mustAt(t, got, "has_changes") != false {
				t.Errorf("%s still differs from the disk after one undo: %v", f, got)
			}
		}
	})

	t.Run("extract function applied at once and saved", func(t *testing.T) {
		got, text := okCall("extract_function", `{"file":"refactor/pricing.go","start_line":13,"end_line":21,"name":"totals","preview":false,"save":true}`)
		if mustAt(t, got, "applied") != true || mustAt(t, got, "name") != "totals" || mustAt(t, got, "server_name") != "newFunction" || !strings.Contains(text, "renamed") {
			t.Fatalf("extract: %v\n%s", got, text)
		}
		if !strings.Contains(disk("refactor/pricing.go"), "func totals(") {
			t.Errorf("not saved:\n%s", disk("refactor/pricing.go"))
		}
	})

	t.Run("organize imports", func(t *testing.T) {
		got, _ := okCall("organize_imports", `{"file":"orders/format.go","preview":false}`)
		if mustAt(t, got, "changed") != true || len(mustAt(t, got, "removed_imports").([]any)) != 0 || mustAt(t, got, "applied") != true {
			t.Fatalf("organize: %v", got)
		}
		got, text := okCall("organize_imports", `{"file":"refactor/pricing.go"}`)
		if mustAt(t, got, "changed") != false || !strings.Contains(text, "already organized") {
			t.Fatalf("nothing to organize: %v\n%s", got, text)
		}
	})
}

func TestRefactoringToolsPythonUnsupported(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	s, client := testenv.Embedded(t, root)
	c := mcpClient(t, tools.NewEnv(s, client, nil))
	wantError(t, mcpCall(t, c, "extract_function", `{"file":"shop/extract.py","start_line":12,"end_line":16}`), apierr.Unsupported, "pyright")
	wantError(t, mcpCall(t, c, "extract_variable", `{"file":"shop/extract.py","start_line":14,"start_column":20,"end_line":14,"end_column":46,"name":"line_total"}`), apierr.Unsupported, "pyright")
	wantError(t, mcpCall(t, c, "rename_symbol", `{"file":"shop/orders.py","line":37,"symbol":"process","new_name":"None"}`), apierr.InvalidParameter, "keyword")
	// The server still answers after the refusals.
	res := mcpCall(t, c, "rename_symbol", `{"file":"shop/orders.py","line":37,"symbol":"process","new_name":"process_order"}`)
	if e := toolError(t, res); e != nil {
		t.Fatalf("rename after errors: %v", e)
	}
}
