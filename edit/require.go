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

// applyClean applies p under Options.Require: checked first (requireClean),
// then applied without saving and measured in the user's Neovim. The
// check's copy can miss what a server reports late; when the apply's own
// delta introduces an error, the change is taken back (one undo step per
// buffer) and refused like a failed check. Only a clean change is saved
// (when asked).
func (e *Engine) applyClean(ctx context.Context, p *prepared, opts Options, id string) (Result, error) {
	if err := e.requireClean(ctx, p); err != nil {
		return Result{}, err
	}
	save := opts.Save
	opts.Save = false
	res, err := e.apply(ctx, p, opts, id)
	if err != nil {
		return Result{}, err
	}
	if d := res.Diagnostics; d != nil && d.IntroducedCounts["error"] > 0 {
		if _, uerr := e.UndoChangeset(ctx, res.AppliedID); uerr != nil {
			res.Files = append([]FileResult(nil), res.Files...)
			return res, apierr.Errorf(apierr.PreconditionFailed, "undo {\"changeset_id\": \""+res.AppliedID+"\"} takes it back",
				"require: no_new_errors: the change introduces %d error(s) that its check had not seen, and taking it back failed (%s): it is applied, unsaved\n%s",
				d.IntroducedCounts["error"], apierr.As(uerr).Message, strings.TrimRight(verdictLine(d), "\n")).WithDetails(map[string]any{"diagnostics_delta": d})
		}
		return Result{}, apierr.Errorf(apierr.PreconditionFailed,
			"fix the errors in the change, preview it again and retry; or apply without require",
			"not applied (require: no_new_errors): the change introduces %d error(s), found once applied (the check's copy had not seen them yet), and taken back: nothing was changed\n%s",
			d.IntroducedCounts["error"], strings.TrimRight(verdictLine(d), "\n")).WithDetails(map[string]any{"diagnostics_delta": d})
	}
	if save {
		for i, f := range res.Files {
			if f.Op == "delete" {
				continue
			}
			name := f.Path
			if f.NewPath != "" {
				name = f.NewPath
			}
			sr, err := e.SaveWith(ctx, name, false, opts.NoAutocmd)
			if err != nil {
				return res, err
			}
			res.Files[i].Saved, res.Files[i].IsModified = sr.Saved, sr.IsModified
			if sr.WrittenDiff != "" {
				res.WrittenDiff += sr.WrittenDiff
			}
		}
	}
	return res, nil
}
