package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

type renameSymbolArgs struct {
	positionArgs
	NewName string `json:"new_name" jsonschema:"the new name: an identifier of the file's language, not a keyword"`
	previewArg
	saveArg
}

type renameSymbolResult struct {
	OldName       string       `json:"old_name"`
	NewName       string       `json:"new_name"`
	Server        string       `json:"server"`
	Location      lsp.Location `json:"location"`
	AffectedFiles []string     `json:"affected_files"`
	*edit.Result
}

func (r renameSymbolResult) Summary() string {
	return changeSummary(fmt.Sprintf("Rename %s -> %s (%s): %d edit(s) in %d file(s).",
		r.OldName, r.NewName, r.Server, r.EditCount, len(r.AffectedFiles)), r.Result)
}

func renameSymbolTool(env *Env) Tool {
	return newTool("rename_symbol", "Rename symbol",
		"Rename the symbol at a position everywhere the language server finds it (textDocument/rename), as one changeset over every affected file. Give the line and the symbol's name on it (or its column). The server first checks the position can be renamed (a keyword, a literal or a standard-library symbol cannot: PRECONDITION_FAILED); new_name must be a valid identifier (INVALID_PARAMETER). By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once, one undo step per buffer.",
		mutating,
		func(ctx context.Context, in renameSymbolArgs) (renameSymbolResult, error) {
			plan, err := refactor.Rename(ctx, env.LSP, refactor.RenameRequest{File: in.File, Target: in.target(), NewName: in.NewName})
			if err != nil {
				return renameSymbolResult{}, err
			}
			r, err := submit(ctx, env, plan.Changeset, in.previewArg, in.saveArg)
			return renameSymbolResult{OldName: plan.OldName, NewName: plan.NewName, Server: plan.Server,
				Location: plan.At, AffectedFiles: plan.Files, Result: r}, err
		})
}
