package edit

// What the user approves before a buffer tool changes something, shown as
// a diff like a changeset: a save shows what it writes (the buffer against
// the disk, after the user's format-on-save, which the preview runs and
// undoes), an undo what it takes back, a discard what it throws away. Each
// is checked as the operation itself checks it before the user is asked:
// one bound to fail is refused without asking.

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// asking reports whether the user will be asked to approve changes.
func (e *Engine) asking(ctx context.Context) bool {
	return e.Approve != nil && (e.Asks == nil || e.Asks(ctx))
}

// saveOpts is write.lua's nvbridge.SaveOptions.
type saveOpts struct {
	Force     bool   `msgpack:"force"`
	NoAutocmd bool   `msgpack:"noautocmd"`
	OursOnly  bool   `msgpack:"ours_only"`
	Expect    string `msgpack:"expect,omitempty"`
}

// luaSavePreview is write.lua's nvbridge.SavePreview.
type luaSavePreview struct {
	Text      *string         `msgpack:"text"`
	Disk      *string         `msgpack:"disk"`
	From      string          `msgpack:"from"`
	Hash      string          `msgpack:"hash"`
	Formatted bool            `msgpack:"formatted"`
	Note      string          `msgpack:"note"`
	Nothing   *luaBufferReply `msgpack:"nothing"`
	Err       *nvim.LuaError  `msgpack:"err"`
}

// luaUndoPreview is changes.lua's undo_preview and revert_all answer.
type luaUndoPreview struct {
	ID    string `msgpack:"id"`
	Files []struct {
		Path   string  `msgpack:"path"`
		Now    string  `msgpack:"now"`
		Before *string `msgpack:"before"`
	} `msgpack:"files"`
	Undone  []string `msgpack:"undone"`
	Skipped []struct {
		ID     string `msgpack:"id"`
		Reason string `msgpack:"reason"`
	} `msgpack:"skipped"`
	Err *nvim.LuaError `msgpack:"err"`
}

// textDiff renders the change of one file from before to after, named rel
// (or renamed from from).
func textDiff(rel, from string, before *string, after string) string {
	fc := preview.FileChange{Path: rel, Kind: preview.OpEdit}
	newDoc := preview.ParseDocument(after)
	switch {
	case before == nil:
		fc.Kind, fc.Old = preview.OpCreate, preview.Document{Lines: []string{}, EOL: newDoc.EOL}
	case from != "" && from != rel:
		fc.Kind, fc.Path, fc.NewPath = preview.OpRename, from, rel
		fc.Old = preview.ParseDocument(*before)
	default:
		fc.Old = preview.ParseDocument(*before)
	}
	edits, err := preview.Minimize(fc.Old, []preview.TextEdit{wholeText(fc.Old, newDoc)})
	if err != nil {
		return ""
	}
	fc.Edits = edits
	d, err := preview.UnifiedDiff(preview.Changeset{Files: []preview.FileChange{fc}})
	if err != nil {
		return ""
	}
	return d
}

// approveSave asks the user before saving file (abs): they see what would be
// written. It returns the fingerprint of the approved bytes (for the save to
// check), or a reply when there is nothing to save (nothing is asked).
func (e *Engine) approveSave(ctx context.Context, abs string, opts saveOpts) (expect string, nothing *luaBufferReply, err error) {
	var pv luaSavePreview
	if err := e.s.SavePreview(ctx, &pv, abs, e.guard(), opts); err != nil {
		return "", nil, err
	}
	if pv.Err != nil {
		return "", nil, e.bufferError(pv.Err, saveRemedies)
	}
	if pv.Nothing != nil {
		return "", pv.Nothing, nil
	}
	rel := e.root.Rel(abs)
	from := ""
	if pv.From != "" {
		from = e.root.Rel(pv.From)
	}
	text := ""
	if pv.Text != nil {
		text = *pv.Text
	}
	diff := textDiff(rel, from, pv.Disk, text)
	note := "saving writes the buffer to disk"
	if pv.Formatted {
		note += "; the diff includes what your write autocmds (format-on-save) change"
	}
	if pv.Note != "" {
		note += "; " + pv.Note
	}
	if _, err := e.Approve(ctx, Approval{Kind: "save", Diff: diff, Files: []string{rel}, Note: note}); err != nil {
		return "", nil, err
	}
	return pv.Hash, nil, nil
}

// saveRemedies are the remediations of a save's failures.
var saveRemedies = map[apierr.Code]string{
	apierr.Conflict:        "compare with get_buffer_diff, then save_buffer with force=true to overwrite the file, or discard_buffer to take the disk's version",
	apierr.OperationFailed: "check that the file's folder exists and is writable",
}

// bufferError converts a buffer tool's Lua error, with a remediation from
// remedies unless the Lua side gave one.
func (e *Engine) bufferError(le *nvim.LuaError, remedies map[apierr.Code]string) *apierr.Error {
	ae := e.luaError(le)
	if le.Remediation == "" && remedies[ae.Code] != "" {
		ae.Remediation = remedies[ae.Code]
	}
	return ae
}

// undoDiff renders what an undo (or a revert) takes back: each file from its
// text now to its text once undone.
func (e *Engine) undoDiff(pv luaUndoPreview) (diff string, files []string, note string) {
	for _, f := range pv.Files {
		rel := e.root.Rel(f.Path)
		files = append(files, rel)
		if f.Before == nil {
			note = joinNote(note, "what it reverts in "+rel+" is not known (the change was applied too long ago, or is too large to keep)")
			continue
		}
		diff += textDiff(rel, "", &f.Now, *f.Before)
	}
	return diff, files, joinNote(note, "the undo takes the buffers back; a change that was saved stays on disk until they are saved again")
}

// approveUndo asks the user before an undo of path's last nvbridge change
// (path != "") or of changeset id (path ""; id "": the last one), showing
// what it takes back; an undo that cannot be done is refused first.
func (e *Engine) approveUndo(ctx context.Context, path, id string) error {
	var pv luaUndoPreview
	var p, i any
	if path != "" {
		p = path
	}
	if id != "" {
		i = id
	}
	if err := e.s.UndoPreview(ctx, &pv, p, i); err != nil {
		return err
	}
	if pv.Err != nil {
		return e.bufferError(pv.Err, undoRemedies)
	}
	diff, files, note := e.undoDiff(pv)
	_, err := e.Approve(ctx, Approval{Kind: "undo", ChangesetID: pv.ID, Diff: diff, Files: files, Note: note})
	return err
}

// undoRemedies are the remediations of an undo's failures.
var undoRemedies = map[apierr.Code]string{
	apierr.Conflict:           "the buffer has later edits; undo in Neovim (u), or make a new change that reverses this one",
	apierr.PreconditionFailed: "undo takes back only changes nvbridge made in this buffer (and not yet undone); to revert unsaved changes, use discard_buffer",
	apierr.ResourceNotFound:   "pass the applied_changeset_id an apply returned (changesets applied in this Neovim session)",
}

// approveDiscard asks the user before file's (abs) unsaved changes are
// thrown away, showing what the buffer loses; a discard that would be
// refused (the user's own edits without force) is refused first, and one
// with nothing to discard asks nothing.
func (e *Engine) approveDiscard(ctx context.Context, abs string, force bool) error {
	snaps, err := e.s.Snapshot(ctx, []string{abs}, nvim.SnapshotOptions{WithDisk: true})
	if err != nil {
		return err
	}
	s := snaps[0]
	if s.Err != nil {
		return e.luaError(s.Err)
	}
	if !s.Loaded || !s.Modified && s.RenamedFrom == "" {
		return nil // nothing to discard: the discard says so
	}
	rel := e.root.Rel(abs)
	if s.UserModified && !force {
		return apierr.Errorf(apierr.Conflict, discardConflict,
			"%s has unsaved changes nvbridge did not make (the user's own edits); discarding would throw them away (the user was not asked)", rel)
	}
	now := documentOf(s).Mapper().Text()
	var diff, note string
	switch {
	case s.RenamedFrom != "":
		note = "the pending rename is undone: the buffer is " + e.root.Rel(s.RenamedFrom) + " again, as on disk"
		from := snaps[0]
		if got, err := e.s.Snapshot(ctx, []string{s.RenamedFrom}, nvim.SnapshotOptions{}); err == nil && len(got) == 1 {
			from = got[0]
		}
		old := documentOf(from).Mapper().Text()
		diff = textDiff(e.root.Rel(s.RenamedFrom), rel, &now, old)
	case s.Disk == nil:
		note = "the file does not exist on disk: its buffer is closed"
		empty := ""
		diff = textDiff(rel, "", &now, empty)
	default:
		diff = textDiff(rel, "", &now, preview.ParseDocument(*s.Disk).Mapper().Text())
	}
	_, err = e.Approve(ctx, Approval{Kind: "discard", Diff: diff, Files: []string{rel}, Note: joinNote("the buffer's unsaved changes are thrown away", note)})
	return err
}

// discardConflict is the remediation of a discard of the user's edits.
const discardConflict = "those edits are the user's: show them (get_buffer_diff) and ask before throwing them away; discard_buffer with force=true discards them"

// stripRoot names the workspace's files in a message relative to its root.
func (e *Engine) stripRoot(msg string) string {
	return strings.ReplaceAll(msg, e.root.Dir()+string(filepath.Separator), "")
}

// RevertResult is revert_all_changes' answer.
type RevertResult struct {
	// Undone are the changesets undone, newest first.
	Undone []string `json:"undone"`
	// Skipped are those left, with why: the user edited after them (or
	// after a later change in the same buffer), or a buffer is gone.
	Skipped []RevertSkipped `json:"skipped,omitempty"`
	// Diff is what was taken back.
	Diff string `json:"diff"`
	// DryRun: nothing was undone; Undone and Diff say what would be.
	DryRun bool `json:"dry_run,omitempty"`
}

// RevertSkipped is a changeset a revert left.
type RevertSkipped struct {
	ChangesetID string `json:"changeset_id"`
	Reason      string `json:"reason"`
}

// RevertAll undoes every changeset agents applied in this Neovim that the
// user has not edited after (nor a later change of the same buffer),
// newest first, each across its buffers; the user approves the whole
// (what it takes back, as a diff) first. dry only says what it would
// undo (Undone then lists those it would), changing nothing and asking
// nobody.
func (e *Engine) RevertAll(ctx context.Context, dry bool) (RevertResult, error) {
	var pv luaUndoPreview
	if err := e.s.RevertAll(ctx, &pv, true); err != nil {
		return RevertResult{}, err
	}
	if pv.Err != nil {
		return RevertResult{}, e.bufferError(pv.Err, undoRemedies)
	}
	out := RevertResult{Undone: []string{}}
	for _, s := range pv.Skipped {
		out.Skipped = append(out.Skipped, RevertSkipped{ChangesetID: s.ID, Reason: e.stripRoot(s.Reason)})
	}
	if len(pv.Undone) == 0 {
		return out, nil
	}
	diff, files, note := e.undoDiff(pv)
	out.Diff = diff
	if dry {
		out.Undone = append(out.Undone, pv.Undone...)
		out.DryRun = true
		return out, nil
	}
	if e.asking(ctx) {
		if _, err := e.Approve(ctx, Approval{Kind: "undo", Diff: diff, Files: files, Note: note}); err != nil {
			return RevertResult{}, err
		}
	}
	var done luaUndoPreview
	if err := e.s.RevertAll(ctx, &done, false); err != nil {
		return RevertResult{}, err
	}
	if done.Err != nil {
		return RevertResult{}, e.bufferError(done.Err, undoRemedies)
	}
	out.Undone = append(out.Undone, done.Undone...)
	out.Skipped = nil
	for _, s := range done.Skipped {
		out.Skipped = append(out.Skipped, RevertSkipped{ChangesetID: s.ID, Reason: e.stripRoot(s.Reason)})
	}
	return out, nil
}
