package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/edit"
)

type getChangesetDiffArgs struct {
	ChangesetID string `json:"changeset_id" jsonschema:"the id a preview returned"`
	Offset      int    `json:"offset,omitempty" jsonschema:"where the page starts, in bytes of the whole diff: the preview's diff_cut.next_offset, then each page's next_offset (default 0: from the start)"`
}

func getChangesetDiffTool(env *Env) Tool {
	return newTool("get_changeset_diff", "Read a preview's diff",
		"Read a previewed changeset's unified diff page by page. A preview's answer carries only the start of a large diff (diff_cut: total_bytes, next_offset); this reads the rest, at most 64 KiB a page, ending where a file, a hunk or a line starts (a line longer than half a page is cut within). Nothing changes.",
		readOnly,
		func(ctx context.Context, in getChangesetDiffArgs) (edit.DiffPage, error) {
			return env.Edit.DiffPage(in.ChangesetID, in.Offset)
		})
}
