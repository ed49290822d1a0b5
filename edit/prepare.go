package edit

// Preparing a changeset: each file change checked against the file as Neovim
// holds it (snapshot), its edits validated, minimised and rendered, and the
// plan apply.lua executes (the buffers' expected state, the edits, the
// files to create, rename and delete).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/diagdelta"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

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
	// edits are each file's minimised edits of its text before the change
	// (kept in a stored preview: with the current text, which must be the
	// one previewed, they give the texts after for a later check).
	fileEdits [][]preview.TextEdit
	bytes     int // size(), once stored
	// guard: a refactoring's change (Options.Guard), stored with its
	// preview; checked: the preview's check, when it ran.
	guard   bool
	checked *diagdelta.Delta
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
	for _, es := range p.fileEdits {
		for _, ed := range es {
			n += 48 + len(ed.NewText)
		}
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
		// A path the call resolved already (a rename's file) is taken
		// as it is (workspace.WithResolved).
		abs, err := e.root.ResolveIn(ctx, path)
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
		got, err := e.s.Snapshot(ctx, missing, nvim.SnapshotOptions{Reconcile: true, Parsed: true})
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
		p.fileEdits = append(p.fileEdits, pf.change.Edits)
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
	// The text the change was computed against, when it is the
	// snapshot's document (a changeset made in this call of the same
	// snapshot, a rename's): taken as it is, not split again (some 30 us
	// on zap's logger.go, on the way to the preview).
	// Then it is the file's text: not compared with itself below.
	current, same := fc.Old, true
	if snap.Parsed != nil || !preview.ParsedAs(fc.Old, snap.Text, snap.Loaded && snap.FileFormat == "dos") {
		current, same = documentOf(snap), false
	}
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
		if fc.Old.Lines != nil && !same && !sameText(fc.Old, current) {
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

// documentOf is the document a snapshot holds (empty when the file does not
// exist). A large text is split into lines once (parsed): the session's
// snapshot cache hands out the same string while a buffer is unchanged,
// and a change is planned from it two or three times (its source, its
// plan, a preview then its apply).
func documentOf(s nvim.FileSnapshot) preview.Document {
	if doc, ok := s.Parsed.(preview.Document); ok {
		return doc // an apply's new text, remembered as its lines (parseOf)
	}
	dos := s.Loaded && s.FileFormat == "dos"
	if len(s.Text) < parsedMin {
		return preview.ParseBuffer(s.Text, dos)
	}
	return parsed.get(s.Text, dos)
}

// parsedMin is the size from which parsed documents are kept (the
// snapshot cache's own threshold).
const parsedMin = 64 << 10

// parsedDocs keeps the last few large documents split into lines, keyed by
// their text's identity (the string's data pointer and length: the entry
// holds the text, so no other string can take that address meanwhile).
// Documents are never changed once parsed.
type parsedDocs struct {
	mu      sync.Mutex
	entries []parsedDoc // most recent last
}

type parsedDoc struct {
	data *byte
	size int
	dos  bool
	doc  preview.Document
}

var parsed parsedDocs

// put records doc as text's parse (an apply's new text, made from doc).
func (p *parsedDocs) put(text string, dos bool, doc preview.Document) {
	if len(text) < parsedMin {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.entries) >= 4 {
		p.entries = append(p.entries[:0:0], p.entries[1:]...)
	}
	p.entries = append(p.entries, parsedDoc{data: unsafe.StringData(text), size: len(text), dos: dos, doc: doc})
}

func (p *parsedDocs) get(text string, dos bool) preview.Document {
	key := unsafe.StringData(text)
	p.mu.Lock()
	for i, e := range p.entries {
		if e.data == key && e.size == len(text) && e.dos == dos {
			p.entries = append(append(p.entries[:i:i], p.entries[i+1:]...), e)
			p.mu.Unlock()
			return e.doc
		}
	}
	p.mu.Unlock()
	doc := preview.ParseBuffer(text, dos)
	p.mu.Lock()
	if len(p.entries) >= 4 {
		p.entries = append(p.entries[:0:0], p.entries[1:]...)
	}
	p.entries = append(p.entries, parsedDoc{data: key, size: len(text), dos: dos, doc: doc})
	p.mu.Unlock()
	return doc
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
