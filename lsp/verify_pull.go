package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/lang"
)

// A server that gives no event for "done" (a user's gopls without
// verboseWorkDoneProgress: it publishes only diagnostics that changed, and
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

func (b bufferInfo) silentIDs() []int {
	var ids []int
	for _, cl := range b.Clients {
		ids = append(ids, cl.ID)
	}
	return ids
}

// MaxPulledFiles bounds the files a pulled delta asks about (the touched
// files first, then their packages' other files, then the open ones).
var MaxPulledFiles = 200

// pullSet is the files whose diagnostics a change may move, as far as a
// pull can ask: the touched files, the other files of their packages where
// a package is a folder (Go; test files only when open), and the open files
// of the same servers (the dependants). Sensitive files are left out.
func (b *baseline) pullSet(touched []string) []string {
	root := b.c.Session.Root()
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] && !root.Sensitive(p) && len(out) < MaxPulledFiles {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range touched {
		add(p)
	}
	for _, p := range touched {
		l := lang.ForFile(p)
		if l == nil || !l.Imports.Folder {
			continue
		}
		entries, err := os.ReadDir(filepath.Dir(p))
		if err != nil {
			continue
		}
		for _, e := range entries {
			f := filepath.Join(filepath.Dir(p), e.Name())
			if e.Type().IsRegular() && lang.ForFile(f) == l && !lang.IsTestFile(f) {
				add(f)
			}
		}
	}
	for _, d := range b.dependants {
		add(d.File)
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

// afterPulled asks the silent servers again for the same files, now
// holding the change, and compares.
func (b *baseline) afterPulled(ctx context.Context, servers []string) (*diagdelta.Delta, error) {
	c := b.c
	after, ok, err := c.pullAll(ctx, b.pullIDs, b.pullFiles)
	if err != nil {
		return nil, err
	}
	complete, why := ok, ""
	if !ok {
		why = "the server did not answer for the changed files' diagnostics (pull)"
		after = nil
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
	d.WaitedOn = "pull: " + strings.Join(servers, ", ") + " asked for the diagnostics of each file checked (it reports no end of its diagnosis runs)"
	notes := []string{}
	if b.note != "" {
		notes = append(notes, b.note)
	}
	notes = append(notes, "files of other packages that are not open were not checked")
	d.Note = strings.Join(notes, "; ")
	if b.fixes {
		c.addFixes(ctx, d)
	}
	return d, nil
}
