package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// BenchmarkBigEditOverMCP: 1,000 one-line edits in a 100,000-line file
// through an in-process MCP session (the tools' dispatch, schemas and
// structured content; no transport): edit_buffer's preview, then
// apply_changeset of its id. Each apply is undone outside the timer.
// (bench/cmd/sidebyside -bigedit measures the same over stdio against
// Neovim's own apply_workspace_edit.)
func BenchmarkBigEditOverMCP(b *testing.B) {
	testenv.Require(b, "nvim")
	root := b.TempDir()
	var text strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&text, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(text.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	s, lspClient := testenv.Embedded(b, root)
	env := tools.NewEnv(s, lspClient, b.Logf)
	b.Cleanup(env.Close)
	c := mcpLegacyClient(b, env)
	ctx := testenv.Context(b)
	var edits []map[string]any
	for i := range 1_000 {
		line := i * 100
		edits = append(edits, map[string]any{"line_start": line + 1, "line_end": line + 1, "new_text": fmt.Sprintf("line %d: edited", line)})
	}
	call := func(name string, args map[string]any) map[string]any {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", name, err, res)
		}
		out, _ := res.StructuredContent.(map[string]any)
		return out
	}
	b.Run("preview", func(b *testing.B) {
		for b.Loop() {
			out := call("edit_buffer", map[string]any{"file": "big.txt", "edits": edits})
			b.StopTimer()
			call("discard_changeset", map[string]any{"changeset_id": out["changeset_id"]})
			b.StartTimer()
		}
	})
	b.Run("apply_changeset", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			out := call("edit_buffer", map[string]any{"file": "big.txt", "edits": edits})
			b.StartTimer()
			call("apply_changeset", map[string]any{"changeset_id": out["changeset_id"]})
			b.StopTimer()
			call("undo", map[string]any{"file": "big.txt"})
			b.StartTimer()
		}
	})
}
