package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/edit"
)

type getBufferDiffArgs struct{ fileArg }

type bufferDiffResult struct{ edit.BufferDiff }

func getBufferDiffTool(env *Env) Tool {
	return newTool("get_buffer_diff", "Unsaved changes",
		"Show a file's unsaved changes in Neovim as a unified diff against the file on disk (an empty diff when there are none or the file is not open).",
		readOnly,
		func(ctx context.Context, in getBufferDiffArgs) (bufferDiffResult, error) {
			d, err := env.Edit.Diff(ctx, in.File)
			return bufferDiffResult{d}, err
		})
}
