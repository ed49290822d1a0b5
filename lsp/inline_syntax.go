package lsp

import (
	"context"

	"github.com/nvbridge/nvbridge/apierr"
)

func hasSyntaxInliner(ts string) bool { return ts == "python" || ts == "typescript" || ts == "tsx" }

func (c *Client) inlineSyntax(ctx context.Context, st *inlineState) error {
	return apierr.New(apierr.Unsupported, "not yet", "todo")
}
