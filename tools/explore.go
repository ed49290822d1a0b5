package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type exploreArgs struct {
	Target     string `json:"target" jsonschema:"a file, a folder (\".\" for the root) or a package or module as it is imported or named (zapcore, go.uber.org/zap/zapcore, requests.adapters)"`
	Depth      int    `json:"depth,omitempty" jsonschema:"how many folder levels the area spans (default 1: the folder's own files; at most 5)"`
	Focus      string `json:"focus,omitempty" jsonschema:"changes: also what changed in the area recently (its last commits with their files, and the files not committed yet; git)"`
	MaxSymbols int    `json:"max_symbols,omitempty" jsonschema:"key symbols listed (default 15, at most 50)"`
}

type exploreResult struct{ lsp.ExploreResult }

func (r exploreResult) Summary() string {
	var b strings.Builder
	o := r.Overview
	fmt.Fprintf(&b, "%s %s", r.Kind, r.Path)
	if r.Package != "" {
		fmt.Fprintf(&b, " (package %s)", r.Package)
	}
	fmt.Fprintf(&b, ": %d file(s), %d test file(s), %d lines, %d bytes", o.Files, o.TestFiles, o.Lines, o.Bytes)
	for _, l := range o.Languages {
		fmt.Fprintf(&b, "; %s %d file(s) %d lines", l.Language, l.Files, l.Lines)
	}
	if len(o.Folders) > 0 {
		fmt.Fprintf(&b, "\nfolders: %s", strings.Join(o.Folders, ", "))
	}
	fmt.Fprintf(&b, "\n\nkey symbols (by %s):", r.RankedBy)
	for _, k := range r.KeySymbols {
		fmt.Fprintf(&b, "\n  %-10s %s  %s:%d:%d  %d reference(s) in %d file(s), %d outside", k.Kind, k.Name, k.File, k.Line, k.Column, k.References, k.Files, k.Outside)
	}
	writeGroups := func(title string, gs []lsp.DependencyGroup) {
		fmt.Fprintf(&b, "\n\n%s: %d", title, len(gs))
		for _, g := range gs {
			where := g.Folder
			if g.External {
				where = "external"
			}
			fmt.Fprintf(&b, "\n  %s (%s): %d file(s), e.g. %s", g.Package, where, g.Files, strings.Join(g.Examples, ", "))
		}
	}
	writeGroups("depends on", r.DependsOn)
	writeGroups("depended on by", r.DependedOnBy)
	if h := r.Changes; h != nil {
		fmt.Fprintf(&b, "\n\nrecent commits: %d", len(h.Commits))
		for _, c := range h.Commits {
			fmt.Fprintf(&b, "\n  %s %s %s: %s (%d file(s))", c.Hash, c.Date, c.Author, c.Subject, len(c.Files))
		}
		if len(h.Uncommitted) > 0 {
			fmt.Fprintf(&b, "\nuncommitted: %s", strings.Join(h.Uncommitted, ", "))
		}
	}
	if len(r.CutShort) > 0 {
		b.WriteString("\n\ncut short:\n  " + strings.Join(r.CutShort, "\n  "))
	}
	if len(r.Errors) > 0 {
		b.WriteString("\n\nfailed:\n  " + strings.Join(r.Errors, "\n  "))
	}
	return b.String()
}

func exploreTool(env *Env) Tool {
	return newTool("explore", "Explore an area",
		"An area of the workspace in one call: a file, a folder or a package (target; depth folder levels). Answers its overview (files, test files, lines, bytes, languages, subfolders, the files), its key symbols (its exported top-level declarations ranked by their references, each with the files using it and how many uses are outside the area), what it depends on (the packages and modules its files import, workspace or external, most used first) and what depends on it (the workspace packages or folders whose files import it), and with focus: \"changes\" its last commits and uncommitted files (git). Every part is bounded; cut_short says which bound was hit and what was left out; a part that failed is listed under errors and the rest still answers.",
		readOnly,
		func(ctx context.Context, in exploreArgs) (exploreResult, error) {
			r, err := env.LSP.Explore(ctx, lsp.ExploreRequest{Target: in.Target, Depth: in.Depth, Focus: in.Focus, MaxSymbols: in.MaxSymbols})
			return exploreResult{r}, err
		})
}
