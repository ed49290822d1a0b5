package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// CallDispatcher runs a tools/call of a server NewServer built without
// mcp-go's HandleMessage, for a transport that has read the request
// already (cmd/nvbridge's stdio transport): HandleMessage decodes the
// message three more times (its envelope, the protocol era's _meta, the
// trace context's _meta) before decoding it into the request, and keeps a
// cancel func per request in a map keyed by a formatted string. A warm
// read is about a millisecond in all; that was some 45 µs of it.
//
// Call does for a tools/call exactly what HandleMessage and its
// handleToolCall do with the options NewServer sets (no task tools, no
// session tools, no tool filters, no schema validation, no request
// tracing or logging): the request-initialization hooks, the hooks before
// and after (OnBeforeAny, OnBeforeCallTool, OnSuccess, OnAfterCallTool,
// OnError), the tool looked up at call time (user tools come and go), the
// same middleware chain (recovery outermost, then the mode guard and the
// watcher), the same JSON-RPC errors, and the server in the context
// (progress notifications, set_mode's list_changed). What it leaves to
// the transport: a request of the modern protocol era (a protocol version
// in _meta), a task-augmented call, and cancellation (the transport keeps
// the cancel func of each call it runs and cancels it on
// notifications/cancelled).
type CallDispatcher struct {
	srv   *server.MCPServer
	hooks *server.Hooks
	mws   []server.ToolHandlerMiddleware // outermost first
	// fixed are the tools the server is never without (FixTools), each
	// with its handler wrapped in the middleware once: looked up here, a
	// call is spared mcp-go's GetTool (a copy of the whole tool, schemas
	// and all, under a lock) and a wrapping per call. Set before the
	// server serves; read only after.
	fixed map[string]fixedTool
}

// fixedTool is a tool of CallDispatcher.fixed.
type fixedTool struct {
	handler      server.ToolHandlerFunc // wrapped in the middleware
	taskRequired bool
	readOnly     bool
}

// dispatchers maps each server NewServer built to its dispatcher.
var dispatchers sync.Map // *server.MCPServer -> *CallDispatcher

// RegisterCallDispatcher gives srv a dispatcher (DispatcherOf): srv was
// built with hooks and with mws as its tool middleware, in this order
// (NewServer's are WithRecovery's, the mode guard, the watcher). Its tools
// find the server with ServerOf, never server.ServerFromContext (a
// directly dispatched call has no mcp-go context key).
func RegisterCallDispatcher(srv *server.MCPServer, hooks *server.Hooks, mws ...server.ToolHandlerMiddleware) {
	dispatchers.Store(srv, &CallDispatcher{srv: srv, hooks: hooks, mws: mws})
}

// FixTools tells srv's dispatcher that srv serves these tools for as long
// as it serves (NewServer's own: nothing removes them, and a user tool
// cannot take one's name, refreshUserTools): a call of one is dispatched
// without looking it up in srv. Called before srv serves.
func FixTools(srv *server.MCPServer, tools []server.ServerTool) {
	d := DispatcherOf(srv)
	if d == nil {
		return
	}
	d.fixed = make(map[string]fixedTool, len(tools))
	for _, t := range tools {
		d.fixed[t.Tool.Name] = d.prepared(t)
	}
}

// prepared is t as a call runs it: its handler inside the middleware.
func (d *CallDispatcher) prepared(t server.ServerTool) fixedTool {
	ro := t.Tool.Annotations.ReadOnlyHint
	return fixedTool{
		handler:      d.wrap(t.Handler),
		taskRequired: t.Tool.Execution != nil && t.Tool.Execution.TaskSupport == mcp.TaskSupportRequired,
		readOnly:     ro != nil && *ro,
	}
}

// readOnlyFixed reports whether name is a fixed tool of srv's, and then
// whether it is read-only (its hint).
func readOnlyFixed(srv *server.MCPServer, name string) (readOnly, fixed bool) {
	d := DispatcherOf(srv)
	if d == nil {
		return false, false
	}
	t, ok := d.fixed[name]
	return t.readOnly, ok
}

// wrap is h inside the middleware, outermost first.
func (d *CallDispatcher) wrap(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	for _, m := range slices.Backward(d.mws) {
		h = m(h)
	}
	return h
}

// DispatcherOf is the dispatcher of a server NewServer built; nil for any
// other server (a transport then dispatches through HandleMessage).
func DispatcherOf(srv *server.MCPServer) *CallDispatcher {
	if v, ok := dispatchers.Load(srv); ok {
		return v.(*CallDispatcher)
	}
	return nil
}

// Direct reports whether Call serves a request with these params: a
// legacy-era call (no modern protocol version in _meta), not task
// augmented.
func Direct(p *mcp.CallToolParams) bool {
	if p.Task != nil {
		return false
	}
	return p.Meta == nil || !mcp.IsModernProtocol(p.Meta.ProtocolVersion())
}

// serverKey carries the server into a call Call runs (HandleMessage's own
// key is mcp-go's).
type serverKey struct{}

// ServerOf is the server serving the call ctx belongs to: the one Call
// or HandleMessage put there; nil outside a call. Tools use it where
// mcp-go's own would use server.ServerFromContext, which knows only
// HandleMessage's calls.
func ServerOf(ctx context.Context) *server.MCPServer {
	if s, ok := ctx.Value(serverKey{}).(*server.MCPServer); ok {
		return s
	}
	return server.ServerFromContext(ctx)
}

// Recovery is mcp-go's WithRecovery middleware: a panicking tool is a
// failed call (INTERNAL_ERROR) with this message.
func Recovery(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, request mcp.CallToolRequest) (result *mcp.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic recovered in %s tool handler: %v", request.Params.Name, r)
			}
		}()
		return next(ctx, request)
	}
}

// Call runs the tools/call request req (id as decoded from message, the
// request as sent: float64, string, ...) on ctx, which holds the session
// (MCPServer.WithContext), and returns its answer. req's params are as
// decoded; Direct(&req.Params) holds.
func (d *CallDispatcher) Call(ctx context.Context, id any, req *mcp.CallToolRequest, message json.RawMessage) mcp.JSONRPCMessage {
	// HandleMessage's first step for a request: a hook may refuse it.
	for _, h := range d.hooks.OnRequestInitialization {
		if err := h(ctx, id, message); err != nil {
			return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(mcp.INVALID_REQUEST, err.Error(), nil)}
		}
	}
	ctx = context.WithValue(ctx, serverKey{}, d.srv)
	ctx = server.WithRequestProtocolInfo(ctx, &server.RequestProtocolInfo{ProtocolVersion: protocolVersion(req.Params.Meta)})
	if req.Header == nil {
		req.Header = make(http.Header)
	}
	for _, h := range d.hooks.OnBeforeAny {
		h(ctx, id, mcp.MethodToolsCall, req)
	}
	for _, h := range d.hooks.OnBeforeCallTool {
		h(ctx, id, req)
	}
	result, code, err := d.run(ctx, req)
	if err != nil {
		for _, h := range d.hooks.OnError {
			h(ctx, id, mcp.MethodToolsCall, req, err)
		}
		return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(code, err.Error(), errorData(err))}
	}
	for _, h := range d.hooks.OnSuccess {
		h(ctx, id, mcp.MethodToolsCall, req, result)
	}
	for _, h := range d.hooks.OnAfterCallTool {
		h(ctx, id, req, result)
	}
	return mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), result)
}

// run is handleToolCall: the tool, its middleware, its result, or the
// JSON-RPC error code and error of a failed call.
func (d *CallDispatcher) run(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, int, error) {
	name := req.Params.Name
	t, ok := d.fixed[name]
	if !ok {
		tool := d.srv.GetTool(name)
		if tool == nil {
			return nil, mcp.INVALID_PARAMS, fmt.Errorf("tool '%s' not found: %w", name, server.ErrToolNotFound)
		}
		t = d.prepared(*tool)
	}
	if t.taskRequired {
		return nil, mcp.METHOD_NOT_FOUND, fmt.Errorf("tool '%s' requires task augmentation", name)
	}
	result, err := t.handler(ctx, *req)
	if err != nil {
		return nil, handlerCode(err), err
	}
	if result == nil {
		return nil, mcp.INTERNAL_ERROR, fmt.Errorf("%s '%s' handler returned no result", "tool", name)
	}
	if result.NeedsInput() {
		// No tool of nvbridge's asks the client for input (SEP-2322);
		// mcp-go would relay the requests to a legacy client.
		return nil, mcp.INTERNAL_ERROR, fmt.Errorf("tool '%s' asked for client input, which nvbridge does not relay", name)
	}
	return result, 0, nil
}

// handlerCode is the JSON-RPC code of a handler's error, as mcp-go's
// handlerError gives it to a legacy-era client: a URL elicitation the tool
// requires keeps its own code, anything else is INTERNAL_ERROR.
func handlerCode(err error) int {
	if e, ok := urlElicitation(err); ok {
		return e.JSONRPCError().Error.Code
	}
	return mcp.INTERNAL_ERROR
}

// errorData is the data of a handler's error (a URL elicitation's), nil
// for any other.
func errorData(err error) any {
	if e, ok := urlElicitation(err); ok {
		return e.JSONRPCError().Error.Data
	}
	return nil
}

func urlElicitation(err error) (mcp.URLElicitationRequiredError, bool) {
	var required mcp.URLElicitationRequiredError
	if errors.As(err, &required) {
		return required, true
	}
	var pointer *mcp.URLElicitationRequiredError
	if errors.As(err, &pointer) && pointer != nil {
		return *pointer, true
	}
	return required, false
}

func protocolVersion(m *mcp.Meta) string {
	if m == nil {
		return ""
	}
	return m.ProtocolVersion()
}
