package tools

import (
	"context"
	"strconv"
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

// Summary is written into one buffer sized first, not through fmt (an
// allocation per argument, four per reference).
func (r referencesResult) Summary() string {
	subject := r.Symbol
	if subject == "" {
		subject = "the symbol"
	}
	n := 128 + len(subject) + len(r.From) + len(r.Server) + len(r.Incomplete)
	for _, f := range r.Files {
		n += 16 + len(f.File) + len(f.URI)
		for _, ref := range f.References {
			n += 16 + len(ref.Context)
		}
	}
	var b strings.Builder
	b.Grow(n)
	var num [20]byte
	writeInt := func(v int) { b.Write(strconv.AppendInt(num[:0], int64(v), 10)) }
	writeInt(r.Total)
	b.WriteString(" reference(s) to ")
	b.WriteString(subject)
	b.WriteString(" in ")
	writeInt(r.FileCount)
	for _, s := range []string{" file(s) (from ", r.From, ", ", r.Server} {
		b.WriteString(s)
	}
	if !r.IncludeDeclaration {
		b.WriteString(", declaration excluded")
	}
	b.WriteString(")")
	if r.Truncated {
		b.WriteString("; showing the first ")
		writeInt(r.Returned)
	}
	if r.Incomplete != "" {
		b.WriteString("; incomplete: ")
		b.WriteString(r.Incomplete)
	}
	for _, f := range r.Files {
		where := f.File
		if where == "" {
			where = f.URI
		}
		b.WriteString("\n")
		b.WriteString(where)
		b.WriteString(" (")
		writeInt(f.Count)
		b.WriteString(")")
		for _, ref := range f.References {
			b.WriteString("\n  ")
			writeInt(ref.Line)
			b.WriteByte(':')
			writeInt(ref.Column)
			b.WriteString("  ")
			b.WriteString(ref.Context)
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
