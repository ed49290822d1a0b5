package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/edit"
)

type checkChangesetArgs struct {
	ChangesetIDs []string `json:"changeset_ids" jsonschema:"the ids previews returned, in the order they would be applied (one id checks one changeset); each is applied on the result of those before it"`
}

type checkChangesetResult struct {
	edit.ChainResult
}

func (r checkChangesetResult) Summary() string {
	var b strings.Builder
	b.WriteString(r.Verdict + "\n")
	for i, s := range r.Steps {
		fmt.Fprintf(&b, "  step %d %s (%s): %s\n", i+1, s.ChangesetID, strings.Join(s.Files, ", "), s.Verdict)
		for _, it := range s.Introduced {
			fmt.Fprintf(&b, "    + %s:%d:%d %s: %s\n", it.File, it.Line, it.Column, it.Severity, strings.SplitN(it.Message, "\n", 2)[0])
		}
	}
	return b.String()
}

func checkChangesetTool(env *Env) Tool {
	return newTool("check_changeset", "Check changesets as one",
		"Check previewed changesets as if applied one after the other, without applying anything: the language servers diagnose each step's text in a second Neovim the user never sees. Answers each step's new errors and warnings, the first step that introduces an error (first_error, 1-based; 0: none) and the chain's diagnostics_delta (after the last step against now). A changeset previewed against the same text as an earlier one joins it: both sets of edits apply together (CONFLICT when both change the same lines). Nothing changes. Changesets of different files then apply one by one with apply_changeset; of two that change the same file, preview the second again once the first is applied (it was previewed against the text the first changes).",
		readOnly,
		func(ctx context.Context, in checkChangesetArgs) (checkChangesetResult, error) {
			r, err := env.Edit.CheckChain(ctx, in.ChangesetIDs)
			return checkChangesetResult{r}, err
		})
}
