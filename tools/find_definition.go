package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type findDefinitionArgs struct {
	positionArgs
}

type locationsResult struct{ lsp.LocationsResult }

// summarizeLocations renders definition-like answers: one location per
// line, its declaration's first line indented below.
func summarizeLocations(r lsp.LocationsResult, what string) string {
	var b strings.Builder
	subject := r.Symbol
	if subject == "" {
		subject = "the symbol"
	}
	if r.Count == 0 {
		fmt.Fprintf(&b, "no %s found for %s at %s (%s)", what, subject, r.From, r.Server)
		if r.Incomplete != "" {
			b.WriteString("; incomplete: " + r.Incomplete)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%d %s of %s at %s (%s):", r.Count, what, subject, r.From, r.Server)
	if r.Incomplete != "" {
		b.WriteString(" (incomplete: " + r.Incomplete + ")")
	}
	for _, l := range r.Locations {
		where := l.File
		if where == "" {
			where = l.URI
		}
		fmt.Fprintf(&b, "\n%s:%d:%d", where, l.Line, l.Column)
		if l.OutsideWorkspace {
			b.WriteString(" (outside the workspace)")
		}
		for _, line := range strings.Split(l.Declaration, "\n") {
			if line != "" {
				fmt.Fprintf(&b, "\n    %s", line)
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
