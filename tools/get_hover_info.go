package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/lsp"
)

type getHoverInfoArgs struct {
	positionArgs
}

type hoverResult struct{ lsp.HoverResult }

func (r hoverResult) Summary() string {
	if !r.Found {
		return fmt.Sprintf("no hover information at %s (%s); point at an identifier", r.From, r.Server)
	}
	if r.Withheld != "" {
		return "hover text withheld: " + r.Withheld
	}
	return r.Contents
}

func getHoverInfoTool(env *Env) Tool {
	return newTool("get_hover_info", "Hover info",
		"Get what the language server shows on hover for the symbol at a position (textDocument/hover): its type or signature and documentation, as markdown or plain text (kind), and the range it describes. found is false when the server has nothing to say there. Text about a symbol declared in a sensitive file is withheld (sensitive: true; withheld says where and why).",
		readOnly,
		func(ctx context.Context, in getHoverInfoArgs) (hoverResult, error) {
			r, err := env.LSP.Hover(ctx, in.File, in.target())
			return hoverResult{r}, err
		})
}
