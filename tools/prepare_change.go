package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type prepareChangeArgs struct {
	positionArgs
	Depth int `json:"depth,omitempty" jsonschema:"levels of callers to follow, 1-6 (default 3)"`
}

type prepareChangeResult struct{ lsp.ImpactResult }

func (r prepareChangeResult) Summary() string {
	var b strings.Builder
	s := r.Symbol
	exported := "private"
	if r.Exported {
		exported = "exported"
	}
	fmt.Fprintf(&b, "risk %s (score %d) for changing %s %s (%s, package %s) at %s:%d:%d", r.Risk, r.Score, s.Kind, s.Name, exported, r.Package, s.File, s.Line, s.Column)
	if r.Truncated {
		b.WriteString("; a bound cut the search, the impact may be larger")
	}
	b.WriteString("\nfactors:")
	for _, f := range r.Factors {
		fmt.Fprintf(&b, "\n  %+d %s = %v: %s", f.Points, f.Name, f.Value, f.Detail)
	}
	fmt.Fprintf(&b, "\ndirect callers: %d", len(r.DirectCallers))
	for _, c := range r.DirectCallers {
		fmt.Fprintf(&b, "\n  %s  %s:%d:%d", c.Name, c.File, c.Line, c.Column)
	}
	fmt.Fprintf(&b, "\ntransitive callers (to depth %d): %d", r.Depth, len(r.TransitiveCallers))
	for _, c := range r.TransitiveCallers {
		fmt.Fprintf(&b, "\n  [%d] %s  %s:%d:%d  (calls %s)", c.Depth, c.Name, c.File, c.Line, c.Column, c.Calls)
	}
	fmt.Fprintf(&b, "\nreferences: %d; files reached: %s; packages: %s", r.References, listOrNone(r.Files), listOrNone(r.Packages))
	tests := make([]string, len(r.Tests))
	for i, t := range r.Tests {
		tests[i] = t.File
	}
	fmt.Fprintf(&b, "\ntests: %s", listOrNone(tests))
	writeSectionMap(&b, "not applicable", r.NotApplicable)
	writeSectionMap(&b, "failed", r.Errors)
	return b.String()
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

func prepareChangeTool(env *Env) Tool {
	return newTool("prepare_change", "Prepare a change",
		"Impact of changing a symbol, before changing it: its direct callers, transitive callers to a depth (default 3), the files and packages (Go folders, Python modules, TS modules) that use or reach it, the test files that reference it or its callers, and a risk level (low/medium/high) with the factors that set it (counts of callers, references and files, exported/public, used from other packages, tested or not, truncated). Give the line and either the symbol's name on that line or its column.",
		readOnly,
		func(ctx context.Context, in prepareChangeArgs) (prepareChangeResult, error) {
			r, err := env.LSP.Impact(ctx, lsp.ImpactRequest{File: in.File, Target: in.target(), Depth: in.Depth})
			return prepareChangeResult{r}, err
		})
}
