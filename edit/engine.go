// Package edit previews and applies changesets in Neovim: sets of edits over
// one or more files (text edits, file creation, renaming and deletion) built
// from line edits, text replacements, unified diffs or LSP WorkspaceEdits.
//
// A changeset is first checked against the files as Neovim holds them
// (loaded buffers, else the disk) and rendered as a git-style unified diff
// (package preview). A preview is stored under a changeset_id; applying it
// later refuses with CONFLICT when any target moved since (a buffer's
// changedtick, or an unloaded file's content). Application is atomic: ONE
// call into Neovim (lua/nvbridge/apply.lua) validates every target, then
// edits every buffer with nvim_buf_set_text (marks, cursors and extmarks
// outside the edited ranges stay put, language servers see didChange), one
// undo step per buffer, and restores everything if anything fails.
package edit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

// Engine previews and applies changesets in Neovim. Safe for concurrent use.
type Engine struct {
	s    *nvim.Session
	root workspace.Root

	// MaxStored, MaxStoredBytes and MaxAge bound the previews kept for
	// ApplyStored: how many, their total size (prepared.size), how long.
	MaxStored      int
	MaxStoredBytes int
	MaxAge         time.Duration

	// MaxEdits, MaxDiffBytes and MaxShownDiffBytes bound what one change
	// costs (limits.go): its edits, a preview's diff, the diff an answer
	// carries.
	MaxEdits          int
	MaxDiffBytes      int
	MaxShownDiffBytes int

	mu        sync.Mutex
	fileLocks [fileLockStripes]sync.Mutex // one-shot changes, by path (oneshot.go)
	// writing is held around each apply (and save) call into Neovim: while
	// one waits for its disk commit, Neovim serves this channel's other
	// requests, and another apply must not run inside it.
	writing     sync.Mutex
	store       map[string]*prepared
	order       []string // ids, oldest first
	storedBytes int      // sum of the stored previews' sizes
	now         func() time.Time

	// Approve, when set, asks the user before any changeset is applied
	// (attached mode; tools.NewEnv sets it). Previews are not asked about.
	Approve ApproveFunc

	// testPlan, when set by a test, may alter a plan before it is sent.
	testPlan func(*luaPlan)
	// skipRecheck, set by a test, leaves out Go's re-check of the paths
	// before apply (the Lua guard still runs).
	skipRecheck bool

	// Verifier, when set, measures the diagnostics delta of every apply
	// and of previews with Check (tools.NewEnv sets lsp's).
	Verifier Verifier

	// Recovered is what NewEngine found of commits an earlier nvbridge
	// left unfinished, and did (workspace.Root.Recover).
	Recovered []workspace.Recovery
	// commitErr: the commit handler could not be registered; every write
	// is refused with it.
	commitErr error
}

// NewEngine returns an engine for the session's workspace. It answers
// apply.lua's disk commits on the session, and first settles the commits
// an earlier nvbridge left unfinished on the root (Recovered says which).
func NewEngine(s *nvim.Session) *Engine {
	e := &Engine{
		s: s, root: s.Root(),
		MaxStored: 64, MaxStoredBytes: 64 << 20, MaxAge: 30 * time.Minute,
		MaxEdits: DefaultMaxEdits, MaxDiffBytes: DefaultMaxDiffBytes, MaxShownDiffBytes: DefaultMaxShownDiffBytes,
		store: map[string]*prepared{}, now: time.Now,
	}
	if err := registerCommit(s); err != nil {
		e.commitErr = apierr.Errorf(apierr.OperationFailed, "restart nvbridge", "cannot answer Neovim's disk commits: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e.Recovered = e.recoverInterrupted(ctx)
	return e
}

// Options say whether to preview (store the changeset and return its diff
// and id) or apply it at once, and whether to save the touched buffers.
type Options struct {
	Preview bool
	Save    bool
	// Check (with Preview) also reports the diagnostics delta the change
	// would cause, before anything is applied.
	Check bool
	// NoAutocmd saves without the user's BufWritePre/BufWritePost
	// autocmds (a format-on-save); by default they run, and what they
	// change is reported as Result.WrittenDiff.
	NoAutocmd bool
	// Tool names the tool asking, for the user's approval view.
	Tool string
}

// Result describes a previewed or applied changeset.
type Result struct {
	ChangesetID string       `json:"changeset_id,omitempty"` // set when previewed
	ExpiresAt   string       `json:"expires_at,omitempty"`   // RFC 3339, with ChangesetID
	Diff        string       `json:"diff"`
	Applied     bool         `json:"applied"`
	Files       []FileResult `json:"files"`
	EditCount   int          `json:"edit_count"`
	// Diagnostics is what the change does to the servers' diagnostics:
	// measured after an apply, or before it with a preview's check.
	Diagnostics *diagdelta.Delta `json:"diagnostics_delta,omitempty"`
	// AppliedID names an applied changeset: undo with changeset_id takes
	// all of it back (every buffer, one step).
	AppliedID string `json:"applied_changeset_id,omitempty"`
	// WrittenDiff, when saving wrote something else than what was applied
	// (the user's format-on-save changed it), is the diff from the applied
	// text to what is on disk now.
	WrittenDiff string `json:"written_diff,omitempty"`
	// UserEdited: the user changed the proposal before accepting it (edit
	// then accept); UserDiff is the diff from the proposal (Diff) to what
	// was applied.
	UserEdited bool   `json:"user_edited,omitempty"`
	UserDiff   string `json:"user_diff,omitempty"`
	// DiffCut is set when Diff is only the start of the change's diff
	// (MaxShownDiffBytes); the changeset applies whole all the same.
	DiffCut *DiffCut `json:"diff_cut,omitempty"`
}

// FileResult describes one file of a changeset. When previewed, IsModified
// is the buffer's state now and LineCount what the file will have.
type FileResult struct {
	Path       string `json:"path"`
	NewPath    string `json:"new_path,omitempty"`
	Op         string `json:"op"` // edit, create, delete, rename
	Edits      int    `json:"edits"`
	IsModified bool   `json:"is_modified"`
	LineCount  int    `json:"line_count"`
	Saved      bool   `json:"saved"`
	Note       string `json:"note,omitempty"`
}

// Summary is a short rendering: what happened, then the diff.
func (r Result) Summary() string {
	var b strings.Builder
	switch {
	case r.ChangesetID != "":
		fmt.Fprintf(&b, "Preview of %d edit(s) in %d file(s); apply with apply_changeset {\"changeset_id\": %q} (expires %s).\n",
			r.EditCount, len(r.Files), r.ChangesetID, r.ExpiresAt)
	case r.Applied:
		fmt.Fprintf(&b, "Applied %d edit(s) in %d file(s)", r.EditCount, len(r.Files))
		if r.AppliedID != "" {
			fmt.Fprintf(&b, " as %s (undo {\"changeset_id\": %q} takes it all back)", r.AppliedID, r.AppliedID)
		}
		b.WriteString(".\n")
	default:
		b.WriteString("Nothing to change.\n")
	}
	b.WriteString(verdictLine(r.Diagnostics))
	for _, f := range r.Files {
		name := f.Path
		if f.NewPath != "" {
			name += " -> " + f.NewPath
		}
		fmt.Fprintf(&b, "  %s %s: %d edit(s), %d lines, modified=%v saved=%v", f.Op, name, f.Edits, f.LineCount, f.IsModified, f.Saved)
		if f.Note != "" {
			b.WriteString(" (" + f.Note + ")")
		}
		b.WriteByte('\n')
	}
	b.WriteString(r.cutNote())
	b.WriteString(r.Diff)
	if r.WrittenDiff != "" {
		b.WriteString("\nSaving ran the user's write autocmds (format-on-save), which changed what was written; the disk differs from the diff above by:\n")
		b.WriteString(r.WrittenDiff)
	}
	return b.String()
}

// Submit checks the changeset against the files as Neovim holds them now,
// renders its diff, and either stores it (opts.Preview) or applies it
// atomically at once. A FileChange whose Old document is set must still
// match the file (else CONFLICT: the edits were computed against other
// text); an unset Old (nil Lines) means "as it is now".
func (e *Engine) Submit(ctx context.Context, cs preview.Changeset, opts Options) (Result, error) {
	p, err := e.prepare(ctx, cs, nil)
	if err != nil {
		return Result{}, err
	}
	return e.finish(ctx, p, opts)
}

// ApplyStored applies a previewed changeset exactly as previewed. It refuses
// with CONFLICT when any target moved since the preview.
func (e *Engine) ApplyStored(ctx context.Context, id string, save bool) (Result, error) {
	return e.ApplyStoredWith(ctx, id, Options{Save: save})
}

// ApplyStoredWith is ApplyStored with the save options (Save, NoAutocmd,
// Tool).
func (e *Engine) ApplyStoredWith(ctx context.Context, id string, opts Options) (Result, error) {
	e.mu.Lock()
	e.expire()
	p := e.store[id]
	e.mu.Unlock()
	if p == nil {
		return Result{}, apierr.Errorf(apierr.ResourceNotFound,
			"preview the change again (changeset ids expire after "+e.MaxAge.String()+", and only the last "+fmt.Sprint(e.MaxStored)+" are kept, within "+fmt.Sprint(e.MaxStoredBytes)+" bytes in all; an applied one cannot be applied twice)",
			"no changeset %q", id)
	}
	res, err := e.apply(ctx, p, opts, id)
	if err != nil {
		return Result{}, err
	}
	e.mu.Lock()
	e.remove(id)
	e.mu.Unlock()
	return e.shown(res), nil
}

// Discard forgets a previewed changeset.
func (e *Engine) Discard(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.expire()
	if e.store[id] == nil {
		return apierr.Errorf(apierr.ResourceNotFound, "it may have expired or been applied already", "no changeset %q", id)
	}
	e.remove(id)
	return nil
}

// prepared is a changeset checked against one snapshot and turned into the
// plan apply.lua executes.
type prepared struct {
	diff    string
	files   []luaFile
	results []FileResult
	edits   int
	created time.Time
	// after holds each file's text after the change, for the session's
	// text cache; only while the changeset is applied at once (a stored
	// preview does not keep whole documents).
	after []preview.Document
	// before holds each file's text before the change, for a check; like
	// after, not kept in a stored preview.
	before []preview.Document
	bytes  int // size(), once stored
}

// size estimates the memory a stored preview holds: its diff, the text of
// its buffer ops, paths and a fixed cost per op and file.
func (p *prepared) size() int {
	n := len(p.diff)
	for _, f := range p.files {
		n += 256 + len(f.Path) + len(f.NewPath) + len(f.Expect.Fingerprint)
		for _, op := range f.Ops {
			n += 48 + len(op.Text)
		}
	}
	for _, r := range p.results {
		n += 128 + len(r.Path) + len(r.NewPath) + len(r.Note)
	}
	for _, d := range p.after {
		for _, l := range d.Lines {
			n += 16 + len(l)
		}
	}
	return n
}

// luaPlan and the types below are what apply.lua's apply receives.
type luaPlan struct {
	ID        string    `msgpack:"id"`
	Files     []luaFile `msgpack:"files"`
	Save      bool      `msgpack:"save"`
	NoAutocmd bool      `msgpack:"noautocmd"`
	Guard     luaGuard  `msgpack:"guard"`
	FailAt    string    `msgpack:"fail_at,omitempty"`
}

// luaGuard is what apply.lua checks every write, creation, rename and
// deletion against before it asks for them (a friendly early refusal), and
// the channel its commit request goes to: the bytes are written by Go
// (commit.go), through a handle on the root.
type luaGuard struct {
	Root           string `msgpack:"root"`
	AllowHardlinks bool   `msgpack:"allow_hardlinks"`
	Channel        int    `msgpack:"channel"`
}

func (e *Engine) guard() luaGuard {
	return luaGuard{Root: e.root.Dir(), AllowHardlinks: e.root.Policy().AllowHardlinks(), Channel: e.s.Channel()}
}

// recheck resolves every path of a plan again right before it is sent: a
// folder or file swapped for a symlink since the preview, or a path the
// policy now denies, is refused before Neovim is asked to write.
func (e *Engine) recheck(files []luaFile) error {
	if e.skipRecheck {
		return nil
	}
	for _, f := range files {
		for _, p := range []string{f.Path, f.NewPath} {
			if p == "" {
				continue
			}
			if err := e.root.CheckUnchanged(p); err != nil {
				return err
			}
		}
	}
	return nil
}

type luaFile struct {
	Path       string    `msgpack:"path"`
	Kind       string    `msgpack:"kind"`
	NewPath    string    `msgpack:"new_path,omitempty"`
	Overwrite  bool      `msgpack:"overwrite"`
	FileFormat string    `msgpack:"fileformat,omitempty"`
	Expect     luaExpect `msgpack:"expect"`
	Ops        []bufOp   `msgpack:"ops"`
	Clear      bool      `msgpack:"clear"`
	TrimTail   bool      `msgpack:"trim_tail"`
	EOL        *bool     `msgpack:"eol,omitempty"`
	LineCount  int       `msgpack:"line_count"`
}

// luaExpect is the state a target must still be in: a loaded buffer's
// number and changedtick, or an unloaded file's content fingerprint.
type luaExpect struct {
	Loaded      bool   `msgpack:"loaded"`
	Bufnr       int    `msgpack:"bufnr"`
	ChangedTick int    `msgpack:"changedtick"`
	Fingerprint string `msgpack:"fingerprint"`
}

type luaFileResult struct {
	Path        string `msgpack:"path"`
	NewPath     string `msgpack:"new_path"`
	Kind        string `msgpack:"kind"`
	Bufnr       int    `msgpack:"bufnr"`
	ChangedTick int    `msgpack:"changedtick"`
	Modified    bool   `msgpack:"modified"`
	LineCount   int    `msgpack:"line_count"`
	FileFormat  string `msgpack:"fileformat"`
	EOL         bool   `msgpack:"eol"`
	Bomb        bool   `msgpack:"bomb"`
	Saved       bool   `msgpack:"saved"`
	Note        string `msgpack:"note"`
	// WrittenText is the buffer's text after a save whose autocmds
	// changed it (format-on-save), as written.
	WrittenText *string `msgpack:"written_text,omitempty"`
}

type luaApplyReply struct {
	Files []luaFileResult `msgpack:"files"`
	Err   *nvim.LuaError  `msgpack:"err"`
}

// target is one file of a changeset, resolved.
type target struct {
	abs, rel string
	snap     nvim.FileSnapshot
}

// prepare resolves and snapshots the changeset's files (unless snaps, keyed
// by absolute path, already holds them), validates and minimises the edits,
// renders the diff and builds the plan.
func (e *Engine) prepare(ctx context.Context, cs preview.Changeset, snaps map[string]nvim.FileSnapshot) (*prepared, error) {
	if len(cs.Files) == 0 {
		return nil, apierr.New(apierr.InvalidParameter, "the changeset is empty", "pass at least one file change")
	}
	if err := e.checkEdits(cs); err != nil {
		return nil, err
	}
	type resolved struct{ from, to target }
	res := make([]resolved, len(cs.Files))
	var missing []string
	listed := map[string]bool{}
	want := func(path string) (target, error) {
		abs, err := e.root.Resolve(path)
		if err != nil {
			return target{}, err
		}
		if _, ok := snaps[abs]; !ok && !listed[abs] {
			listed[abs] = true
			missing = append(missing, abs)
		}
		return target{abs: abs, rel: e.root.Rel(abs)}, nil
	}
	for i, fc := range cs.Files {
		var err error
		if res[i].from, err = want(fc.Path); err != nil {
			return nil, err
		}
		if fc.Kind == preview.OpRename {
			if res[i].to, err = want(fc.NewPath); err != nil {
				return nil, err
			}
		}
	}
	if len(missing) > 0 {
		got, err := e.s.Snapshot(ctx, missing, nvim.SnapshotOptions{Reconcile: true})
		if err != nil {
			return nil, err
		}
		if snaps == nil {
			snaps = map[string]nvim.FileSnapshot{}
		}
		for _, s := range got {
			snaps[s.Path] = s
		}
	}

	p := &prepared{created: e.now()}
	out := preview.Changeset{Files: make([]preview.FileChange, len(cs.Files))}
	seen := map[string]bool{}
	deleted := map[string]bool{}
	for i, fc := range cs.Files {
		from, to := res[i].from, res[i].to
		from.snap, to.snap = snaps[from.abs], snaps[to.abs]
		if seen[from.abs] {
			return nil, apierr.Errorf(apierr.InvalidParameter, "merge the changes to one file into one FileChange",
				"%s appears twice in the changeset", from.rel)
		}
		seen[from.abs] = true
		pf, err := e.prepareFile(fc, from, to, deleted[to.abs])
		if err != nil {
			return nil, err
		}
		if fc.Kind == preview.OpDelete {
			deleted[from.abs] = true
		}
		out.Files[i] = pf.change
		p.after = append(p.after, pf.after)
		p.before = append(p.before, pf.before)
		p.files = append(p.files, pf.lua)
		p.results = append(p.results, pf.result)
		p.edits += pf.result.Edits
	}
	diff, err := preview.UnifiedDiff(out)
	if err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "report this: nvbridge could not render its own changeset", "render the diff: %v", err)
	}
	p.diff = diff
	return p, nil
}

// plannedFile is one file change, checked and planned.
type plannedFile struct {
	lua    luaFile            // what apply.lua does
	result FileResult         // what the caller is told
	change preview.FileChange // what the diff shows: relative paths, Old, minimised edits
	after  preview.Document   // the file's text afterwards
	before preview.Document   // the file's text now
}

// prepareFile checks one file change against its snapshot and plans it.
func (e *Engine) prepareFile(fc preview.FileChange, from, to target, targetDeleted bool) (plannedFile, error) {
	f := luaFile{Path: from.abs, Kind: fc.Kind.String()}
	r := FileResult{Path: from.rel, Op: fc.Kind.String()}
	snap := from.snap
	if snap.Err != nil {
		return plannedFile{}, e.luaError(snap.Err)
	}
	if snap.IsDir {
		return plannedFile{}, apierr.Errorf(apierr.InvalidParameter, "name a file", "%s is a directory", from.rel)
	}
	current := documentOf(snap)
	exists := snap.Loaded || snap.Exists
	switch fc.Kind {
	case preview.OpCreate:
		if snap.Exists || (snap.Loaded && len(current.Lines) > 0) {
			return plannedFile{}, apierr.Errorf(apierr.Conflict, "edit the existing file instead, or delete it first",
				"cannot create %s: it already exists", from.rel)
		}
		if err := e.creatable(from); err != nil {
			return plannedFile{}, err
		}
		eol := fc.Old.EOL
		if eol == "" {
			eol = "\n"
		}
		current = preview.Document{Lines: []string{}, EOL: eol}
		if eol == "\r\n" {
			f.FileFormat = "dos"
		}
	case preview.OpEdit, preview.OpRename, preview.OpDelete:
		if !exists {
			return plannedFile{}, apierr.Errorf(apierr.ResourceNotFound, "check the path (relative to the workspace root)",
				"%s does not exist", from.rel)
		}
		if fc.Old.Lines != nil && !sameText(fc.Old, current) {
			return plannedFile{}, apierr.Errorf(apierr.Conflict, "compute the change again against the current text",
				"%s changed since this change was computed", from.rel)
		}
	default:
		return plannedFile{}, apierr.Errorf(apierr.InvalidParameter, "use edit, create, rename or delete", "unknown file operation %v", fc.Kind)
	}
	if snap.Loaded {
		f.Expect = luaExpect{Loaded: true, Bufnr: snap.Bufnr, ChangedTick: snap.ChangedTick}
		if !snap.Modifiable && fc.Kind != preview.OpDelete {
			return plannedFile{}, apierr.Errorf(apierr.PreconditionFailed, ":set modifiable in Neovim first", "%s is not 'modifiable' in Neovim", from.rel)
		}
	} else {
		f.Expect = luaExpect{Fingerprint: snap.Fingerprint}
	}
	fc.Path, fc.Old = from.rel, current

	switch fc.Kind {
	case preview.OpDelete:
		if len(fc.Edits) > 0 {
			return plannedFile{}, apierr.Errorf(apierr.InvalidParameter, "drop the edits of a file the changeset deletes", "a deleted file (%s) takes no edits", from.rel)
		}
		if snap.Loaded && snap.Modified {
			return plannedFile{}, apierr.Errorf(apierr.PreconditionFailed, "save or discard the buffer's changes first (save_buffer / discard_buffer)",
				"cannot delete %s: its buffer has unsaved changes", from.rel)
		}
		r.IsModified = snap.Modified
		return plannedFile{f, r, fc, preview.Document{}, current}, nil
	case preview.OpRename:
		if to.snap.Err != nil {
			return plannedFile{}, e.luaError(to.snap.Err)
		}
		if (to.snap.Exists || to.snap.Loaded) && !targetDeleted {
			return plannedFile{}, apierr.Errorf(apierr.Conflict, "pick another name, or delete the target first",
				"cannot rename %s to %s: the target exists", from.rel, to.rel)
		}
		if to.snap.IsDir {
			return plannedFile{}, apierr.Errorf(apierr.InvalidParameter, "name the new file, not a folder", "cannot rename %s to %s: it is a directory", from.rel, to.rel)
		}
		if err := e.creatable(to); err != nil {
			return plannedFile{}, err
		}
		f.NewPath, f.Overwrite = to.abs, targetDeleted
		fc.NewPath, r.NewPath = to.rel, to.rel
	}

	edits, err := preview.Minimize(current, dropNoops(current, fc.Edits))
	if err != nil {
		return plannedFile{}, editError(from.rel, err)
	}
	after, err := preview.Apply(current, edits)
	if err != nil {
		return plannedFile{}, editError(from.rel, err)
	}
	fc.Edits = edits
	plan := planBuffer(current, edits, after)
	f.Ops, f.Clear, f.TrimTail, f.EOL, f.LineCount = plan.Ops, plan.Clear, plan.TrimTail, plan.EOL, plan.LineCount
	r.Edits, r.LineCount, r.IsModified = len(edits), len(after.Lines), snap.Modified
	switch {
	case !snap.Loaded && fc.Kind != preview.OpCreate:
		r.Note = "not loaded in Neovim: applying loads it"
	case snap.UserModified:
		r.Note = "has unsaved changes nvbridge did not make: save=true will not save it"
	}
	if enc := snap.FileEncoding; enc != "" && enc != "utf-8" {
		note := "fileencoding=" + enc + ": its text is shown and matched as Neovim reads it (UTF-8); saving writes " + enc + " again"
		if r.Note != "" {
			note = r.Note + "; " + note
		}
		r.Note = note
	}
	return plannedFile{f, r, fc, after, current}, nil
}

// creatable refuses a file that cannot be created because a component of
// its folder is a file (saving would fail to make the folder).
func (e *Engine) creatable(t target) error {
	for dir := filepath.Dir(t.abs); ; {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return apierr.Errorf(apierr.InvalidParameter, "pick a path whose folders are folders",
					"cannot create %s: %s is a file, not a folder", t.rel, e.root.Rel(dir))
			}
			return nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// finish stores or applies a prepared changeset.
func (e *Engine) finish(ctx context.Context, p *prepared, opts Options) (Result, error) {
	// A cancelled (or timed out) request keeps no half-built changeset
	// and applies nothing.
	if err := apierr.FromContext(ctx, "the change", "retry with a larger timeout"); err != nil {
		return Result{}, err
	}
	changes := p.edits
	for _, f := range p.files {
		if f.Kind != "edit" {
			changes++
		}
	}
	if changes == 0 {
		return Result{Diff: p.diff, Files: p.results}, nil
	}
	if !opts.Preview {
		res, err := e.apply(ctx, p, opts, newID())
		if err != nil {
			return Result{}, err
		}
		return e.shown(res), nil
	}
	if err := e.checkDiff(p); err != nil {
		return Result{}, err
	}
	var delta *diagdelta.Delta
	if opts.Check {
		d, err := e.check(ctx, p)
		if err != nil {
			return Result{}, err
		}
		delta = d
	}
	// A stored preview keeps no whole documents, except the texts after the
	// change when the user approves changes: they may edit them before
	// accepting.
	p.before = nil
	if e.Approve == nil {
		p.after = nil
	}
	p.bytes = p.size()
	id := newID()
	e.mu.Lock()
	if p.bytes > e.MaxStoredBytes {
		max := e.MaxStoredBytes
		e.mu.Unlock()
		return Result{}, apierr.Errorf(apierr.InvalidParameter,
			"split the change into smaller ones (fewer files or edits per call), or apply it without a preview (preview: false), which stores nothing",
			"the preview is too large to keep: %d bytes, over the %d bytes all stored previews may hold (nothing was changed)", p.bytes, max)
	}
	e.expire()
	e.store[id] = p
	e.order = append(e.order, id)
	e.storedBytes += p.bytes
	for len(e.order) > e.MaxStored || e.storedBytes > e.MaxStoredBytes {
		e.remove(e.order[0])
	}
	e.mu.Unlock()
	return e.shown(Result{
		ChangesetID: id, ExpiresAt: p.created.Add(e.MaxAge).UTC().Format(time.RFC3339),
		Diff: p.diff, Files: p.results, EditCount: p.edits, Diagnostics: delta,
	}), nil
}

// apply sends the plan to Neovim in one call.
func (e *Engine) apply(ctx context.Context, p *prepared, opts Options, id string) (Result, error) {
	// From here on files change (or the user may edit them while asked):
	// snapshots read earlier in this call are not reused.
	nvim.ForgetSnapshots(ctx)
	defer nvim.ForgetSnapshots(ctx)
	var userDiff string
	if e.Approve != nil {
		files := make([]string, 0, len(p.results))
		for _, r := range p.results {
			files = append(files, r.Path)
		}
		decision, err := e.Approve(ctx, Approval{Tool: opts.Tool, ChangesetID: id, Diff: p.diff, Files: files, Proposed: proposals(p)})
		if err != nil {
			return Result{}, err
		}
		if len(decision.Edited) > 0 {
			if p, userDiff, err = e.withUserEdits(ctx, p, decision.Edited); err != nil {
				return Result{}, err
			}
		}
	}
	plan := luaPlan{ID: id, Files: p.files, Save: opts.Save, NoAutocmd: opts.NoAutocmd, Guard: e.guard()}
	if e.testPlan != nil {
		plan.Files = slices.Clone(plan.Files)
		e.testPlan(&plan)
	}
	if err := e.recheck(plan.Files); err != nil {
		return Result{}, err
	}
	// The last moment a cancellation stops the change: nothing is sent.
	if err := apierr.FromContext(ctx, "the change", "retry with a larger timeout"); err != nil {
		return Result{}, err
	}
	if e.commitErr != nil && needsDisk(plan) {
		return Result{}, e.commitErr
	}
	baseline, failed := e.before(ctx, p)
	// Once sent, the call runs to its end in Neovim: wait for the real
	// outcome rather than report a timeout for a change that happened.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	var reply luaApplyReply
	e.writing.Lock()
	callErr := e.s.Call(actx, "nvbridge.apply", "apply", &reply, plan)
	e.writing.Unlock()
	rec := takeCommit(id, callErr != nil)
	if callErr != nil {
		return Result{}, e.interrupted(callErr, rec)
	}
	if reply.Err != nil {
		if rec != nil && rec.err != nil {
			// The commit's own error: it says where each file stands.
			return Result{}, rec.err
		}
		err := e.luaError(reply.Err)
		switch {
		case reply.Err.Remediation != "":
			// The guard's own advice.
		case err.Code == apierr.Conflict:
			err.Remediation = "a file changed since the change was computed (nothing was changed): preview it again against the current text"
		case err.Code == apierr.InvalidParameter:
			err.Remediation = "the edit does not fit the buffer (nothing was changed): preview it again against the current text"
		case err.Code == apierr.PreconditionFailed:
			err.Remediation = "nothing was changed: deal with the buffer named in the message in Neovim (save, discard or make it modifiable), then retry"
		default:
			err.Remediation = "nothing was changed; fix the cause named in the message and retry"
		}
		if reply.Err.Moved {
			return Result{}, movedError{err}
		}
		return Result{}, err
	}
	if len(reply.Files) != len(p.results) {
		return Result{}, fmt.Errorf("apply returned %d files for %d", len(reply.Files), len(p.results))
	}
	out := Result{Diff: p.diff, Applied: true, EditCount: p.edits, Files: make([]FileResult, len(p.results)), AppliedID: id,
		UserDiff: userDiff, UserEdited: userDiff != ""}
	out.WrittenDiff = e.writtenDiff(p, reply.Files)
	for i, r := range p.results {
		lf := reply.Files[i]
		if lf.WrittenText != nil {
			r.Note = joinNote(r.Note, "saving ran the user's write autocmds, which changed the text written (see written_diff)")
			lf.Note = joinNote(lf.Note, "saving ran the user's write autocmds, which changed the text written (see written_diff)")
			lf.LineCount = len(preview.ParseDocument(*lf.WrittenText).Lines)
		}
		r.IsModified, r.LineCount, r.Saved, r.Note = lf.Modified, lf.LineCount, lf.Saved, lf.Note
		if lf.Kind == "delete" {
			r.LineCount = 0
		}
		out.Files[i] = r
		if i < len(p.after) && lf.Kind != "delete" && len(p.after[i].Lines) > 0 && lf.WrittenText == nil &&
			lf.EOL == p.after[i].FinalNewline && (lf.FileFormat == "dos") == (p.after[i].EOL == "\r\n") {
			path := p.files[i].Path
			if lf.NewPath != "" {
				path = lf.NewPath
			}
			e.s.RememberText(path, lf.Bufnr, lf.ChangedTick, lf.FileFormat, lf.EOL, lf.Bomb, p.after[i].Text())
		}
	}
	out.Diagnostics = e.after(ctx, baseline, failed)
	return out, nil
}

// expire drops stored previews past MaxAge (e.mu held).
func (e *Engine) expire() {
	cutoff := e.now().Add(-e.MaxAge)
	for len(e.order) > 0 && e.store[e.order[0]].created.Before(cutoff) {
		e.remove(e.order[0])
	}
}

// remove forgets a stored preview (e.mu held).
func (e *Engine) remove(id string) {
	if p := e.store[id]; p != nil {
		e.storedBytes -= p.bytes
	}
	delete(e.store, id)
	if i := slices.Index(e.order, id); i >= 0 {
		e.order = slices.Delete(e.order, i, i+1)
	}
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "cs_" + hex.EncodeToString(b[:])
}

// documentOf is the document a snapshot holds (empty when the file does not
// exist).
func documentOf(s nvim.FileSnapshot) preview.Document {
	return preview.ParseBuffer(s.Text, s.Loaded && s.FileFormat == "dos")
}

// sameText reports whether two documents hold the same text.
func sameText(a, b preview.Document) bool {
	if len(a.Lines) == 0 || len(b.Lines) == 0 {
		return a.Mapper().Text() == "" && b.Mapper().Text() == ""
	}
	return a.FinalNewline == b.FinalNewline && slices.Equal(a.Lines, b.Lines)
}

// dropNoops removes edits that replace text with the same text (keeping
// invalid ones for Minimize to report).
func dropNoops(doc preview.Document, edits []preview.TextEdit) []preview.TextEdit {
	out := make([]preview.TextEdit, 0, len(edits))
	for _, ed := range edits {
		if old, ok := textAt(doc, ed); ok && old == ed.NewText {
			continue
		}
		out = append(out, ed)
	}
	return out
}

// textAt returns the text an edit replaces, if its range is valid.
func textAt(doc preview.Document, ed preview.TextEdit) (string, bool) {
	n := len(doc.Lines)
	line := func(l int) (string, bool) {
		switch {
		case l >= 0 && l < n:
			return doc.Lines[l], true
		case l == n:
			return "", true
		}
		return "", false
	}
	sl, ok1 := line(ed.StartLine)
	el, ok2 := line(ed.EndLine)
	if !ok1 || !ok2 || ed.StartCol < 0 || ed.StartCol > len(sl) || ed.EndCol < 0 || ed.EndCol > len(el) ||
		ed.EndLine < ed.StartLine || (ed.EndLine == ed.StartLine && ed.EndCol < ed.StartCol) ||
		(ed.EndLine == n && !doc.FinalNewline) {
		return "", false
	}
	if ed.StartLine == ed.EndLine {
		return sl[ed.StartCol:ed.EndCol], true
	}
	var b strings.Builder
	b.WriteString(sl[ed.StartCol:])
	for l := ed.StartLine + 1; l < ed.EndLine; l++ {
		b.WriteByte('\n')
		b.WriteString(doc.Lines[l])
	}
	b.WriteByte('\n')
	b.WriteString(el[:ed.EndCol])
	return b.String(), true
}

// luaError converts an error apply.lua returned, naming files relative to
// the workspace root.
func (e *Engine) luaError(le *nvim.LuaError) *apierr.Error {
	err := le.APIError()
	err.Message = strings.ReplaceAll(err.Message, e.root.Dir()+string(filepath.Separator), "")
	return err
}

// editError converts preview's validation errors.
func editError(rel string, err error) error {
	var ee *preview.EditError
	if errors.As(err, &ee) {
		remedy := "positions are 0-based lines and byte columns; edits must not overlap"
		switch ee.Kind {
		case preview.KindOverlap:
			remedy = "merge the overlapping edits into one, or drop one of them"
		case preview.KindOutOfRange:
			remedy = "re-read the file (read_file): it is shorter than the edit assumes"
		case preview.KindInsideMultibyte:
			remedy = "columns must fall between characters (count characters, not bytes)"
		}
		return apierr.Errorf(apierr.InvalidParameter, remedy, "%s: %v (nothing was changed)", rel, ee)
	}
	return apierr.Errorf(apierr.InvalidParameter, "positions are 0-based lines and byte columns within the file", "%s: %v", rel, err)
}
