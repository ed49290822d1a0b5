package edit

import (
	"context"
	"errors"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// open resolves files and snapshots them (reconciled with the disk) in one
// call, keyed by absolute path.
func (e *Engine) open(ctx context.Context, files ...string) ([]target, map[string]nvim.FileSnapshot, error) {
	targets := make([]target, len(files))
	paths := make([]string, len(files))
	for i, file := range files {
		abs, err := e.root.Resolve(file)
		if err != nil {
			return nil, nil, err
		}
		targets[i] = target{abs: abs, rel: e.root.Rel(abs)}
		paths[i] = abs
	}
	snaps, err := e.s.Snapshot(ctx, paths, nvim.SnapshotOptions{Reconcile: true, Parsed: true})
	if err != nil {
		return nil, nil, err
	}
	byPath := make(map[string]nvim.FileSnapshot, len(snaps))
	for i, s := range snaps {
		byPath[s.Path] = s
		targets[i].snap = s
		if s.Err != nil {
			return nil, nil, e.luaError(s.Err)
		}
	}
	return targets, byPath, nil
}

// existing returns the document of a file that must exist.
func existing(t target) (preview.Document, error) {
	switch {
	case t.snap.IsDir:
		return preview.Document{}, apierr.Errorf(apierr.InvalidParameter, "name a file", "%s is a directory", t.rel)
	case !t.snap.Loaded && !t.snap.Exists:
		return preview.Document{}, apierr.Errorf(apierr.ResourceNotFound, "check the path (relative to the workspace root)", "%s does not exist", t.rel)
	}
	return documentOf(t.snap), nil
}

// EditLines replaces whole lines of one file (numbered as the file is now).
// A file that does not exist is created by inserting at line 1.
func (e *Engine) EditLines(ctx context.Context, file string, edits []LineEdit, opts Options) (Result, error) {
	if len(edits) == 0 {
		return Result{}, apierr.New(apierr.InvalidParameter, "edits is empty", "pass at least one {line_start, line_end, new_text}")
	}
	return oneShot(e, []string{file}, opts, func() (Result, error) { return e.editLines(ctx, file, edits, opts) })
}

func (e *Engine) editLines(ctx context.Context, file string, edits []LineEdit, opts Options) (Result, error) {
	targets, snaps, err := e.open(ctx, file)
	if err != nil {
		return Result{}, err
	}
	t := targets[0]
	kind := preview.OpEdit
	doc, err := existing(t)
	if apierr.CodeOf(err) == apierr.ResourceNotFound {
		kind, doc, err = preview.OpCreate, preview.Document{Lines: []string{}}, nil
	}
	if err != nil {
		return Result{}, err
	}
	tedits, err := lineTextEdits(doc, t.rel, edits)
	if err != nil {
		return Result{}, err
	}
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: kind, Path: t.rel, Old: doc, Edits: tedits}}}
	p, err := e.prepare(ctx, cs, snaps)
	if err != nil {
		return Result{}, err
	}
	return e.finish(ctx, p, opts)
}

// ReplaceResult is a Result with the matches replace_in_buffer found.
type ReplaceResult struct {
	Result
	MatchesFound    int     `json:"matches_found"`
	MatchesReplaced int     `json:"matches_replaced"`
	Matches         []Match `json:"matches,omitempty"`
}

// Replace replaces text (or a regular expression's matches) in one file.
func (e *Engine) Replace(ctx context.Context, file string, r Replacement, opts Options) (ReplaceResult, error) {
	return oneShot(e, []string{file}, opts, func() (ReplaceResult, error) { return e.replace(ctx, file, r, opts) })
}

func (e *Engine) replace(ctx context.Context, file string, r Replacement, opts Options) (ReplaceResult, error) {
	targets, snaps, err := e.open(ctx, file)
	if err != nil {
		return ReplaceResult{}, err
	}
	t := targets[0]
	doc, err := existing(t)
	if err != nil {
		return ReplaceResult{}, err
	}
	tedits, matches, err := replaceEdits(doc, t.rel, r, e.MaxEdits)
	if err != nil {
		return ReplaceResult{}, err
	}
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: t.rel, Old: doc, Edits: tedits}}}
	p, err := e.prepare(ctx, cs, snaps)
	if err != nil {
		return ReplaceResult{}, err
	}
	res, err := e.finish(ctx, p, opts)
	if err != nil {
		return ReplaceResult{}, err
	}
	return ReplaceResult{Result: res, MatchesFound: len(tedits), MatchesReplaced: len(tedits), Matches: matches}, nil
}

// ApplyPatch checks a unified diff (one or more files, as git diff or diff
// -u write it) against the files as Neovim holds them now, not the disk, and
// submits it as one changeset.
func (e *Engine) ApplyPatch(ctx context.Context, patch string, opts Options) (Result, error) {
	fps, err := preview.ParsePatch(patch)
	if err != nil {
		var se *preview.PatchSyntaxError
		if errors.As(err, &se) {
			return Result{}, apierr.Errorf(apierr.InvalidParameter,
				"pass a unified diff as git diff or diff -u writes it (---/+++ headers, @@ -l,n +l,n @@ hunks whose counts match their lines)",
				"invalid patch: %v", se)
		}
		return Result{}, apierr.Errorf(apierr.InvalidParameter, "pass a unified diff", "invalid patch: %v", err)
	}
	if len(fps) == 0 {
		return Result{}, apierr.New(apierr.InvalidParameter, "the patch has no file sections",
			"pass a unified diff with ---/+++ file headers (git diff or diff -u output)")
	}
	files := make([]string, 0, 2*len(fps))
	for _, fp := range fps {
		files = append(files, fp.OldPath, fp.NewPath)
	}
	return oneShot(e, files, opts, func() (Result, error) { return e.applyPatch(ctx, fps, files, opts) })
}

// applyPatch checks the parsed patch against the files as Neovim holds
// them now and submits it.
func (e *Engine) applyPatch(ctx context.Context, fps []preview.FilePatch, files []string, opts Options) (Result, error) {
	targets, snaps, err := e.open(ctx, files...)
	if err != nil {
		return Result{}, err
	}
	cs := preview.Changeset{Files: make([]preview.FileChange, len(fps))}
	for i, fp := range fps {
		from, to := targets[2*i], targets[2*i+1]
		fc := preview.FileChange{Kind: preview.OpEdit, Path: to.rel}
		var doc preview.Document
		switch {
		case fp.IsNew:
			if to.snap.Exists || to.snap.Loaded {
				return Result{}, apierr.Errorf(apierr.Conflict, "edit the existing file instead (a patch with --- a/"+to.rel+")",
					"the patch creates %s, which already exists", to.rel)
			}
			fc.Kind, doc = preview.OpCreate, preview.Document{Lines: []string{}}
		case fp.IsDelete:
			fc.Kind, fc.Path = preview.OpDelete, from.rel
		case fp.IsRename:
			fc.Kind, fc.Path, fc.NewPath = preview.OpRename, from.rel, to.rel
		}
		if !fp.IsNew {
			if doc, err = existing(from); err != nil {
				return Result{}, err
			}
		}
		edits, err := fp.EditsFor(doc)
		if err != nil {
			return Result{}, patchError(err)
		}
		fc.Old = doc
		if fc.Kind != preview.OpDelete {
			fc.Edits = edits
		}
		cs.Files[i] = fc
	}
	p, err := e.prepare(ctx, cs, snaps)
	if err != nil {
		return Result{}, err
	}
	return e.finish(ctx, p, opts)
}

func patchError(err error) error {
	var me *preview.PatchMismatchError
	if errors.As(err, &me) {
		return apierr.Errorf(apierr.Conflict,
			"the buffer differs from what the patch expects: re-read the file (read_file, get_buffer_diff) and make the patch against its current text",
			"%v (nothing was changed)", me).WithDetails(map[string]any{
			"file": me.Path, "hunk": me.Hunk, "header": me.Header, "line": me.Line, "expected": me.Expected, "found": me.Actual,
		})
	}
	return apierr.Errorf(apierr.Conflict, "re-read the file and make the patch against its current text", "%v", err)
}
