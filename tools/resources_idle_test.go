package tools

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestRelistWaitsForCalls: a change Neovim reports while a tool call is in
// flight is compared once the call has answered (one comparison for every
// change it brought), a change nvbridge made is compared at once, and one
// reported with no call in flight at once too. The watcher counts the
// calls mcp-go dispatches by its hooks: after a call of an unknown tool
// and one that does not decode, none is counted.
func TestRelistWaitsForCalls(t *testing.T) {
	w := newWatcher(&Env{}, nil)
	hooks := &server.Hooks{}
	w.addHooks(hooks)
	srv := server.NewMCPServer("t", "1", server.WithHooks(hooks), server.WithToolCapabilities(false))
	entered, release := make(chan struct{}), make(chan struct{})
	srv.AddTool(mcp.NewTool("block"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		entered <- struct{}{}
		<-release
		return mcp.NewToolResultText("done"), nil
	})
	call := func(id int, name string) json.RawMessage {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": map[string]any{}}})
		return msg
	}
	compared := make(chan struct{}, 16)
	done := make(chan struct{})
	defer close(done)
	go w.runListLoop(done, func() { compared <- struct{}{} })
	// noComparison: none comes while the loop has had the time to make
	// one (a bound for the negative; the positives wait on the event).
	noComparison := func(why string) {
		t.Helper()
		select {
		case <-compared:
			t.Fatalf("compared %s", why)
		case <-time.After(100 * time.Millisecond):
		}
	}

	// No call in flight: compared at once.
	w.neovimChanged()
	<-compared

	answered := make(chan struct{})
	go func() {
		defer close(answered)
		srv.HandleMessage(context.Background(), call(1, "block"))
	}()
	<-entered
	if !w.busy() {
		t.Fatal("no call in flight while one runs")
	}
	// Neovim's changes during the call wait for its end, coalesced.
	w.neovimChanged()
	w.neovimChanged()
	noComparison("while a call is in flight")
	// A change of nvbridge's own is compared at once, call or not.
	w.requestRelist()
	<-compared
	w.neovimChanged()
	noComparison("while a call is in flight, after a comparison of nvbridge's change")
	release <- struct{}{}
	<-answered
	<-compared
	noComparison("twice for the changes of one call")

	srv.HandleMessage(context.Background(), call(2, "no_such_tool"))
	srv.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":7}}`))
	if w.busy() {
		t.Fatal("a call still counted in flight after every call answered")
	}
}

// TestRelistBound: a change Neovim reported is compared after relistWait
// even while calls keep being in flight.
func TestRelistBound(t *testing.T) {
	w := newWatcher(&Env{}, nil)
	w.callStarted("a call that does not end")
	compared := make(chan struct{}, 4)
	done := make(chan struct{})
	defer close(done)
	go w.runListLoop(done, func() { compared <- struct{}{} })
	start := time.Now()
	w.neovimChanged()
	<-compared
	if took := time.Since(start); took < relistWait {
		t.Fatalf("compared after %v with a call in flight, want relistWait (%v)", took, relistWait)
	}
}
