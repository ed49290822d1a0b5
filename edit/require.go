package edit

// Apply only when clean, and chains of changesets checked as one: a
// changeset's texts before and after, rebuilt for a stored preview (which
// keeps its edits, not whole documents), shown to the Verifier's check.

import (
	"context"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// RequireNoNewErrors (Options.Require): the change is checked first and
// applied only when it introduces no error.
const RequireNoNewErrors = "no_new_errors"

// ValidRequire checks an Options.Require value.
func ValidRequire(s string) error {
	if s == "" || s == RequireNoNewErrors {
		return nil
	}
	return apierr.Errorf(apierr.InvalidParameter, `pass require: "no_new_errors", or leave it out`, "unknown require %q", s)
}

// checkFiles returns the texts of p's files before and after the change:
// p's own while it holds them, else the current texts (which must be the
// ones previewed: CONFLICT otherwise) with p's edits applied.
func (e *Engine) checkFiles(ctx context.Context, p *prepared) ([]diagdelta.CheckFile, error) {
	files := make([]diagdelta.CheckFile, 0, len(p.files))
	if len(p.before) == len(p.files) && len(p.after) == len(p.files) {
		for i, f := range p.files {
			files = append(files, diagdelta.CheckFile{Path: f.Path, NewPath: f.NewPath, Op: f.Kind, Before: p.before[i].Text(), After: p.after[i].Text()})
		}
		return files, nil
	}
	if err := e.unmoved(ctx, p); err != nil {
		return nil, err
	}
	paths := make([]string, len(p.files))
	for i, f := range p.files {
		paths[i] = f.Path
	}
	snaps, err := e.s.Snapshot(ctx, paths, nvim.SnapshotOptions{})
	if err != nil {
		return nil, err
	}
	for i, f := range p.files {
		cf := diagdelta.CheckFile{Path: f.Path, NewPath: f.NewPath, Op: f.Kind}
		if f.Kind == "edit" && i < len(snaps) && i < len(p.fileEdits) {
			before := documentOf(snaps[i])
			after, err := preview.Apply(before, p.fileEdits[i])
			if err != nil {
				return nil, editError(p.results[i].Path, err)
			}
			cf.Before, cf.After = before.Text(), after.Text()
		}
		files = append(files, cf)
	}
	return files, nil
}

// requireClean checks p before it is applied (Options.Require): nil when
// it introduces no error, else PRECONDITION_FAILED listing the errors
// with their quick fixes (details: diagnostics_delta), nothing changed.
func (e *Engine) requireClean(ctx context.Context, p *prepared) error {
	if e.Verifier == nil {
		return apierr.New(apierr.Unsupported, "apply without require and read the apply's diagnostics delta", "no diagnostics checker is configured")
	}
	files, err := e.checkFiles(ctx, p)
	if err != nil {
		return err
	}
	ds, err := e.Verifier.CheckSteps(ctx, [][]diagdelta.CheckFile{files}, true)
	if err != nil {
		return err
	}
	if err := e.unmoved(ctx, p); err != nil {
		return err
	}
	d := ds[len(ds)-1]
	if n := d.IntroducedCounts["error"]; n > 0 {
		return apierr.Errorf(apierr.PreconditionFailed,
			"fix the errors in the change (the fixes listed are what the servers offer on the changed text: apply_code_action applies one once the change is applied), preview it again and retry; or apply without require",
			"not applied (require: no_new_errors): the change introduces %d error(s); nothing was changed\n%s", n, strings.TrimRight(verdictLine(d), "\n")).
			WithDetails(map[string]any{"diagnostics_delta": d})
	}
	if !d.Complete {
		return apierr.Errorf(apierr.PreconditionFailed,
			"retry (the servers may be busy indexing), or apply without require and read the apply's diagnostics delta",
			"not applied (require: no_new_errors): the check could not confirm the change introduces no error: %s; nothing was changed", d.Incomplete).
			WithDetails(map[string]any{"diagnostics_delta": d})
	}
	return nil
}
