package tools

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestRelistWaitsForCalls: the resource list is compared once no tool call
// is in flight. The watcher counts the calls mcp-go dispatches (its hooks):
// while a call's handler runs it is counted and waitIdle does not return
// idle; once it answered, and after a call of an unknown tool and one that
// does not decode, nothing is counted.
func TestRelistWaitsForCalls(t *testing.T) {
	w := newWatcher(&Env{}, nil)
	hooks := &server.Hooks{}
	w.addHooks(hooks)
	srv := server.NewMCPServer("t", "1", server.WithHooks(hooks), server.WithToolCapabilities(false))
	entered, release := make(chan struct{}), make(chan struct{})
	srv.AddTool(mcp.NewTool("block"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(entered)
		<-release
		return mcp.NewToolResultText("done"), nil
	})
	call := func(id int, name string) json.RawMessage {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": map[string]any{}}})
		return msg
	}
	inFlight := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.calls)
	}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		srv.HandleMessage(context.Background(), call(1, "block"))
	}()
	<-entered
	if n := inFlight(); n != 1 {
		t.Fatalf("%d calls in flight while one runs, want 1", n)
	}
	// Cut (done closed) while the call runs: not idle.
	cut := make(chan struct{})
	close(cut)
	if w.waitIdle(cut, time.Hour) {
		t.Fatal("waitIdle says idle while a call is in flight")
	}
	// Idle once it answers (a bound no test run reaches).
	idle := make(chan bool)
	go func() { idle <- w.waitIdle(nil, time.Hour) }()
	close(release)
	if !<-idle {
		t.Fatal("waitIdle was cut, want idle after the call answered")
	}
	<-answered

	srv.HandleMessage(context.Background(), call(2, "no_such_tool"))
	srv.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7}}`))
	if n := inFlight(); n != 0 {
		t.Fatalf("%d calls still counted in flight after every call answered", n)
	}
	if !w.waitIdle(cut, time.Hour) {
		t.Fatal("waitIdle with no call in flight: not idle")
	}
}
