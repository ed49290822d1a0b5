package edit

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/nvim"
)

// Verifier measures what a change does to the language servers'
// diagnostics. lsp.Verifier implements it; tools.NewEnv sets it on the
// session's engine (edit does not import lsp).
type Verifier interface {
	// Before records the diagnostics of the files a change is about to
	// touch (absolute paths) and of the open files that depend on them,
	// each for its current text.
	Before(ctx context.Context, paths []string) (diagdelta.Baseline, error)
	// Check reports the delta of the change without applying it: the
	// servers are shown the new texts on a copy the user never sees.
	Check(ctx context.Context, files []diagdelta.CheckFile) (*diagdelta.Delta, error)
	// CheckSteps checks changes applied one after the other (each step's
	// files with their texts before and after that step): one delta per
	// step, each against the texts before the first; with fixes, the quick
	// fixes of the errors a step introduces.
	CheckSteps(ctx context.Context, steps [][]diagdelta.CheckFile, fixes bool) ([]*diagdelta.Delta, error)
}

// Warmer is a Verifier that says whether its check's copy is running
// (started by an earlier check): a guard (Options.Guard) checks on it only
// then, or when the user's Neovim is attached.
type Warmer interface {
	CheckRunning() bool
}

// Follower is a Verifier whose check keeps a copy of the files: Follow
// shows it the texts an apply just gave them (absolute path to a function
// making the text: none is made when there is no copy), in the
// background, so the next check starts from them already diagnosed.
type Follower interface {
	Follow(texts map[string]func() string)
	// Following reports, without waiting for a check in progress,
	// whether Follow may show anything (the copy was started).
	Following() bool
}

// before records the baseline for an apply; a failure to record it is
// reported in the delta, never a failure of the apply.
func (e *Engine) before(ctx context.Context, p *prepared) (diagdelta.Baseline, *diagdelta.Delta) {
	if e.Verifier == nil {
		return nil, nil
	}
	paths := make([]string, 0, len(p.files))
	for _, f := range p.files {
		if f.Kind == "delete" {
			continue
		}
		if f.NewPath != "" {
			paths = append(paths, f.NewPath)
		} else {
			paths = append(paths, f.Path)
		}
	}
	b, err := e.Verifier.Before(ctx, paths)
	if err != nil {
		return nil, failedDelta("applied", err)
	}
	return b, nil
}

func failedDelta(mode string, err error) *diagdelta.Delta {
	d := diagdelta.New(mode, nil, nil, false, "diagnostics could not be compared: "+apierr.As(err).Message, nil, nil)
	return d
}

// after measures the delta of an applied change.
func (e *Engine) after(ctx context.Context, b diagdelta.Baseline, failed *diagdelta.Delta) *diagdelta.Delta {
	if b == nil {
		return failed
	}
	d, err := b.After(ctx)
	if err != nil {
		return failedDelta("applied", err)
	}
	return d
}

// check runs the Verifier's check for a prepared changeset, then makes
// sure no target moved while it ran (a user edit during the check):
// CONFLICT rather than a delta computed from mixed texts.
func (e *Engine) check(ctx context.Context, p *prepared) (*diagdelta.Delta, error) {
	if e.Verifier == nil {
		return nil, apierr.New(apierr.Unsupported, "apply it and read the diagnostics delta of the apply instead", "no diagnostics checker is configured")
	}
	files := make([]diagdelta.CheckFile, 0, len(p.files))
	for i, f := range p.files {
		cf := diagdelta.CheckFile{Path: f.Path, NewPath: f.NewPath, Op: f.Kind}
		if i < len(p.before) {
			cf.Before = p.before[i].Text()
		}
		if i < len(p.after) {
			cf.After = p.after[i].Text()
		}
		files = append(files, cf)
	}
	d, err := e.Verifier.Check(ctx, files)
	if err != nil {
		return nil, err
	}
	if err := e.unmoved(ctx, p); err != nil {
		return nil, err
	}
	return d, nil
}

// unmoved fails with CONFLICT when a target of p changed since it was
// prepared (a loaded buffer's changedtick, an unloaded file's content).
func (e *Engine) unmoved(ctx context.Context, p *prepared) error {
	paths := make([]string, len(p.files))
	for i, f := range p.files {
		paths[i] = f.Path
	}
	snaps, err := e.s.Snapshot(ctx, paths, nvim.SnapshotOptions{})
	if err != nil {
		return err
	}
	for i, s := range snaps {
		if i >= len(p.files) {
			break
		}
		want := p.files[i].Expect
		moved := s.Loaded != want.Loaded
		if !moved && want.Loaded {
			moved = s.Bufnr != want.Bufnr || s.ChangedTick != want.ChangedTick
		} else if !moved {
			moved = s.Fingerprint != want.Fingerprint
		}
		if moved {
			return apierr.Errorf(apierr.Conflict, "preview (and check) the change again against the current text",
				"%s changed while its check ran (nothing was applied; the check's result would mix two texts)", e.root.Rel(p.files[i].Path))
		}
	}
	return nil
}

// verdictLine renders a delta for a changeset summary.
func verdictLine(d *diagdelta.Delta) string {
	if d == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("Diagnostics: " + d.Verdict + "\n")
	for _, it := range d.Introduced {
		b.WriteString("  + " + itemLine(it) + "\n")
		for _, f := range it.Fixes {
			b.WriteString("      fix: " + f.Title + "\n")
		}
	}
	for _, it := range d.Resolved {
		b.WriteString("  - " + itemLine(it) + "\n")
	}
	if d.Note != "" {
		b.WriteString("  note: " + d.Note + "\n")
	}
	return b.String()
}

func itemLine(it diagdelta.Item) string {
	return fmt.Sprintf("%s:%d:%d %s: %s", it.File, it.Line, it.Column, it.Severity, strings.SplitN(it.Message, "\n", 2)[0])
}
