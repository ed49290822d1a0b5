package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
	"github.com/nvbridge/nvbridge/workspace"
)

type renameSymbolArgs struct {
	positionArgs
	NewName string `json:"new_name" jsonschema:"the new name: an identifier of the file's language, not a keyword"`
	previewArg
	saveArg
	guardArg
}

type renameSymbolResult struct {
	OldName       string       `json:"old_name"`
	NewName       string       `json:"new_name"`
	Server        string       `json:"server"`
	Location      lsp.Location `json:"location"`
	AffectedFiles []string     `json:"affected_files"`
	// LeftBehind: where the old name still occurs as an identifier after
	// the rename (files the server does not see, such as tests outside its
	// include): check each and edit it, or say why it is another symbol.
	LeftBehind      []refactor.LeftBehind `json:"left_behind"`
	LeftBehindTotal int                   `json:"left_behind_total,omitempty"`
	// MacrosRenamed: C/C++ macros whose body names the symbol, renamed too.
	MacrosRenamed []string `json:"macros_renamed,omitempty"`
	*edit.Result
}

func (r renameSymbolResult) Summary() string {
	s := fmt.Sprintf("Rename %s -> %s (%s): %d edit(s) in %d file(s).",
		r.OldName, r.NewName, r.Server, r.EditCount, len(r.AffectedFiles))
	if len(r.MacrosRenamed) > 0 {
		s += fmt.Sprintf(" Renamed in macro bodies: %s.", strings.Join(r.MacrosRenamed, ", "))
	}
	return changeSummary(s+leftBehindWarning(r.OldName, r.LeftBehind, r.LeftBehindTotal), r.Result)
}

// leftBehindWarning is the summary's warning about the places a change did
// not touch where the old name still occurs.
func leftBehindWarning(name string, lb []refactor.LeftBehind, total int) string {
	if total == 0 {
		return ""
	}
	var at []string
	for i, l := range lb {
		if i == 5 {
			at = append(at, "...")
			break
		}
		at = append(at, fmt.Sprintf("%s:%d", l.File, l.Line))
	}
	return fmt.Sprintf(" WARNING: %s still occurs %d time(s) where the change did not reach (%s; see left_behind): the server may not see those files, or they name another symbol.",
		name, total, strings.Join(at, ", "))
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
			r, err := submit(workspace.WithResolved(ctx, plan.Resolved), env, plan.Changeset, in.previewArg, in.saveArg, &in.guardArg)
			return renameSymbolResult{OldName: plan.OldName, NewName: plan.NewName, Server: plan.Server,
				Location: plan.At, AffectedFiles: plan.Files, LeftBehind: nonNilLeftBehind(plan.LeftBehind), LeftBehindTotal: plan.LeftBehindTotal,
				MacrosRenamed: plan.MacrosRenamed, Result: r}, err
		})
}

func nonNilLeftBehind(lb []refactor.LeftBehind) []refactor.LeftBehind {
	if lb == nil {
		return []refactor.LeftBehind{}
	}
	return lb
}
