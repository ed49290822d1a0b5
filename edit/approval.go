package edit

import (
	"context"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// Approval is what the user is asked to approve before a changeset is
// applied: the tool asking, the changeset's id, its diff and files.
type Approval struct {
	Tool        string
	ChangesetID string
	Diff        string
	Files       []string
	// Proposed are the texts after the change of the files the user may
	// edit before accepting (user_edits.go).
	Proposed []ProposedFile
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
