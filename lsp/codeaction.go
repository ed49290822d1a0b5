package lsp

// Code actions: listing what the servers offer at a position or range,
// resolving one, and running its command with the edits it sends back
// captured (package refactor picks one and turns it into a changeset).
//
// The whole protocol is handled: the diagnostics on the range go into the
// request's context (quickfixes depend on them); actions that arrive
// without an edit are completed with codeAction/resolve (gopls sends only
// `data`); actions that carry a command run through
// workspace/executeCommand while nvbridge.actions captures the
// workspace/applyEdit the server sends back, so the command's edit joins the
// same changeset and can be previewed instead of being applied behind the
// caller's back. Commands nvbridge cannot preview (they open a browser, run
// tests, need a file picked interactively, or are simply unknown) are
// flagged and never run.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
)

// CodeAction is one action a server offers, as tools list it.
type CodeAction struct {
	// Index is the action's 1-based place in the listing.
	Index       int    `json:"index"`
	Title       string `json:"title"`
	Kind        string `json:"kind,omitempty"`
	IsPreferred bool   `json:"is_preferred,omitempty"`
	// Disabled is the server's reason when it offers the action but says it
	// cannot apply here.
	Disabled string `json:"disabled,omitempty"`
	// NeedsResolve says the edit is computed on demand (codeAction/resolve).
	NeedsResolve bool `json:"needs_resolve,omitempty"`
	HasEdit      bool `json:"has_edit,omitempty"`
	HasCommand   bool `json:"has_command,omitempty"`
	// Command is the server command the action runs, if any.
	Command string `json:"command,omitempty"`
	// NotRunnable says why nvbridge will not run the action (it needs
	// interaction nvbridge cannot give, or its command has effects other
	// than an edit that could be previewed).
	NotRunnable string `json:"not_runnable,omitempty"`
	Server      string `json:"server"`

	server Server
	raw    json.RawMessage
	wire   wireAction
}

// wireAction is a CodeAction or a bare Command as the server sent it
// (go.lsp.dev/protocol cannot decode the union: a Command's "command" is a
// string, a CodeAction's an object).
type wireAction struct {
	Title       string `json:"title"`
	Kind        string `json:"kind"`
	IsPreferred bool   `json:"isPreferred"`
	Disabled    *struct {
		Reason string `json:"reason"`
	} `json:"disabled"`
	Edit      json.RawMessage `json:"edit"`
	Command   json.RawMessage `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
	Data      json.RawMessage `json:"data"`
}

// Command is an LSP Command.
type Command struct {
	Title     string          `json:"title,omitempty"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

func (w wireAction) hasEdit() bool { return !IsNullJSON(w.Edit) }

// command returns the action's command: its own "command" object, or the
// action itself when the server sent a bare Command.
func (w wireAction) command() (Command, bool) {
	raw := bytes.TrimSpace(w.Command)
	if IsNullJSON(raw) {
		return Command{}, false
	}
	if raw[0] == '"' {
		var name string
		if json.Unmarshal(raw, &name) != nil || name == "" {
			return Command{}, false
		}
		return Command{Title: w.Title, Command: name, Arguments: w.Arguments}, true
	}
	var c Command
	if json.Unmarshal(raw, &c) != nil || c.Command == "" {
		return Command{}, false
	}
	return c, true
}

func (w wireAction) bareCommand() bool {
	raw := bytes.TrimSpace(w.Command)
	return len(raw) > 0 && raw[0] == '"'
}

// IsNullJSON reports whether raw is empty or null (an answer without a
// result).
func IsNullJSON(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// Span is a range of a document in tool positions.
type Span struct {
	Start, End Point
}

// ActionRequest says where to ask for code actions and which kinds.
type ActionRequest struct {
	Doc  *Document
	Span Span
	// Only restricts the kinds asked for (context.only); empty asks for all.
	Only []string
	// Server, when set, is the one server asked; otherwise every attached
	// server that offers code actions is.
	Server *Server
}

// CodeActions asks the servers of the request for the actions on its
// range, passing the diagnostics on those lines, and counts the
// diagnostics passed. Actions are numbered in the order the servers gave
// them.
func (c *Client) CodeActions(ctx context.Context, req ActionRequest) ([]CodeAction, int, error) {
	servers := req.Doc.ServersFor(protocol.MethodTextDocumentCodeAction)
	if req.Server != nil {
		servers = []Server{*req.Server}
	}
	if len(servers) == 0 {
		_, err := req.Doc.ServerFor(protocol.MethodTextDocumentCodeAction)
		return nil, 0, err
	}
	var out []CodeAction
	ndiag := 0
	for _, server := range servers {
		actions, n, err := c.serverActions(ctx, req, server)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, actions...)
		ndiag += n
	}
	for i := range out {
		out[i].Index = i + 1
	}
	return out, ndiag, nil
}

func (c *Client) serverActions(ctx context.Context, req ActionRequest, server Server) ([]CodeAction, int, error) {
	var diagJSON string
	if err := c.Session.ActionDiagnostics(ctx, &diagJSON,
		req.Doc.Buffer.Bufnr, server.ID, req.Span.Start.Line, req.Span.End.Line); err != nil {
		return nil, 0, err
	}
	diags := json.RawMessage(diagJSON)
	if t := bytes.TrimSpace(diags); bytes.Equal(t, []byte("{}")) || len(t) == 0 {
		diags = json.RawMessage("[]")
	}
	var diagList []json.RawMessage
	_ = json.Unmarshal(diags, &diagList)
	ndiag := len(diagList)
	actionContext := map[string]any{"diagnostics": diags, "triggerKind": 1}
	if len(req.Only) > 0 {
		actionContext["only"] = req.Only
	}
	params := map[string]any{
		"textDocument": protocol.TextDocumentIdentifier{URI: req.Doc.URI},
		"range": protocol.Range{
			Start: req.Span.Start.In(server.OffsetEncoding),
			End:   req.Span.End.In(server.OffsetEncoding),
		},
		"context": actionContext,
	}
	var raw json.RawMessage
	if err := c.Request(ctx, req.Doc, server, protocol.MethodTextDocumentCodeAction, params, &raw); err != nil {
		return nil, 0, err
	}
	var items []json.RawMessage
	if err := decodeList(raw, &items); err != nil {
		return nil, 0, apierr.Errorf(apierr.OperationFailed, "report this: the server's answer has a shape nvbridge does not decode",
			"%s: cannot decode code actions: %v", server.Name, err)
	}
	resolvable := server.Supports("codeAction/resolve")
	out := make([]CodeAction, 0, len(items))
	for _, item := range items {
		var w wireAction
		if err := json.Unmarshal(item, &w); err != nil {
			return nil, 0, apierr.Errorf(apierr.OperationFailed, "report this: the server's answer has a shape nvbridge does not decode",
				"%s: cannot decode a code action: %v", server.Name, err)
		}
		kind := w.Kind
		if k, ok := lang.ActionKind(server.Name, w.Title); ok && (kind == "" || kind == "refactor") {
			kind = k // clangd's tweaks: "refactor" alone
		}
		a := CodeAction{
			Title:       w.Title,
			Kind:        kind,
			IsPreferred: w.IsPreferred,
			HasEdit:     w.hasEdit(),
			Server:      server.Name,
			server:      server,
			raw:         item,
			wire:        w,
		}
		if w.Disabled != nil {
			a.Disabled = w.Disabled.Reason
			if a.Disabled == "" {
				a.Disabled = "the server disabled this action without a reason"
			}
		}
		cmd, hasCmd := w.command()
		if hasCmd {
			a.HasCommand = true
			a.Command = cmd.Command
		}
		a.NeedsResolve = !a.HasEdit && !w.bareCommand() && resolvable && (!IsNullJSON(w.Data) || !hasCmd)
		if hasCmd && !a.NeedsResolve {
			a.NotRunnable = notRunnable(w, cmd)
		}
		out = append(out, a)
	}
	return out, ndiag, nil
}

// capturableCommands are the server commands known to answer with
// workspace/applyEdit (which nvbridge captures) and to do nothing else.
var capturableCommands = map[string]bool{
	// gopls
	"gopls.apply_fix":           true,
	"gopls.add_test":            true,
	"gopls.extract_to_new_file": true,
	"gopls.change_signature":    true,
	"gopls.add_import":          true,
	"gopls.implement_interface": true,
	"gopls.modify_tags":         true,
	"gopls.move_type":           true,
	// typescript-language-server
	"_typescript.applyRefactoring":          true,
	"_typescript.organizeImports":           true,
	"_typescript.applyCompletionCodeAction": true,
	// pyright
	"pyright.organizeimports":     true,
	"pyright.addoptionalforparam": true,
	// clangd
	"clangd.applyFix":   true,
	"clangd.applyTweak": true,
}

// notRunnable says why nvbridge will not run an action's command ("" when
// it will).
func notRunnable(w wireAction, cmd Command) string {
	if cmd.Command == "_typescript.applyRefactoring" && strings.HasPrefix(w.Kind, "refactor.move.file") {
		return "Move to file needs a target file picked interactively (interactiveRefactorArguments.targetFile), which nvbridge cannot ask for"
	}
	if capturableCommands[cmd.Command] {
		return ""
	}
	return fmt.Sprintf("runs the server command %s, which is not known to produce an edit nvbridge can capture and preview (it may open a browser, run something or only show information); nvbridge does not run it", cmd.Command)
}

// KindMatches reports whether kind is want or below it in the hierarchy.
func KindMatches(kind, want string) bool {
	return kind == want || strings.HasPrefix(kind, want+".")
}

// RenameHint is a position in a document after an edit.
type RenameHint struct {
	URI      protocol.DocumentURI `json:"uri"`
	Position protocol.Position    `json:"position"`
}

// Origin is the server that offered the action.
func (a *CodeAction) Origin() Server { return a.server }

// ResolvedAction is what an action does once resolved.
type ResolvedAction struct {
	// Edit is its WorkspaceEdit, nil when it has none.
	Edit json.RawMessage
	// Command is the command it runs, nil when none; NotRunnable says why
	// nvbridge will not run it ("" when it will).
	Command     *Command
	NotRunnable string
	// Resolved says the edit came from codeAction/resolve.
	Resolved bool
}

// ResolveAction completes an action a server computes lazily
// (codeAction/resolve: gopls sends only data) into its edit and command.
// When the resolve fails, an action with a command falls back on it, as
// Neovim does.
func (c *Client) ResolveAction(ctx context.Context, doc *Document, a *CodeAction) (ResolvedAction, error) {
	var out ResolvedAction
	w := a.wire
	if a.NeedsResolve {
		var raw json.RawMessage
		err := c.Request(ctx, doc, a.server, "codeAction/resolve", a.raw, &raw)
		if err != nil {
			if _, ok := w.command(); !ok {
				return out, err
			}
		} else {
			var resolved wireAction
			if err := json.Unmarshal(raw, &resolved); err != nil {
				return out, apierr.Errorf(apierr.OperationFailed, "report this",
					"%s: cannot decode the resolved code action: %v", a.server.Name, err)
			}
			w, out.Resolved = resolved, true
		}
	}
	if w.hasEdit() {
		out.Edit = w.Edit
	}
	if cmd, ok := w.command(); ok {
		out.Command, out.NotRunnable = &cmd, notRunnable(w, cmd)
	}
	return out, nil
}

// Captured is what a command sent back while it ran.
type Captured struct {
	// Edits are the WorkspaceEdits of its workspace/applyEdit requests.
	Edits []json.RawMessage
	// Renames are the positions it asked the client to start a rename at.
	Renames []RenameHint
	// Result is the command's own answer.
	Result json.RawMessage
}

// CaptureBound is how long a capture may outlive its command in Neovim
// before the client's handlers are restored anyway (should nvbridge vanish
// mid-command).
var CaptureBound = 2 * time.Minute

// captureBegin is actions.begin_capture's reply (nvbridge.CaptureBegin).
type captureBegin struct {
	Token *int           `msgpack:"token"`
	Err   *nvim.LuaError `msgpack:"err"`
}

// ExecuteCaptured runs cmd through workspace/executeCommand while the
// client's workspace/applyEdit (and _typescript.rename) requests are
// captured instead of applied: nothing is changed.
func (c *Client) ExecuteCaptured(ctx context.Context, doc *Document, server Server, cmd Command) (Captured, error) {
	var begin captureBegin
	if err := c.Session.BeginCapture(ctx, &begin, server.ID, int(CaptureBound/time.Millisecond)); err != nil {
		return Captured{}, err
	}
	if begin.Err != nil {
		e := begin.Err.APIError()
		e.Remediation = "retry in a moment"
		return Captured{}, e
	}
	if begin.Token == nil {
		return Captured{}, apierr.New(apierr.OperationFailed, "cannot start capturing the server's edits", "report this")
	}
	token := *begin.Token
	ended := false
	end := func(ctx context.Context) (string, error) {
		ended = true
		var raw string
		err := c.Session.EndCapture(ctx, &raw, token)
		return raw, err
	}
	defer func() {
		if !ended {
			cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, _ = end(cctx)
		}
	}()
	params := map[string]any{"command": cmd.Command}
	if !IsNullJSON(cmd.Arguments) {
		params["arguments"] = cmd.Arguments
	}
	var result json.RawMessage
	if err := c.Request(ctx, doc, server, protocol.MethodWorkspaceExecuteCommand, params, &result); err != nil {
		return Captured{}, err
	}
	raw, err := end(ctx)
	if err != nil {
		return Captured{}, err
	}
	var got struct {
		Edits   json.RawMessage `json:"edits"`
		Renames json.RawMessage `json:"renames"`
		Expired bool            `json:"expired"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		return Captured{}, fmt.Errorf("decode captured edits: %w", err)
	}
	if got.Expired {
		return Captured{}, apierr.Errorf(apierr.Timeout, "retry",
			"%s took longer than %v to run %s; its edits were not captured", server.Name, CaptureBound, cmd.Command)
	}
	var params2 []struct {
		Edit json.RawMessage `json:"edit"`
	}
	if err := decodeList(got.Edits, &params2); err != nil {
		return Captured{}, fmt.Errorf("decode captured edits: %w", err)
	}
	out := Captured{Result: result}
	for _, p := range params2 {
		if !IsNullJSON(p.Edit) {
			out.Edits = append(out.Edits, p.Edit)
		}
	}
	var hints []struct {
		TextDocument struct {
			URI protocol.DocumentURI `json:"uri"`
		} `json:"textDocument"`
		Position protocol.Position `json:"position"`
	}
	_ = decodeList(got.Renames, &hints)
	for _, h := range hints {
		out.Renames = append(out.Renames, RenameHint{URI: h.TextDocument.URI, Position: h.Position})
	}
	return out, nil
}
