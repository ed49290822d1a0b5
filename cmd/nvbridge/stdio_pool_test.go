package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// A tool call runs on the goroutine that read it, which passes the reading
// on first: a call that blocks holds up neither the lines after it (a
// ping, another call, a cancellation) nor, while the pool has a slot, the
// calls after it; with every slot taken, a call waits in the queue and
// runs when a slot frees, as in mcp-go's pool.
func TestStdioCallsRunBesideASlowOne(t *testing.T) {
	ctx, cancel := context.WithCancel(testenv.Context(t))
	defer cancel()
	started := make(chan string, stdioWorkers+1)
	release := map[string]chan struct{}{}
	for i := range stdioWorkers + 1 {
		release[fmt.Sprintf("h%d", i)] = make(chan struct{})
	}
	srv := server.NewMCPServer("nvbridge-test", "0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("hold", mcp.WithString("name")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.GetString("name", "")
		started <- name
		select {
		case <-release[name]:
			return mcp.NewToolResultText("released " + name), nil
		case <-ctx.Done():
			return mcp.NewToolResultText("cancelled " + name), nil
		}
	})
	srv.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo"), nil
	})
	p := servePiped(ctx, srv, 1<<20, newStdio)
	answers := make(chan string, 64) // each answer's id
	go func() {
		lines := bufio.NewScanner(p.out)
		for lines.Scan() {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil || len(m.ID) == 0 {
				t.Errorf("unexpected line: %q", lines.Text())
				continue
			}
			answers <- string(m.ID)
		}
		close(answers)
	}()
	send := p.sender(t)
	next := func() string {
		t.Helper()
		select {
		case id := <-answers:
			return id
		case <-ctx.Done():
			t.Fatalf("no answer")
			return ""
		}
	}
	hold := func(name string) {
		t.Helper()
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s","method":"tools/call","params":{"name":"hold","arguments":{"name":"%s"}}}`, name, name))
		select {
		case got := <-started:
			if got != name {
				t.Fatalf("started %s, want %s", got, name)
			}
		case <-ctx.Done():
			t.Fatalf("%s did not start", name)
		}
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if id := next(); id != `"init"` {
		t.Fatalf("answer to %s, want init", id)
	}
	// One call blocks: a call and a ping after it are answered.
	hold("h0")
	send(`{"jsonrpc":"2.0","id":"e0","method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if id := next(); id != `"e0"` {
		t.Fatalf("answer to %s, want e0 (the call after a blocked one)", id)
	}
	send(`{"jsonrpc":"2.0","id":"p0","method":"ping"}`)
	if id := next(); id != `"p0"` {
		t.Fatalf("answer to %s, want p0", id)
	}
	// Every slot taken: the next call waits; the ping after it does not.
	for i := 1; i < stdioWorkers; i++ {
		hold(fmt.Sprintf("h%d", i))
	}
	send(`{"jsonrpc":"2.0","id":"e1","method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	send(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	if id := next(); id != `"p1"` {
		t.Fatalf("answer to %s, want p1 (e1 waits for a slot)", id)
	}
	// A slot frees: its call answers, then the queued one runs.
	close(release["h2"])
	for _, want := range []string{`"h2"`, `"e1"`} {
		if id := next(); id != want {
			t.Fatalf("answer to %s, want %s", id, want)
		}
	}
	// A cancellation is read while the calls block.
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h3"}}`)
	send(`{"jsonrpc":"2.0","id":"p2","method":"ping"}`)
	if id := next(); id != `"p2"` {
		t.Fatalf("answer to %s, want p2 (h3 was cancelled: no answer)", id)
	}
	for _, name := range []string{"h0", "h1", "h4"} {
		close(release[name])
		if id := next(); id != `"`+name+`"` {
			t.Fatalf("answer to %s, want %s", id, name)
		}
	}
	if err := p.stop(); err != nil {
		t.Errorf("Listen: %v", err)
	}
	for id := range answers {
		t.Errorf("answer to %s after the end", id)
	}
}
