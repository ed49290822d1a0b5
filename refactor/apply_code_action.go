package refactor

// apply_code_action: the code actions at a range listed (after the
// diagnostics describing the current text), one picked and planned
// (action_changeset.go); what a server declares for code actions and
// commands. Nothing is changed; the caller previews or applies the
// changeset through edit.Engine.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

// actionCaps is what a server declares for code actions and commands.
type actionCaps struct {
	CodeActionKinds []string `json:"code_action_kinds"`
	CodeActions     bool     `json:"code_actions"`
	Resolve         bool     `json:"resolve"`
	Commands        []string `json:"commands"`
	PrepareRename   bool     `json:"prepare_rename"`
}

func capabilitiesOf(ctx context.Context, c *lsp.Client, server lsp.Server) (actionCaps, error) {
	var raw string
	if err := c.Session.ActionCapabilities(ctx, &raw, server.ID); err != nil {
		return actionCaps{}, err
	}
	var caps actionCaps
	t := strings.ReplaceAll(raw, `"code_action_kinds":{}`, `"code_action_kinds":[]`)
	t = strings.ReplaceAll(t, `"commands":{}`, `"commands":[]`)
	if err := json.Unmarshal([]byte(t), &caps); err != nil {
		return actionCaps{}, fmt.Errorf("decode capabilities: %w", err)
	}
	return caps, nil
}

func (caps actionCaps) declaresKind(kind string) bool {
	for _, k := range caps.CodeActionKinds {
		if lsp.KindMatches(k, kind) || lsp.KindMatches(kind, k) {
			return true
		}
	}
	return false
}

func (caps actionCaps) hasCommand(name string) bool {
	for _, c := range caps.Commands {
		if c == name {
			return true
		}
	}
	return false
}

func (caps actionCaps) kindsText() string {
	if len(caps.CodeActionKinds) == 0 {
		return "it declares no code action kinds"
	}
	return "it declares the code action kinds " + strings.Join(caps.CodeActionKinds, ", ")
}

// --- apply_code_action ------------------------------------------------------

// ActionQuery is apply_code_action's request: where, and which action (an
// empty Pick only lists them).
type ActionQuery struct {
	File  string
	Range lsp.RangeSpec
	Pick  ActionPick
}

// ActionPlan is the listing at a range and, when one was picked, its
// changeset.
type ActionPlan struct {
	File    string
	Range   lsp.Location
	Actions []lsp.CodeAction
	Chosen  *lsp.CodeAction
	// Changeset is the chosen action's changeset (nothing applied).
	Changeset preview.Changeset
	Outcome   ActionOutcome
	// Diagnostics counts the diagnostics passed in the request's context.
	Diagnostics int
}

// ActionDiagnosticsWait bounds the wait for diagnostics describing the
// current text before code actions are asked for (quickfixes are computed
// from them).
var ActionDiagnosticsWait = 3 * time.Second

// PlanCodeAction lists the code actions at a range and, when q.Pick names
// one, computes its changeset.
func PlanCodeAction(ctx context.Context, c *lsp.Client, q ActionQuery) (ActionPlan, error) {
	doc, err := c.Open(ctx, q.File)
	if err != nil {
		return ActionPlan{}, err
	}
	span, err := c.LocateSpan(ctx, doc, q.Range)
	if err != nil {
		return ActionPlan{}, err
	}
	if err := awaitDiagnostics(ctx, c, doc); err != nil {
		return ActionPlan{}, err
	}
	req := lsp.ActionRequest{Doc: doc, Span: span}
	if q.Pick.Kind != "" {
		req.Only = []string{q.Pick.Kind}
	}
	actions, ndiag, err := c.CodeActions(ctx, req)
	if err != nil {
		return ActionPlan{}, err
	}
	plan := ActionPlan{File: doc.Rel, Range: span.Location(doc), Actions: actions, Diagnostics: ndiag}
	if q.Pick.Empty() {
		return plan, nil
	}
	where := span.Where(doc)
	if q.Pick.Kind != "" && !anyKind(actions, q.Pick.Kind) {
		// Say which kinds do exist here (servers often answer only what
		// context.only asked for).
		all, _, err := c.CodeActions(ctx, lsp.ActionRequest{Doc: doc, Span: span})
		if err != nil {
			return ActionPlan{}, err
		}
		if _, err := PickAction(all, ActionPick{Kind: q.Pick.Kind}, where); err != nil {
			return ActionPlan{}, err
		}
		actions = all
		plan.Actions = all
	}
	chosen, err := PickAction(actions, q.Pick, where)
	if err != nil {
		return ActionPlan{}, err
	}
	cs, outcome, err := ActionChangeset(ctx, c, doc, chosen)
	if err != nil {
		return ActionPlan{}, err
	}
	plan.Chosen, plan.Changeset, plan.Outcome = chosen, cs, outcome
	return plan, nil
}

func anyKind(actions []lsp.CodeAction, kind string) bool {
	for _, a := range actions {
		if lsp.KindMatches(a.Kind, kind) {
			return true
		}
	}
	return false
}

// awaitDiagnostics waits (bounded) until the diagnostics Neovim holds for
// the buffer are its servers' for its current text (lsp.SettleDiagnostics:
// a silent gopls is asked for them, analyzers' findings included, which
// it publishes only after its diagnosticsDelay), so the code actions are
// asked with them as context; past the bound the request goes on with
// what Neovim has.
func awaitDiagnostics(ctx context.Context, c *lsp.Client, doc *lsp.Document) error {
	_, err := c.SettleDiagnostics(ctx, doc, ActionDiagnosticsWait)
	return err
}
