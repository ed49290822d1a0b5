package edit

// A chain of changesets checked as one: stored previews applied one after
// the other on the check's copy.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/preview"
)

// ChainStep is one changeset of a chain checked as one.
type ChainStep struct {
	ChangesetID string `json:"changeset_id"`
	// Files are the files the step changes (relative).
	Files []string `json:"files"`
	// Introduced are the errors and warnings this step introduced (absent
	// after the step before it).
	Introduced []diagdelta.Item `json:"introduced"`
	Verdict    string           `json:"verdict"`
}

// ChainResult is what CheckChain reports.
type ChainResult struct {
	Steps []ChainStep `json:"steps"`
	// FirstError is the 1-based step that first introduced an error (0:
	// none did).
	FirstError int `json:"first_error"`
	// Delta is the chain's: the texts after the last step against those
	// before the first.
	Delta *diagdelta.Delta `json:"diagnostics_delta"`
	// Verdict is the one line an agent can act on.
	Verdict string `json:"verdict"`
}

// CheckChain checks stored previews applied one after the other, on the
// check's copy (nothing is applied). Each was previewed against the
// current texts, so a file's text after step k is the current text with
// the edits of steps 1..k to it applied together (CONFLICT when two steps
// change the same lines).
func (e *Engine) CheckChain(ctx context.Context, ids []string) (ChainResult, error) {
	if e.Verifier == nil {
		return ChainResult{}, apierr.New(apierr.Unsupported, "apply the changesets one by one and read each apply's diagnostics delta", "no diagnostics checker is configured")
	}
	if len(ids) == 0 {
		return ChainResult{}, apierr.New(apierr.InvalidParameter, "pass the changeset ids of previews, in the order to apply them", "no changeset ids")
	}
	seen := map[string]bool{}
	ps := make([]*prepared, len(ids))
	e.mu.Lock()
	e.expire()
	for i, id := range ids {
		ps[i] = e.store[id]
		if ps[i] == nil || seen[id] {
			e.mu.Unlock()
			if seen[id] {
				return ChainResult{}, apierr.Errorf(apierr.InvalidParameter, "name each changeset once", "changeset %q appears twice", id)
			}
			return ChainResult{}, apierr.Errorf(apierr.ResourceNotFound, "preview the change again (ids expire after "+e.MaxAge.String()+"; an applied one is gone)", "no changeset %q", id)
		}
		seen[id] = true
	}
	e.mu.Unlock()
	// Every step was previewed against the current texts (checkFiles
	// makes sure), so a file's edits from all steps so far, together,
	// give its text after them: applied as one set on the current text
	// (overlapping edits of two steps: CONFLICT).
	sofar := map[string][]preview.TextEdit{}
	steps := make([][]diagdelta.CheckFile, len(ps))
	out := ChainResult{Steps: make([]ChainStep, len(ps))}
	for i, p := range ps {
		files, err := e.checkFiles(ctx, p)
		if err != nil {
			return ChainResult{}, err
		}
		for k, f := range files {
			rel := p.results[k].Path
			out.Steps[i].Files = append(out.Steps[i].Files, rel)
			if f.Op != "edit" || k >= len(p.fileEdits) {
				continue
			}
			prev, changed := sofar[f.Path]
			all := append(append([]preview.TextEdit(nil), prev...), p.fileEdits[k]...)
			if changed {
				base := preview.ParseDocument(f.Before)
				before, err1 := preview.Apply(base, prev)
				after, err2 := preview.Apply(base, all)
				if err := errors.Join(err1, err2); err != nil {
					return ChainResult{}, apierr.Errorf(apierr.Conflict, "check the changesets separately, or apply the earlier one and preview the later one again",
						"step %d (%s) does not apply after the steps before it: it changes the same lines of %s as an earlier step", i+1, ids[i], rel)
				}
				f.Before, f.After = before.Text(), after.Text()
				files[k] = f
			}
			sofar[f.Path] = all
		}
		out.Steps[i].ChangesetID = ids[i]
		steps[i] = files
	}
	ds, err := e.Verifier.CheckSteps(ctx, steps, false)
	if err != nil {
		return ChainResult{}, err
	}
	for _, p := range ps {
		if err := e.unmoved(ctx, p); err != nil {
			return ChainResult{}, err
		}
	}
	var prev []diagdelta.Item
	for i, d := range ds {
		intro, _ := diagdelta.Compare(prev, d.Introduced)
		prev = d.Introduced
		s := &out.Steps[i]
		s.Introduced = intro
		errs := 0
		for _, it := range intro {
			if strings.EqualFold(it.Severity, "error") {
				errs++
			}
		}
		switch {
		case errs > 0:
			s.Verdict = fmt.Sprintf("introduces %d error(s)", errs)
			if out.FirstError == 0 {
				out.FirstError = i + 1
			}
		case len(intro) > 0:
			s.Verdict = fmt.Sprintf("introduces %d warning(s), no error", len(intro))
		default:
			s.Verdict = "introduces nothing"
		}
		if !d.Complete {
			s.Verdict += " (incomplete: " + d.Incomplete + ")"
		}
	}
	out.Delta = ds[len(ds)-1]
	if out.FirstError > 0 {
		out.Verdict = fmt.Sprintf("step %d (%s) is the first to introduce an error; the chain: %s", out.FirstError, ids[out.FirstError-1], out.Delta.Verdict)
	} else {
		out.Verdict = "no step introduces an error; the chain: " + out.Delta.Verdict
	}
	return out, nil
}
