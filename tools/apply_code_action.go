package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

type applyCodeActionArgs struct {
	positionArgs
	EndLine    int    `json:"end_line,omitempty" jsonschema:"last line of a range (1-based, inclusive); omit to ask at the position"`
	EndColumn  *int   `json:"end_column,omitempty" jsonschema:"0-based column (in characters) just past the range's end; default: the end of end_line"`
	ActionKind string `json:"action_kind,omitempty" jsonschema:"apply the one action of this kind; kinds are hierarchical: refactor matches refactor.extract.function (quickfix, refactor, refactor.extract, refactor.inline, refactor.rewrite, source, source.organizeImports, ...)"`
	Title      string `json:"title,omitempty" jsonschema:"apply the action with this title (as listed)"`
	Index      *int   `json:"index,omitempty" jsonschema:"apply the action at this 1-based index of the listing made with the same position, range and action_kind"`
	previewArg
	saveArg
	guardArg
}

type codeActionResult struct {
	File  string       `json:"file"`
	Range lsp.Location `json:"range"`
	// Actions is every action offered (with action_kind: of that kind).
	Actions              []lsp.CodeAction `json:"actions"`
	DiagnosticsInContext int              `json:"diagnostics_in_context"`
	Chosen               *lsp.CodeAction  `json:"chosen,omitempty"`
	Resolved             bool             `json:"resolved,omitempty"`
	RanCommand           string           `json:"ran_command,omitempty"`
	CapturedEdits        int              `json:"captured_edits,omitempty"`
	Note                 string           `json:"note,omitempty"`
	*edit.Result
}

func (r codeActionResult) Summary() string {
	var b strings.Builder
	if r.Chosen == nil {
		fmt.Fprintf(&b, "%d code action(s) at %s (%d diagnostic(s) in context); pass index, title or action_kind to apply one:\n",
			len(r.Actions), rangeText(r.Range), r.DiagnosticsInContext)
		for _, a := range r.Actions {
			fmt.Fprintf(&b, "  %d. %s [%s, %s]", a.Index, a.Title, a.Kind, a.Server)
			switch {
			case a.Disabled != "":
				fmt.Fprintf(&b, " disabled: %s", a.Disabled)
			case a.NotRunnable != "":
				fmt.Fprintf(&b, " not runnable: %s", a.NotRunnable)
			case a.IsPreferred:
				b.WriteString(" (preferred)")
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Code action %q (%s, %s) at %s", r.Chosen.Title, r.Chosen.Kind, r.Chosen.Server, rangeText(r.Range))
	if r.RanCommand != "" {
		fmt.Fprintf(&b, "; ran %s and captured %d edit(s)", r.RanCommand, r.CapturedEdits)
	}
	b.WriteString(".")
	if r.Note != "" {
		b.WriteString(" " + r.Note)
	}
	return changeSummary(b.String(), r.Result)
}

func applyCodeActionTool(env *Env) Tool {
	return newTool("apply_code_action", "Code actions",
		"List the language servers' code actions at a position or range (title, kind, is_preferred, disabled reason, needs_resolve, has_command, not_runnable), or apply one: by index, by title, or by action_kind when exactly one action has that kind. The diagnostics on the range are passed to the server, lazily computed edits are resolved, and an action that runs a server command has the edits the server sends back captured into the same changeset instead of applied behind your back. Actions needing interaction nvbridge cannot give are flagged and never run. By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once.",
		mutating,
		func(ctx context.Context, in applyCodeActionArgs) (codeActionResult, error) {
			plan, err := refactor.PlanCodeAction(ctx, env.LSP, refactor.ActionQuery{
				File:  in.File,
				Range: lsp.RangeSpec{Start: in.target(), EndLine: in.EndLine, EndColumn: in.EndColumn},
				Pick:  refactor.ActionPick{Index: in.Index, Title: in.Title, Kind: in.ActionKind},
			})
			if err != nil {
				return codeActionResult{}, err
			}
			out := codeActionResult{File: plan.File, Range: plan.Range, Actions: plan.Actions, DiagnosticsInContext: plan.Diagnostics,
				Chosen: plan.Chosen, Resolved: plan.Outcome.Resolved, RanCommand: plan.Outcome.RanCommand, CapturedEdits: plan.Outcome.Captured}
			if out.Actions == nil {
				out.Actions = []lsp.CodeAction{}
			}
			if plan.Chosen == nil {
				return out, nil
			}
			if c := plan.Outcome.SkippedCommand; c != "" {
				out.Note = "The action's edit is included; its follow-up command " + c + " was not run (nvbridge cannot preview its effects)."
			}
			if len(plan.Changeset.Files) == 0 {
				out.Note = strings.TrimSpace(out.Note + " The action produced no edit; nothing to change.")
				return out, nil
			}
			out.Result, err = submit(ctx, env, plan.Changeset, in.previewArg, in.saveArg, &in.guardArg)
			return out, err
		})
}
