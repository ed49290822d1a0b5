package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/edit"
)

type replaceInBufferArgs struct {
	fileArg
	Old string `json:"old" jsonschema:"the exact text to replace (may span lines), or a Go RE2 regular expression when regex is true"`
	New string `json:"new" jsonschema:"the replacement; with regex, $1 or ${name} insert groups"`
	previewArg
	Count *int `json:"count,omitempty" jsonschema:"how many matches you expect: a different number is an error (count 1 with several matches is AMBIGUOUS); omit to replace every match"`
	Regex bool `json:"regex,omitempty" jsonschema:"treat old as a Go RE2 regular expression over the whole text (lines joined by \\n; use (?m) for ^ and $ per line)"`
}

type replaceResult struct {
	edit.ReplaceResult
	BufferState *bufferState `json:"buffer_state,omitempty"`
}

func (r replaceResult) Summary() string { return r.ReplaceResult.Summary() }

func replaceInBufferTool(env *Env) Tool {
	return newTool("replace_in_buffer", "Replace text",
		"Replace text in a file as Neovim holds it (unsaved changes included): every occurrence of old, or exactly count of them. Returns matches_found and matches_replaced with the matches' positions. By default nothing changes: you get a unified diff and a changeset_id for apply_changeset; preview=false applies at once (one undo step).",
		mutating,
		func(ctx context.Context, in replaceInBufferArgs) (replaceResult, error) {
			r, err := env.Edit.Replace(ctx, in.File, edit.Replacement{Old: in.Old, New: in.New, Count: in.Count, Regex: in.Regex},
				edit.Options{Preview: in.preview(), Check: in.check(), Require: in.require()})
			return replaceResult{ReplaceResult: r, BufferState: singleFileResult(r.Result).BufferState}, err
		})
}
