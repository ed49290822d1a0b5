package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/refactor"
)

type moveSymbolArgs struct {
	positionArgs
	TargetFile string `json:"target_file" jsonschema:"the file to move the declaration to, relative to the workspace root; created when missing; in the same package/module or another one"`
	previewArg
	saveArg
	guardArg
}

type moveSymbolResult struct {
	Symbol string `json:"symbol"`
	// Moved lists the declarations moved ("func Area", "type Square",
	// "method Square.Area").
	Moved         []string                `json:"moved"`
	From          string                  `json:"from"`
	To            string                  `json:"to"`
	Created       bool                    `json:"created"`
	Server        string                  `json:"server"`
	How           string                  `json:"how"`
	References    int                     `json:"references_updated"`
	ImportUpdates []refactor.ImportUpdate `json:"import_updates"`
	AffectedFiles []string                `json:"affected_files"`
	// LeftBehind: uses of the name in files the move did not touch that
	// also name the source module (files the server does not see).
	LeftBehind      []refactor.LeftBehind `json:"left_behind"`
	LeftBehindTotal int                   `json:"left_behind_total,omitempty"`
	*edit.Result
}

func (r moveSymbolResult) Summary() string {
	created := ""
	if r.Created {
		created = " (created)"
	}
	s := fmt.Sprintf("Move %s from %s to %s%s with %s: %s; %d reference(s) and %d import(s) updated in %d file(s).",
		r.Symbol, r.From, r.To, created, r.How, strings.Join(r.Moved, ", "), r.References, len(r.ImportUpdates), len(r.AffectedFiles))
	return changeSummary(s+leftBehindWarning(r.Symbol, r.LeftBehind, r.LeftBehindTotal), r.Result)
}

func moveSymbolTool(env *Env) Tool {
	return newTool("move_symbol", "Move symbol",
		"Move a top-level function, type (with its method set in Go), class, constant or variable, with its doc comment, to another file (created when missing), in the same package/module or another one, and update every import and qualified reference across the workspace; imports are organized in every touched file. Go: from gopls's references (an unexported name still used from its package, a method alone, or a move that would create an import cycle is refused with PRECONDITION_FAILED or UNSUPPORTED); TypeScript/JavaScript: tsserver's own Move to file; Python: pyright's references and the file's syntax. Reports import_updates [{file, old, new}]. By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once, one undo step per buffer.",
		mutating,
		func(ctx context.Context, in moveSymbolArgs) (moveSymbolResult, error) {
			plan, err := refactor.Move(ctx, env.LSP, refactor.MoveRequest{File: in.File, Target: in.target(), TargetFile: in.TargetFile})
			if err != nil {
				return moveSymbolResult{}, err
			}
			r, err := submit(ctx, env, plan.Changeset, in.previewArg, in.saveArg, &in.guardArg)
			return moveSymbolResult{Symbol: plan.Symbol, Moved: plan.Moved, From: plan.From, To: plan.To, Created: plan.Created,
				Server: plan.Server, How: plan.How, References: plan.References, ImportUpdates: plan.ImportUpdates,
				AffectedFiles: plan.Files, LeftBehind: nonNilLeftBehind(plan.LeftBehind), LeftBehindTotal: plan.LeftBehindTotal, Result: r}, err
		})
}
