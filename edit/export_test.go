package edit

import (
	"context"
	"time"

	"github.com/nvbridge/nvbridge/preview"
)

// Test hooks: each alters the plans this engine sends to Neovim, so tests
// can make apply.lua fail at a chosen file after Go's own checks passed.

// FailAfterEditing makes apply.lua raise an error right after it edited the
// file at abs (an absolute path), so the rollback of every buffer runs.
func (e *Engine) FailAfterEditing(abs string) {
	e.testPlan = func(p *luaPlan) { p.FailAt = abs }
}

// StaleTick makes the plan expect another changedtick for abs.
func (e *Engine) StaleTick(abs string) {
	e.testPlan = func(p *luaPlan) {
		for i := range p.Files {
			if p.Files[i].Path == abs {
				p.Files[i].Expect.ChangedTick--
			}
		}
	}
}

// BadRange makes the first op for abs end past the end of its line.
func (e *Engine) BadRange(abs string) {
	e.testPlan = func(p *luaPlan) {
		for i := range p.Files {
			if p.Files[i].Path == abs && len(p.Files[i].Ops) > 0 {
				ops := append([]bufOp(nil), p.Files[i].Ops...)
				ops[0].EC += 1000
				p.Files[i].Ops = ops
			}
		}
	}
}

// SkipRecheck(true) leaves out Go's re-check of every path right before the
// Neovim call that applies a changeset, so a test sees the Lua guard (in the
// writing call itself) refuse on its own.
func (e *Engine) SkipRecheck(skip bool) { e.skipRecheck = skip }

// ClearHooks removes any test hook.
func (e *Engine) ClearHooks() { e.testPlan = nil }

// SetClock replaces the clock that dates previews.
func (e *Engine) SetClock(now func() time.Time) { e.now = now }

// StoredBytes is the size the stored previews count for.
func (e *Engine) StoredBytes() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.storedBytes
}

// Fingerprint is the commit's fingerprint of written bytes.
var Fingerprint = fingerprint

// RecentKept are the paths (relative to the root) whose texts after the
// change the last stored preview holds for its apply (afterKept).
func (e *Engine) RecentKept() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.store[e.recent.id]
	if p == nil {
		return nil
	}
	var out []string
	for i, d := range e.recent.after {
		if d.Lines != nil && i < len(p.results) {
			out = append(out, p.results[i].Path)
		}
	}
	return out
}

// PlannedOn is the documents prepare plans cs on (its before): the texts
// the changes apply to, as it took them.
func (e *Engine) PlannedOn(ctx context.Context, cs preview.Changeset) ([]preview.Document, error) {
	p, err := e.prepare(ctx, cs, nil)
	if err != nil {
		return nil, err
	}
	return p.before, nil
}

// PlannedPaths are the paths prepare plans cs's files at (absolute).
func (e *Engine) PlannedPaths(ctx context.Context, cs preview.Changeset) ([]string, error) {
	p, err := e.prepare(ctx, cs, nil)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(p.files))
	for i, f := range p.files {
		out[i] = f.Path
	}
	return out, nil
}
