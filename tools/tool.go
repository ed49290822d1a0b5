// Package tools exposes nvbridge's features as MCP tools. Handlers are thin:
// each parses its arguments, calls one domain function (lsp, edit, dap) and
// shapes the result. Failures are tool results with isError and a structured
// error (code, message, remediation), never protocol errors.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/websearch"
)

// Env is what handlers work with.
type Env struct {
	Session *nvim.Session
	LSP     *lsp.Client
	// Edit previews and applies changesets; one per session (NewEnv makes
	// it), so that apply_changeset finds the previews every editing tool
	// made.
	Edit *edit.Engine
	// Verifier measures the diagnostics delta of applies and checked
	// previews (Edit.Verifier); Close ends its second Neovim.
	Verifier *lsp.Verifier
	// DAP holds the debug sessions (one manager per session, shown in its
	// Neovim); Close ends them.
	DAP *dap.Manager
	// Search is the configured web search provider; nil (no web_search
	// tool) when none is.
	Search *websearch.Client
	// Logf receives handler diagnostics (never stdout).
	Logf func(format string, args ...any)
	// Modes are the session's mode and read-only switch (modes.go); nil
	// is mode all, writable.
	Modes *Modes
}

// NewEnv returns the environment handlers share; its changeset engine is
// one per session, so a preview made by one tool is applied by
// apply_changeset.
func NewEnv(s *nvim.Session, client *lsp.Client, logf func(format string, args ...any)) *Env {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	modes, _ := NewModes(ModeAll, false)
	env := &Env{Session: s, LSP: client, Edit: edit.NewEngine(s), DAP: dap.NewManager(s.Root(), dap.NewDisplay(s), logf), Logf: logf, Modes: modes}
	if !s.Embedded() {
		env.Edit.Approve = env.engineApproval // the user approves changes (user.go)
		env.Edit.Asks = env.asksUser
	}
	if client != nil {
		env.Verifier = lsp.NewVerifier(client)
		env.Edit.Verifier = env.Verifier
	}
	return env
}

// Close ends what the environment started beside Neovim: the debug
// sessions (adapters and the programs they debug).
func (e *Env) Close() {
	if e != nil && e.DAP != nil {
		e.DAP.Close()
	}
	if e != nil && e.Verifier != nil {
		e.Verifier.Close()
	}
}

// Tool is one MCP tool: its definition and handler.
type Tool = server.ServerTool

// Summarizer is implemented by results that have a short human-readable
// rendering; it becomes the text content beside the structured content.
type Summarizer interface {
	Summary() string
}

// hints are a tool's annotations, set truthfully per tool.
type hints struct {
	readOnly    bool
	destructive bool
	idempotent  bool
	// openWorld: the tool reaches outside the workspace (web_search).
	openWorld bool
}

var (
	readOnly = hints{readOnly: true, idempotent: true}
	// mutating tools change buffers (and files when asked) but every change
	// is previewable and undoable, so none is marked destructive unless it
	// deletes user data.
	mutating = hints{}
	// destructive tools may delete or overwrite user data: apply_changeset
	// (file deletions), apply_patch, save_buffer (force overwrites the
	// disk), discard_buffer (drops unsaved changes).
	destructive = hints{destructive: true}
)

// newTool builds a tool whose arguments decode strictly into In (unknown
// fields are an INVALID_PARAMETER error: a misspelt "col" must not be
// silently ignored) and whose result Out becomes structured content.
func newTool[In any, Out any](name, title, description string, h hints, run func(ctx context.Context, in In) (Out, error)) Tool {
	def := mcp.NewTool(name,
		mcp.WithDescription(description),
		mcp.WithInputSchema[In](),
		mcp.WithRawOutputSchema(outputSchema[Out]()),
		mcp.WithTitleAnnotation(title),
		mcp.WithReadOnlyHintAnnotation(h.readOnly),
		mcp.WithDestructiveHintAnnotation(h.destructive),
		mcp.WithIdempotentHintAnnotation(h.idempotent),
		mcp.WithOpenWorldHintAnnotation(h.openWorld),
	)
	need := requiredOf(def)
	fast := planArgs(reflect.TypeFor[In]())
	// A read tool whose result has text beyond the essentials takes
	// detail: "brief" (detail.go).
	omitted := briefNames(reflect.TypeFor[Out]())
	canBrief := h.readOnly && len(omitted) > 0 && def.RawInputSchema != nil
	if canBrief {
		def.RawInputSchema = withDetailSchema(def.RawInputSchema)
		def.RawOutputSchema = optionalIn(def.RawOutputSchema, omitted)
	}
	handler := func(ctx context.Context, req mcp.CallToolRequest) (result *mcp.CallToolResult, err error) {
		// The one recover of the tool-dispatch layer: a panic anywhere in
		// the handler's goroutine is one failed call (stack to the log, a
		// short OPERATION_FAILED to the caller), never the end of the
		// process.
		defer func() {
			if p := recover(); p != nil {
				result, err = errorResult(safego.Error(name, p)), nil
			}
		}()
		body, err := argumentBody(req.GetRawArguments())
		if err != nil {
			return errorResult(err), nil
		}
		isBrief := false
		if canBrief {
			if body, isBrief, err = takeDetail(body); err != nil {
				return errorResult(err), nil
			}
		}
		var in In
		if fast == nil || !fast.decode(body, &in) {
			in = *new(In)
			if err := decodeStrict(body, &in); err != nil {
				return errorResult(err), nil // unknown fields, wrong types
			}
		}
		if err := need.check(body); err != nil {
			return errorResult(err), nil
		}
		out, err := run(withProgress(ctx, req), in)
		if err != nil && errors.Is(ctx.Err(), context.Canceled) && apierr.CodeOf(err) != apierr.PartialResult {
			// The caller cancelled and the call failed: whatever the
			// domain made of its ended context (often a TIMEOUT-looking
			// error), the answer is CANCELLED, which says nothing changed.
			// A call that finished anyway (a change already sent to
			// Neovim runs to its end) answers what it did, and so does a
			// partial outcome. The transports (cmd/nvbridge) drop the
			// answer to a request the client cancelled, as MCP specifies;
			// this reaches clients that still read one (in-process).
			return errorResult(apierr.FromContext(ctx, name, "")), nil
		}
		if err != nil {
			return errorResult(err), nil
		}
		if isBrief {
			brief(reflect.ValueOf(&out))
			res := successResult(out)
			res.StructuredContent = briefContent(out, omitted)
			for i, c := range res.Content {
				if tc, ok := c.(mcp.TextContent); ok {
					tc.Text = trimLines(tc.Text)
					res.Content[i] = tc
				}
			}
			return res, nil
		}
		return successResult(out), nil
	}
	return Tool{Tool: def, Handler: handler}
}

// argumentBody is a call's arguments as JSON ("{}" when there are none).
func argumentBody(raw any) ([]byte, error) {
	var body []byte
	switch r := raw.(type) {
	case nil:
		body = []byte("{}")
	case json.RawMessage:
		body = r
	case []byte:
		body = r
	default:
		var err error
		if body, err = json.Marshal(r); err != nil {
			return nil, apierr.Errorf(apierr.InvalidParameter, "pass the arguments as a JSON object", "cannot read arguments: %v", err)
		}
	}
	if len(bytes.TrimSpace(body)) == 0 || bytes.Equal(bytes.TrimSpace(body), []byte("null")) {
		body = []byte("{}")
	}
	return body, nil
}

func decodeStrict(body []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return apierr.Errorf(apierr.InvalidParameter, "check the argument names and types against the tool's input schema",
			"invalid arguments: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func successResult(out any) *mcp.CallToolResult {
	text := ""
	if s, ok := out.(Summarizer); ok {
		text = s.Summary()
	} else {
		b, err := json.Marshal(out)
		if err != nil {
			return errorResult(err)
		}
		text = string(b)
	}
	return mcp.NewToolResultStructured(out, text)
}

// ErrorBody is the structured content of a failed tool call.
type ErrorBody struct {
	Error *apierr.Error `json:"error"`
}

func errorResult(err error) *mcp.CallToolResult {
	e := apierr.As(err)
	text := fmt.Sprintf("%s: %s", e.Code, e.Message)
	if e.Remediation != "" {
		text += "\nRemediation: " + e.Remediation
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: text}},
		StructuredContent: ErrorBody{Error: e},
		IsError:           true,
	}
}

// All returns every tool, sorted by name.
func All(env *Env) []Tool {
	var all []Tool
	for _, group := range toolGroups {
		all = append(all, group(env)...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Tool.Name < all[j].Tool.Name })
	return wrapUser(env, all)
}

// toolGroups lists the functions that build each family of tools; each
// lives in its own file.
var toolGroups = []func(*Env) []Tool{
	bufferTools,
	navigationTools,
	editingTools,
	refactoringTools,
	structureTools,
	debugTools,
	webTools,
	sessionTools,
}

// NewServer returns an MCP server serving every tool.
func NewServer(env *Env, version string) *server.MCPServer {
	all := All(env)
	defs := map[string]mcp.Tool{}
	for _, t := range all {
		defs[t.Tool.Name] = t.Tool
	}
	fams := toolFamilies(env)
	res := &resourceSet{env: env}
	w := newWatcher(env, res)
	hooks := modeHooks(env, fams)
	w.addHooks(hooks)
	w.addAgentHooks(hooks)
	hooks.AddAfterListResources(w.listHook)
	// First of all: a transport's arguments handed beside the message
	// (call_arguments.go) are back in the request before any hook reads it.
	hooks.OnBeforeCallTool = append([]server.OnBeforeCallToolFunc{RestoreCallArguments}, hooks.OnBeforeCallTool...)
	// The tools' middleware, outermost first: HandleMessage and a
	// transport's direct dispatch (dispatch.go) run the same chain.
	mws := []server.ToolHandlerMiddleware{Recovery, modeGuard(env, fams, defs), w.toolMiddleware}
	s := server.NewMCPServer("nvbridge", version,
		// listChanged: set_mode changes the list.
		server.WithToolCapabilities(true),
		server.WithPromptCapabilities(false),
		// Resources (resources.go), logging (logging.go) and argument
		// completion (completion.go).
		server.WithResourceCapabilities(true, true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(&completer{res: res}),
		server.WithResourceCompletionProvider(&completer{res: res}),
		server.WithToolHandlerMiddleware(mws[0]), // WithRecovery's
		server.WithResourceRecovery(),
		server.WithInstructions(instructions),
		server.WithHooks(hooks),
		server.WithToolHandlerMiddleware(mws[1]),
		server.WithToolHandlerMiddleware(mws[2]),
	)
	s.AddTools(all...)
	addPrompts(s)
	s.AddResources(res.staticResources()...)
	s.AddResourceTemplates(res.templates()...)
	watchers.Store(s, w)
	watchers.Store(env, w)
	RegisterCallDispatcher(s, hooks, mws...)
	FixTools(s, all)
	w.start(s)
	return s
}

const instructions = `nvbridge drives the language servers attached to a Neovim session.
Paths are relative to the workspace root. Lines are 1-based; columns are 0-based and counted in characters.
Instead of a column you may pass symbol: the name as it appears on that line.
Instead of file and line, position tools take name: the symbol's name, qualified as its language writes it (orders.Process, Logger.clone, requests.sessions.Session.request, z.string).
Every edit is previewed first (preview=true returns a unified diff and a changeset_id; apply_changeset applies exactly that).
Debugging (start_debug_session, set_breakpoints, control_execution, inspect_state, get_debug_session_info, stop_debug_session) drives dlv (Go) and debugpy (Python); waits for a stop are bounded and report complete=false when the bound is hit.
Failed calls return a structured error with a code and a remediation.`

// Find returns the tool named name.
func Find(env *Env, name string) (Tool, bool) {
	for _, t := range All(env) {
		if t.Tool.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}
