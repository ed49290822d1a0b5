package tools

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// callArgumentsKey carries a tool call's arguments beside its message.
type callArgumentsKey struct{}

// WithCallArguments is how a transport that has already read a tool call's
// arguments hands them over without their going through the dispatch: it
// passes mcp-go's HandleMessage the message with its params.arguments cut
// out (null) and ctx from here. The server's first before-call hook
// (RestoreCallArguments) puts them back into the request, exactly as sent,
// before any middleware or tool sees it. A large call's arguments (an
// edit_buffer of 1,000 edits is 60 KB) were otherwise decoded four times
// by the dispatch's passes over the message and once more into a map no
// tool reads.
func WithCallArguments(ctx context.Context, raw json.RawMessage) context.Context {
	return context.WithValue(ctx, callArgumentsKey{}, raw)
}

// RestoreCallArguments is the hook that does it: the server's first
// OnBeforeCallTool hook (NewServer adds it; a test server adds it too).
func RestoreCallArguments(ctx context.Context, _ any, req *mcp.CallToolRequest) {
	raw, ok := ctx.Value(callArgumentsKey{}).(json.RawMessage)
	if !ok || req == nil {
		return
	}
	req.Params.Arguments = raw
	req.Params.RawArguments = raw
}
