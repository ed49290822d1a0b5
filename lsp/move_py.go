package lsp

import (
	"context"

	"github.com/nvbridge/nvbridge/apierr"
)

func (c *Client) movePython(ctx context.Context, doc *Document, pt Point, target string) (MovePlan, error) {
	return MovePlan{}, apierr.Errorf(apierr.Unsupported, "move the code with edit_buffer", "move_symbol does not support Python yet (%s)", doc.Rel)
}
