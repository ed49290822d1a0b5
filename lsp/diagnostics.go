package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/preview"
)

// Diagnostic is one problem a server reported, in tool positions.
type Diagnostic struct {
	diagdelta.Problem
	// Fixes are the servers' quick fixes (get_diagnostics include_fixes).
	Fixes []diagdelta.Fix `json:"fixes,omitempty"`

	text string // the line's text
}

// Severities in LSP order (1 = error).
var severityNames = []string{"", "error", "warning", "info", "hint"}

// SeverityRank returns 1 for "error" … 4 for "hint", 0 for unknown names.
func SeverityRank(name string) int {
	for i, n := range severityNames {
		if i > 0 && n == strings.ToLower(name) {
			return i
		}
	}
	return 0
}

type diagWire struct {
	File      string `json:"file"`
	Lnum      int    `json:"lnum"`
	Col       int    `json:"col"`
	EndLnum   int    `json:"end_lnum"`
	EndCol    int    `json:"end_col"`
	Severity  int    `json:"severity"`
	Message   string `json:"message"`
	Source    any    `json:"source"`
	Code      any    `json:"code"`
	Bufnr     int    `json:"bufnr"`
	Namespace int    `json:"namespace"`
}

// DiagnosticWait caps how long a wait for a server's publish may last
// (Diagnostics, and the first request on a buffer: awaitAnalysis) when the
// caller's deadline is farther. The wait ends on the event; this is only
// the safety net, and hitting it is reported (complete: false).
var DiagnosticWait = 2 * time.Minute

// waitBound is how long a wait for a server's event may last: the caller's
// remaining time (the client's Timeout when it set none), less a fifth
// kept for the request that follows, at most DiagnosticWait. A fixed short
// bound is what a loaded machine overruns (typescript-language-server's
// first publish came 15 s after didOpen on a busy machine, behind its
// project load).
func (c *Client) waitBound(ctx context.Context) time.Duration {
	budget := c.Timeout
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl)
	}
	if budget <= 0 {
		budget = 30 * time.Second
	}
	b := budget - budget/5
	if b > DiagnosticWait {
		b = DiagnosticWait
	}
	return max(b, time.Millisecond)
}

// Freshness says whether diagnostics describe the buffer's current text.
type Freshness struct {
	// Complete is true when every attached server published diagnostics
	// for the current text. An empty list is "nothing there" only then.
	Complete bool
	// Why (when not complete) says what is missing, for the caller.
	Why string
}

// Diagnostics returns the diagnostics of doc, after waiting (bounded) until
// every attached server has published diagnostics for the buffer's current
// text (SettleDiagnostics). Not complete when the bound cut the wait
// short, or when no server is attached (nothing could have reported
// anything).
func (c *Client) Diagnostics(ctx context.Context, doc *Document) (diags []Diagnostic, fresh Freshness, err error) {
	if fresh, err = c.SettleDiagnostics(ctx, doc, c.waitBound(ctx)); err != nil {
		return nil, Freshness{}, err
	}
	diags, err = c.collectDiagnostics(ctx, doc.Buffer.Bufnr)
	return diags, fresh, err
}

// SettleDiagnostics waits, each wait at most bound, until the diagnostics
// Neovim holds for doc are its servers' for the buffer's current text.
func (c *Client) SettleDiagnostics(ctx context.Context, doc *Document, bound time.Duration) (fresh Freshness, err error) {
	ids := make([]int, 0, len(doc.Servers))
	names := make([]string, 0, len(doc.Servers))
	for _, s := range doc.Servers {
		ids = append(ids, s.ID)
		names = append(names, s.Name)
	}
	if len(ids) == 0 {
		fresh.Why = fmt.Sprintf("no language server is attached to %s (filetype %q): nothing checked it", doc.Rel, doc.Buffer.Filetype)
		return fresh, nil
	}
	// A file whose own text did not change may still be diagnosed
	// against a dependency's old text: a server that reports its
	// diagnosis runs (a gopls with verboseWorkDoneProgress) is done only
	// when none is in progress after every pending change reached it,
	// and a silent one (gopls on its defaults, whose full diagnosis, with
	// its analyzers, comes after its diagnosticsDelay, and whose first
	// publish for a file opened among other changes may come only then)
	// is asked for the file's diagnostics, the answer handled as its
	// publish for the current text (verify.lua's wait_settled). Then
	// every server has published for the current text (a silent one:
	// that answer).
	st, err := c.waitSettledWithin(ctx, bound, 0, []int{doc.Buffer.Bufnr}, nil, ids, false, nil)
	if err != nil {
		return Freshness{}, err
	}
	if !st.Complete {
		fresh.Why = st.why(c)
		return fresh, nil
	}
	raw, err := c.Session.WaitDiagnostics(ctx, doc.Buffer.Bufnr, ids, int(bound/time.Millisecond))
	if err != nil {
		return Freshness{}, err
	}
	fresh.Complete = string(raw) == "true"
	if !fresh.Complete {
		fresh.Why = fmt.Sprintf("%s had not published diagnostics for the current text within %s (still loading?)",
			strings.Join(names, ", "), bound.Round(time.Millisecond))
	}
	return fresh, nil
}

// WorkspaceDiagnostics returns every diagnostic Neovim holds (for open
// buffers and for files the servers reported on their own).
func (c *Client) WorkspaceDiagnostics(ctx context.Context) ([]Diagnostic, error) {
	return c.collectDiagnostics(ctx, nil)
}

func (c *Client) collectDiagnostics(ctx context.Context, bufnr any) ([]Diagnostic, error) {
	var raw string
	if err := c.Session.Diagnostics(ctx, &raw, bufnr); err != nil {
		return nil, err
	}
	var wires []diagWire
	if err := decodeList(json.RawMessage(raw), &wires); err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "report this", "decode diagnostics: %v", err)
	}
	return c.diagnosticsOf(ctx, wires)
}

// diagnosticsOf turns diagnostics as Neovim holds them (0-based lines,
// byte columns) into Diagnostics, with their lines' texts, sorted.
func (c *Client) diagnosticsOf(ctx context.Context, wires []diagWire) ([]Diagnostic, error) {
	wanted := map[string][]int{}
	for _, w := range wires {
		wanted[w.File] = append(wanted[w.File], w.Lnum, w.EndLnum)
	}
	texts, err := c.Lines(ctx, wanted)
	if err != nil {
		return nil, err
	}
	root := c.Session.Root()
	out := make([]Diagnostic, 0, len(wires))
	for _, w := range wires {
		sev := "info"
		if w.Severity > 0 && w.Severity < len(severityNames) {
			sev = severityNames[w.Severity]
		}
		src, _ := w.Source.(string)
		code, _ := w.Code.(string)
		if root.Sensitive(w.File) {
			// A message may quote the file (.env, keys): say where only.
			out = append(out, Diagnostic{Problem: diagdelta.Problem{File: root.Rel(w.File), Line: w.Lnum + 1, EndLine: w.EndLnum + 1,
				Severity: sev, Message: SensitiveNote, Source: src, Code: code}})
			continue
		}
		out = append(out, Diagnostic{
			Problem: diagdelta.Problem{
				File:      root.Rel(w.File),
				Line:      w.Lnum + 1,
				Column:    preview.ByteToChar(texts[w.File][w.Lnum], w.Col),
				EndLine:   w.EndLnum + 1,
				EndColumn: preview.ByteToChar(texts[w.File][w.EndLnum], w.EndCol),
				Severity:  sev,
				Message:   w.Message,
				Source:    src,
				Code:      code,
			},
			text: texts[w.File][w.Lnum],
		})
	}
	slices.SortStableFunc(out, func(a, b Diagnostic) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return out, nil
}
