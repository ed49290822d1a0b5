package refactor

// Code actions turned into changesets: picking one of a listing by index,
// title or kind, and computing what it changes: its edit (resolved when
// the server computes it lazily) and the edits its command sends back
// through workspace/applyEdit, captured. Nothing is applied.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

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

// PickAction chooses one action from a listing, or explains why none or
// several fit. A disabled or not runnable choice is refused here.
func PickAction(actions []lsp.CodeAction, p ActionPick, where string) (*lsp.CodeAction, error) {
	var chosen *lsp.CodeAction
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
			if a.Title == p.Title && (p.Kind == "" || lsp.KindMatches(a.Kind, p.Kind)) {
				matches = append(matches, i)
			}
		}
		if len(matches) == 0 {
			for i, a := range actions {
				if strings.EqualFold(a.Title, p.Title) && (p.Kind == "" || lsp.KindMatches(a.Kind, p.Kind)) {
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
			if !lsp.KindMatches(a.Kind, p.Kind) {
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

func actionKinds(actions []lsp.CodeAction) []string {
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

func actionKindList(actions []lsp.CodeAction) string {
	ks := actionKinds(actions)
	if len(ks) == 0 {
		return "none (no code action at all)"
	}
	return strings.Join(ks, ", ")
}

func actionTitleList(actions []lsp.CodeAction) string {
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
	RenameHints []lsp.RenameHint
}

// ActionChangeset computes the changeset of one action: its edit (after
// codeAction/resolve when the server computes it lazily) plus what its
// command sends back through workspace/applyEdit, captured. Nothing is
// applied.
func ActionChangeset(ctx context.Context, c *lsp.Client, doc *lsp.Document, a *lsp.CodeAction) (preview.Changeset, ActionOutcome, error) {
	var out ActionOutcome
	server := a.Origin()
	r, err := c.ResolveAction(ctx, doc, a)
	if err != nil {
		return preview.Changeset{}, out, err
	}
	out.Resolved = r.Resolved
	var cs preview.Changeset
	if r.Edit != nil {
		edit, err := workspaceChangeset(ctx, c, server.OffsetEncoding, r.Edit)
		if err != nil {
			return preview.Changeset{}, out, err
		}
		cs = mergeChangesets(cs, edit)
	}
	if r.Command == nil {
		return cs, out, nil
	}
	cmd := *r.Command
	if r.NotRunnable != "" {
		if r.Edit != nil {
			// The edit stands on its own; the command is an extra the
			// bridge cannot give (Neovim would run it after the edit).
			out.SkippedCommand = cmd.Command
			return cs, out, nil
		}
		return preview.Changeset{}, out, apierr.Errorf(apierr.Unsupported,
			"run it from Neovim itself, or pick an action that carries an edit",
			"nvbridge will not run %q: %s", a.Title, r.NotRunnable)
	}
	edit, captured, err := runCaptured(ctx, c, doc, server, cmd)
	if err != nil {
		return preview.Changeset{}, out, err
	}
	out.RanCommand = cmd.Command
	out.Captured = len(captured.Edits)
	out.RenameHints = captured.Renames
	return mergeChangesets(cs, edit), out, nil
}

// runCaptured runs a server command with its edits captured and returns
// them as one changeset: the edits it sent back, or the edit it answered
// with (some servers answer the command with the edit instead of pushing
// it).
func runCaptured(ctx context.Context, c *lsp.Client, doc *lsp.Document, server lsp.Server, cmd lsp.Command) (preview.Changeset, lsp.Captured, error) {
	captured, err := c.ExecuteCaptured(ctx, doc, server, cmd)
	if err != nil {
		return preview.Changeset{}, captured, err
	}
	var cs preview.Changeset
	for _, e := range captured.Edits {
		edit, err := workspaceChangeset(ctx, c, server.OffsetEncoding, e)
		if err != nil {
			return preview.Changeset{}, captured, err
		}
		cs = mergeChangesets(cs, edit)
	}
	if len(captured.Edits) == 0 && !lsp.IsNullJSON(captured.Result) {
		edit, ok, err := commandResultChangeset(ctx, c, server, doc, cmd, captured.Result)
		if err != nil {
			return preview.Changeset{}, captured, err
		}
		if ok {
			cs = edit
		}
	}
	return cs, captured, nil
}

// commandResultChangeset reads a command's answer as an edit: a
// WorkspaceEdit, or a TextEdit[] for the document the command was about
// (pyright.organizeimports answers so).
func commandResultChangeset(ctx context.Context, c *lsp.Client, server lsp.Server, doc *lsp.Document, cmd lsp.Command, result json.RawMessage) (preview.Changeset, bool, error) {
	t := bytes.TrimSpace(result)
	switch {
	case len(t) > 0 && t[0] == '{':
		var probe struct {
			Changes         json.RawMessage `json:"changes"`
			DocumentChanges json.RawMessage `json:"documentChanges"`
		}
		if json.Unmarshal(t, &probe) != nil || (lsp.IsNullJSON(probe.Changes) && lsp.IsNullJSON(probe.DocumentChanges)) {
			return preview.Changeset{}, false, nil
		}
		cs, err := workspaceChangeset(ctx, c, server.OffsetEncoding, t)
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
		cs, err := workspaceChangeset(ctx, c, server.OffsetEncoding, we)
		return cs, err == nil, err
	}
	return preview.Changeset{}, false, nil
}
