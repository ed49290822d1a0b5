package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
)

// shownText is a file (absolute) and the text a check shows the copy of it.
type shownText struct{ path, text string }

// MaxCheckedOpenFiles bounds how many of the user's open files a check
// shows its second Neovim (beside the changed ones).
var MaxCheckedOpenFiles = 64

// Check reports the diagnostics delta of changing files to their new
// texts without applying anything. It runs in a second, embedded Neovim
// on the same root with nvbridge's servers (started on the first check,
// then kept): that copy is shown the user's current texts (unsaved edits
// included) of the changed files and of the user's open files of the same
// languages, diagnosed, then shown the new texts, diagnosed again and
// compared, and set back. The user's Neovim is only read: its buffers,
// undo history, marks, language servers and diagnostics never see the
// change. (Why not show the user's own servers the new text and then the
// real one again: Neovim's client numbers each document's versions and
// computes incremental changes from the buffer, so a didChange it did not
// send would desynchronise the user's servers, and their publishes would
// move the user's diagnostics display.)
//
// The copy is left holding the texts it was shown, not the disk's: an
// agent's edits are unsaved until it saves, and a copy set back to the
// disk's texts had to be shown them again, and diagnose them, before the
// next check's change. Its servers' answers before the change then
// describe its state again, and the next check in that state takes them
// without asking (keepBaseline). A file a later check does not show (the
// user closed it or discarded its changes) is given the disk's text back
// first.
func (v *Verifier) Check(ctx context.Context, files []diagdelta.CheckFile) (*diagdelta.Delta, error) {
	ds, err := v.CheckSteps(ctx, [][]diagdelta.CheckFile{files}, false)
	if err != nil {
		return nil, err
	}
	return ds[0], nil
}

// CheckSteps is Check for changes applied one after the other (a chain of
// changesets): the copy is shown the texts before the first step, then
// each step's new texts in turn, diagnosed after each. Each step's delta
// is against the texts before the first step (the last one is the chain's
// delta); with fixes, the quick fixes the servers offer for the errors a
// step introduces, on the changed text, are listed.
func (v *Verifier) CheckSteps(ctx context.Context, steps [][]diagdelta.CheckFile, fixes bool) ([]*diagdelta.Delta, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	sh, err := v.shadowClient(ctx)
	if err != nil {
		return nil, err
	}
	root := v.c.Session.Root()
	var notes []string
	edits := make([][]diagdelta.CheckFile, len(steps))
	// The texts before the first step, by path, and the paths in order.
	first := map[string]string{}
	var paths []string
	for i, files := range steps {
		for _, f := range files {
			if f.Op != "edit" {
				notes = append(notes, fmt.Sprintf("%s %s not simulated (the check shows servers text changes only)", f.Op, root.Rel(f.Path)))
				continue
			}
			edits[i] = append(edits[i], f)
			if _, ok := first[f.Path]; !ok {
				first[f.Path] = f.Before
				paths = append(paths, f.Path)
			}
		}
	}
	// The user's open files of the changed files' languages, with their
	// current text: the dependants the servers will re-check.
	var open []struct {
		File     string `json:"file"`
		Text     string `json:"text"`
		Modified bool   `json:"modified"`
	}
	var raw string
	if err := v.c.Session.OpenFiles(ctx, &raw, root.Dir()); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(raw), &open); err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "report this", "decode open files: %v", err)
	}
	langs := map[string]bool{}
	for _, p := range paths {
		if l := lang.ForFile(p); l != nil {
			langs[l.Name] = true
		}
	}
	var shown []shownText
	for _, p := range paths {
		shown = append(shown, shownText{p, first[p]})
	}
	extra := 0
	for _, o := range open {
		if _, changed := first[o.File]; changed || root.Sensitive(o.File) {
			continue
		}
		if l := lang.ForFile(o.File); l == nil || !langs[l.Name] {
			continue
		}
		if extra >= MaxCheckedOpenFiles {
			notes = append(notes, fmt.Sprintf("only %d of the open files were shown to the check", MaxCheckedOpenFiles))
			break
		}
		extra++
		shown = append(shown, shownText{o.File, o.Text})
	}
	if err := v.forgetUnshown(ctx, sh, shown); err != nil {
		return nil, err
	}
	// Show the copy the user's texts, every file loaded until the check
	// is over.
	if err := sh.Session.HoldBuffers(ctx, true); err != nil {
		return nil, err
	}
	defer func() { _ = sh.Session.HoldBuffers(context.WithoutCancel(ctx), false) }()
	// Buffers the copy had not loaded: their servers' first analysis
	// (pyright publishes an empty list as a file opens, then analyses it)
	// is awaited below, so that it does not pass for a diagnosis of the
	// change.
	shownPaths := make([]string, len(shown))
	for i, s := range shown {
		shownPaths[i] = s.path
	}
	loaded, err := sh.buffersOf(ctx, shownPaths)
	if err != nil {
		return nil, err
	}
	bufs := map[string]int{}
	for i, s := range shown {
		doc, err := sh.Open(ctx, s.path)
		if apierr.CodeOf(err) == apierr.Conflict && i < len(loaded.Bufnrs) && loaded.Bufnrs[i] != 0 {
			// The copy followed an apply (Follow) whose text was saved
			// since: its buffer holds that text unsaved and the disk
			// changed under it. The disk's text, then the user's below.
			if err = sh.Session.ReloadBuffer(ctx, loaded.Bufnrs[i]); err == nil {
				doc, err = sh.Open(ctx, s.path)
			}
		}
		if err != nil && i >= len(paths) {
			continue // an open file the copy cannot load (not on disk yet)
		}
		if err != nil {
			return nil, err
		}
		bufs[s.path] = doc.Buffer.Bufnr
		if err := sh.setText(ctx, doc.Buffer.Bufnr, s.text); err != nil {
			return nil, err
		}
	}
	for i, s := range shown {
		if _, ok := bufs[s.path]; ok && i < len(loaded.Bufnrs) && loaded.Bufnrs[i] == 0 {
			if _, err := sh.DiagnosticsFor(ctx, DiagnosticsQuery{File: s.path}); err != nil && apierr.CodeOf(err) == apierr.Cancelled {
				return nil, err
			}
		}
	}
	b, err := sh.before(ctx, paths, "check", false)
	if err != nil {
		return nil, err
	}
	var out []*diagdelta.Delta
	for i, files := range edits {
		if i > 0 {
			// The next step's wait counts from here.
			if err = sh.Session.PublishMark(ctx, &b.mark); err != nil {
				break
			}
		}
		for _, f := range files {
			if err = sh.setText(ctx, bufs[f.Path], f.After); err != nil {
				break
			}
		}
		if err != nil {
			break
		}
		var d *diagdelta.Delta
		if d, err = b.After(ctx); err != nil {
			break
		}
		if fixes && d.IntroducedCounts["error"] > 0 {
			sh.addFixes(ctx, d)
		}
		out = append(out, d)
	}
	// Back to the texts shown before the change, not waited for (the next
	// check's baseline waits, or has the answers kept here). A file whose
	// text cannot be set back is given the disk's.
	if v.leftShown == nil {
		v.leftShown = map[string]bool{}
	}
	back := context.WithoutCancel(ctx)
	allBack := err == nil
	for _, s := range shown {
		bn, ok := bufs[s.path]
		if !ok {
			continue
		}
		if _, changed := first[s.path]; !changed || sh.setText(back, bn, s.text) == nil {
			v.leftShown[s.path] = true
			continue
		}
		allBack = false
		delete(v.leftShown, s.path)
		if rerr := sh.Session.ReloadBuffer(back, bn); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return nil, err
	}
	if allBack {
		b.keepBaseline(back)
	}
	for _, d := range out {
		if len(notes) > 0 {
			n := notes
			if d.Note != "" {
				n = append([]string{d.Note}, notes...)
			}
			d.Note = strings.Join(n, "; ")
		}
		d.Refresh()
	}
	v.lastChecked = paths
	return out, nil
}

// Idle waits (bounded) until the check's copy has diagnosed its current
// texts. After a check the copy is set back to the texts it was shown and
// diagnoses them again in the background; a check that starts before that
// ended waits for it (a second diagnosis run), one that starts later pays
// for its own change only.
func (v *Verifier) Idle(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.shadow == nil || len(v.lastChecked) == 0 {
		return nil
	}
	info, err := v.shadow.buffersOf(ctx, v.lastChecked)
	if err != nil {
		return err
	}
	var bufs, ids []int
	for _, bn := range info.Bufnrs {
		if bn != 0 {
			bufs = append(bufs, bn)
		}
	}
	for _, cl := range info.Clients {
		ids = append(ids, cl.ID)
	}
	_, err = v.shadow.waitSettled(ctx, 0, bufs, nil, ids, info.silent())
	return err
}

// Follow shows the check's second Neovim, when it runs, the texts an
// apply just gave files it has loaded (absolute path to a function making
// the text, called only then), in the background, and lets its servers
// diagnose them there: the next check of
// a change to those files finds them already shown and diagnosed and pays
// for its own change only (else it showed them the apply's texts first
// and waited for that diagnosis too: two runs per check). Nothing is
// loaded for it, and nothing happens before the first check.
func (v *Verifier) Follow(texts map[string]func() string) {
	if len(texts) == 0 {
		return
	}
	safego.Go("the check's copy follows an apply", func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		sh := v.shadow
		if sh == nil {
			return
		}
		select {
		case <-sh.Session.Done():
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		paths := make([]string, 0, len(texts))
		for p := range texts {
			paths = append(paths, p)
		}
		info, err := sh.buffersOf(ctx, paths)
		if err != nil {
			return
		}
		for i, bn := range info.Bufnrs {
			if bn != 0 && i < len(paths) {
				if sh.setText(ctx, bn, texts[paths[i]]()) != nil {
					return
				}
			}
		}
	}, nil)
}

func (c *Client) setText(ctx context.Context, bufnr int, text string) error {
	var tick int
	return c.Session.SetText(ctx, &tick, bufnr, text)
}

// forgetUnshown gives the copy's buffers the disk's text back for the
// files an earlier check left holding a shown text and this one does not
// show (v.mu held): the copy's servers would otherwise still see a text
// the user no longer has.
func (v *Verifier) forgetUnshown(ctx context.Context, sh *Client, shown []shownText) error {
	if len(v.leftShown) == 0 {
		return nil
	}
	now := make(map[string]bool, len(shown))
	for _, s := range shown {
		now[s.path] = true
	}
	var stale []string
	for p := range v.leftShown {
		if !now[p] {
			stale = append(stale, p)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	info, err := sh.buffersOf(ctx, stale)
	if err != nil {
		return err
	}
	for i, bn := range info.Bufnrs {
		if i >= len(stale) {
			break
		}
		if bn != 0 {
			if err := sh.Session.ReloadBuffer(ctx, bn); err != nil {
				return err
			}
		}
		delete(v.leftShown, stale[i])
	}
	return nil
}

// shadowClient returns the check's Neovim, starting it on first use (v.mu
// held). A copy whose Neovim went away is started again.
// Following reports whether Follow may show the copy anything: a check
// started it (it may have ended since). Unlike CheckRunning it does not
// wait for a check in progress (edit.Follower).
func (v *Verifier) Following() bool { return v.following.Load() }

// CheckRunning reports whether the check's copy is running (edit.Warmer).
func (v *Verifier) CheckRunning() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.shadow == nil {
		return false
	}
	select {
	case <-v.shadow.Session.Done():
		return false
	default:
		return true
	}
}

func (v *Verifier) shadowClient(ctx context.Context) (*Client, error) {
	if v.shadow != nil {
		select {
		case <-v.shadow.Session.Done():
			v.shadow = nil
		default:
			return v.shadow, nil
		}
	}
	start := time.Now()
	v.following.Store(true)
	opts := v.c.Session.SiblingOptions()
	s, err := nvim.Open(ctx, opts)
	if err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "apply without check and read the apply's diagnostics delta, or fix the cause named here",
			"cannot start the check's second Neovim: %s", apierr.As(err).Message)
	}
	v.shadow = NewClient(s)
	v.shadow.Timeout = v.c.Timeout
	v.leftShown = nil // a new copy holds nothing it was shown
	v.shadowStarted = time.Since(start)
	return v.shadow, nil
}
