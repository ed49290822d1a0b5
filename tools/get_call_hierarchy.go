package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type getCallHierarchyArgs struct {
	positionArgs
	Direction string `json:"direction,omitempty" jsonschema:"incoming (callers), outgoing (callees) or both (default both)"`
	Depth     int    `json:"depth,omitempty" jsonschema:"levels to follow, 1-10 (default 1: direct callers/callees only)"`
	MaxItems  int    `json:"max_items,omitempty" jsonschema:"at most this many entries per direction, all levels counted (default 100); truncated says when entries were left out"`
	CountMore bool   `json:"count_more,omitempty" jsonschema:"also count, as each deepest entry's more, the calls below the depth asked (one more request per entry at the depth limit; default false)"`
}

type callHierarchyResult struct{ lsp.CallHierarchyResult }

func (r callHierarchyResult) Summary() string {
	var b strings.Builder
	writeHierarchyHead(&b, fmt.Sprintf("call hierarchy of %s %s (%s:%d:%d, %s), depth %d", r.Symbol.Kind, r.Symbol.Name,
		r.Symbol.File, r.Symbol.Line, r.Symbol.Column, r.Server, r.Depth), r.Truncated, r.Notes)
	section := func(title string, entries []lsp.CallEntry, t *lsp.CallTotals) {
		if t == nil {
			return
		}
		fmt.Fprintf(&b, "\n%s: %d direct, %d in all, %d call site(s)", title, t.Direct, t.Entries, t.CallSites)
		writeCallEntries(&b, entries, 1)
	}
	section("incoming (callers)", r.Incoming, r.Totals[lsp.DirectionIncoming])
	section("outgoing (callees)", r.Outgoing, r.Totals[lsp.DirectionOutgoing])
	return b.String()
}

func writeCallEntries(b *strings.Builder, entries []lsp.CallEntry, level int) {
	indent := strings.Repeat("  ", level)
	for _, e := range entries {
		writeHierarchyEntry(b, indent, e.HierarchyEntry, e.Cycle, e.Repeated, e.More)
		if e.Error != "" {
			b.WriteString("  [error: " + e.Error + "]")
		}
		for _, s := range e.CallSites {
			fmt.Fprintf(b, "\n%s  call at %s:%d:%d  %s", indent, s.File, s.Line, s.Column, s.Context)
		}
		writeCallEntries(b, e.Callers, level+1)
		writeCallEntries(b, e.Callees, level+1)
	}
}

func getCallHierarchyTool(env *Env) Tool {
	return newTool("get_call_hierarchy", "Call hierarchy",
		"Who calls a function and what it calls, to a depth (textDocument/prepareCallHierarchy, callHierarchy/incomingCalls and outgoingCalls). Give the line and either the function's name on that line or its column (its declaration or a call to it). Each entry has name, kind, file, line, column, detail and every call site with its line, column and source line; callers/callees nest the next level. A function already on the path is reported with cycle=true and not expanded again; one expanded elsewhere with repeated=true. Entries outside the workspace (standard library, dependencies) are listed but not expanded. totals count each direction; truncated (and an entry's more) say when max_items left entries out of the depth asked; count_more also counts, per deepest entry, the calls below the depth.",
		readOnly,
		func(ctx context.Context, in getCallHierarchyArgs) (callHierarchyResult, error) {
			r, err := env.LSP.CallHierarchy(ctx, in.File, in.target(), lsp.CallHierarchyOptions{Direction: in.Direction, Depth: in.Depth, MaxItems: in.MaxItems, CountMore: in.CountMore})
			return callHierarchyResult{r}, err
		})
}
