package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/refactor"
)

func extractVariableTool(env *Env) Tool {
	return newTool("extract_variable", "Extract variable",
		"Replace an expression (give its exact range: start_line, start_column, end_line, end_column) with a new variable or constant holding it, with the language server's refactor.extract.variable or .constant action; name names it (else the server's choice, e.g. newVar), renamed in the same changeset. UNSUPPORTED, naming the server and what it offers, when it has no such refactoring (pyright). By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once.",
		mutating,
		func(ctx context.Context, in extractArgs) (extractResult, error) {
			return runExtract(ctx, env, in, refactor.ExtractVariable)
		})
}
