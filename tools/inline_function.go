package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

type callSiteArg struct {
	File   string `json:"file,omitempty" jsonschema:"file of the call, relative to the workspace root (default: file)"`
	Line   int    `json:"line" jsonschema:"1-based line of the call"`
	Column *int   `json:"column,omitempty" jsonschema:"0-based column (in characters) of the function's name in the call, when the line calls it more than once"`
}

type inlineFunctionArgs struct {
	positionArgs
	CallSite         *callSiteArg `json:"call_site,omitempty" jsonschema:"inline only this call (default: every call in the workspace)"`
	RemoveDefinition string       `json:"remove_definition,omitempty" jsonschema:"auto (default): remove the definition when no use of it remains (a method an interface declares stays; a public Python or TypeScript function, one without a leading underscore or listed in __all__, or exported, stays); always: remove it also when public; never: keep it"`
	previewArg
	saveArg
	guardArg
}

type inlineFunctionResult struct {
	Function          string                `json:"function"`
	Definition        lsp.Location          `json:"definition"`
	Method            string                `json:"method"`
	Replacements      []refactor.InlineSite `json:"replacements"`
	LeftAlone         []refactor.InlineSite `json:"left_alone"`
	DefinitionRemoved bool                  `json:"definition_removed"`
	DefinitionKept    string                `json:"definition_kept,omitempty"`
	AffectedFiles     []string              `json:"affected_files"`
	Incomplete        string                `json:"incomplete,omitempty"`
	*edit.Result
}

func (r inlineFunctionResult) Summary() string {
	s := fmt.Sprintf("Inline %s: %d call(s) replaced in %d file(s), %d use(s) left alone", r.Function, len(r.Replacements), len(r.AffectedFiles), len(r.LeftAlone))
	for _, l := range r.LeftAlone {
		s += fmt.Sprintf("\n  left alone %s:%d: %s", l.File, l.Line, l.Reason)
	}
	if r.DefinitionRemoved {
		s += "\nThe definition is removed."
	} else if r.DefinitionKept != "" {
		s += "\nThe definition stays: " + r.DefinitionKept + "."
	}
	return changeSummary(s+"\n("+r.Method+")", r.Result)
}

func inlineFunctionTool(env *Env) Tool {
	return newTool("inline_function", "Inline function",
		"Replace the calls of a function or method by its body, across the workspace or at one call_site, as ONE changeset. Point at the function (its definition or a call: line plus symbol or column). Go: gopls's refactor.inline.call, call site by call site on a scratch copy of the module (parameters bound and side effects kept as gopls does). Python and TypeScript/JavaScript: functions whose body is a single return expression, inlined from the syntax (arguments with side effects bound to locals first); others are UNSUPPORTED with the reason. A recursive function is refused. Reports replacements, affected_files and every use left alone with why (recursion, used as a value, not supported for that call); remove_definition=auto removes the definition when no use remains. By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once, one undo step per buffer.",
		mutating,
		func(ctx context.Context, in inlineFunctionArgs) (inlineFunctionResult, error) {
			req := refactor.InlineRequest{File: in.File, Target: in.target(), RemoveDefinition: in.RemoveDefinition}
			if in.CallSite != nil {
				req.CallSite = &refactor.CallSiteSpec{File: in.CallSite.File, Line: in.CallSite.Line, Column: in.CallSite.Column}
			}
			plan, err := refactor.InlineFunction(ctx, env.LSP, req)
			if err != nil {
				return inlineFunctionResult{}, err
			}
			out := inlineFunctionResult{Function: plan.Function, Definition: plan.Definition, Method: plan.Method,
				Replacements: plan.Replacements, LeftAlone: plan.LeftAlone, DefinitionRemoved: plan.DefinitionRemoved,
				DefinitionKept: plan.DefinitionKept, AffectedFiles: plan.AffectedFiles, Incomplete: plan.Incomplete}
			out.Result, err = submit(ctx, env, plan.Changeset, in.previewArg, in.saveArg, &in.guardArg)
			return out, err
		})
}
