package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/edit"
)

type applyPatchArgs struct {
	Patch string `json:"patch" jsonschema:"a unified diff over one or more files, as git diff or diff -u write it (paths relative to the workspace root, a/ b/ prefixes allowed; new, deleted and renamed files too)"`
	previewArg
	Save bool `json:"save,omitempty" jsonschema:"write the touched files after applying (default false); a buffer with unsaved changes nvbridge did not make is never saved"`
}

func applyPatchTool(env *Env) Tool {
	return newTool("apply_patch", "Apply patch",
		"Apply a unified diff to the files as Neovim holds them (the current buffers, unsaved changes included, not the disk) as one changeset: every hunk must match exactly (CONFLICT names the hunk and line otherwise) and nothing changes unless all do. By default it is only checked: you get the normalised diff and a changeset_id for apply_changeset; preview=false applies at once, one undo step per buffer.",
		destructive, // a patch may delete files
		func(ctx context.Context, in applyPatchArgs) (changesetResult, error) {
			r, err := env.Edit.ApplyPatch(ctx, in.Patch, edit.Options{Preview: in.preview(), Save: in.Save, Check: in.check(), Require: in.require()})
			return changesetResult{Result: r}, err
		})
}
