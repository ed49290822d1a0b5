package tools

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A mutating tool's call asks for the resource list's comparison once its
// answer is written: not while the call runs (the list loop's goroutine
// took the cores from the answer's encoding), and at once for a caller
// that runs nothing after the answer.
func TestRelistAfterTheAnswer(t *testing.T) {
	w := &watcher{relist: make(chan struct{}, 1)}
	requested := func() bool {
		select {
		case <-w.relist:
			return true
		default:
			return false
		}
	}
	handler := w.toolMiddleware(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, nil
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = "rename_symbol"

	ctx, after := WithAfterAnswer(context.Background())
	if _, err := handler(ctx, req); err != nil {
		t.Fatal(err)
	}
	if requested() {
		t.Fatal("the relist was asked for before the answer was written")
	}
	after.Run()
	if !requested() {
		t.Fatal("the relist was not asked for once the answer was written")
	}
	// Asked after the answer was written: at once.
	RunAfterAnswer(ctx, w.requestRelist)
	if !requested() {
		t.Fatal("a relist asked after the answer was not made")
	}

	if _, err := handler(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !requested() {
		t.Fatal("without a transport that runs it after the answer, the relist was not asked for at once")
	}
}
