package tools_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// BenchmarkBigEditOverMCP: 1,000 one-line edits in a 100,000-line file
// through an in-process MCP session (the tools' dispatch, schemas and
// structured content, JSON-RPC lines over pipes as on stdio): edit_buffer's preview, then
// apply_changeset of its id, a change and its reverse in turn.
// (bench/cmd/sidebyside -bigedit measures the same over stdio against
// Neovim's own apply_workspace_edit.)
// stdioClient serves env's tools as `nvbridge mcp` does on stdio, over a
// pair of pipes, and returns an initialized client of it: every call is
// encoded and decoded as JSON-RPC lines at both ends.
func stdioClient(b testing.TB, env *tools.Env) *client.Client {
	ctx, cancel := context.WithCancel(testenv.Context(b))
	b.Cleanup(cancel)
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	srv := server.NewStdioServer(tools.NewServer(env, "test"))
	safego.Go("the stdio server", func() { _ = srv.Listen(ctx, toServer, fromServer) }, nil)
	c := client.NewClient(transport.NewIO(toClient, fromClient, nil))
	b.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "nvbridge-bench", Version: "0"}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	return c
}

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
	ctx := testenv.Context(b)
	c := stdioClient(b, env)
	// A change and its reverse, applied in turn (as an agent applies one
	// change after another): each starts from the text the last one left.
	var edits [2][]map[string]any
	for i := range 1_000 {
		line := i * 100
		texts := [2]string{fmt.Sprintf("line %d: edited", line), fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog", line)}
		for d := range 2 {
			edits[d] = append(edits[d], map[string]any{"line_start": line + 1, "line_end": line + 1, "new_text": texts[d]})
		}
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
	d := 0
	b.Run("preview", func(b *testing.B) {
		for b.Loop() {
			out := call("edit_buffer", map[string]any{"file": "big.txt", "edits": edits[d]})
			b.StopTimer()
			call("apply_changeset", map[string]any{"changeset_id": out["changeset_id"]})
			d = 1 - d
			b.StartTimer()
		}
	})
	b.Run("apply_changeset", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			out := call("edit_buffer", map[string]any{"file": "big.txt", "edits": edits[d]})
			b.StartTimer()
			call("apply_changeset", map[string]any{"changeset_id": out["changeset_id"]})
			d = 1 - d
		}
	})
}
