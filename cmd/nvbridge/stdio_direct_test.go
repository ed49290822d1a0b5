package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// directServer is a server whose tool calls the stdio transport runs
// without HandleMessage (tools.RegisterCallDispatcher), with tools that
// say which way they were run and hooks that count what they saw.
type directServer struct {
	srv                   *server.MCPServer
	before, after, errors atomic.Int32
	cancelled             chan string // the id of a wait call whose context ended
}

func newDirectServer() *directServer {
	d := &directServer{cancelled: make(chan string, 4)}
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(tools.RestoreCallArguments)
	hooks.AddBeforeCallTool(func(context.Context, any, *mcp.CallToolRequest) { d.before.Add(1) })
	hooks.AddAfterCallTool(func(context.Context, any, *mcp.CallToolRequest, any) { d.after.Add(1) })
	hooks.AddOnRequestInitialization(func(_ context.Context, id any, message any) error {
		if raw, _ := message.(json.RawMessage); id == "refused" && strings.Contains(string(raw), `"refuse-me"`) {
			return errors.New("refused by the hook")
		}
		return nil
	})
	hooks.AddOnError(func(_ context.Context, _ any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodToolsCall {
			d.errors.Add(1)
		}
	})
	d.srv = server.NewMCPServer("nvbridge-test", "0", server.WithToolCapabilities(false), server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(tools.Recovery))
	tools.RegisterCallDispatcher(d.srv, hooks, tools.Recovery)
	route := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		way := "handlemessage"
		if server.ServerFromContext(ctx) == nil {
			way = "direct"
		}
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			err := tools.ServerOf(ctx).SendNotificationToClient(ctx, "notifications/progress",
				map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": 1})
			if err != nil {
				return nil, err
			}
		}
		raw, _ := req.GetRawArguments().(json.RawMessage)
		return mcp.NewToolResultText(fmt.Sprintf("%s %s version=%q", way, raw, server.RequestProtocolVersion(ctx))), nil
	}
	d.srv.AddTool(mcp.NewTool("route"), route)
	d.srv.AddTool(mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("it failed")
	})
	d.srv.AddTool(mcp.NewTool("nothing"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, nil
	})
	panics := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("oops")
	}
	d.srv.AddTool(mcp.NewTool("panics"), panics)
	// Two of them fixed (as nvbridge's own tools are), dispatched from the
	// dispatcher's table; the others looked up in the server.
	tools.FixTools(d.srv, []server.ServerTool{{Tool: mcp.NewTool("route"), Handler: route}, {Tool: mcp.NewTool("panics"), Handler: panics}})
	d.srv.AddTool(mcp.NewTool("wait"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		d.cancelled <- string(req.GetRawArguments().(json.RawMessage))
		return mcp.NewToolResultText("stopped"), nil
	})
	return d
}

// TestStdioDirectCalls: the stdio transport runs a tool call itself
// (tools.CallDispatcher) and answers it as HandleMessage does: results,
// a tool's error, a missing tool, a panic, no result, each answer
// byte-for-byte HandleMessage's; the hooks before and after (or on error)
// run; progress notifications reach the client; notifications/cancelled
// cancels the call's context (and the answer is dropped); a call of the
// modern protocol era, or a task, goes through HandleMessage.
func TestStdioDirectCalls(t *testing.T) {
	d := newDirectServer()
	ctx, cancel := context.WithCancel(testenv.Context(t))
	defer cancel()
	p := servePiped(ctx, d.srv, 1<<20, newStdio)
	send := p.sender(t)
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(p.out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the output ended before %s", what)
			}
			return l
		case <-ctx.Done():
			t.Fatalf("no %s", what)
		}
		return ""
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	next("initialize's answer")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// What HandleMessage answers the same line (the session as the
	// transport's, no transport).
	session := &stdioSession{out: io.Discard, pending: map[int64]func(*envelope){}, notifications: make(chan mcp.JSONRPCNotification, 10)}
	session.Initialize()
	session.SetProtocolVersion("2025-06-18") // as initialize left the transport's
	reference := func(line string) string {
		msg := d.srv.HandleMessage(d.srv.WithContext(ctx, session), json.RawMessage(line))
		b, err := encodeLine(msg)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(string(b), "\n")
	}

	before, after, errs := d.before.Load(), d.after.Load(), d.errors.Load()
	for _, c := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"route","arguments":{"a":[1,"x"]}}}`, `direct {\"a\":[1,\"x\"]} version=\"2025-06-18\"`},
		{`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"arguments":{"b":2},"name":"route"}}`, `direct {\"b\":2}`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail","arguments":{}}}`, `"code":-32603,"message":"it failed"`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"absent","arguments":{}}}`, `"code":-32602,"message":"tool 'absent' not found: tool not found"`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nothing"}}`, `"message":"tool 'nothing' handler returned no result"`},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"panics","arguments":{}}}`, `panic recovered in panics tool handler: oops`},
		// Not the common shape: decoded as mcp-go decodes it, still run directly.
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"route","Arguments":{"c":3},"_meta":{"x":1}}}`, `direct`},
		// A request-initialization hook refuses it (the hook sees the message).
		{`{"jsonrpc":"2.0","id":"refused","method":"tools/call","params":{"name":"route","arguments":{"x":"refuse-me"}}}`, `"code":-32600,"message":"refused by the hook"`},
	} {
		send(c.line)
		got := next("the answer to " + c.line)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %s\nwant it to contain %s", c.line, got, c.want)
		}
		if ref := reference(c.line); strings.Replace(ref, "handlemessage", "direct", 1) != got {
			t.Errorf("%s:\n        got %s\nHandleMessage %s", c.line, got, ref)
		}
	}
	// The reference calls ran the hooks too: 7 calls each way, 3 of
	// them answered, 4 failed.
	if b, a, e := d.before.Load()-before, d.after.Load()-after, d.errors.Load()-errs; b != 14 || a != 6 || e != 8 {
		t.Errorf("hooks: before %d after %d error %d, want 14, 6, 8", b, a, e)
	}

	// Progress for a direct call's token, before its answer.
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"route","arguments":{},"_meta":{"progressToken":"tok"}}}`)
	// (in either order: the notifications have a goroutine of their own)
	progress, answer := false, false
	for range 2 {
		switch l := next("the progress notification and the answer to 8"); {
		case strings.Contains(l, `"method":"notifications/progress"`) && strings.Contains(l, `"progressToken":"tok"`):
			progress = true
		case strings.Contains(l, `"id":8`) && strings.Contains(l, "direct"):
			answer = true
		default:
			t.Errorf("neither the progress nor the answer to 8: %s", l)
		}
	}
	if !progress || !answer {
		t.Errorf("progress %v, answer %v", progress, answer)
	}

	// The modern era and tasks are HandleMessage's.
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"route","arguments":{},"_meta":{"` + mcp.MetaKeyProtocolVersion + `":"2026-07-28","` + mcp.MetaKeyClientCapabilities + `":{}}}}`)
	if l := next("the answer to 9"); !strings.Contains(l, `"id":9`) || strings.Contains(l, "direct") {
		t.Errorf("a modern call was run directly: %s", l)
	}
	send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"route","arguments":{},"task":{}}}`)
	if l := next("the answer to 10"); !strings.Contains(l, `"id":10`) || strings.Contains(l, "direct") {
		t.Errorf("a task was run directly: %s", l)
	}

	// Cancellation: the call's context ends, its answer is not sent (the
	// ping's is the next line).
	send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"wait","arguments":"w11"}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11}}`)
	select {
	case id := <-d.cancelled:
		if id != `"w11"` {
			t.Errorf("cancelled: %s", id)
		}
	case <-ctx.Done():
		t.Fatal("the cancelled call's context did not end")
	}
	send(`{"jsonrpc":"2.0","id":12,"method":"ping"}`)
	if l := next("the ping's answer"); !strings.Contains(l, `"id":12`) {
		t.Errorf("after the cancelled call: %s", l)
	}
	if err := p.stop(); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Listen: %v", err)
	}
}

// TestDirect: which params the direct dispatch serves.
func TestDirect(t *testing.T) {
	modern := &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyProtocolVersion: "2026-07-28"}}
	legacy := &mcp.Meta{AdditionalFields: map[string]any{mcp.MetaKeyProtocolVersion: "2025-06-18"}}
	for _, c := range []struct {
		p    mcp.CallToolParams
		want bool
	}{
		{mcp.CallToolParams{Name: "x"}, true},
		{mcp.CallToolParams{Name: "x", Meta: &mcp.Meta{ProgressToken: "t"}}, true},
		{mcp.CallToolParams{Name: "x", Meta: legacy}, true},
		{mcp.CallToolParams{Name: "x", Meta: modern}, false},
		{mcp.CallToolParams{Name: "x", Task: &mcp.TaskParams{}}, false},
	} {
		if got := tools.Direct(&c.p); got != c.want {
			t.Errorf("Direct(%+v) = %v, want %v", c.p, got, c.want)
		}
	}
}

// TestStdioDirectCancelBeforeStart: a call cancelled while it waits for a
// slot in the pool (every worker busy) is cancelled once it starts: the
// cancellation was read before the call had a context to cancel, and the
// answer filter's record of it must reach the call.
func TestStdioDirectCancelBeforeStart(t *testing.T) {
	d := newDirectServer()
	d.cancelled = make(chan string, stdioWorkers+1)
	ctx, cancel := context.WithCancel(testenv.Context(t))
	defer cancel()
	p := servePiped(ctx, d.srv, 1<<20, newStdio)
	go func() { _, _ = io.Copy(io.Discard, p.out) }() // the answers are not read
	send := p.sender(t)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// Every worker waits; the next call queues, and is cancelled there.
	for i := range stdioWorkers {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"f%d","method":"tools/call","params":{"name":"wait","arguments":"f%d"}}`, i, i))
	}
	send(`{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"wait","arguments":"q"}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q"}}`)
	for i := range stdioWorkers {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"f%d"}}`, i))
	}
	seen := map[string]bool{}
	for len(seen) < stdioWorkers+1 {
		select {
		case id := <-d.cancelled:
			seen[id] = true
		case <-ctx.Done():
			t.Fatalf("cancelled so far: %v; the queued call's cancellation was lost", seen)
		}
	}
	if !seen[`"q"`] {
		t.Errorf("the queued call was not cancelled: %v", seen)
	}
	if err := p.stop(); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Listen: %v", err)
	}
}
