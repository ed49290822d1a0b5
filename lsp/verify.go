package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
)

// VerifyWait caps the wait for the servers to diagnose a change (the
// caller's deadline, less a fifth, when that is sooner). Hitting it is
// reported (complete: false), never "no new errors".
var VerifyWait = 45 * time.Second

// MaxFixedDiagnostics bounds how many introduced errors get their quick
// fixes listed (each costs a code action request).
var MaxFixedDiagnostics = 5

// Verifier measures the diagnostics delta of changesets: after an apply
// in the user's Neovim, or before it (Check) in a second, embedded Neovim
// on the same root that the user never sees. It implements edit.Verifier.
type Verifier struct {
	c *Client

	mu     sync.Mutex // one check at a time; guards shadow
	shadow *Client
	// shadowStarted is how long the second Neovim took to start (its
	// first check pays it).
	shadowStarted time.Duration
	// lastChecked are the files of the last check (Idle waits for them).
	lastChecked []string
	// leftShown are the files (absolute) whose buffers in the copy a
	// check left holding the texts it was shown (the user's, unsaved
	// ones included), not the disk's: a later check that does not show
	// one takes the disk's back first.
	leftShown map[string]bool
	// following: a copy was started (or is being started) for a check,
	// read without v.mu (Following).
	following atomic.Bool
}

// NewVerifier returns the verifier of c's session.
func NewVerifier(c *Client) *Verifier { return &Verifier{c: c} }

// ShadowStartup is how long the check's second Neovim took to start (0
// before the first check).
func (v *Verifier) ShadowStartup() time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.shadowStarted
}

// Close ends the check's second Neovim, if one was started.
func (v *Verifier) Close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.shadow != nil {
		v.shadow.Session.Close()
		v.shadow = nil
	}
}

type bufferInfo struct {
	Bufnrs  []int `json:"bufnrs"`
	Clients []struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
		// Server is the server's own name (serverInfo), ReportsProgress
		// whether it reports its diagnosis runs.
		Server          string `json:"server"`
		ReportsProgress bool   `json:"reports_progress"`
		// Silent: the server could report its diagnosis runs but does not
		// (gopls without verboseWorkDoneProgress: nvbridge's own, and a
		// user's on its defaults): it publishes only diagnostics that
		// changed, so no event says it is done.
		Silent bool `json:"silent"`
		// Sent: the versions of the client's buffers and nvbridge's
		// writes (verify.lua's sent_state).
		Sent string `json:"sent"`
	} `json:"clients"`
}

// silent reports whether a client is silent (see Silent).
func (b bufferInfo) silent() bool {
	for _, cl := range b.Clients {
		if cl.Silent {
			return true
		}
	}
	return false
}

// waitedOn says what the wait took as each server's "done".
func (b bufferInfo) waitedOn() string {
	var parts []string
	for _, cl := range b.Clients {
		switch {
		case cl.ReportsProgress:
			parts = append(parts, cl.Name+": the end of its diagnosis runs ($/progress)")
		case b.silent():
			parts = append(parts, cl.Name+": its publishes for the new text (it reports no end of its diagnosis runs)")
		default:
			parts = append(parts, cl.Name+": its publishes for the new text")
		}
	}
	return strings.Join(parts, "; ")
}

// SilentWait bounds the wait for a server that gives no event for "done"
// (silent) where its answers to pulls do not settle it (a pull failed):
// gopls without verboseWorkDoneProgress publishes a
// dependant again after its full pass (about 2.6 s after the change here,
// behind its diagnosticsDelay), or, when nothing changed, maybe never.
// After it, the delta is complete: false with the reason.
var SilentWait = 10 * time.Second

func (c *Client) buffersOf(ctx context.Context, paths []string) (bufferInfo, error) {
	var raw string
	var out bufferInfo
	if err := c.Session.ServerBuffers(ctx, &raw, paths); err != nil {
		return out, err
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return out, apierr.Errorf(apierr.OperationFailed, "report this", "decode buffers: %v", err)
	}
	return out, nil
}

type dependant struct {
	Bufnr int    `json:"bufnr"`
	File  string `json:"file"`
}

// baseline is what Before recorded.
type baseline struct {
	c          *Client
	mode       string
	paths      []string // touched files, absolute
	dependants []dependant
	clients    []int
	names      []string
	before     []Diagnostic
	mark       int
	fixes      bool
	note       string
	silent     bool // a server gives no event for "done" (bufferInfo.silent)
	// pulled: the silent servers are asked for the diagnostics of the
	// files that matter (pullFiles) before and after the change
	// (textDocument/diagnostic), and the delta compares those answers.
	pulled    bool
	pullFiles []string
	pullIDs   []int
	// pullUnchecked: the test files (not open) the change can affect,
	// which the pull does not ask about.
	pullUnchecked int
	pullSetOf     pulled
	// fedPulls: some servers are silent and others are not (the change
	// touches files of several servers): the silent ones are asked about
	// these files too (the files of the change's scope in their language,
	// not open), their answers handled as their publishes, so that the
	// diagnostics Neovim holds for them are of the current texts.
	fedPulls []string
	// scope: the files whose diagnostics the change can affect.
	scope *changeScope
}

// Before opens the touched files that exist, waits until their servers
// have diagnosed their current text (and finished any diagnosis run), and
// records every diagnostic Neovim holds, and the moment (the last
// publish) the wait after the change counts from.
func (v *Verifier) Before(ctx context.Context, paths []string) (diagdelta.Baseline, error) {
	return v.c.before(ctx, paths, "applied", true)
}

func (c *Client) before(ctx context.Context, paths []string, mode string, fixes bool) (*baseline, error) {
	b := &baseline{c: c, mode: mode, paths: paths, fixes: fixes}
	root := c.Session.Root()
	b.scope = newChangeScope(root.Dir(), paths)
	b.scope.memo = &c.lastScope
	var existing []string
	for _, p := range paths {
		if root.Sensitive(p) {
			continue
		}
		existing = append(existing, p)
	}
	info, err := c.buffersOf(ctx, existing)
	if err != nil {
		return nil, err
	}
	// Files not loaded yet: load them (the apply would) so their servers
	// attach and diagnose them before the change.
	opened := false
	for i, p := range existing {
		if info.Bufnrs[i] != 0 || !fileExists(p) {
			continue
		}
		if _, err := c.Open(ctx, p); err != nil {
			return nil, err
		}
		opened = true
	}
	if opened {
		if info, err = c.buffersOf(ctx, existing); err != nil {
			return nil, err
		}
	}
	var touched []int
	for _, bn := range info.Bufnrs {
		if bn != 0 {
			touched = append(touched, bn)
		}
	}
	for _, cl := range info.Clients {
		b.clients = append(b.clients, cl.ID)
		b.names = append(b.names, cl.Name)
	}
	if len(b.clients) > 0 {
		var raw string
		if err := c.Session.Dependants(ctx, &raw, b.clients, touched); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(raw), &b.dependants); err != nil {
			return nil, apierr.Errorf(apierr.OperationFailed, "report this", "decode dependants: %v", err)
		}
		// Only the open files that import a touched one (directly or not)
		// depend on it: the others are neither waited for nor compared.
		deps := b.dependants[:0]
		for _, d := range b.dependants {
			if b.scope.affects(d.File) {
				deps = append(deps, d)
			}
		}
		b.dependants = deps
		// The state before: the touched buffers' and the dependants'
		// current text diagnosed, no diagnosis run in progress (a
		// dependant's first publish arriving after the mark would pass
		// for its diagnosis of the change).
		b.silent = info.silent()
		if b.silent && info.allSilent() {
			// No event says such a server is done: ask it (pull) for the
			// files the change can affect, now and after the change.
			set := b.pullSet(existing)
			pulled, ok := c.pullMemo(info.pullKey(set))
			if !ok {
				if pulled, ok, err = c.pullAll(ctx, info.clientIDs(), set.files); err != nil {
					return nil, err
				}
			}
			if ok {
				b.pulled, b.pullIDs, b.pullFiles, b.pullUnchecked, b.pullSetOf, b.before = true, info.clientIDs(), set.files, set.tests, set, pulled
				if err := c.Session.PublishMark(ctx, &b.mark); err != nil {
					return nil, err
				}
				return b, nil
			}
		}
		if b.silent {
			// Some servers are silent, others not: the silent ones are
			// asked about the change's scope in their language (the
			// answers handled as publishes), the others waited for.
			set := b.pullSet(existing)
			for _, f := range set.files {
				if set.lang != nil && lang.ForFile(f) == set.lang {
					b.fedPulls = append(b.fedPulls, f)
				}
			}
			if set.missing != "" {
				b.note = set.missing
			}
			b.pullUnchecked = set.tests
		}
		settle := append([]int(nil), touched...)
		for _, d := range b.dependants {
			settle = append(settle, d.Bufnr)
		}
		st, err := c.waitSettledPulling(ctx, 0, settle, nil, b.clients, b.silent, b.fedPulls)
		if err != nil {
			return nil, err
		}
		if !st.Complete {
			b.note = joinNotes(b.note, "the diagnostics before the change were not settled: "+st.why(c))
		}
	}
	if b.before, err = c.collectDiagnostics(ctx, nil); err != nil {
		return nil, err
	}
	if err := c.Session.PublishMark(ctx, &b.mark); err != nil {
		return nil, err
	}
	return b, nil
}

func fileExists(p string) bool {
	_, err := filepath.EvalSymlinks(p)
	return err == nil
}

type settled struct {
	Complete bool `json:"complete"`
	Pending  []struct {
		Client string `json:"client"`
		File   string `json:"file"`
		Why    string `json:"why"`
	} `json:"pending"`
}

func (s settled) why(c *Client) string {
	var parts []string
	gopls := false
	for _, p := range s.Pending {
		what := p.Client
		if p.File != "" {
			what += " on " + c.Session.Root().Rel(p.File)
		}
		parts = append(parts, what+": "+p.Why)
		gopls = gopls || strings.Contains(p.Client, "gopls")
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("and %d more", len(parts)-3))
	}
	out := strings.Join(parts, "; ")
	if out == "" {
		out = "the wait was cut short"
	}
	if gopls {
		out += " (gopls reports the end of its diagnosis only with its setting verboseWorkDoneProgress = true; without it, it is asked for each file's diagnostics instead)"
	}
	return out
}

// waitSettled waits (bounded) until the servers have diagnosed the touched
// buffers' current text and, after mark, the dependants (verify.lua).
func (c *Client) waitSettled(ctx context.Context, mark int, touched []int, deps []dependant, clients []int, silent bool) (settled, error) {
	return c.waitSettledPulling(ctx, mark, touched, deps, clients, silent, nil)
}

// waitSettledPulling is waitSettled that also asks the silent servers
// about files (absolute; not open), their answers handled as their
// publishes (verify.lua's pull_files).
func (c *Client) waitSettledPulling(ctx context.Context, mark int, touched []int, deps []dependant, clients []int, silent bool, files []string) (settled, error) {
	return c.waitSettledWithin(ctx, c.waitBound(ctx), mark, touched, deps, clients, silent, files)
}

// waitSettledWithin is waitSettledPulling bounded by bound (at most
// VerifyWait; SilentWait with silent).
func (c *Client) waitSettledWithin(ctx context.Context, bound time.Duration, mark int, touched []int, deps []dependant, clients []int, silent bool, files []string) (settled, error) {
	if bound > VerifyWait {
		bound = VerifyWait
	}
	if silent && bound > SilentWait {
		bound = SilentWait
	}
	depBufs := make([]int, len(deps))
	for i, d := range deps {
		depBufs[i] = d.Bufnr
	}
	spec := map[string]any{"mark": mark, "touched": nonNil(touched), "dependants": nonNil(depBufs), "clients": nonNil(clients)}
	if len(files) > 0 {
		spec["pull_files"] = files
	}
	raw, err := c.Session.WaitSettled(ctx, spec, int(bound/time.Millisecond))
	if err != nil {
		return settled{}, err
	}
	var st settled
	if err := json.Unmarshal(raw, &st); err != nil {
		// Async's result is the JSON text itself or a JSON string of it.
		var s string
		if json.Unmarshal(raw, &s) != nil || json.Unmarshal([]byte(s), &st) != nil {
			return settled{}, apierr.Errorf(apierr.OperationFailed, "report this", "decode wait_settled: %v", err)
		}
	}
	if !st.Complete && len(st.Pending) == 0 {
		st.Pending = append(st.Pending, struct {
			Client string `json:"client"`
			File   string `json:"file"`
			Why    string `json:"why"`
		}{Why: fmt.Sprintf("not settled within %s", bound.Round(time.Millisecond))})
	}
	return st, nil
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// After waits until the servers have diagnosed the applied change (each
// touched buffer's new version, and the dependants: a diagnosis run's
// progress or a publish after the mark), bounded, then compares.
func (b *baseline) After(ctx context.Context) (*diagdelta.Delta, error) {
	c := b.c
	root := c.Session.Root()
	info, err := c.buffersOf(ctx, b.paths)
	if err != nil {
		return nil, err
	}
	var touched []int
	clients, names := map[int]bool{}, map[string]bool{}
	var ids []int
	var servers []string
	add := func(id int, name string) {
		if !clients[id] {
			clients[id] = true
			ids = append(ids, id)
		}
		if !names[name] {
			names[name] = true
			servers = append(servers, name)
		}
	}
	for i, id := range b.clients {
		add(id, b.names[i])
	}
	for _, cl := range info.Clients {
		add(cl.ID, cl.Name)
	}
	for _, bn := range info.Bufnrs {
		if bn != 0 {
			touched = append(touched, bn)
		}
	}
	if b.pulled {
		return b.afterPulled(ctx, info, servers)
	}
	complete, why := true, ""
	if len(ids) == 0 {
		// Nothing diagnoses these files: no server's diagnostics moved.
		d := diagdelta.New(b.mode, nil, nil, false, "no language server is attached to the changed files: nothing checked them", servers, nil)
		d.Note = b.note
		return d, nil
	}
	st, err := c.waitSettledPulling(ctx, b.mark, touched, b.dependants, ids, b.silent || info.silent(), b.fedPulls)
	if err != nil {
		return nil, err
	}
	if !st.Complete {
		complete, why = false, st.why(c)
	}
	after, err := c.collectDiagnostics(ctx, nil)
	if err != nil {
		return nil, err
	}
	files := map[string]bool{}
	for _, p := range b.paths {
		files[root.Rel(p)] = true
	}
	for _, d := range b.dependants {
		files[root.Rel(d.File)] = true
	}
	// Files the servers reported on without being open (gopls diagnoses
	// the whole workspace) are compared too when the change can affect
	// them: touched, or importing a touched file.
	left := map[string]bool{}
	inScope := func(d Diagnostic) bool {
		if filepath.IsAbs(d.File) || b.scope.affects(filepath.Join(root.Dir(), filepath.FromSlash(d.File))) {
			return true
		}
		if diagdelta.Counted(d.Severity) {
			left[d.File] = true
		}
		return false
	}
	before, afterItems := toItems(b.before, inScope), toItems(after, inScope)
	for _, it := range afterItems {
		files[it.File] = true
	}
	checked := make([]string, 0, len(files))
	for f := range files {
		checked = append(checked, f)
	}
	sort.Strings(checked)
	sort.Strings(servers)
	d := diagdelta.New(b.mode, before, afterItems, complete, why, servers, checked)
	d.Note = b.note
	d.WaitedOn = info.waitedOn()
	if b.pullUnchecked > 0 {
		d.Note = joinNotes(d.Note, fmt.Sprintf("%d test file(s) (_test.go) the change can affect were not checked: they are not open (get_diagnostics on one checks it)", b.pullUnchecked))
	}
	if len(left) > 0 {
		d.Note = joinNotes(d.Note, fmt.Sprintf("diagnostics of %d file(s) that neither the change touched nor import a touched file were not compared", len(left)))
	}
	if b.fixes {
		c.addFixes(ctx, d)
	}
	return d, nil
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func toItems(diags []Diagnostic, keep func(Diagnostic) bool) []diagdelta.Item {
	out := make([]diagdelta.Item, 0, len(diags))
	for _, d := range diags {
		if !keep(d) || !diagdelta.Counted(d.Severity) {
			continue
		}
		out = append(out, diagdelta.Item{Problem: d.Problem, Text: d.text})
	}
	return out
}

// addFixes lists the quick fixes of the first introduced errors. A file
// that is not loaded is not opened for it, and a server's failure to
// answer leaves that diagnostic without fixes.
func (c *Client) addFixes(ctx context.Context, d *diagdelta.Delta) {
	n := 0
	for i := range d.Introduced {
		it := &d.Introduced[i]
		if !strings.EqualFold(it.Severity, "error") || n >= MaxFixedDiagnostics {
			continue
		}
		n++
		fixes, err := c.QuickFixes(ctx, it.File, Diagnostic{Problem: it.Problem})
		if err == nil {
			it.Fixes = fixes
		}
	}
}

// QuickFixes asks the servers of file for the quick fixes of a diagnostic
// (its range, with the diagnostics on those lines as context), each with
// the apply_code_action arguments that apply it. Shared by the
// diagnostics delta and get_diagnostics {include_fixes}.
func (c *Client) QuickFixes(ctx context.Context, file string, d Diagnostic) ([]diagdelta.Fix, error) {
	doc, err := c.Open(ctx, file)
	if err != nil {
		return nil, err
	}
	start, end := d.Column, d.EndColumn
	span, err := c.LocateSpan(ctx, doc, RangeSpec{Start: Target{Line: d.Line, Column: &start}, EndLine: max(d.EndLine, d.Line), EndColumn: &end})
	if err != nil {
		return nil, err
	}
	actions, _, err := c.CodeActions(ctx, ActionRequest{Doc: doc, Span: span, Only: []string{"quickfix"}})
	if err != nil {
		return nil, err
	}
	out := []diagdelta.Fix{}
	for _, a := range actions {
		if a.Disabled != "" || a.NotRunnable != "" || (a.Kind != "" && !KindMatches(a.Kind, "quickfix")) {
			continue
		}
		args := map[string]any{"file": doc.Rel, "line": d.Line, "column": d.Column, "title": a.Title}
		if d.EndLine != d.Line || d.EndColumn != d.Column {
			args["end_line"], args["end_column"] = max(d.EndLine, d.Line), d.EndColumn
		}
		out = append(out, diagdelta.Fix{Title: a.Title, Kind: a.Kind, Server: a.Server, ApplyCodeAction: args})
	}
	return out, nil
}

var _ = nvim.Options{}
