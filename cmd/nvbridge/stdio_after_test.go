package main

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// recordingWriter keeps what the transport wrote, and tells of each write.
type recordingWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *recordingWriter) has(s string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Contains(w.buf.Bytes(), []byte(s))
}

// What a call asks to run after its answer (tools.RunAfterAnswer: the
// resource list's comparison after a change) runs once the answer is
// written, on the direct dispatch and through HandleMessage alike.
func TestStdioRunsAfterTheAnswer(t *testing.T) {
	ctx, cancel := context.WithCancel(testenv.Context(t))
	defer cancel()
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(tools.RestoreCallArguments)
	srv := server.NewMCPServer("nvbridge-test", "0", server.WithToolCapabilities(false), server.WithHooks(hooks))
	tools.RegisterCallDispatcher(srv, hooks)
	out := &recordingWriter{wrote: make(chan struct{}, 1)}
	answered := make(chan bool, 4) // per call: was its answer written when its work ran
	srv.AddTool(mcp.NewTool("later", mcp.WithString("id")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct{ ID string }
		if err := req.BindArguments(&args); err != nil || args.ID == "" {
			t.Errorf("arguments: %v %q", err, args.ID)
		}
		tools.RunAfterAnswer(ctx, func() { answered <- out.has(`"id":"` + args.ID + `"`) })
		return mcp.NewToolResultText("answer of " + args.ID), nil
	})
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- newStdio(ctx, srv, inR, out, 1<<20) }()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	for _, call := range []string{
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"later","arguments":{"id":"a"}}}`,
		// A _meta member: through mcp-go's HandleMessage.
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"later","arguments":{"id":"b"},"_meta":{"progressToken":"b"}}}`,
	} {
		send(call)
		select {
		case was := <-answered:
			if !was {
				t.Errorf("the work asked by %s ran before its answer was written", call)
			}
		case <-ctx.Done():
			t.Fatalf("the work asked by %s did not run", call)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Listen: %v", err)
	}
}
