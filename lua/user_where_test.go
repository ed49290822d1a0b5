package lua_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestWhereTheUserIs: with the user's own gopls, at: "cursor" asks about
// the symbol under the user's cursor (the same answer as naming it),
// range: "selection" takes the last visual selection, and
// get_editor_context says where the user is.
func TestWhereTheUserIs(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	init := approveNothing + `
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(ev)
    vim.lsp.start({ name = 'user-gopls', cmd = { 'gopls' }, root_dir = vim.fs.root(ev.buf, { 'go.mod' }) })
  end,
})
`
	u := startUser(t, root, init)
	u.env.LSP.AttachGrace = 3 * time.Second // the user's gopls attaches after :edit
	// The user is on "Process" in orders.go line 33 (col 5 is the P) and
	// had selected lines 34-36 before.
	u.lua(`vim.cmd.edit(...)
vim.api.nvim_buf_set_mark(0, '<', 34, 0, {})
vim.api.nvim_buf_set_mark(0, '>', 36, 1, {})
vim.api.nvim_win_set_cursor(0, { 33, 7 })`, nil, u.abs("orders/orders.go"))

	// The schemas say so: file and line are not required where at or
	// range can stand for them; leaving out both is refused, naming both.
	tools, err := u.c.ListTools(testenv.Context(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != "find_references" && tl.Name != "extract_function" {
			continue
		}
		var schema struct {
			Required   []string
			Properties map[string]struct{ Description string }
		}
		var wire struct{ InputSchema json.RawMessage }
		b, _ := json.Marshal(tl)
		if err := json.Unmarshal(b, &wire); err != nil || json.Unmarshal(wire.InputSchema, &schema) != nil {
			t.Fatalf("%s: %s", tl.Name, b)
		}
		if slices.Contains(schema.Required, "file") || slices.Contains(schema.Required, "line") || slices.Contains(schema.Required, "start_line") ||
			!strings.Contains(schema.Properties["file"].Description, "required unless") {
			t.Errorf("%s: required %v, file %q", tl.Name, schema.Required, schema.Properties["file"].Description)
		}
	}
	u.wantError("find_references", `{"symbol":"Process"}`, apierr.InvalidParameter, "`file` is required (or at: \"cursor\", or name)")

	ctx := u.mustCall("get_editor_context", `{}`)
	if ctx["file"] != "orders/orders.go" || ctx["line"] != float64(33) || ctx["column"] != float64(7) {
		t.Errorf("editor context %v", ctx)
	}
	if sel, _ := ctx["selection"].(map[string]any); sel == nil || sel["start_line"] != float64(34) || sel["end_line"] != float64(36) {
		t.Errorf("selection %v", ctx["selection"])
	}
	if bufs, _ := ctx["buffers"].([]any); len(bufs) != 1 || bufs[0].(map[string]any)["file"] != "orders/orders.go" || bufs[0].(map[string]any)["visible"] != true {
		t.Errorf("buffers %v", ctx["buffers"])
	}

	byCursor := u.mustCall("find_references", `{"at":"cursor"}`)
	byName := u.mustCall("find_references", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`)
	if byCursor["total"] != byName["total"] || byCursor["total"] == float64(0) {
		t.Errorf("at cursor: %v references, by name: %v", byCursor["total"], byName["total"])
	}
	u.wantError("find_references", `{"at":"elsewhere"}`, apierr.InvalidParameter)

	out := u.mustCall("extract_function", `{"range":"selection","name":"checkEmpty"}`)
	if diff, _ := out["diff"].(string); !strings.Contains(diff, "checkEmpty") || !strings.Contains(diff, "orders/orders.go") {
		t.Errorf("extract over the selection: %v", out)
	}
}
