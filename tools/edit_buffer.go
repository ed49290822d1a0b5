package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/edit"
)

type lineEditArg struct {
	LineStart int    `json:"line_start" jsonschema:"first line to replace, 1-based"`
	LineEnd   int    `json:"line_end" jsonschema:"last line to replace, inclusive; line_start-1 inserts before line_start without replacing anything (line_start may be line_count+1 to append)"`
	NewText   string `json:"new_text" jsonschema:"the new lines; a trailing newline is optional, \"\" deletes the lines"`
}

type editBufferArgs struct {
	fileArg
	Edits []lineEditArg `json:"edits" jsonschema:"line edits, all numbered against the file as it is now; they must not overlap"`
	previewArg
	Save      bool `json:"save,omitempty" jsonschema:"write the file after applying (default false); a buffer with unsaved changes nvbridge did not make is never saved"`
	NoAutocmd bool `json:"noautocmd,omitempty" jsonschema:"save without running the user's write autocmds (BufWritePre formatters); default false: they run, and when they change what is written the answer has written_diff"`
}

func editBufferTool(env *Env) Tool {
	return newTool("edit_buffer", "Edit lines",
		"Replace, insert or delete whole lines of a file as Neovim holds it (unsaved changes included). Each edit replaces lines line_start..line_end (1-based, inclusive) with new_text; line_end = line_start-1 inserts. By default nothing changes: you get a unified diff and a changeset_id to pass to apply_changeset; preview=false applies at once, as one undo step, and returns buffer_state. A file that does not exist is created by inserting at line 1.",
		mutating,
		func(ctx context.Context, in editBufferArgs) (changesetResult, error) {
			edits := make([]edit.LineEdit, len(in.Edits))
			for i, e := range in.Edits {
				edits[i] = edit.LineEdit{LineStart: e.LineStart, LineEnd: e.LineEnd, NewText: e.NewText}
			}
			r, err := env.Edit.EditLines(ctx, in.File, edits, edit.Options{Preview: in.preview(), Save: in.Save, Check: in.check(), Require: in.require(), NoAutocmd: in.NoAutocmd, Tool: "edit_buffer"})
			return singleFileResult(r), err
		})
}
