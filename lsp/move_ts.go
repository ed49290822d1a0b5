package lsp

import (
	"context"

	"github.com/nvbridge/nvbridge/apierr"
)

func (c *Client) moveTS(ctx context.Context, doc *Document, pt Point, target string) (MovePlan, error) {
	return MovePlan{}, apierr.Errorf(apierr.Unsupported, "move the code with edit_buffer", "move_symbol does not support TypeScript yet (%s)", doc.Rel)
}
