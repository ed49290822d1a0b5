package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type understandSymbolArgs struct {
	File          string `json:"file,omitempty" jsonschema:"path of the file, relative to the workspace root (with line); with query, only picks the language server"`
	Line          int    `json:"line,omitempty" jsonschema:"1-based line number (with file)"`
	Column        *int   `json:"column,omitempty" jsonschema:"0-based column in characters; optional when symbol is given"`
	Symbol        string `json:"symbol,omitempty" jsonschema:"name of the symbol on that line, used instead of column (e.g. Process)"`
	Query         string `json:"query,omitempty" jsonschema:"instead of file and line: the symbol's name (e.g. Process, or qualified: orders.Process), searched in the workspace; several matches give AMBIGUOUS with the candidates"`
	MaxReferences int    `json:"max_references,omitempty" jsonschema:"list at most this many references (default 50); the total counts them all"`
}

type understandResult struct{ lsp.UnderstandResult }

func (r understandResult) Summary() string {
	var b strings.Builder
	s := r.Symbol
	fmt.Fprintf(&b, "%s %s declared at %s:%d:%d", s.Kind, s.Name, s.File, s.Line, s.Column)
	if s.Container != "" {
		fmt.Fprintf(&b, " (in %s)", s.Container)
	}
	if r.Query != "" {
		fmt.Fprintf(&b, ", found by query %q", r.Query)
	}
	if r.Withheld != "" {
		b.WriteString("\n\nwithheld: " + r.Withheld)
	}
	if d := r.Definition; d != nil && d.Withheld == "" {
		fmt.Fprintf(&b, "\n\ndefinition (lines %d-%d):\n%s", d.SourceStart, d.SourceEnd, d.Source)
		if d.SourceTruncated {
			b.WriteString("\n…")
		}
	}
	if h := r.Hover; h != nil && h.Withheld == "" {
		fmt.Fprintf(&b, "\n\nhover:\n%s", h.Contents)
	}
	if refs := r.References; refs != nil {
		fmt.Fprintf(&b, "\n\nreferences: %d in %d file(s)", refs.Total, refs.FileCount)
		if refs.Truncated {
			fmt.Fprintf(&b, " (first %d listed)", refs.Returned)
		}
		for _, f := range refs.Files {
			fmt.Fprintf(&b, "\n  %s (%d)", f.File, f.Count)
			for _, ref := range f.References {
				fmt.Fprintf(&b, "\n    %d:%d  %s", ref.Line, ref.Column, ref.Context)
			}
		}
	}
	if c := r.Calls; c != nil {
		fmt.Fprintf(&b, "\n\ncallers: %d", len(c.Incoming))
		for _, e := range c.Incoming {
			fmt.Fprintf(&b, "\n  %s  %s:%d:%d (%d call(s))", e.Name, e.File, e.Line, e.Column, len(e.CallSites))
		}
		fmt.Fprintf(&b, "\ncallees: %d", len(c.Outgoing))
		for _, e := range c.Outgoing {
			fmt.Fprintf(&b, "\n  %s  %s:%d:%d", e.Name, e.File, e.Line, e.Column)
		}
	}
	if im := r.Implementations; im != nil {
		fmt.Fprintf(&b, "\n\nimplementations (%s): %d", im.Source, im.Count)
		if im.Note != "" {
			b.WriteString("\n  note: " + im.Note)
		}
		for _, l := range im.Locations {
			fmt.Fprintf(&b, "\n  %s:%d:%d  %s", l.File, l.Line, l.Column, l.Context)
		}
	}
	fmt.Fprintf(&b, "\n\ntest files: %d", len(r.Tests))
	for _, t := range r.Tests {
		fmt.Fprintf(&b, "\n  %s (%d reference(s))", t.File, t.References)
		if len(t.Callers) > 0 {
			b.WriteString(" via " + strings.Join(t.Callers, ", "))
		}
	}
	writeSectionMap(&b, "not applicable", r.NotApplicable)
	writeSectionMap(&b, "failed", r.Errors)
	return b.String()
}

func writeSectionMap(b *strings.Builder, title string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(b, "\n\n%s:", title)
	for _, k := range keys {
		fmt.Fprintf(b, "\n  %s: %s", k, m[k])
	}
}

func understandSymbolTool(env *Env) Tool {
	return newTool("understand_symbol", "Understand symbol",
		"Everything about one symbol in a single call, its sub-requests run concurrently: the definition with the declaration's source lines, the hover text (signature, documentation), references grouped by file (bounded, with the total), direct callers and callees with call sites, implementations (or, where the server has no implementation request, subtypes), and the test files that reference or call it. Name it by file + line + symbol (or column), or by query (its name, optionally qualified like orders.Process): several symbols with that name give AMBIGUOUS with the candidates (file, line, kind, container) and how to narrow. A section whose request failed is left out and listed under errors (e.g. implementations: UNSUPPORTED ...); one that does not apply (calls of a type) under not_applicable. For a symbol declared in a sensitive file, its source, hover text and callees are withheld (sensitive: true; withheld says where and why).",
		readOnly,
		func(ctx context.Context, in understandSymbolArgs) (understandResult, error) {
			r, err := env.LSP.Understand(ctx, lsp.UnderstandRequest{
				File: in.File, Target: lsp.Target{Line: in.Line, Column: in.Column, Symbol: in.Symbol},
				Query: in.Query, MaxReferences: in.MaxReferences,
			})
			return understandResult{r}, err
		})
}
