package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/edit"
)

type discardBufferArgs struct {
	fileArg
	Force bool `json:"force,omitempty" jsonschema:"also throw away unsaved changes nvbridge did not make (the user's own edits in an attached Neovim); default false: CONFLICT"`
}

type discardResult struct{ edit.DiscardResult }

func (r discardResult) Summary() string {
	if !r.Discarded {
		return bufferStateSummary("nothing to discard in", r.BufferState)
	}
	return bufferStateSummary("reverted to the disk's content:", r.BufferState)
}

func discardBufferTool(env *Env) Tool {
	return newTool("discard_buffer", "Discard unsaved changes",
		"Throw away a file's unsaved changes in Neovim and reload it from disk (:edit!). A pending rename is undone; a buffer whose file does not exist is closed. Refuses with CONFLICT when the buffer holds changes nvbridge did not make (the user's own), unless force.",
		hints{destructive: true},
		func(ctx context.Context, in discardBufferArgs) (discardResult, error) {
			r, err := env.Edit.DiscardBuffer(ctx, in.File, in.Force)
			return discardResult{r}, err
		})
}
