package edit

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// BufferState is a buffer's state after a buffer tool ran.
type BufferState struct {
	File        string `json:"file"`
	IsOpen      bool   `json:"is_open"`
	IsModified  bool   `json:"is_modified"`
	LineCount   int    `json:"line_count,omitempty"`
	ChangedTick int    `json:"changedtick,omitempty"`
	Note        string `json:"note,omitempty"`
}

type luaBufferReply struct {
	Bufnr       int            `msgpack:"bufnr"`
	ChangedTick int            `msgpack:"changedtick"`
	Modified    bool           `msgpack:"modified"`
	LineCount   int            `msgpack:"line_count"`
	Remaining   int            `msgpack:"remaining"`
	Saved       bool           `msgpack:"saved"`
	Discarded   bool           `msgpack:"discarded"`
	Note        string         `msgpack:"note"`
	Path        string         `msgpack:"path,omitempty"`
	WrittenText *string        `msgpack:"written_text,omitempty"`
	BeforeText  *string        `msgpack:"before_text,omitempty"`
	Err         *nvim.LuaError `msgpack:"err"`
}

// bufferCall runs call (a buffer tool in Neovim) with file's absolute path.
// A failure Neovim reports whose code is in remedies gets that remediation,
// unless the Lua side gave its own.
func (e *Engine) bufferCall(ctx context.Context, file string, remedies map[apierr.Code]string, call func(abs string, r *luaBufferReply) error) (_ BufferState, r luaBufferReply, err error) {
	abs, err := e.root.Resolve(file)
	if err != nil {
		return BufferState{}, r, err
	}
	if err := call(abs, &r); err != nil {
		return BufferState{}, r, err
	}
	if r.Err != nil {
		ae := e.luaError(r.Err)
		if r.Err.Remediation == "" && remedies[ae.Code] != "" {
			ae.Remediation = remedies[ae.Code]
		}
		return BufferState{}, r, ae
	}
	return BufferState{File: e.root.Rel(abs), IsOpen: r.Bufnr != 0, IsModified: r.Modified,
		LineCount: r.LineCount, ChangedTick: r.ChangedTick, Note: r.Note}, r, nil
}

// UndoResult is undo's answer.
type UndoResult struct {
	BufferState
	// Remaining is how many earlier nvbridge changes undo can still take
	// back in this buffer.
	Remaining int `json:"remaining_undo"`
}

// Undo takes back the last nvbridge change in file's buffer, as one undo
// step, unless the buffer was edited after it (CONFLICT).
func (e *Engine) Undo(ctx context.Context, file string) (UndoResult, error) {
	st, r, err := e.bufferCall(ctx, file, undoRemedies, func(abs string, r *luaBufferReply) error {
		if e.asking(ctx) {
			if err := e.approveUndo(ctx, abs, ""); err != nil {
				return err
			}
		}
		return e.s.UndoBuffer(ctx, r, abs)
	})
	if err != nil {
		return UndoResult{}, err
	}
	return UndoResult{BufferState: st, Remaining: r.Remaining}, nil
}

// SaveResult is save_buffer's answer.
type SaveResult struct {
	BufferState
	Saved bool `json:"saved"`
	// WrittenDiff: the user's write autocmds (format-on-save) changed the
	// buffer while it was saved; the diff from the text before the save to
	// what was written.
	WrittenDiff string `json:"written_diff,omitempty"`
}

// Save writes file's buffer. It refuses with CONFLICT when the file changed
// on disk since it was loaded, unless force.
func (e *Engine) Save(ctx context.Context, file string, force bool) (SaveResult, error) {
	return e.SaveWith(ctx, file, force, false)
}

// SaveWith is Save, without the user's write autocmds when noautocmd.
func (e *Engine) SaveWith(ctx context.Context, file string, force, noautocmd bool) (SaveResult, error) {
	id := newID()
	// In the user's Neovim nvbridge saves only its own changes, and the
	// user sees what a save writes before it does.
	opts := saveOpts{Force: force, NoAutocmd: noautocmd, OursOnly: !e.s.Embedded()}
	st, r, err := e.bufferCall(ctx, file, saveRemedies, func(abs string, r *luaBufferReply) error {
		if e.asking(ctx) {
			expect, nothing, err := e.approveSave(ctx, abs, opts)
			if err != nil {
				return err
			}
			if nothing != nil {
				*r = *nothing
				return nil
			}
			opts.Expect = expect
		}
		e.writing.Lock() // see Engine.writing
		defer e.writing.Unlock()
		return e.s.SaveBuffer(ctx, r, abs, e.guard(), id, opts)
	})
	if rec := takeCommit(id, err != nil); rec != nil && rec.err != nil {
		return SaveResult{}, rec.err // the commit's own error, with where the file stands
	}
	if err != nil {
		return SaveResult{}, err
	}
	out := SaveResult{BufferState: st, Saved: r.Saved}
	if r.WrittenText != nil && r.BeforeText != nil {
		before := preview.ParseDocument(*r.BeforeText)
		after := preview.ParseDocument(*r.WrittenText)
		if edits, err := preview.Minimize(before, []preview.TextEdit{wholeText(before, after)}); err == nil {
			out.WrittenDiff, _ = preview.UnifiedDiff(preview.Changeset{Files: []preview.FileChange{{Path: st.File, Kind: preview.OpEdit, Old: before, Edits: edits}}})
		}
		out.Note = joinNote(out.Note, "saving ran the user's write autocmds, which changed the text written (see written_diff)")
	}
	return out, nil
}

// DiscardResult is discard_buffer's answer.
type DiscardResult struct {
	BufferState
	Discarded bool `json:"discarded"`
}

// DiscardBuffer puts file's buffer back to the file's content on disk. It
// refuses with CONFLICT when the buffer holds unsaved changes nvbridge did
// not make (the user's own, in an attached Neovim), unless force.
func (e *Engine) DiscardBuffer(ctx context.Context, file string, force bool) (DiscardResult, error) {
	st, r, err := e.bufferCall(ctx, file, map[apierr.Code]string{apierr.Conflict: discardConflict}, func(abs string, r *luaBufferReply) error {
		if e.asking(ctx) {
			if err := e.approveDiscard(ctx, abs, force); err != nil {
				return err
			}
		}
		return e.s.DiscardBuffer(ctx, r, abs, force)
	})
	if err != nil {
		return DiscardResult{}, err
	}
	return DiscardResult{BufferState: st, Discarded: r.Discarded}, nil
}

// BufferDiff is get_buffer_diff's answer: the buffer's unsaved changes as a
// unified diff against the file on disk.
type BufferDiff struct {
	File       string `json:"file"`
	IsOpen     bool   `json:"is_open"`
	IsModified bool   `json:"is_modified"`
	HasChanges bool   `json:"has_changes"`
	Diff       string `json:"diff"`
	Note       string `json:"note,omitempty"`
}

// Summary is the diff, or a line saying there is none.
func (d BufferDiff) Summary() string {
	if !d.HasChanges {
		s := d.File + ": no unsaved changes"
		if d.Note != "" {
			s += " (" + d.Note + ")"
		}
		return s
	}
	s := d.File + ": unsaved changes\n"
	if d.Note != "" {
		s += "(" + d.Note + ")\n"
	}
	return s + d.Diff
}

// Diff renders file's unsaved changes (buffer against disk). A buffer nvbridge
// renamed but has not saved shows as a rename; one whose file does not exist
// yet as a creation.
func (e *Engine) Diff(ctx context.Context, file string) (BufferDiff, error) {
	abs, err := e.root.Resolve(file)
	if err != nil {
		return BufferDiff{}, err
	}
	snaps, err := e.s.Snapshot(ctx, []string{abs}, nvim.SnapshotOptions{WithDisk: true})
	if err != nil {
		return BufferDiff{}, err
	}
	s := snaps[0]
	out := BufferDiff{File: e.root.Rel(abs), IsOpen: s.Loaded, IsModified: s.Modified}
	if s.Err != nil {
		return out, e.luaError(s.Err)
	}
	if !s.Loaded {
		if !s.Exists {
			return out, apierr.Errorf(apierr.ResourceNotFound, "check the path (relative to the workspace root)", "%s does not exist", out.File)
		}
		out.Note = "not open in Neovim"
		return out, nil
	}
	buf := documentOf(s)
	fc := preview.FileChange{Kind: preview.OpEdit, Path: out.File}
	switch {
	case s.RenamedFrom != "":
		from, err := e.s.Snapshot(ctx, []string{s.RenamedFrom}, nvim.SnapshotOptions{})
		if err != nil {
			return out, err
		}
		fc.Kind, fc.Path, fc.NewPath = preview.OpRename, e.root.Rel(s.RenamedFrom), out.File
		fc.Old = documentOf(from[0])
		out.Note = "renamed from " + fc.Path + " in Neovim; the file moves when the buffer is saved"
	case s.Disk == nil:
		fc.Kind, fc.Old = preview.OpCreate, preview.Document{Lines: []string{}, EOL: buf.EOL}
		out.Note = "the file does not exist on disk yet"
	default:
		fc.Old = preview.ParseDocument(*s.Disk)
		if fc.Old.EOL != buf.EOL && len(fc.Old.Lines) > 1 {
			out.Note = fmt.Sprintf("the buffer's line endings (fileformat=%s) differ from the file's; the diff does not show that", s.FileFormat)
		}
	}
	fc.Edits = []preview.TextEdit{{EndLine: len(fc.Old.Lines), NewText: buf.Mapper().Text()}}
	diff, err := preview.UnifiedDiff(preview.Changeset{Files: []preview.FileChange{fc}})
	if err != nil {
		return out, apierr.Errorf(apierr.OperationFailed, "report this", "render the diff: %v", err)
	}
	out.Diff = diff
	out.HasChanges = diff != ""
	return out, nil
}
