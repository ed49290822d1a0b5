package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/edit"
)

type undoArgs struct{ fileArg }

type undoResult struct{ edit.UndoResult }

func (r undoResult) Summary() string {
	return bufferStateSummary("undid the last nvbridge change in", r.BufferState) +
		fmt.Sprintf("; %d earlier nvbridge change(s) can still be undone", r.Remaining)
}

func undoTool(env *Env) Tool {
	return newTool("undo", "Undo nvbridge change",
		"Undo the last change nvbridge made in a file's buffer (one tool edit = one undo step). Refuses with CONFLICT when the buffer was edited after that change, so a user's later work is never undone.",
		mutating,
		func(ctx context.Context, in undoArgs) (undoResult, error) {
			r, err := env.Edit.Undo(ctx, in.File)
			return undoResult{r}, err
		})
}
