package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type batchArgs struct {
	Searches      []string `json:"searches,omitempty" jsonschema:"workspace symbol searches (as get_symbols' query), at most 10; each answered under its query"`
	Names         []string `json:"names,omitempty" jsonschema:"symbols' names, optionally qualified (orders.Process, Logger.clone, requests.sessions.Session.request), at most 50; each resolved as position tools' name and answered under its name"`
	Ask           string   `json:"ask,omitempty" jsonschema:"what to answer for each name: understand (default: understand_symbol's answer) or references (find_references' answer)"`
	MaxResults    int      `json:"max_results,omitempty" jsonschema:"symbols listed per search (default 100)"`
	MaxReferences int      `json:"max_references,omitempty" jsonschema:"references listed per name (default 50); totals count them all"`
	File          string   `json:"file,omitempty" jsonschema:"a source file whose language server answers (default: the servers attached, or started from the workspace's root markers)"`
}

type batchResult struct{ lsp.BatchResult }

func (r batchResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d search(es), %d name(s), %d failed", len(r.Searches), len(r.Symbols), r.Failed)
	for _, s := range r.Searches {
		if s.Error != nil {
			fmt.Fprintf(&b, "\n\nsearch %q: %s: %s", s.Query, s.Error.Code, s.Error.Message)
			continue
		}
		fmt.Fprintf(&b, "\n\nsearch %q: %d symbol(s)", s.Query, s.Total)
		if s.Truncated {
			fmt.Fprintf(&b, " (first %d listed)", len(s.Symbols))
		}
		for _, sym := range s.Symbols {
			fmt.Fprintf(&b, "\n  %-11s %s  %s:%d:%d", sym.Kind, sym.Name, sym.File, sym.Line, sym.Column)
		}
	}
	for _, n := range r.Symbols {
		if n.Error != nil {
			fmt.Fprintf(&b, "\n\n%s: %s: %s", n.Name, n.Error.Code, n.Error.Message)
			continue
		}
		s := n.Resolved.Symbol
		fmt.Fprintf(&b, "\n\n%s: %s %s at %s:%d:%d (%s)", n.Name, s.Kind, s.Name, s.File, s.Line, s.Column, n.Resolved.How)
		if refs := n.References; refs != nil {
			fmt.Fprintf(&b, "\n  %d reference(s) in %d file(s)", refs.Total, refs.FileCount)
			for _, f := range refs.Files {
				fmt.Fprintf(&b, "\n  %s (%d)", f.File, f.Count)
			}
		}
		if u := n.Understanding; u != nil {
			if u.Hover != nil && u.Hover.Contents != "" {
				fmt.Fprintf(&b, "\n  %s", firstLine(u.Hover.Contents))
			}
			if u.References != nil {
				fmt.Fprintf(&b, "\n  %d reference(s) in %d file(s)", u.References.Total, u.References.FileCount)
			}
			if u.Calls != nil {
				fmt.Fprintf(&b, ", %d caller(s), %d callee(s)", len(u.Calls.Incoming), len(u.Calls.Outgoing))
			}
			fmt.Fprintf(&b, ", %d test file(s)", len(u.Tests))
		}
	}
	return b.String()
}

// firstLine is s's first non-blank line that is not a code fence.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "```") {
			return l
		}
	}
	return ""
}

func batchTool(env *Env) Tool {
	return newTool("batch", "Batch of symbol questions",
		"Several questions in one call, each answered or failed on its own and keyed by its query: workspace symbol searches (searches, at most 10: each as get_symbols' query) and symbols by name (names, at most 50, each resolved as a position tool's name: orders.Process, Logger.clone; ask=understand gives understand_symbol's answer for each, ask=references find_references'). One failing entry (AMBIGUOUS, not found) carries its error and does not fail the others; failed counts them. Entries run a few at a time.",
		readOnly,
		func(ctx context.Context, in batchArgs) (batchResult, error) {
			r, err := env.LSP.Batch(ctx, lsp.BatchRequest{Searches: in.Searches, MaxResults: in.MaxResults, Names: in.Names,
				Ask: in.Ask, MaxReferences: in.MaxReferences, File: in.File})
			return batchResult{r}, err
		})
}
