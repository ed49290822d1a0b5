package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/review"
)

type detectChangesArgs struct {
	Revision    string `json:"revision,omitempty" jsonschema:"the git revision to compare the working tree with (default HEAD): a branch, a tag, a commit, HEAD~3"`
	Diagnostics *bool  `json:"diagnostics,omitempty" jsonschema:"also report the errors and warnings the changes introduced (default true): the revision's texts and the working tree's diagnosed on a copy the user never sees"`
}

type detectChangesResult struct{ review.Result }

func (r detectChangesResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Changes since %s (%s): %d file(s), %d symbol(s)\n", r.Revision, shortCommit(r.Commit), len(r.Files), len(r.Symbols))
	for _, f := range r.Files {
		fmt.Fprintf(&b, "  %s %s lines %s", f.Status, f.File, strings.Join(f.Lines, ","))
		if len(f.Importers) > 0 {
			fmt.Fprintf(&b, "; imported by %d file(s)", len(f.Importers))
		}
		b.WriteByte('\n')
	}
	for _, s := range r.Symbols {
		fmt.Fprintf(&b, "  %s %s (%s:%d): %d caller(s)", s.Kind, s.Name, s.File, s.Line, len(s.Callers))
		if s.Risk != "" {
			fmt.Fprintf(&b, ", risk %s", s.Risk)
		}
		b.WriteByte('\n')
	}
	if len(r.Tests) > 0 {
		b.WriteString("  tests to run: " + strings.Join(r.Tests, ", ") + "\n")
	}
	if r.Diagnostics != nil {
		b.WriteString("  diagnostics: " + r.Diagnostics.Verdict + "\n")
	}
	return b.String()
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func detectChangesTool(env *Env) Tool {
	return newTool("detect_changes", "Detect changes",
		"What the working tree (the files, and the buffers' unsaved changes) changed against a git revision (default HEAD): the changed files and lines with the files importing them, the changed symbols (the changes' lines within each file's symbols) with their callers to depth 2, the files and packages they reach and their risk (prepare_change's impact), the test files to run, and the errors and warnings the changes introduced (diagnostics_delta). A review's first call. Nothing changes.",
		readOnly,
		func(ctx context.Context, in detectChangesArgs) (detectChangesResult, error) {
			r, err := review.Changes(ctx, env.LSP, env.Verifier, review.Request{Revision: in.Revision, Diagnostics: in.Diagnostics == nil || *in.Diagnostics})
			return detectChangesResult{r}, err
		})
}
