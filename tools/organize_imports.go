package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/refactor"
)

type organizeImportsArgs struct {
	fileArg
	previewArg
	saveArg
	guardArg
}

type organizeImportsResult struct {
	File    string `json:"file"`
	Server  string `json:"server"`
	Via     string `json:"via"`
	Changed bool   `json:"changed"`
	// Removed and Added are import lines, net of lines only moved or
	// regrouped.
	Removed []string `json:"removed_imports"`
	Added   []string `json:"added_imports"`
	Note    string   `json:"note,omitempty"`
	*edit.Result
}

func (r organizeImportsResult) Summary() string {
	if !r.Changed {
		return fmt.Sprintf("%s: %s (%s, %s).", r.File, r.Note, r.Server, r.Via)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Organize imports of %s (%s, %s): removed %d, added %d", r.File, r.Server, r.Via, len(r.Removed), len(r.Added))
	if len(r.Removed) > 0 {
		b.WriteString("; removed: " + quoteList(r.Removed))
	}
	if len(r.Added) > 0 {
		b.WriteString("; added: " + quoteList(r.Added))
	}
	b.WriteString(".")
	return changeSummary(b.String(), r.Result)
}

func organizeImportsTool(env *Env) Tool {
	return newTool("organize_imports", "Organize imports",
		"Organize a file's imports with its language server (gopls and typescript-language-server: source.organizeImports, which also drops unused imports; pyright: its organize-imports command, which sorts). Reports the import lines removed and added (net of lines only reordered). By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once.",
		mutating,
		func(ctx context.Context, in organizeImportsArgs) (organizeImportsResult, error) {
			plan, err := refactor.OrganizeImports(ctx, env.LSP, in.File)
			if err != nil {
				return organizeImportsResult{}, err
			}
			out := organizeImportsResult{File: plan.File, Server: plan.Server, Via: plan.Via, Changed: plan.Changed,
				Removed: plan.Removed, Added: plan.Added, Note: plan.Note}
			if out.Removed == nil {
				out.Removed = []string{}
			}
			if out.Added == nil {
				out.Added = []string{}
			}
			if !plan.Changed {
				return out, nil
			}
			out.Result, err = submit(ctx, env, plan.Changeset, in.previewArg, in.saveArg, &in.guardArg)
			return out, err
		})
}
