package lsp

import (
	"context"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// DiagnosticsQuery says which diagnostics get_diagnostics wants.
type DiagnosticsQuery struct {
	// File limits the answer to one file, after waiting (bounded) for the
	// servers to publish diagnostics for its current text. Empty: every
	// diagnostic Neovim holds, without waiting.
	File string
	// MinSeverity keeps diagnostics at least this severe: "error",
	// "warning", "info" or "hint" (default "hint": all).
	MinSeverity string
	// IncludeFixes (with File) lists each error's and warning's quick
	// fixes (QuickFixes).
	IncludeFixes bool
}

// DiagnosticsReport answers get_diagnostics.
type DiagnosticsReport struct {
	// Scope is "file" or "workspace".
	Scope       string `json:"scope"`
	File        string `json:"file,omitempty"`
	MinSeverity string `json:"min_severity"`
	// DiagnosticsComplete (file scope only) is false when a server had not
	// published diagnostics for the current text within the wait bound.
	DiagnosticsComplete *bool `json:"diagnostics_complete,omitempty"`
	// Incomplete says why DiagnosticsComplete is false: no server attached,
	// or the wait for a publish was cut short.
	Incomplete string `json:"diagnostics_incomplete,omitempty"`
	// Servers (workspace scope) names the language servers running for
	// the workspace: only they can have reported anything.
	Servers []string `json:"servers,omitempty"`
	Total   int      `json:"total"`
	// Counts are per severity, after the filter.
	Counts      map[string]int `json:"counts"`
	Files       int            `json:"file_count"`
	Diagnostics []Diagnostic   `json:"diagnostics"`
}

// DiagnosticsFor reports one file's diagnostics (waiting for fresh ones) or
// the workspace's (all Neovim holds: open buffers and whatever the servers
// published on their own), filtered by minimum severity, sorted by file and
// position.
func (c *Client) DiagnosticsFor(ctx context.Context, q DiagnosticsQuery) (DiagnosticsReport, error) {
	min := strings.ToLower(strings.TrimSpace(q.MinSeverity))
	if min == "" {
		min = "hint"
	}
	rank := SeverityRank(min)
	if rank == 0 {
		return DiagnosticsReport{}, apierr.Errorf(apierr.InvalidParameter,
			"severity is one of error, warning, info, hint (each includes the more severe ones)",
			"unknown severity %q", q.MinSeverity)
	}
	if q.IncludeFixes && q.File == "" {
		return DiagnosticsReport{}, apierr.New(apierr.InvalidParameter, "pass file with include_fixes", "include_fixes needs one file")
	}
	out := DiagnosticsReport{Scope: "workspace", MinSeverity: min, Counts: map[string]int{}, Diagnostics: []Diagnostic{}}
	var all []Diagnostic
	if q.File != "" {
		doc, err := c.Open(ctx, q.File)
		if err != nil {
			return DiagnosticsReport{}, err
		}
		diags, fresh, err := c.Diagnostics(ctx, doc)
		if err != nil {
			return DiagnosticsReport{}, err
		}
		out.Scope, out.File, out.DiagnosticsComplete, all = "file", doc.Rel, &fresh.Complete, diags
		out.Incomplete = fresh.Why
	} else {
		diags, err := c.WorkspaceDiagnostics(ctx)
		if err != nil {
			return DiagnosticsReport{}, err
		}
		all = diags
		clients, err := c.runningClients(ctx, "")
		if err != nil {
			return DiagnosticsReport{}, err
		}
		out.Servers = []string{}
		for _, cl := range clients {
			out.Servers = append(out.Servers, cl.Name)
		}
	}
	files := map[string]bool{}
	for _, d := range all {
		if r := SeverityRank(d.Severity); r == 0 || r > rank {
			continue
		}
		out.Diagnostics = append(out.Diagnostics, d)
		out.Counts[d.Severity]++
		files[d.File] = true
	}
	if q.IncludeFixes {
		for i := range out.Diagnostics {
			d := &out.Diagnostics[i]
			if SeverityRank(d.Severity) > 2 {
				continue
			}
			fixes, err := c.QuickFixes(ctx, q.File, *d)
			if err != nil {
				return DiagnosticsReport{}, err
			}
			d.Fixes = fixes
		}
	}
	out.Total, out.Files = len(out.Diagnostics), len(files)
	return out, nil
}
