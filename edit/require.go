package edit

// Apply only when clean, and chains of changesets checked as one: a
// changeset's texts before and after, rebuilt for a stored preview (which
// keeps its edits, not whole documents), shown to the Verifier's check.

import (
	"context"
	"slices"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/lang"
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

// applyWith applies p as opts ask: checked first under Require (strict)
// or Guard (applyClean), else at once.
func (e *Engine) applyWith(ctx context.Context, p *prepared, opts Options, id string) (Result, error) {
	switch {
	case opts.Require != "":
		return e.applyClean(ctx, p, opts, id, true)
	case opts.Guard && e.Verifier != nil:
		return e.applyClean(ctx, p, opts, id, false)
	}
	return e.apply(ctx, p, opts, id)
}

// refusal is the PRECONDITION_FAILED of a change that introduces errors,
// each named (file:line:column, message, the server's rule or code);
// errs are the errors that count (nil: every error of d).
func refusal(d *diagdelta.Delta, errs []diagdelta.Item, why, remediation string) error {
	if errs == nil {
		errs = errorsOf(d)
	}
	var b strings.Builder
	for _, it := range errs {
		b.WriteString("\n  + " + itemLine(it))
		if code := strings.TrimSpace(it.Source + " " + it.Code); code != "" {
			b.WriteString(" [" + code + "]")
		}
		for _, f := range it.Fixes {
			b.WriteString("\n      fix: " + f.Title)
		}
	}
	return apierr.Errorf(apierr.PreconditionFailed, remediation, "%s: the change introduces %d error(s)%s", why, len(errs), b.String()).
		WithDetails(map[string]any{"diagnostics_delta": d})
}

func errorsOf(d *diagdelta.Delta) []diagdelta.Item {
	var out []diagdelta.Item
	for _, it := range d.Introduced {
		if strings.EqualFold(it.Severity, "error") {
			out = append(out, it)
		}
	}
	return out
}

// guardErrors are the errors d introduces that a guard counts: those in
// files the project's own checker covers (lang.Checked: not requests'
// tests, outside pyright's include, where pyright resolves requests to its
// bundled stubs).
func (e *Engine) guardErrors(d *diagdelta.Delta) []diagdelta.Item {
	var out []diagdelta.Item
	for _, it := range errorsOf(d) {
		if lang.Checked(lang.ForFile(it.File), e.root.Dir(), it.File) {
			out = append(out, it)
		}
	}
	return out
}

// guardRemediation is what a refused refactoring's caller can do.
const guardRemediation = "the refactoring would break the code as the servers see it: change it so that it does not (or fix what it breaks first), preview it again and retry; to apply it all the same, pass accept_errors: true"

// requireClean checks p before it is applied (Options.Require, strict;
// Options.Guard, not strict): nil when it introduces no error, else
// PRECONDITION_FAILED naming each error with its quick fixes (details:
// diagnostics_delta), nothing changed. Strict, a check that could not
// confirm the change is clean refuses too; not strict, it passes (the
// apply's own delta decides), a guarded preview's own check, when it ran,
// is the answer, and in an embedded session whose check's copy is not
// running the apply's delta alone decides.
func (e *Engine) requireClean(ctx context.Context, p *prepared, strict bool) error {
	if e.Verifier == nil {
		return apierr.New(apierr.Unsupported, "apply without require and read the apply's diagnostics delta", "no diagnostics checker is configured")
	}
	if !strict && p.checked == nil && e.s.Embedded() {
		// No user sees the buffers: without a running copy, the apply's
		// own delta is the check (applyClean takes a change that
		// introduces errors back before saving), instead of starting a
		// second Neovim whose servers load the project first (zod: 40 s).
		if w, ok := e.Verifier.(Warmer); ok && !w.CheckRunning() {
			return nil
		}
	}
	if !strict && p.checked != nil {
		if errs := e.guardErrors(p.checked); len(errs) > 0 {
			return refusal(p.checked, errs, "not applied (a refactoring is applied only when it introduces no error; its preview's check found some); nothing was changed", guardRemediation)
		}
		if p.checked.Complete {
			return nil
		}
	}
	files, err := e.checkFiles(ctx, p)
	if err != nil {
		return err
	}
	ds, err := e.Verifier.CheckSteps(ctx, [][]diagdelta.CheckFile{files}, true)
	if err != nil {
		if !strict && apierr.As(err).Code != apierr.Conflict && ctx.Err() == nil {
			return nil // the apply's own delta decides
		}
		return err
	}
	if err := e.unmoved(ctx, p); err != nil {
		return err
	}
	d := ds[len(ds)-1]
	if errs := e.guardErrors(d); !strict && len(errs) > 0 {
		return refusal(d, errs, "not applied (a refactoring is applied only when it introduces no error, checked on a copy first); nothing was changed", guardRemediation)
	}
	if strict && d.IntroducedCounts["error"] > 0 {
		return refusal(d, nil, "not applied (require: no_new_errors); nothing was changed",
			"fix the errors in the change (the fixes listed are what the servers offer on the changed text: apply_code_action applies one once the change is applied), preview it again and retry; or apply without require")
	}
	if !d.Complete && strict {
		return apierr.Errorf(apierr.PreconditionFailed,
			"retry (the servers may be busy indexing), or apply without require and read the apply's diagnostics delta",
			"not applied (require: no_new_errors): the check could not confirm the change introduces no error: %s; nothing was changed", d.Incomplete).
			WithDetails(map[string]any{"diagnostics_delta": d})
	}
	return nil
}

// applyClean applies p under Options.Require (strict) or Options.Guard:
// checked first (requireClean), then applied without saving and measured
// in the user's Neovim. The check's copy can miss what a server reports
// late; when the apply's own delta introduces an error, the change is
// taken back (one undo step per buffer) and refused like a failed check.
// Only a clean change is saved (when asked).
func (e *Engine) applyClean(ctx context.Context, p *prepared, opts Options, id string, strict bool) (Result, error) {
	if err := e.requireClean(ctx, p, strict); err != nil {
		return Result{}, err
	}
	save := opts.Save
	opts.Save = false
	res, err := e.apply(ctx, p, opts, id)
	if err != nil {
		return Result{}, err
	}
	counted := e.guardErrors // the errors that refuse it
	if strict {
		counted = errorsOf
	}
	var errs []diagdelta.Item
	if res.Diagnostics != nil {
		errs = counted(res.Diagnostics)
	}
	if d := res.Diagnostics; len(errs) > 0 {
		what, remediation := "require: no_new_errors", "fix the errors in the change, preview it again and retry; or apply without require"
		if !strict {
			what, remediation = "a refactoring is applied only when it introduces no error", guardRemediation
		}
		if _, uerr := e.UndoChangeset(ctx, res.AppliedID); uerr != nil {
			res.Files = append([]FileResult(nil), res.Files...)
			return res, apierr.Errorf(apierr.PreconditionFailed, "undo {\"changeset_id\": \""+res.AppliedID+"\"} takes it back",
				"%s: the change introduces %d error(s) that its check had not seen, and taking it back failed (%s): it is applied, unsaved\n%s",
				what, d.IntroducedCounts["error"], apierr.As(uerr).Message, strings.TrimRight(verdictLine(d), "\n")).WithDetails(map[string]any{"diagnostics_delta": d})
		}
		return Result{}, refusal(d, errs, "not applied ("+what+"): found in the diagnostics of its apply, and taken back before anything was saved: nothing was changed", remediation)
	}
	if d := res.Diagnostics; d != nil && !strict {
		// Errors the guard did not count: say so beside the verdict.
		var outside []string
		for _, it := range errorsOf(d) {
			if !slices.Contains(outside, it.File) && !lang.Checked(lang.ForFile(it.File), e.root.Dir(), it.File) {
				outside = append(outside, it.File)
			}
		}
		if len(outside) > 0 {
			note := "the errors in " + strings.Join(outside, ", ") + " did not refuse the refactoring: the project's own type checker does not cover those files (pyright's include)"
			if d.Note != "" {
				note = d.Note + "; " + note
			}
			d.Note = note
		}
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
