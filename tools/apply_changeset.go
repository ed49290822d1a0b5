package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/edit"
)

type applyChangesetArgs struct {
	ChangesetID  string `json:"changeset_id" jsonschema:"the id a preview returned (ids expire after 30 minutes; the last 64 are kept)"`
	Save         bool   `json:"save,omitempty" jsonschema:"write the touched files after applying (default false): all of them or none (PRECONDITION_FAILED, nothing changed, when one holds unsaved changes nvbridge did not make or changed on disk)"`
	NoAutocmd    bool   `json:"noautocmd,omitempty" jsonschema:"save without running the user's write autocmds (BufWritePre formatters); default false: they run, and when they change what is written the answer has written_diff"`
	AcceptErrors bool   `json:"accept_errors,omitempty" jsonschema:"apply a refactoring's change (rename, move, inline, change_signature, extract, code action, organize imports) even when it introduces errors; by default such a change is checked first and refused with PRECONDITION_FAILED naming each error, nothing changed"`
	Require      string `json:"require,omitempty" jsonschema:"no_new_errors: check the change first (as check does, on a copy the user never sees) and apply it only when it introduces no error; otherwise nothing changes and the answer (PRECONDITION_FAILED) lists the errors with their quick fixes (details.diagnostics_delta)"`
}

func applyChangesetTool(env *Env) Tool {
	return newTool("apply_changeset", "Apply changeset",
		"Apply exactly what a preview showed (edit_buffer, replace_in_buffer, apply_patch, rename and refactoring tools), atomically in one step: CONFLICT, with nothing changed, when any file changed since the preview. Each buffer gets one undo step (the undo tool or u in Neovim takes it back); language servers see the change at once. File deletions in the changeset reach the disk at once; other changes only when saved.",
		destructive, // a changeset may delete or overwrite files
		func(ctx context.Context, in applyChangesetArgs) (changesetResult, error) {
			r, err := env.Edit.ApplyStoredWith(ctx, in.ChangesetID, edit.Options{Save: in.Save, NoAutocmd: in.NoAutocmd, Tool: "apply_changeset", Require: in.Require, AcceptErrors: in.AcceptErrors})
			return changesetResult{Result: r}, err
		})
}
