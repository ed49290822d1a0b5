package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type findReferencesArgs struct {
	positionArgs
	IncludeDeclaration *bool `json:"include_declaration,omitempty" jsonschema:"count the declaration itself as a reference (default true)"`
	MaxResults         int   `json:"max_results,omitempty" jsonschema:"return at most this many references (default 200); truncated says when more exist"`
	offsetArg
}

type referencesResult struct{ lsp.ReferencesResult }

func (r referencesResult) Summary() string {
	var b strings.Builder
	subject := r.Symbol
	if subject == "" {
		subject = "the symbol"
	}
	fmt.Fprintf(&b, "%d reference(s) to %s in %d file(s) (from %s, %s", r.Total, subject, r.FileCount, r.From, r.Server)
	if !r.IncludeDeclaration {
		b.WriteString(", declaration excluded")
	}
	b.WriteString(")")
	if r.Truncated {
		fmt.Fprintf(&b, "; showing the first %d", r.Returned)
	}
	if r.Incomplete != "" {
		b.WriteString("; incomplete: " + r.Incomplete)
	}
	for _, f := range r.Files {
		where := f.File
		if where == "" {
			where = f.URI
		}
		fmt.Fprintf(&b, "\n%s (%d)", where, f.Count)
		for _, ref := range f.References {
			fmt.Fprintf(&b, "\n  %d:%d  %s", ref.Line, ref.Column, ref.Context)
		}
	}
	return b.String()
}

func findReferencesTool(env *Env) Tool {
	return newTool("find_references", "Find references",
		"Find every use of the symbol at a position across the workspace (textDocument/references). Give the line and either the symbol's name on that line or its column. Results are grouped by file, each reference with its 1-based line, 0-based column and the source line; total counts all the server found, truncated says when max_results cut the list.",
		readOnly,
		func(ctx context.Context, in findReferencesArgs) (referencesResult, error) {
			if err := checkOffset(in.Offset); err != nil {
				return referencesResult{}, err
			}
			include := in.IncludeDeclaration == nil || *in.IncludeDeclaration
			r, err := env.LSP.References(ctx, in.File, in.target(), lsp.ReferencesOptions{IncludeDeclaration: include, MaxResults: in.MaxResults, Offset: in.Offset})
			return referencesResult{r}, err
		})
}
