package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/lsp"
)

type findImplementationsArgs struct {
	positionArgs
}

type implementationsResult struct{ lsp.LocationsResult }

func (r implementationsResult) Summary() string {
	return summarizeLocations(r.LocationsResult, "implementation(s)")
}

func findImplementationsTool(env *Env) Tool {
	return newTool("find_implementations", "Find implementations",
		"Find the implementations of the interface, abstract method or type at a position (textDocument/implementation): concrete types implementing an interface, methods implementing an interface method. Same location shape as find_definition. Fails with UNSUPPORTED, naming the server and what it offers, when the language server has no implementation search (pyright).",
		readOnly,
		func(ctx context.Context, in findImplementationsArgs) (implementationsResult, error) {
			r, err := env.LSP.Implementations(ctx, in.File, in.target())
			return implementationsResult{r}, err
		})
}
