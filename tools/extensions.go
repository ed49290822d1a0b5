package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
)

// The user's side beyond before_tool (attached mode, lua/nvbridge/
// extensions.lua): tools the user registers in their config with
// require('nvbridge').tool{...}, served over MCP and run in Neovim; the
// after_tool hooks, which may change a result before the agent sees it;
// and the agent events User NvbridgeAgentAttach / NvbridgeAgentDetach
// (an MCP session initialized or ended) and NvbridgeToolProgress (each
// progress notification an agent is sent).

// watchers maps each server NewServer built to its watcher (progress.go
// finds it from a call's server; AnnounceAgent from the env).
var watchers sync.Map // *server.MCPServer or *Env -> *watcher

func watcherOf(key any) *watcher {
	if v, ok := watchers.Load(key); ok {
		return v.(*watcher)
	}
	return nil
}

// userToolSpec is extensions.user_tools' entry.
type userToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Schema      string `json:"schema"`
	Writes      bool   `json:"writes"`
}

// userToolResult is a user tool's structured content: whatever its run
// returned, under result.
type userToolResult struct {
	Result any `json:"result"`
}

// userTools are the user's tools registered on the server, by name, with
// the spec each was built from.
type userTools struct {
	mu    sync.Mutex
	specs map[string]userToolSpec
}

// refreshUserTools reads the user's tools from Neovim and adds, replaces
// or removes them on the server (mcp-go sends
// notifications/tools/list_changed for each change). A name that is one of
// nvbridge's own tools is refused with a warning.
func (w *watcher) refreshUserTools() {
	env := w.env
	if w.srv == nil || env.Session == nil || env.Session.Embedded() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := env.Session.UserTools(ctx)
	if err != nil {
		env.Logf("user tools: %v", err)
		return
	}
	var specs []userToolSpec
	if err := json.Unmarshal([]byte(raw), &specs); err != nil {
		env.Logf("user tools: %v", err)
		return
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	w.user.mu.Lock()
	defer w.user.mu.Unlock()
	if w.user.specs == nil {
		w.user.specs = map[string]userToolSpec{}
	}
	want := map[string]userToolSpec{}
	var add []server.ServerTool
	for _, spec := range specs {
		if _, own := w.user.specs[spec.Name]; !own && w.srv.GetTool(spec.Name) != nil {
			w.logWarning("nvbridge.user_tools", fmt.Sprintf("the user tool %s is not served: nvbridge has a tool of that name (rename it, e.g. user_%s)", spec.Name, spec.Name),
				map[string]any{"tool": spec.Name})
			continue
		}
		t, err := env.userTool(spec)
		if err != nil {
			w.logWarning("nvbridge.user_tools", fmt.Sprintf("the user tool %s is not served: %s", spec.Name, apierr.As(err).Message), map[string]any{"tool": spec.Name})
			continue
		}
		want[spec.Name] = spec
		if old, ok := w.user.specs[spec.Name]; !ok || old != spec {
			add = append(add, t)
		}
	}
	var remove []string
	for name := range w.user.specs {
		if _, ok := want[name]; !ok {
			remove = append(remove, name)
		}
	}
	w.user.specs = want
	if len(remove) > 0 {
		w.srv.DeleteTools(remove...)
	}
	if len(add) > 0 {
		w.srv.AddTools(add...)
	}
}

// userTool builds the MCP tool for a user's spec: listed in writing modes
// only when it declares it writes (readOnlyHint is !writes), wrapped like
// every tool (before_tool, after_tool, pause), with a plain approval when
// it writes, and run in Neovim (bridge.run_user_tool, cancellable).
func (e *Env) userTool(spec userToolSpec) (Tool, error) {
	schema := json.RawMessage(spec.Schema)
	var probe map[string]any
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	} else if err := json.Unmarshal(schema, &probe); err != nil || probe["type"] != "object" {
		return Tool{}, apierr.New(apierr.InvalidParameter, "its schema is not a JSON schema of type object",
			`give the tool a schema like {type = "object", properties = {...}}`)
	}
	h := hints{readOnly: !spec.Writes, idempotent: false}
	desc := spec.Description
	if desc == "" {
		desc = "A tool the user defined in Neovim."
	}
	def := mcp.NewTool(spec.Name,
		mcp.WithDescription(desc+" (user-defined: runs in the user's Neovim)"),
		mcp.WithRawInputSchema(schema),
		mcp.WithRawOutputSchema(outputSchema[userToolResult]()),
		mcp.WithTitleAnnotation(spec.Name),
		mcp.WithReadOnlyHintAnnotation(h.readOnly),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	def.InputSchema = mcp.ToolInputSchema{} // the raw schema alone (NewTool sets a default)
	need := requiredOf(def)
	name := spec.Name
	handler := func(ctx context.Context, req mcp.CallToolRequest) (result *mcp.CallToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				result, err = errorResult(safego.Error(name, p)), nil
			}
		}()
		// Added after NewServer, a user tool is not in the mode guard's
		// table: it checks the mode itself.
		if refusal := e.Modes.refusal(toolFamilies(e), def); refusal != nil {
			return errorResult(refusal), nil
		}
		body, err := argumentBody(req.GetRawArguments())
		if err != nil {
			return errorResult(err), nil
		}
		var args map[string]any
		if err := json.Unmarshal(body, &args); err != nil {
			return errorResult(apierr.Errorf(apierr.InvalidParameter, "pass the arguments as a JSON object", "invalid arguments: %v", err)), nil
		}
		if err := need.check(body); err != nil {
			return errorResult(err), nil
		}
		raw, err := e.Session.RunUserTool(withProgress(ctx, req), name, string(body))
		if err != nil {
			if ctx.Err() != nil {
				return errorResult(apierr.FromContext(ctx, name, "")), nil
			}
			return errorResult(err), nil
		}
		var out userToolResult
		if err := json.Unmarshal(raw, &out); err != nil {
			return errorResult(apierr.Errorf(apierr.OperationFailed, "ask the user to return plain data from the tool", "the result of %s does not decode: %v", name, err)), nil
		}
		return successResult(out), nil
	}
	return wrapWithUser(e, Tool{Tool: def, Handler: handler}, spec.Writes), nil
}

// Summary renders a user tool's result: a string as it is, anything else
// as JSON.
func (r userToolResult) Summary() string {
	if s, ok := r.Result.(string); ok {
		return s
	}
	b, _ := json.Marshal(r.Result)
	return string(b)
}

// afterTool runs the user's after_tool hooks on a result: what they return
// replaces the structured content and/or the text the agent sees.
func (e *Env) afterTool(ctx context.Context, name string, body []byte, res *mcp.CallToolResult) *mcp.CallToolResult {
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text = tc.Text
			break
		}
	}
	in, err := json.Marshal(map[string]any{"structured": res.StructuredContent, "text": text, "is_error": res.IsError})
	if err != nil {
		return res
	}
	raw, err := e.Session.AfterTool(ctx, name, string(body), string(in))
	if err != nil || raw == "" {
		return res
	}
	var out struct {
		Structured json.RawMessage `json:"structured"`
		Text       *string         `json:"text"`
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return res
	}
	changed := *res
	if len(out.Structured) > 0 && string(out.Structured) != "null" {
		var v any
		if json.Unmarshal(out.Structured, &v) == nil {
			changed.StructuredContent = v
		}
	}
	if out.Text != nil {
		changed.Content = []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: *out.Text}}
	}
	return &changed
}

// agentEvent runs User PATTERN in the user's Neovim with data, from a
// goroutine of its own: progress reports may come from the Neovim
// connection's goroutine, which must not wait on Neovim.
func (w *watcher) agentEvent(pattern string, data map[string]any) {
	if w.env.Session == nil || w.env.Session.Embedded() {
		return
	}
	select {
	case w.events <- agentEvent{pattern, data}:
	default: // a user who scripts against progress misses a report, never blocks a call
	}
}

type agentEvent struct {
	pattern string
	data    map[string]any
}

// eventLoop sends the agent events to Neovim in order.
func (w *watcher) eventLoop() {
	for {
		select {
		case ev := <-w.events:
			w.sendEvent(ev)
		case <-w.env.Session.Done():
			return
		}
	}
}

func (w *watcher) sendEvent(ev agentEvent) {
	if w.env.Session == nil || w.env.Session.Embedded() {
		return // no user to tell
	}
	b, err := json.Marshal(ev.data)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.env.Session.UserEvent(ctx, ev.pattern, string(b)); err != nil {
		w.env.Logf("User %s: %v", ev.pattern, err)
	}
}

// addAgentHooks fires NvbridgeAgentAttach when a client initializes and
// NvbridgeAgentDetach when its session ends.
func (w *watcher) addAgentHooks(h *server.Hooks) {
	h.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		s := server.ClientSessionFromContext(ctx)
		if s == nil || req == nil {
			return
		}
		w.attach(s, req.Params.ClientInfo)
	})
	// From protocol 2026-07-28 on there is no initialize: a client's first
	// server/discover on a session attaches it.
	h.AddAfterDiscover(func(ctx context.Context, _ any, _ *mcp.DiscoverRequest, _ *mcp.DiscoverResult) {
		s := server.ClientSessionFromContext(ctx)
		if s == nil || s.SessionID() == "" {
			return
		}
		var who mcp.Implementation
		if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientInfo != nil {
			who = *info.ClientInfo
		}
		w.attach(s, who)
	})
	h.AddOnUnregisterSession(func(ctx context.Context, s server.ClientSession) {
		w.mu.Lock()
		data, ok := w.agents[s.SessionID()]
		delete(w.agents, s.SessionID())
		w.mu.Unlock()
		if ok {
			// Sent now, not queued: a stdio session ends as nvbridge
			// stops, and the queue's loop would not outlive it.
			w.sendEvent(agentEvent{"NvbridgeAgentDetach", data})
		}
	})
}

// Farewell runs User NvbridgeAgentDetach for the agents still attached
// when nvbridge stops serving (HTTP sessions outlive no server, but mcp-go
// does not end them at shutdown).
func Farewell(env *Env) {
	w := watcherOf(env)
	if w == nil {
		return
	}
	w.mu.Lock()
	left := w.agents
	w.agents = map[string]map[string]any{}
	w.mu.Unlock()
	for _, data := range left {
		w.sendEvent(agentEvent{"NvbridgeAgentDetach", data})
	}
}

// attach records an agent's session and runs User NvbridgeAgentAttach,
// once per session, before the client gets its answer (a hook runs on the
// request's goroutine, never the Neovim connection's).
func (w *watcher) attach(s server.ClientSession, who mcp.Implementation) {
	data := map[string]any{"client": who.Name, "client_version": who.Version,
		"transport": w.transportName(), "session": s.SessionID(), "channel": w.channel()}
	w.mu.Lock()
	_, seen := w.agents[s.SessionID()]
	if !seen {
		w.agents[s.SessionID()] = data
	}
	w.mu.Unlock()
	if !seen && w.env.Session != nil && !w.env.Session.Embedded() {
		w.sendEvent(agentEvent{"NvbridgeAgentAttach", data})
	}
}

// transports: how agents reach each env's server (AnnounceAgent, which
// may come before NewServer).
var transports sync.Map // *Env -> string

func (w *watcher) transportName() string {
	if t, ok := transports.Load(w.env); ok {
		return t.(string)
	}
	return "unknown"
}

func (w *watcher) channel() int {
	if w.env.Session == nil {
		return 0
	}
	return w.env.Session.Channel()
}
