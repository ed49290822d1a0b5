package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/edit"
)

type revertAllArgs struct {
	DryRun bool `json:"dry_run,omitempty" jsonschema:"only say what would be reverted (the changesets and the diff), changing nothing and asking nobody"`
}

type revertAllResult struct{ edit.RevertResult }

func (r revertAllResult) Summary() string {
	var b strings.Builder
	switch {
	case len(r.Undone) == 0:
		b.WriteString("nothing to revert: no changeset applied in this Neovim session can still be undone\n")
	case r.DryRun:
		fmt.Fprintf(&b, "would revert %d changeset(s), newest first: %s (nothing was changed)\n", len(r.Undone), strings.Join(r.Undone, ", "))
	default:
		fmt.Fprintf(&b, "reverted %d changeset(s), newest first: %s\n", len(r.Undone), strings.Join(r.Undone, ", "))
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "  left %s: %s\n", s.ChangesetID, s.Reason)
	}
	b.WriteString(r.Diff)
	return b.String()
}

func revertAllChangesTool(env *Env) Tool {
	return newTool("revert_all_changes", "Revert every agent change",
		"Undo every changeset agents applied in this Neovim session, newest first, each in every buffer it changed (as undo with changeset_id does), except those the user edited after (and, in the same buffer, those before them): those are left and listed with why. The buffers are taken back; a change that was saved stays on disk until they are saved. Every window keeps its cursor and view. Returns the changesets undone and the diff of what was taken back; dry_run only says what it would revert.",
		mutating,
		func(ctx context.Context, in revertAllArgs) (revertAllResult, error) {
			r, err := env.Edit.RevertAll(ctx, in.DryRun)
			return revertAllResult{r}, err
		})
}
