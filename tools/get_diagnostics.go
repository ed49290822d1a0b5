package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
)

type getDiagnosticsArgs struct {
	File         string `json:"file,omitempty" jsonschema:"one file (relative to the workspace root): waits for the servers' diagnostics of its current text; omit for every diagnostic Neovim holds"`
	Severity     string `json:"severity,omitempty" jsonschema:"minimum severity: error, warning, info or hint (default hint: all)"`
	IncludeFixes bool   `json:"include_fixes,omitempty" jsonschema:"with file: also list each error's and warning's quick fixes with the apply_code_action arguments that apply them"`
	MaxResults   int    `json:"max_results,omitempty" jsonschema:"list at most this many diagnostics (default: all); total and counts still count every one"`
	offsetArg
}

type diagnosticsResult struct {
	lsp.DiagnosticsReport
	pageInfo
}

func (r diagnosticsResult) Summary() string {
	var b strings.Builder
	where := "the workspace"
	if r.Scope == "file" {
		where = r.File
	}
	fmt.Fprintf(&b, "%d diagnostic(s) in %s", r.Total, where)
	var counts []string
	for _, sev := range []string{"error", "warning", "info", "hint"} {
		if n := r.Counts[sev]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, sev))
		}
	}
	if len(counts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(counts, ", "))
	}
	if r.MinSeverity != "hint" {
		fmt.Fprintf(&b, ", severity %s or worse", r.MinSeverity)
	}
	if r.Scope == "workspace" && len(r.Servers) == 0 {
		b.WriteString("; no language server is running yet: pass file to open one and wait for its diagnostics")
	}
	if r.DiagnosticsComplete != nil && !*r.DiagnosticsComplete {
		why := r.Incomplete
		if why == "" {
			why = "a server had not yet published diagnostics for the current text"
		}
		b.WriteString("; incomplete (not \"nothing there\"): " + why)
	}
	for _, d := range r.Diagnostics {
		fmt.Fprintf(&b, "\n%s:%d:%d %s: %s", d.File, d.Line, d.Column, d.Severity, d.Message)
		var tags []string
		if d.Source != "" {
			tags = append(tags, d.Source)
		}
		if d.Code != "" {
			tags = append(tags, d.Code)
		}
		if len(tags) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(tags, " "))
		}
		for _, f := range d.Fixes {
			fmt.Fprintf(&b, "\n    fix: %s (apply_code_action title %q)", f.Title, f.Title)
		}
	}
	return b.String()
}

func getDiagnosticsTool(env *Env) Tool {
	return newTool("get_diagnostics", "Diagnostics",
		"Get the language servers' diagnostics (errors, warnings...) for one file, after waiting for the servers to check its current text (diagnostics_complete says whether they did in time), or for the whole workspace (every diagnostic Neovim holds, without waiting). Filter by minimum severity. Lines are 1-based, columns 0-based in characters.",
		readOnly,
		func(ctx context.Context, in getDiagnosticsArgs) (diagnosticsResult, error) {
			if err := checkOffset(in.Offset); err != nil {
				return diagnosticsResult{}, err
			}
			if in.MaxResults < 0 {
				return diagnosticsResult{}, apierr.Errorf(apierr.InvalidParameter, "pass max_results of 1 or more, or omit it", "max_results %d is negative", in.MaxResults)
			}
			r, err := env.LSP.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: in.File, MinSeverity: in.Severity, IncludeFixes: in.IncludeFixes})
			if err != nil {
				return diagnosticsResult{}, err
			}
			var p pageInfo
			r.Diagnostics, p = page(r.Diagnostics, in.Offset, in.MaxResults, len(r.Diagnostics))
			return diagnosticsResult{r, p}, nil
		})
}
