package edit

import (
	"context"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// Approval is what the user is asked to approve before a changeset is
// applied (or a buffer saved, discarded or undone): the tool asking, the
// changeset's id, its diff and files.
type Approval struct {
	Tool        string
	ChangesetID string
	// Kind says what is asked: "change" (a changeset: the user may decide
	// hunk by hunk and edit the proposal), "save", "discard", "undo".
	Kind  string
	Diff  string
	Files []string
	// Proposed are the texts after the change of the files the user may
	// edit before accepting (user_edits.go).
	Proposed []ProposedFile
	// Hunks are the diff's items the user may accept or reject one by one
	// (hunks.go); a change's only.
	Hunks []Hunk
	// Note is said to the user beside the diff.
	Note string
	// Check, when set, tells whether the change can still go ahead; the
	// approval runs it before asking, so that a change bound to fail (a
	// file that moved, a precondition) is refused without asking.
	Check func(context.Context) error
}

// ApproveFunc asks the user; a Decision lets the change go ahead (with the
// user's own edits, if any), an error (a REJECTED or TIMEOUT
// *apierr.Error) stops it with nothing changed. Set Engine.Approve to one
// (tools.NewEnv does in attached mode).
type ApproveFunc func(ctx context.Context, a Approval) (Decision, error)

// joinNote appends a note to another.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	if strings.Contains(a, b) {
		return a
	}
	return a + "; " + b
}

// writtenDiff renders, for the files whose save wrote other text than was
// applied (the user's format-on-save), the diff from the applied text to
// the written one; "" when every file was written as applied.
func (e *Engine) writtenDiff(p *prepared, files []luaFileResult) string {
	var cs preview.Changeset
	for i, lf := range files {
		if lf.WrittenText == nil || i >= len(p.after) || i >= len(p.results) {
			continue
		}
		path := p.results[i].Path
		if p.results[i].NewPath != "" {
			path = p.results[i].NewPath
		}
		before := p.after[i]
		written := preview.ParseDocument(*lf.WrittenText)
		edits, err := preview.Minimize(before, []preview.TextEdit{wholeText(before, written)})
		if err != nil {
			continue
		}
		cs.Files = append(cs.Files, preview.FileChange{Path: path, Kind: preview.OpEdit, Old: before, Edits: edits})
	}
	if len(cs.Files) == 0 {
		return ""
	}
	d, err := preview.UnifiedDiff(cs)
	if err != nil {
		return ""
	}
	return d
}

// UndoChangesetResult is undo's answer for a whole changeset.
type UndoChangesetResult struct {
	ChangesetID string        `json:"changeset_id"`
	Files       []BufferState `json:"files"`
}

type luaUndoAllReply struct {
	ID    string           `msgpack:"id"`
	Files []luaBufferReply `msgpack:"files"`
	Err   *nvim.LuaError   `msgpack:"err"`
}

// UndoChangeset takes back every buffer's change of an applied changeset
// (the last one applied in this Neovim when id is ""), all or nothing.
func (e *Engine) UndoChangeset(ctx context.Context, id string) (UndoChangesetResult, error) {
	var r luaUndoAllReply
	var arg any
	if id != "" {
		arg = id
	}
	if e.asking(ctx) {
		if err := e.approveUndo(ctx, "", id); err != nil {
			return UndoChangesetResult{}, err
		}
	}
	if err := e.s.UndoChangeset(ctx, &r, arg); err != nil {
		return UndoChangesetResult{}, err
	}
	if r.Err != nil {
		ae := e.luaError(r.Err)
		if r.Err.Remediation == "" {
			switch ae.Code {
			case apierr.Conflict:
				ae.Remediation = "a buffer of the changeset was edited after it; undo in Neovim (u), or make a new change that reverses it"
			case apierr.ResourceNotFound:
				ae.Remediation = "pass the applied_changeset_id an apply returned (changesets applied in this Neovim session)"
			}
		}
		return UndoChangesetResult{}, ae
	}
	out := UndoChangesetResult{ChangesetID: r.ID}
	for _, f := range r.Files {
		out.Files = append(out.Files, BufferState{File: e.root.Rel(f.Path), IsOpen: f.Bufnr != 0, IsModified: f.Modified, LineCount: f.LineCount, ChangedTick: f.ChangedTick, Note: f.Note})
	}
	return out, nil
}

// wholeText is the edit replacing all of before with after's text.
func wholeText(before, after preview.Document) preview.TextEdit {
	ed := preview.TextEdit{NewText: after.Mapper().Text()}
	switch n := len(before.Lines); {
	case n == 0:
	case before.FinalNewline:
		ed.EndLine = n
	default:
		ed.EndLine, ed.EndCol = n-1, len(before.Lines[n-1])
	}
	return ed
}

// stillApplies checks, before the user is asked, that p can still be
// applied as planned: every target as the plan expects it (CONFLICT
// otherwise), and with save no file holding unsaved changes nvbridge did
// not make (PRECONDITION_FAILED), as the apply itself would find.
func (e *Engine) stillApplies(ctx context.Context, p *prepared, opts Options) error {
	paths := make([]string, len(p.files))
	for i, f := range p.files {
		paths[i] = f.Path
	}
	snaps, err := e.s.Snapshot(ctx, paths, nvim.SnapshotOptions{Reconcile: true})
	if err != nil {
		return err
	}
	for i, s := range snaps {
		if i >= len(p.files) {
			break
		}
		rel := e.root.Rel(p.files[i].Path)
		if s.Err != nil {
			err := e.luaError(s.Err)
			if err.Remediation == "" {
				err.Remediation = "nothing was changed and the user was not asked: deal with the file named, then preview the change again"
			}
			return err
		}
		if !stillExpected(p.files[i].Expect, s) {
			return apierr.Errorf(apierr.Conflict, "preview the change again against the current text (the user was not asked: it could not apply)",
				"%s changed since the change was computed (nothing was changed)", rel)
		}
		if opts.Save && s.Loaded && s.UserModified && p.files[i].Kind != "delete" {
			return apierr.Errorf(apierr.PreconditionFailed,
				"apply without save (the edits then stay unsaved in the buffers, shown to the user), or ask the user to save or undo their edits first",
				"save: true saves every file of a changeset or none, and %s has unsaved changes nvbridge did not make (nothing was changed; the user was not asked)", rel)
		}
	}
	return nil
}
