package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/lang"
)

// A server that gives no event for "done" (gopls without
// verboseWorkDoneProgress, as nvbridge's own gopls and a user's on its
// defaults run: it publishes only diagnostics that changed, and
// with its default diagnosticsDelay its full diagnosis of a change comes a
// second after its first publish) is asked instead: textDocument/diagnostic
// (pull) on the files that matter, before and after the change, answered
// from the text it holds when the request arrives (Neovim sends every
// pending change first). gopls answers it whether or not it advertises pull
// diagnostics (its setting pullDiagnostics only advertises it). The delta
// then compares those answers, file by file.

// allSilent reports whether every client is silent (pull replaces the
// wait only when no other server's publishes are to be waited for).
func (b bufferInfo) allSilent() bool {
	for _, cl := range b.Clients {
		if !cl.Silent {
			return false
		}
	}
	return len(b.Clients) > 0
}

func (b bufferInfo) clientIDs() []int {
	var ids []int
	for _, cl := range b.Clients {
		ids = append(ids, cl.ID)
	}
	return ids
}

// MaxPulledFiles bounds the files a pulled delta asks about; the others
// the change can affect make it incomplete.
var MaxPulledFiles = 200

// pulled is what a pull asks about: files, and the count of test files
// the change can affect that it does not ask about (not open).
type pulled struct {
	files []string
	tests int
	// print fingerprints the workspace files scanned (changeScope.affected).
	print string
	lang  *lang.Language
	// missing says which files the change can affect are not asked about
	// ("" when none is, test files aside): the delta is then incomplete.
	missing string
}

// pullSet is the files whose diagnostics a change may move: the touched
// files, the open files of the same servers that import them (the
// dependants), the other files of their packages where a package is a
// folder (Go), and the files of the workspace packages that import them,
// directly or not (changeScope.affected). Test files (_test.go: a
// package's test variant, whose pull costs the analysis of the package
// with its tests, per file) are asked about only when open; the others in
// scope are counted. Sensitive files are left out. Past MaxPulledFiles, or
// when the workspace is too large to scan for importers, the set says what
// it misses.
func (b *baseline) pullSet(touched []string) pulled {
	root := b.c.Session.Root()
	seen := map[string]bool{}
	var out pulled
	over := 0
	add := func(p string) {
		if seen[p] || root.Sensitive(p) {
			return
		}
		seen[p] = true
		if len(out.files) >= MaxPulledFiles {
			over++
			return
		}
		out.files = append(out.files, p)
	}
	for _, p := range touched {
		add(p)
	}
	for _, d := range b.dependants {
		add(d.File)
	}
	var folder *lang.Language
	dirs := map[string]bool{}
	for _, p := range touched {
		if l := lang.ForFile(p); l != nil && l.Imports.Folder {
			folder = l
			dirs[filepath.Dir(p)] = true
		}
	}
	if folder == nil {
		return out
	}
	out.lang = folder
	files, print, ok := b.scope.affected(folder)
	if !ok {
		// Unknown importers: the touched packages' files at least.
		for dir := range dirs {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				f := filepath.Join(dir, e.Name())
				if e.Type().IsRegular() && lang.ForFile(f) == folder && !testFileOf(folder, f) {
					add(f)
				}
			}
		}
		out.missing = fmt.Sprintf("the packages importing the changed ones were not looked for (the workspace has more than %d files)", maxScopeReads)
		return out
	}
	out.print = print
	// The touched packages' files first, then their importers'.
	sort.SliceStable(files, func(i, j int) bool { return dirs[filepath.Dir(files[i])] && !dirs[filepath.Dir(files[j])] })
	for _, f := range files {
		if !testFileOf(folder, f) {
			add(f)
		} else if !seen[f] {
			out.tests++
		}
	}
	if over > 0 {
		out.missing = fmt.Sprintf("%d of the files the change can affect were not checked (a pulled delta asks about %d at most)", over, MaxPulledFiles)
	}
	return out
}

type pullAnswer struct {
	Supported bool                  `json:"supported"`
	Files     map[string][]diagWire `json:"files"`
	Failed    map[string]string     `json:"failed"`
}

// pullAll asks each client for the diagnostics of paths; ok is false when
// one of them has no pull method (the caller waits for publishes instead)
// or a file's answer failed.
func (c *Client) pullAll(ctx context.Context, ids []int, paths []string) (out []Diagnostic, ok bool, err error) {
	var wires []diagWire
	for _, id := range ids {
		raw, err := c.Session.PullDiagnostics(ctx, id, paths)
		if err != nil {
			return nil, false, err
		}
		var a pullAnswer
		if err := json.Unmarshal(raw, &a); err != nil {
			var s string
			if json.Unmarshal(raw, &s) != nil || json.Unmarshal([]byte(s), &a) != nil {
				return nil, false, apierr.Errorf(apierr.OperationFailed, "report this", "decode pull: %v", err)
			}
		}
		if !a.Supported || len(a.Failed) > 0 {
			return nil, false, nil
		}
		for _, p := range paths {
			wires = append(wires, a.Files[p]...)
		}
	}
	out, err = c.diagnosticsOf(ctx, wires)
	return out, err == nil, err
}

// The last pulled answers of a client (Client.lastPull), and the state
// they describe (pullKey): a baseline taken in that same state (the next
// change's, when nothing changed in between) is that answer, without
// asking again.
type pullRecord struct {
	key   string
	diags []Diagnostic
}

// pullKey is the state pulled answers describe: the clients and what they
// were sent (their buffers' versions, nvbridge's writes), the files asked
// about, and the workspace files on disk (pulled.print). "" when unknown.
func (b bufferInfo) pullKey(set pulled) string {
	if set.print == "" {
		return ""
	}
	var k strings.Builder
	for _, cl := range b.Clients {
		fmt.Fprintf(&k, "%d=%s;", cl.ID, cl.Sent)
	}
	k.WriteString("|" + strings.Join(set.files, "\x00") + "|" + set.print)
	return k.String()
}

// keepBaseline records, once a check set the copy's buffers back to the
// texts its baseline was pulled in, that those answers describe the
// copy's state again (only its documents' versions moved): the next
// check's baseline in that state is them, without asking the servers
// again. The state's key holds the workspace files' fingerprint taken
// with the baseline: a change on disk since is another state.
func (b *baseline) keepBaseline(ctx context.Context) {
	set := b.pullSetOf
	if !b.pulled || set.print == "" {
		return
	}
	info, err := b.c.buffersOf(ctx, b.paths)
	if err != nil {
		return
	}
	if key := info.pullKey(set); key != "" {
		b.c.lastPull.Store(&pullRecord{key: key, diags: slices.Clone(b.before)})
	}
}

func (c *Client) pullMemo(key string) ([]Diagnostic, bool) {
	if key == "" {
		return nil, false
	}
	if r := c.lastPull.Load(); r != nil && r.key == key {
		return r.diags, true
	}
	return nil, false
}

// afterPulled asks the servers again for the same files, now holding the
// change, and compares.
func (b *baseline) afterPulled(ctx context.Context, info bufferInfo, servers []string) (*diagdelta.Delta, error) {
	c := b.c
	// The state the answers describe, read before asking: a change after
	// this makes the next baseline's state differ (it asks again).
	key := ""
	if set := b.pullSetOf; set.lang != nil {
		if _, print, ok := b.scope.affected(set.lang); ok {
			set.print = print
			key = info.pullKey(set)
		}
	}
	after, ok, err := c.pullAll(ctx, b.pullIDs, b.pullFiles)
	if err != nil {
		return nil, err
	}
	if ok && key != "" {
		c.lastPull.Store(&pullRecord{key: key, diags: after})
	} else {
		c.lastPull.Store(nil)
	}
	complete, why := ok, ""
	if !ok {
		why = "the server did not answer for the changed files' diagnostics (pull)"
		after = nil
	} else if b.pullSetOf.missing != "" {
		complete, why = false, b.pullSetOf.missing
	}
	root := c.Session.Root()
	checked := make([]string, 0, len(b.pullFiles))
	for _, p := range b.pullFiles {
		checked = append(checked, root.Rel(p))
	}
	sort.Strings(checked)
	sort.Strings(servers)
	all := func(Diagnostic) bool { return true }
	d := diagdelta.New(b.mode, toItems(b.before, all), toItems(after, all), complete, why, servers, checked)
	d.WaitedOn = "pull: " + strings.Join(servers, ", ") + " asked for the diagnostics of each file checked"
	if b.silent {
		d.WaitedOn += " (it reports no end of its diagnosis runs)"
	}
	notes := []string{}
	if b.note != "" {
		notes = append(notes, b.note)
	}
	if b.pullUnchecked > 0 {
		notes = append(notes, fmt.Sprintf("%d test file(s) (_test.go) the change can affect were not checked: they are not open (get_diagnostics on one checks it)", b.pullUnchecked))
	}
	d.Note = strings.Join(notes, "; ")
	if b.fixes {
		c.addFixes(ctx, d)
	}
	return d, nil
}
