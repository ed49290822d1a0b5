package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/edit"
)

type saveBufferArgs struct {
	fileArg
	Force     bool `json:"force,omitempty" jsonschema:"write even when the file changed on disk since Neovim loaded it, overwriting that change (default false)"`
	NoAutocmd bool `json:"noautocmd,omitempty" jsonschema:"save without running the user's write autocmds (BufWritePre formatters); default false: they run, and when they change what is written the answer has written_diff"`
}

type saveResult struct{ edit.SaveResult }

func (r saveResult) Summary() string {
	if !r.Saved {
		return bufferStateSummary("did not save", r.BufferState)
	}
	return bufferStateSummary("saved", r.BufferState)
}

func saveBufferTool(env *Env) Tool {
	return newTool("save_buffer", "Save buffer",
		"Write a file's buffer to disk (a pending rename moves the file). Refuses with CONFLICT when the file changed on disk since Neovim loaded it, unless force.",
		destructive, // force overwrites a file changed on disk
		func(ctx context.Context, in saveBufferArgs) (saveResult, error) {
			r, err := env.Edit.SaveWith(ctx, in.File, in.Force, in.NoAutocmd)
			return saveResult{r}, err
		})
}
