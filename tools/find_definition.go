package tools

import (
	"context"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type findDefinitionArgs struct {
	positionArgs
}

type locationsResult struct{ lsp.LocationsResult }

// summarizeLocations renders definition-like answers: one location per
// line, its declaration's first line indented below. Written into one
// buffer sized first, not through fmt (an allocation per argument): it is
// the text of every find_definition's answer.
func summarizeLocations(r lsp.LocationsResult, what string) string {
	subject := r.Symbol
	if subject == "" {
		subject = "the symbol"
	}
	n := 64 + len(what) + len(subject) + len(r.From) + len(r.Server) + len(r.Incomplete)
	for _, l := range r.Locations {
		n += 64 + len(l.File) + len(l.URI) + 2*len(l.Declaration)
	}
	var b strings.Builder
	b.Grow(n)
	if r.Count == 0 {
		for _, s := range []string{"no ", what, " found for ", subject, " at ", r.From, " (", r.Server, ")"} {
			b.WriteString(s)
		}
		if r.Incomplete != "" {
			b.WriteString("; incomplete: ")
			b.WriteString(r.Incomplete)
		}
		return b.String()
	}
	var num [20]byte
	b.Write(strconv.AppendInt(num[:0], int64(r.Count), 10))
	for _, s := range []string{" ", what, " of ", subject, " at ", r.From, " (", r.Server, "):"} {
		b.WriteString(s)
	}
	if r.Incomplete != "" {
		b.WriteString(" (incomplete: ")
		b.WriteString(r.Incomplete)
		b.WriteString(")")
	}
	for _, l := range r.Locations {
		where := l.File
		if where == "" {
			where = l.URI
		}
		b.WriteString("\n")
		b.WriteString(where)
		b.WriteByte(':')
		b.Write(strconv.AppendInt(num[:0], int64(l.Line), 10))
		b.WriteByte(':')
		b.Write(strconv.AppendInt(num[:0], int64(l.Column), 10))
		if l.OutsideWorkspace {
			b.WriteString(" (outside the workspace)")
		}
		for line := range strings.SplitSeq(l.Declaration, "\n") {
			if line != "" {
				b.WriteString("\n    ")
				b.WriteString(line)
			}
		}
	}
	return b.String()
}

func (r locationsResult) Summary() string {
	return summarizeLocations(r.LocationsResult, "definition(s)")
}

func findDefinitionTool(env *Env) Tool {
	return newTool("find_definition", "Find definition",
		"Find where the symbol at a position is defined (textDocument/definition). Give the line and either the symbol's name on that line or its column. Returns each location (file, 1-based line, 0-based column, end, the source line as context, outside_workspace for e.g. the standard library) with the first lines of the declaration.",
		readOnly,
		func(ctx context.Context, in findDefinitionArgs) (locationsResult, error) {
			r, err := env.LSP.Definition(ctx, in.File, in.target())
			return locationsResult{r}, err
		})
}
