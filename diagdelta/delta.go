// Package diagdelta compares a workspace's diagnostics before and after a
// change: which errors and warnings the change introduced and which it
// resolved, ignoring diagnostics that only moved with the edit. It is pure
// (no Neovim, no servers): lsp collects the diagnostics and waits for the
// servers, edit carries the result in its changeset results.
package diagdelta

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Problem is what a server reported about a place, in tool positions
// (1-based lines, 0-based character columns): what a diagnostic
// (lsp.Diagnostic) and an item of a delta share.
type Problem struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Message   string `json:"message"`
	Source    string `json:"source,omitempty"`
	Code      string `json:"code,omitempty"`
}

// Item is one diagnostic of a delta: the problem and its line's text.
type Item struct {
	Problem
	// Text is the line's text: after the change for an introduced
	// diagnostic, before it for a resolved one.
	Text string `json:"text"`
	// Fixes are the server's quick fixes for it (introduced ones, when
	// asked), each with the apply_code_action arguments that apply it.
	Fixes []Fix `json:"fixes,omitempty"`
}

// Fix is a quick fix a server offers for a diagnostic.
type Fix struct {
	Title string `json:"title"`
	Kind  string `json:"kind,omitempty"`
	// Server is the language server offering it.
	Server string `json:"server,omitempty"`
	// ApplyCodeAction holds the arguments of the apply_code_action call
	// that applies it.
	ApplyCodeAction map[string]any `json:"apply_code_action"`
}

// Delta is what a change does to the diagnostics of the files it touches
// and of the files that depend on them.
type Delta struct {
	// Mode is "applied" (measured after the change was applied) or
	// "check" (measured before, on a copy the user never sees).
	Mode string `json:"mode"`
	// Complete is false when a server had not finished diagnosing within
	// the bound: the lists are then what was known, not "no new errors".
	Complete bool `json:"complete"`
	// Incomplete says what was missing when Complete is false.
	Incomplete string `json:"incomplete,omitempty"`
	// Servers are the language servers whose diagnostics were compared.
	Servers []string `json:"servers"`
	// FilesChecked are the files whose diagnostics were compared: the
	// touched files and the open files that depend on them.
	FilesChecked []string `json:"files_checked"`
	Introduced   []Item   `json:"introduced"`
	Resolved     []Item   `json:"resolved"`
	// Counts are per severity ("error", "warning").
	IntroducedCounts map[string]int `json:"introduced_counts"`
	ResolvedCounts   map[string]int `json:"resolved_counts"`
	// Verdict is the one line an agent can act on.
	Verdict string `json:"verdict"`
	// Note says what the check could not do (file operations it did not
	// simulate, a server that does not run in the check's copy).
	Note string `json:"note,omitempty"`
	// WaitedOn says what told nvbridge each server had diagnosed the
	// change (its diagnosis progress, its publishes for the new version,
	// its answers to a pull).
	WaitedOn string `json:"waited_on,omitempty"`
}

// Counted reports whether a severity enters the delta: errors and warnings.
func Counted(severity string) bool {
	s := strings.ToLower(severity)
	return s == "error" || s == "warning"
}

func key(d Item) string {
	return d.File + "\x00" + strings.ToLower(d.Severity) + "\x00" + d.Source + "\x00" + d.Code + "\x00" + d.Message
}

// Compare returns the counted diagnostics of after that before lacks
// (introduced) and those of before that after lacks (resolved). Two
// diagnostics with the same file, severity, source, code and message are
// the same diagnostic wherever they are: one that moved with the edit
// (lines inserted above it, its line's text changed around it) is neither
// introduced nor resolved. Pairs are made first on the same line text,
// then on the same line, then in order, so that when a message occurs a
// different number of times the unpaired ones are the ones reported.
func Compare(before, after []Item) (introduced, resolved []Item) {
	type slot struct {
		d    Item
		used bool
	}
	group := func(list []Item) map[string][]*slot {
		m := map[string][]*slot{}
		for _, d := range list {
			if Counted(d.Severity) {
				m[key(d)] = append(m[key(d)], &slot{d: d})
			}
		}
		return m
	}
	b, a := group(before), group(after)
	pass := func(same func(x, y Item) bool) {
		for k, as := range a {
			for _, x := range as {
				if x.used {
					continue
				}
				for _, y := range b[k] {
					if !y.used && same(x.d, y.d) {
						x.used, y.used = true, true
						break
					}
				}
			}
		}
	}
	pass(func(x, y Item) bool { return strings.TrimSpace(x.Text) == strings.TrimSpace(y.Text) && x.Text != "" })
	pass(func(x, y Item) bool { return x.Line == y.Line })
	pass(func(x, y Item) bool { return true })
	collect := func(m map[string][]*slot) []Item {
		out := []Item{}
		for _, list := range m {
			for _, s := range list {
				if !s.used {
					out = append(out, s.d)
				}
			}
		}
		Sort(out)
		return out
	}
	return collect(a), collect(b)
}

// Sort orders items by file, line, column, message.
func Sort(items []Item) {
	sort.SliceStable(items, func(i, j int) bool {
		x, y := items[i], items[j]
		if x.File != y.File {
			return x.File < y.File
		}
		if x.Line != y.Line {
			return x.Line < y.Line
		}
		if x.Column != y.Column {
			return x.Column < y.Column
		}
		return x.Message < y.Message
	})
}

// New builds a delta from the diagnostics before and after, and renders
// its verdict.
func New(mode string, before, after []Item, complete bool, incomplete string, servers, files []string) *Delta {
	d := &Delta{Mode: mode, Complete: complete, Incomplete: incomplete, Servers: servers, FilesChecked: files}
	if d.Servers == nil {
		d.Servers = []string{}
	}
	if d.FilesChecked == nil {
		d.FilesChecked = []string{}
	}
	d.Introduced, d.Resolved = Compare(before, after)
	d.IntroducedCounts, d.ResolvedCounts = counts(d.Introduced), counts(d.Resolved)
	d.Verdict = d.render()
	return d
}

func counts(items []Item) map[string]int {
	m := map[string]int{}
	for _, d := range items {
		m[strings.ToLower(d.Severity)]++
	}
	return m
}

// Refresh renders the verdict again (after Complete or Note changed).
func (d *Delta) Refresh() { d.Verdict = d.render() }

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// where names the files of some items with their first message each:
// "orders/orders.go (undefined: Proces), main.go (...)".
func where(items []Item) string {
	var files []string
	first := map[string]string{}
	for _, d := range items {
		if _, ok := first[d.File]; !ok {
			files = append(files, d.File)
			msg := strings.SplitN(d.Message, "\n", 2)[0]
			if len(msg) > 80 {
				msg = msg[:77] + "..."
			}
			first[d.File] = msg
		}
	}
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("%s (%s)", f, first[f])
	}
	return strings.Join(parts, ", ")
}

func bySeverity(items []Item, sev string) []Item {
	var out []Item
	for _, d := range items {
		if strings.EqualFold(d.Severity, sev) {
			out = append(out, d)
		}
	}
	return out
}

func (d *Delta) render() string {
	var parts []string
	errs, warns := bySeverity(d.Introduced, "error"), bySeverity(d.Introduced, "warning")
	if len(errs) > 0 {
		parts = append(parts, fmt.Sprintf("introduces %s in %s", plural(len(errs), "error"), where(errs)))
	}
	if len(warns) > 0 {
		parts = append(parts, fmt.Sprintf("introduces %s in %s", plural(len(warns), "warning"), where(warns)))
	}
	scope := fmt.Sprintf("%s, %s checked", strings.Join(d.Servers, ", "), plural(len(d.FilesChecked), "file"))
	if len(d.Servers) == 0 {
		scope = "no language server, " + plural(len(d.FilesChecked), "file") + " checked"
	}
	if len(errs) == 0 && d.Complete {
		parts = append([]string{fmt.Sprintf("no new errors (%s)", scope)}, parts...)
	}
	if r := d.Resolved; len(r) > 0 {
		re, rw := len(bySeverity(r, "error")), len(bySeverity(r, "warning"))
		var what []string
		if re > 0 {
			what = append(what, plural(re, "error"))
		}
		if rw > 0 {
			what = append(what, plural(rw, "warning"))
		}
		parts = append(parts, "resolves "+strings.Join(what, " and "))
	}
	out := strings.Join(parts, "; ")
	if !d.Complete {
		why := d.Incomplete
		if why == "" {
			why = "a server had not finished diagnosing"
		}
		if out == "" {
			out = "nothing new seen so far"
		}
		out = fmt.Sprintf("diagnostics incomplete, not \"no new errors\" (%s): %s", why, out)
	}
	if d.Mode == "check" {
		out = "check (nothing applied): " + out
	}
	return out
}

// Baseline is the state recorded before a change is applied; After waits
// for the servers to diagnose the applied change and compares.
type Baseline interface {
	After(ctx context.Context) (*Delta, error)
}

// CheckFile is one file of a changeset checked before it is applied.
type CheckFile struct {
	Path    string // absolute
	NewPath string // absolute, for a rename
	Op      string // edit, create, rename, delete
	Before  string // the text as Neovim holds it now
	After   string // the text after the change
}
