package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A fixed tool is dispatched from the dispatcher's table, wrapped in the
// middleware, without a lookup in the server (here: it still answers once
// the server no longer has it, which nvbridge never does to its own
// tools); another is looked up at call time (gone: not found).
func TestFixedToolsDispatched(t *testing.T) {
	hooks := &server.Hooks{}
	srv := server.NewMCPServer("t", "0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	var wrapped []string
	mark := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wrapped = append(wrapped, req.Params.Name)
			return next(ctx, req)
		}
	}
	RegisterCallDispatcher(srv, hooks, mark)
	answer := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("answered " + req.Params.Name), nil
	}
	fixed := server.ServerTool{Tool: mcp.NewTool("fixed", mcp.WithReadOnlyHintAnnotation(true)), Handler: answer}
	srv.AddTools(fixed, server.ServerTool{Tool: mcp.NewTool("loose"), Handler: answer})
	FixTools(srv, []server.ServerTool{fixed})
	if ro, ok := readOnlyFixed(srv, "fixed"); !ok || !ro {
		t.Errorf("readOnlyFixed(fixed) = %v, %v; want read-only, fixed", ro, ok)
	}
	if _, ok := readOnlyFixed(srv, "loose"); ok {
		t.Error("loose is fixed")
	}
	srv.DeleteTools("fixed", "loose")
	call := func(name string) string {
		req := &mcp.CallToolRequest{}
		req.Params.Name = name
		b, err := json.Marshal(DispatcherOf(srv).Call(context.Background(), 1, req, json.RawMessage(`{}`)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := call("fixed"); !strings.Contains(got, "answered fixed") {
		t.Errorf("fixed: %s", got)
	}
	if got := call("loose"); !strings.Contains(got, "tool 'loose' not found") {
		t.Errorf("loose: %s", got)
	}
	if strings.Join(wrapped, ",") != "fixed" {
		t.Errorf("the middleware saw %q, want the fixed call", wrapped)
	}
}
