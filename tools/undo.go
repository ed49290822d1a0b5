package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
)

type undoArgs struct {
	File        string `json:"file,omitempty" jsonschema:"path of the file, relative to the workspace root: undo the last nvbridge change in its buffer"`
	ChangesetID string `json:"changeset_id,omitempty" jsonschema:"instead of file: the applied_changeset_id an apply returned; undoes that whole changeset in every buffer it changed, all or nothing"`
}

type undoResult struct {
	edit.UndoResult
	Changeset *edit.UndoChangesetResult `json:"changeset,omitempty"`
}

func (r undoResult) Summary() string {
	if r.Changeset != nil {
		var names []string
		for _, f := range r.Changeset.Files {
			names = append(names, f.File)
		}
		return fmt.Sprintf("undid changeset %s in %d buffer(s): %s", r.Changeset.ChangesetID, len(names), strings.Join(names, ", "))
	}
	return bufferStateSummary("undid the last nvbridge change in", r.BufferState) +
		fmt.Sprintf("; %d earlier nvbridge change(s) can still be undone", r.Remaining)
}

func undoTool(env *Env) Tool {
	return newTool("undo", "Undo nvbridge change",
		"Undo the last change nvbridge made in a file's buffer (one tool edit = one undo step), or with changeset_id a whole applied changeset across its buffers. Refuses with CONFLICT when a buffer was edited after that change, so a user's later work is never undone. Every window keeps its cursor and view.",
		mutating,
		func(ctx context.Context, in undoArgs) (undoResult, error) {
			switch {
			case in.ChangesetID != "" && in.File != "":
				return undoResult{}, apierr.New(apierr.InvalidParameter, "pass file or changeset_id, not both", "undo one file's last change (file) or a whole changeset (changeset_id)")
			case in.ChangesetID != "":
				r, err := env.Edit.UndoChangeset(ctx, in.ChangesetID)
				if err != nil {
					return undoResult{}, err
				}
				return undoResult{Changeset: &r}, nil
			case in.File == "":
				return undoResult{}, apierr.New(apierr.InvalidParameter, "`file` or `changeset_id` is required", "name the file whose last nvbridge change to undo, or the changeset")
			}
			r, err := env.Edit.Undo(ctx, in.File)
			return undoResult{UndoResult: r}, err
		})
}
