package tools

import (
	"context"
)

type discardChangesetArgs struct {
	ChangesetID string `json:"changeset_id" jsonschema:"the id a preview returned"`
}

type discardChangesetResult struct {
	ChangesetID string `json:"changeset_id"`
	Discarded   bool   `json:"discarded"`
}

func (r discardChangesetResult) Summary() string { return "discarded changeset " + r.ChangesetID }

func discardChangesetTool(env *Env) Tool {
	return newTool("discard_changeset", "Discard changeset",
		"Forget a previewed changeset (nothing in Neovim or on disk changes).",
		hints{},
		func(ctx context.Context, in discardChangesetArgs) (discardChangesetResult, error) {
			if err := env.Edit.Discard(in.ChangesetID); err != nil {
				return discardChangesetResult{}, err
			}
			return discardChangesetResult{ChangesetID: in.ChangesetID, Discarded: true}, nil
		})
}
