package lsp

// Code actions: listing what the servers offer at a position or range,
// picking one by title, index or kind, and turning it into a changeset.
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
	"sort"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
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

// lspCommand is an LSP Command.
type lspCommand struct {
	Title     string          `json:"title,omitempty"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

func (w wireAction) hasEdit() bool { return !isNullJSON(w.Edit) }

// command returns the action's command: its own "command" object, or the
// action itself when the server sent a bare Command.
func (w wireAction) command() (lspCommand, bool) {
	raw := bytes.TrimSpace(w.Command)
	if isNullJSON(raw) {
		return lspCommand{}, false
	}
	if raw[0] == '"' {
		var name string
		if json.Unmarshal(raw, &name) != nil || name == "" {
			return lspCommand{}, false
		}
		return lspCommand{Title: w.Title, Command: name, Arguments: w.Arguments}, true
	}
	var c lspCommand
	if json.Unmarshal(raw, &c) != nil || c.Command == "" {
		return lspCommand{}, false
	}
	return c, true
}

func (w wireAction) bareCommand() bool {
	raw := bytes.TrimSpace(w.Command)
	return len(raw) > 0 && raw[0] == '"'
}

func isNullJSON(raw json.RawMessage) bool {
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
}

// CodeActions asks every attached server that offers code actions for the
// actions on the request's range, passing the diagnostics on those lines.
// Actions are numbered in the order the servers gave them.
func (c *Client) CodeActions(ctx context.Context, req ActionRequest) ([]CodeAction, error) {
	out, _, err := c.codeActions(ctx, req)
	return out, err
}

// codeActions is CodeActions that also counts the diagnostics passed.
func (c *Client) codeActions(ctx context.Context, req ActionRequest) ([]CodeAction, int, error) {
	servers := actionServers(req.Doc)
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

func actionServers(doc *Document) []Server {
	var out []Server
	for _, s := range doc.Servers {
		if s.Supports(protocol.MethodTextDocumentCodeAction) {
			out = append(out, s)
		}
	}
	return out
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
		a := CodeAction{
			Title:       w.Title,
			Kind:        w.Kind,
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
		a.NeedsResolve = !a.HasEdit && !w.bareCommand() && resolvable && (!isNullJSON(w.Data) || !hasCmd)
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
func notRunnable(w wireAction, cmd lspCommand) string {
	if cmd.Command == "_typescript.applyRefactoring" && strings.HasPrefix(w.Kind, "refactor.move.file") {
		return "Move to file needs a target file picked interactively (interactiveRefactorArguments.targetFile), which nvbridge cannot ask for"
	}
	if capturableCommands[cmd.Command] {
		return ""
	}
	return fmt.Sprintf("runs the server command %s, which is not known to produce an edit nvbridge can capture and preview (it may open a browser, run something or only show information); nvbridge does not run it", cmd.Command)
}

// ActionPick says which action to apply: by Index (1-based), by Title
// (exact), or by Kind (prefix match on the kind hierarchy: "refactor"
// matches "refactor.extract.function"). Kind may also narrow Title.
type ActionPick struct {
	Index *int
	Title string
	Kind  string
}

// Empty reports whether nothing was picked (list only).
func (p ActionPick) Empty() bool { return p.Index == nil && p.Title == "" && p.Kind == "" }

// KindMatches reports whether kind is want or below it in the hierarchy.
func KindMatches(kind, want string) bool {
	return kind == want || strings.HasPrefix(kind, want+".")
}

// PickAction chooses one action from a listing, or explains why none or
// several fit. A disabled or not runnable choice is refused here.
func PickAction(actions []CodeAction, p ActionPick, where string) (*CodeAction, error) {
	var chosen *CodeAction
	switch {
	case p.Index != nil:
		if *p.Index < 1 || *p.Index > len(actions) {
			return nil, apierr.Errorf(apierr.InvalidParameter,
				"call without index to list the actions, then pass one of their indexes (1-based)",
				"index %d is outside the %d code actions at %s", *p.Index, len(actions), where).
				WithDetails(map[string]any{"actions": actions})
		}
		chosen = &actions[*p.Index-1]
		if p.Title != "" && chosen.Title != p.Title {
			return nil, apierr.Errorf(apierr.Conflict, "list the actions again: the server may have changed them",
				"action %d at %s is %q, not %q", *p.Index, where, chosen.Title, p.Title)
		}
	case p.Title != "":
		var matches []int
		for i, a := range actions {
			if a.Title == p.Title && (p.Kind == "" || KindMatches(a.Kind, p.Kind)) {
				matches = append(matches, i)
			}
		}
		if len(matches) == 0 {
			for i, a := range actions {
				if strings.EqualFold(a.Title, p.Title) && (p.Kind == "" || KindMatches(a.Kind, p.Kind)) {
					matches = append(matches, i)
				}
			}
		}
		switch len(matches) {
		case 0:
			return nil, apierr.Errorf(apierr.ResourceNotFound,
				"pass one of the listed titles exactly, or an index",
				"no code action titled %q at %s; offered: %s", p.Title, where, actionTitleList(actions)).
				WithDetails(map[string]any{"actions": actions})
		case 1:
			chosen = &actions[matches[0]]
		default:
			idx := make([]int, len(matches))
			for i, m := range matches {
				idx[i] = actions[m].Index
			}
			return nil, apierr.Errorf(apierr.Ambiguous, "pass index to pick one of them",
				"%d code actions at %s are titled %q (indexes %v)", len(matches), where, p.Title, idx).
				WithDetails(map[string]any{"indexes": idx, "actions": actions})
		}
	case p.Kind != "":
		var matches, disabled []int
		for i, a := range actions {
			if !KindMatches(a.Kind, p.Kind) {
				continue
			}
			if a.Disabled != "" {
				disabled = append(disabled, i)
			} else {
				matches = append(matches, i)
			}
		}
		switch {
		case len(matches) == 1:
			chosen = &actions[matches[0]]
		case len(matches) > 1:
			idx := make([]int, len(matches))
			var titles []string
			for i, m := range matches {
				idx[i] = actions[m].Index
				titles = append(titles, fmt.Sprintf("%d %q (%s)", actions[m].Index, actions[m].Title, actions[m].Kind))
			}
			return nil, apierr.Errorf(apierr.Ambiguous, "pass index or title to pick one of them",
				"%d code actions of kind %s at %s: %s", len(matches), p.Kind, where, strings.Join(titles, ", ")).
				WithDetails(map[string]any{"indexes": idx, "actions": actions})
		case len(disabled) > 0:
			chosen = &actions[disabled[0]]
		default:
			return nil, apierr.Errorf(apierr.Unsupported,
				"pass one of the kinds offered here, or another position or range",
				"no code action of kind %s at %s; kinds offered: %s", p.Kind, where, actionKindList(actions)).
				WithDetails(map[string]any{"kinds": actionKinds(actions), "actions": actions})
		}
	default:
		return nil, apierr.New(apierr.InvalidParameter, "no action was picked", "pass index, title or action_kind")
	}
	if chosen.Disabled != "" {
		return nil, apierr.Errorf(apierr.PreconditionFailed, "pick another action, or change the code so the action applies",
			"%s says %q cannot be applied at %s: %s", chosen.Server, chosen.Title, where, chosen.Disabled)
	}
	if chosen.NotRunnable != "" {
		return nil, apierr.Errorf(apierr.Unsupported, "run it from Neovim itself, or pick an action that carries an edit",
			"nvbridge will not run %q: %s", chosen.Title, chosen.NotRunnable)
	}
	return chosen, nil
}

func actionKinds(actions []CodeAction) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range actions {
		k := a.Kind
		if k == "" {
			k = "(no kind)"
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func actionKindList(actions []CodeAction) string {
	ks := actionKinds(actions)
	if len(ks) == 0 {
		return "none (no code action at all)"
	}
	return strings.Join(ks, ", ")
}

func actionTitleList(actions []CodeAction) string {
	if len(actions) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, a := range actions {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %q", a.Index, a.Title)
	}
	return b.String()
}

// ActionOutcome is what running an action produced besides its changeset.
type ActionOutcome struct {
	// Resolved says the edit came from codeAction/resolve.
	Resolved bool
	// RanCommand names the command that ran (its edits were captured).
	RanCommand string
	// Captured counts the workspace/applyEdit requests captured.
	Captured int
	// SkippedCommand names a command that came with the action's edit but
	// that nvbridge does not run (see CodeAction.NotRunnable).
	SkippedCommand string
	// RenameHints are the positions a server asked the client to start a
	// rename at after its edit (typescript-language-server's
	// _typescript.rename after an extract), in the server's encoding,
	// relative to the text after the edit.
	RenameHints []RenameHint
}

// RenameHint is a position in a document after an edit.
type RenameHint struct {
	URI      protocol.DocumentURI `json:"uri"`
	Position protocol.Position    `json:"position"`
}

// ActionChangeset computes the changeset of one action: its edit (after
// codeAction/resolve when the server computes it lazily) plus what its
// command sends back through workspace/applyEdit, captured. Nothing is
// applied.
func (c *Client) ActionChangeset(ctx context.Context, doc *Document, a *CodeAction) (preview.Changeset, ActionOutcome, error) {
	var out ActionOutcome
	server := a.server
	w := a.wire
	if a.NeedsResolve {
		var raw json.RawMessage
		err := c.Request(ctx, doc, server, "codeAction/resolve", a.raw, &raw)
		if err != nil {
			if _, ok := w.command(); !ok {
				return preview.Changeset{}, out, err
			}
			// Fall back on the command, as Neovim does.
		} else {
			var resolved wireAction
			if err := json.Unmarshal(raw, &resolved); err != nil {
				return preview.Changeset{}, out, apierr.Errorf(apierr.OperationFailed, "report this",
					"%s: cannot decode the resolved code action: %v", server.Name, err)
			}
			w = resolved
			out.Resolved = true
		}
	}
	var cs preview.Changeset
	if w.hasEdit() {
		edit, err := c.workspaceChangeset(ctx, server.OffsetEncoding, w.Edit)
		if err != nil {
			return preview.Changeset{}, out, err
		}
		cs = mergeChangesets(cs, edit)
	}
	if cmd, ok := w.command(); ok {
		if reason := notRunnable(w, cmd); reason != "" {
			if w.hasEdit() {
				// The edit stands on its own; the command is an extra the
				// bridge cannot give (Neovim would run it after the edit).
				out.SkippedCommand = cmd.Command
				return cs, out, nil
			}
			return preview.Changeset{}, out, apierr.Errorf(apierr.Unsupported,
				"run it from Neovim itself, or pick an action that carries an edit",
				"nvbridge will not run %q: %s", a.Title, reason)
		}
		captured, err := c.captureCommand(ctx, doc, server, cmd)
		if err != nil {
			return preview.Changeset{}, out, err
		}
		out.RanCommand = cmd.Command
		out.Captured = len(captured.edits)
		out.RenameHints = captured.renames
		for _, e := range captured.edits {
			edit, err := c.workspaceChangeset(ctx, server.OffsetEncoding, e)
			if err != nil {
				return preview.Changeset{}, out, err
			}
			cs = mergeChangesets(cs, edit)
		}
		if len(captured.edits) == 0 && !isNullJSON(captured.result) {
			// Some servers answer the command with the edit instead of (or
			// as well as) pushing it.
			if edit, ok, err := c.commandResultChangeset(ctx, server, doc, cmd, captured.result); err != nil {
				return preview.Changeset{}, out, err
			} else if ok {
				cs = mergeChangesets(cs, edit)
			}
		}
	}
	return cs, out, nil
}

type captureResult struct {
	edits   []json.RawMessage // WorkspaceEdits
	renames []RenameHint
	result  json.RawMessage // the command's own answer
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

// captureCommand runs cmd through workspace/executeCommand while the
// client's workspace/applyEdit (and _typescript.rename) requests are
// captured instead of applied.
func (c *Client) captureCommand(ctx context.Context, doc *Document, server Server, cmd lspCommand) (captureResult, error) {
	var begin captureBegin
	if err := c.Session.BeginCapture(ctx, &begin, server.ID, int(CaptureBound/time.Millisecond)); err != nil {
		return captureResult{}, err
	}
	if begin.Err != nil {
		e := begin.Err.APIError()
		e.Remediation = "retry in a moment"
		return captureResult{}, e
	}
	if begin.Token == nil {
		return captureResult{}, apierr.New(apierr.OperationFailed, "cannot start capturing the server's edits", "report this")
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
	if !isNullJSON(cmd.Arguments) {
		params["arguments"] = cmd.Arguments
	}
	var result json.RawMessage
	if err := c.Request(ctx, doc, server, protocol.MethodWorkspaceExecuteCommand, params, &result); err != nil {
		return captureResult{}, err
	}
	raw, err := end(ctx)
	if err != nil {
		return captureResult{}, err
	}
	var got struct {
		Edits   json.RawMessage `json:"edits"`
		Renames json.RawMessage `json:"renames"`
		Expired bool            `json:"expired"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		return captureResult{}, fmt.Errorf("decode captured edits: %w", err)
	}
	if got.Expired {
		return captureResult{}, apierr.Errorf(apierr.Timeout, "retry",
			"%s took longer than %v to run %s; its edits were not captured", server.Name, CaptureBound, cmd.Command)
	}
	var params2 []struct {
		Edit json.RawMessage `json:"edit"`
	}
	if err := decodeList(got.Edits, &params2); err != nil {
		return captureResult{}, fmt.Errorf("decode captured edits: %w", err)
	}
	out := captureResult{result: result}
	for _, p := range params2 {
		if !isNullJSON(p.Edit) {
			out.edits = append(out.edits, p.Edit)
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
		out.renames = append(out.renames, RenameHint{URI: h.TextDocument.URI, Position: h.Position})
	}
	return out, nil
}

// commandResultChangeset reads a command's answer as an edit: a
// WorkspaceEdit, or a TextEdit[] for the document the command was about
// (pyright.organizeimports answers so).
func (c *Client) commandResultChangeset(ctx context.Context, server Server, doc *Document, cmd lspCommand, result json.RawMessage) (preview.Changeset, bool, error) {
	t := bytes.TrimSpace(result)
	switch {
	case len(t) > 0 && t[0] == '{':
		var probe struct {
			Changes         json.RawMessage `json:"changes"`
			DocumentChanges json.RawMessage `json:"documentChanges"`
		}
		if json.Unmarshal(t, &probe) != nil || (isNullJSON(probe.Changes) && isNullJSON(probe.DocumentChanges)) {
			return preview.Changeset{}, false, nil
		}
		cs, err := c.workspaceChangeset(ctx, server.OffsetEncoding, t)
		return cs, err == nil, err
	case len(t) > 0 && t[0] == '[':
		var edits []protocol.TextEdit
		if json.Unmarshal(t, &edits) != nil || len(edits) == 0 {
			return preview.Changeset{}, false, nil
		}
		target := doc.URI
		var args []json.RawMessage
		if json.Unmarshal(cmd.Arguments, &args) == nil && len(args) > 0 {
			var u string
			if json.Unmarshal(args[0], &u) == nil && strings.HasPrefix(u, "file:") {
				target = protocol.DocumentURI(u)
			}
		}
		we, _ := json.Marshal(map[string]any{"changes": map[protocol.DocumentURI][]protocol.TextEdit{target: edits}})
		cs, err := c.workspaceChangeset(ctx, server.OffsetEncoding, we)
		return cs, err == nil, err
	}
	return preview.Changeset{}, false, nil
}
