package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/refactor"
)

type signatureParamArg struct {
	Name    string `json:"name" jsonschema:"the parameter's name in the new list"`
	Type    string `json:"type,omitempty" jsonschema:"its type: required for a parameter added to a Go function, optional elsewhere; for a kept parameter, a new type"`
	Default string `json:"default,omitempty" jsonschema:"for an added parameter (required): the argument every call site passes, an expression of the file's language (e.g. 0, \"EUR\", None, undefined)"`
	From    string `json:"from,omitempty" jsonschema:"the current parameter this one is (kept, renamed or moved); leave out to add a parameter. An unnamed Go parameter is #N (1-based)"`
}

type changeSignatureArgs struct {
	positionArgs
	Params           []signatureParamArg `json:"params" jsonschema:"the complete new parameter list, in order (without Go receivers or Python self/cls); a current parameter not named by any from is removed"`
	AllowSideEffects bool                `json:"allow_side_effects,omitempty" jsonschema:"let call sites lose (or reorder) arguments with side effects such as calls; default false: such a change is refused (PRECONDITION_FAILED) naming the call sites"`
	AllowLeftAlone   bool                `json:"allow_left_alone,omitempty" jsonschema:"let a change that moves, adds or removes parameters go ahead although places using the function cannot be rewritten (used as a value, spread or multi-value calls: they keep the old arguments); default false: such a change is refused (PRECONDITION_FAILED) naming them"`
	previewArg
	saveArg
	guardArg
}

type changeSignatureResult struct {
	Function      string                   `json:"function"`
	Server        string                   `json:"server"`
	OldSignature  string                   `json:"old_signature"`
	NewSignature  string                   `json:"new_signature"`
	Declarations  []refactor.SignatureSite `json:"declarations_updated"`
	CallSites     []refactor.SignatureSite `json:"call_sites_updated"`
	LeftAlone     []refactor.SignatureSite `json:"left_alone"`
	AffectedFiles []string                 `json:"affected_files"`
	Engine        string                   `json:"engine"`
	EngineNote    string                   `json:"engine_note,omitempty"`
	// LeftBehind: uses of the name in files the change did not touch.
	LeftBehind      []refactor.LeftBehind `json:"left_behind"`
	LeftBehindTotal int                   `json:"left_behind_total,omitempty"`
	*edit.Result
}

func (r changeSignatureResult) Summary() string {
	s := fmt.Sprintf("Change signature (%s, by %s): %s -> %s; %d declaration(s) and %d call site(s) in %d file(s).",
		r.Server, r.Engine, r.OldSignature, r.NewSignature, len(r.Declarations), len(r.CallSites), len(r.AffectedFiles))
	if r.EngineNote != "" {
		s += " (" + r.EngineNote + ")"
	}
	for _, l := range r.LeftAlone {
		s += fmt.Sprintf("\nLeft alone: %s:%d: %s", l.File, l.Line, l.Reason)
	}
	return changeSummary(s+leftBehindWarning(r.Function, r.LeftBehind, r.LeftBehindTotal), r.Result)
}

func changeSignatureTool(env *Env) Tool {
	return newTool("change_signature", "Change a function's signature",
		"Give the function or method at a position (its declaration or a call) a new parameter list, updating the declaration, every call site the language server finds, Go interface methods and their other implementations, and overrides, as one changeset. Where gopls has the rewrite (removing one unused parameter, swapping two neighbours) its code action computes the edit; otherwise the server's references plus the syntax (go/parser, tree-sitter) do, and engine says which. params is the whole new list: {name, from} keeps, renames or moves a current parameter; {name, type?, default} adds one (default is the argument every call site gets: required, INVALID_PARAMETER without it); a parameter not named by any from is removed (PRECONDITION_FAILED when its body still uses it, or when a call site passes an argument with side effects for it, unless allow_side_effects). Places that cannot be rewritten (used as a value, spread arguments) are left alone and listed with the reason; when the change moves, adds or removes parameters they would keep the old arguments, so it is refused (PRECONDITION_FAILED naming them) unless allow_left_alone. By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once, one undo step per buffer.",
		mutating,
		func(ctx context.Context, in changeSignatureArgs) (changeSignatureResult, error) {
			req := refactor.ChangeSignatureRequest{File: in.File, Target: in.target(), AllowSideEffects: in.AllowSideEffects, AllowLeftAlone: in.AllowLeftAlone}
			for _, p := range in.Params {
				req.Params = append(req.Params, refactor.SignatureParam{Name: p.Name, Type: p.Type, Default: p.Default, From: p.From})
			}
			plan, err := refactor.ChangeSignature(ctx, env.LSP, req)
			if err != nil {
				return changeSignatureResult{}, err
			}
			r, err := submit(ctx, env, plan.Changeset, in.previewArg, in.saveArg, &in.guardArg)
			return changeSignatureResult{Function: plan.Function, Server: plan.Server, OldSignature: plan.OldSignature,
				NewSignature: plan.NewSignature, Declarations: plan.Declarations, CallSites: plan.CallSites,
				LeftAlone: plan.LeftAlone, AffectedFiles: plan.Files, Engine: plan.Engine, EngineNote: plan.EngineNote,
				LeftBehind: nonNilLeftBehind(plan.LeftBehind), LeftBehindTotal: plan.LeftBehindTotal, Result: r}, err
		})
}
