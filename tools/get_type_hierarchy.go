package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type getTypeHierarchyArgs struct {
	positionArgs
	Direction string `json:"direction,omitempty" jsonschema:"supertypes, subtypes or both (default both)"`
	Depth     int    `json:"depth,omitempty" jsonschema:"levels to follow, 1-10 (default 1)"`
	MaxItems  int    `json:"max_items,omitempty" jsonschema:"at most this many entries per direction, all levels counted (default 100)"`
}

type typeHierarchyResult struct{ lsp.TypeHierarchyResult }

func (r typeHierarchyResult) Summary() string {
	var b strings.Builder
	notes := r.Notes
	if r.Note != "" {
		notes = append([]string{r.Note}, notes...)
	}
	writeHierarchyHead(&b, fmt.Sprintf("type hierarchy of %s %s (%s:%d:%d, %s, source %s), depth %d", r.Symbol.Kind, r.Symbol.Name,
		r.Symbol.File, r.Symbol.Line, r.Symbol.Column, r.Server, r.Source, r.Depth), r.Truncated, notes)
	section := func(title string, entries []lsp.TypeEntry, t *lsp.HierarchyTotals) {
		if t == nil {
			return
		}
		fmt.Fprintf(&b, "\n%s: %d direct, %d in all", title, t.Direct, t.Entries)
		writeTypeEntries(&b, entries, 1)
	}
	section("supertypes", r.Supertypes, r.Totals[lsp.DirectionSupertypes])
	section("subtypes", r.Subtypes, r.Totals[lsp.DirectionSubtypes])
	return b.String()
}

func writeTypeEntries(b *strings.Builder, entries []lsp.TypeEntry, level int) {
	indent := strings.Repeat("  ", level)
	for _, e := range entries {
		writeHierarchyEntry(b, indent, e.HierarchyEntry, e.Cycle, e.Repeated, e.More)
		if e.Detail != "" {
			b.WriteString("  " + e.Detail)
		}
		if e.Error != "" {
			b.WriteString("  [error: " + e.Error + "]")
		}
		writeTypeEntries(b, e.Supertypes, level+1)
		writeTypeEntries(b, e.Subtypes, level+1)
	}
}

func getTypeHierarchyTool(env *Env) Tool {
	return newTool("get_type_hierarchy", "Type hierarchy",
		"Supertypes and subtypes of a type (class, interface, struct) to a depth (textDocument/prepareTypeHierarchy, typeHierarchy/supertypes and subtypes). Give the line and either the type's name on that line or its column. Where the language server has no type hierarchy (pyright, typescript-language-server) the answer is built from other requests and says so: source \"fallback\" and a note naming the server and the method used (implementations; for pyright, references found in class declarations' base lists; supertypes from the declaration's base list resolved with definition). Each entry has name, kind, file, line, column; cycle/repeated/more/truncated as in get_call_hierarchy.",
		readOnly,
		func(ctx context.Context, in getTypeHierarchyArgs) (typeHierarchyResult, error) {
			r, err := env.LSP.TypeHierarchy(ctx, in.File, in.target(), lsp.TypeHierarchyOptions{Direction: in.Direction, Depth: in.Depth, MaxItems: in.MaxItems})
			return typeHierarchyResult{r}, err
		})
}
