package refactor

// rename_symbol's domain half: the new name checked against the
// language's identifier rules, textDocument/prepareRename (when the server
// offers it) to refuse positions that cannot be renamed before anything is
// computed from the rename, then textDocument/rename (asked beside
// prepareRename, its answer read once prepareRename accepts), whose
// WorkspaceEdit becomes one changeset over every affected file.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

// RenameRequest is what rename_symbol asks.
type RenameRequest struct {
	File    string
	Target  lsp.Target
	NewName string
	// again: asked a second time, once the files the first answer left
	// behind were opened (RenamesFromDeclaration servers).
	again bool
}

// RenamePlan is a computed rename, not yet previewed or applied.
type RenamePlan struct {
	Changeset preview.Changeset
	Server    string
	OldName   string
	NewName   string
	// At is where the rename was asked (the symbol's range when the server
	// gave one).
	At lsp.Location
	// Files are the affected files (workspace-relative, sorted).
	Files     []string
	EditCount int
	// LeftBehind lists where the old name still occurs as an identifier
	// after the rename in the workspace's files of the language (tests or
	// files the server does not see; at most maxLeftBehind, of
	// LeftBehindTotal).
	LeftBehind      []LeftBehind
	LeftBehindTotal int
	// MacrosRenamed are the C/C++ macros whose body names the symbol,
	// renamed with it ("lmem.h: luaM_error").
	MacrosRenamed []string
	// Resolved is the file the rename was asked in as this call resolved
	// it (workspace.WithResolved): for the call's changeset engine, never
	// kept past the call.
	Resolved string
}

// prepared is the answer of textDocument/prepareRename:
// Range | {range, placeholder} | {defaultBehavior} | null.
type prepared struct {
	Range           *protocol.Range
	Placeholder     string
	DefaultBehavior bool
}

// decodePrepareRename decodes the union; ok is false for null (the
// position cannot be renamed).
func decodePrepareRename(raw json.RawMessage) (p prepared, ok bool, err error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return prepared{}, false, nil
	}
	var probe struct {
		Range           *protocol.Range    `json:"range"`
		Placeholder     string             `json:"placeholder"`
		DefaultBehavior *bool              `json:"defaultBehavior"`
		Start           *protocol.Position `json:"start"`
		End             *protocol.Position `json:"end"`
	}
	if err := json.Unmarshal(t, &probe); err != nil {
		return prepared{}, false, err
	}
	switch {
	case probe.Start != nil && probe.End != nil:
		return prepared{Range: &protocol.Range{Start: *probe.Start, End: *probe.End}}, true, nil
	case probe.Range != nil:
		return prepared{Range: probe.Range, Placeholder: probe.Placeholder}, true, nil
	case probe.DefaultBehavior != nil:
		return prepared{DefaultBehavior: *probe.DefaultBehavior}, *probe.DefaultBehavior, nil
	}
	return prepared{}, false, nil
}

// Rename computes the changeset renaming the symbol at req.Target to
// req.NewName. Nothing is changed.
func Rename(ctx context.Context, c *lsp.Client, req RenameRequest) (RenamePlan, error) {
	if l := lang.ForFile(req.File); l != nil && !l.RenamesFromDeclaration() {
		// The open, prepareRename and the rename in one call to Neovim.
		if err := lang.ValidateIdentifier(l, req.NewName); err != nil {
			return RenamePlan{}, err
		}
		// prepareRename beside the rename, unless the server renames as
		// it would have it: then asked after the rename, when needed.
		var early ahead
		then := &lsp.RenameThen{
			Located: func(pt lsp.Point, abs string) { early.locate(ctx, c.Session.Root(), req.File, abs, pt) },
			Sent:    func(pt lsp.Point, abs string) { early.start(ctx, c, req.File, abs, pt) },
		}
		if nvim.HasSnapshotMemo(ctx) {
			// The file's snapshot in the read's own call (start takes it).
			taken := make(chan *nvim.ReadSnapshot, 1)
			early.withRead = taken
			then.Snapshot = func(r *nvim.ReadSnapshot) { taken <- r }
		}
		r, err := c.RenameAtThen(ctx, req.File, req.Target, req.NewName, !l.RenamesAsPrepared(), then)
		if err != nil {
			return RenamePlan{}, err
		}
		if r.Doc.Language() == l && !lang.RenamesFromDeclaration(r.Server.Name) {
			a := renameAsked{doc: r.Doc, server: r.Server, pt: r.Point, askedIn: r.Doc.Rel,
				prepared: r.Prepared, prepare: r.Prepare, prepareErr: r.PrepareErr,
				rename: func() (json.RawMessage, error) { return r.Rename, r.RenameErr }, ahead: early}
			if !r.Prepared && r.Server.Supports(protocol.MethodTextDocumentPrepareRename) {
				a.prepareLater = func() (json.RawMessage, error) { return c.PrepareRename(ctx, r) }
			}
			return planRename(ctx, c, req, a)
		}
		// Another language by its filetype, or a server that renames from
		// the declaration: as below (the answers are dropped).
	}
	return renameSlow(ctx, c, req)
}

// renameSlow is Rename in steps: the open, the position, then the
// requests (and, for a server that renames from the declaration, the
// state of its index and where the symbol is declared before them).
func renameSlow(ctx context.Context, c *lsp.Client, req RenameRequest) (RenamePlan, error) {
	doc, err := c.Open(ctx, req.File)
	if err != nil {
		return RenamePlan{}, err
	}
	server, err := doc.ServerFor(protocol.MethodTextDocumentRename)
	if err != nil {
		return RenamePlan{}, err
	}
	pt, err := c.Locate(ctx, doc, req.Target)
	if err != nil {
		return RenamePlan{}, err
	}
	if err := lang.ValidateIdentifier(doc.Language(), req.NewName); err != nil {
		return RenamePlan{}, err
	}
	askedIn := doc.Rel
	if lang.RenamesFromDeclaration(server.Name) {
		// Its index decides which files the rename reaches: while it is
		// still indexing (past the bounded wait of every request), the
		// rename would change a part of them (Lua from a fresh clangd: ldo.c
		// and ldo.h of eight files, and Lua no longer links).
		if st, err := c.Status(ctx); err == nil {
			for _, s := range st.Servers {
				if s.Name == server.Name && s.State == lsp.StateIndexing {
					work := ""
					if len(s.Work) > 0 {
						work = " (" + strings.Join(s.Work, "; ") + ")"
					}
					return RenamePlan{}, apierr.Errorf(apierr.PreconditionFailed,
						"retry once get_status shows "+server.Name+" ready (its background index builds once per project)",
						"%s is still indexing the project%s: a rename now would reach only the files it has indexed; nothing was changed", server.Name, work)
				}
			}
		}
		if d, p, s, ok := declarationElsewhere(ctx, c, doc, pt); ok {
			doc, pt, server = d, p, s
		}
	}
	pos := protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc.URI},
		Position:     pt.In(server.OffsetEncoding),
	}
	// The rename is asked while the server answers prepareRename: it does
	// not depend on its answer. A position prepareRename refuses drops it
	// (its answer is not read, its request cancelled): nothing is computed
	// from it.
	asked, cancelAsked := context.WithCancel(ctx)
	defer cancelAsked()
	type answer struct {
		raw json.RawMessage
		err error
	}
	renamed := make(chan answer, 1)
	params := protocol.RenameParams{TextDocumentPositionParams: pos, NewName: req.NewName}
	safego.Go("the rename's request", func() {
		var raw json.RawMessage
		err := c.Request(asked, doc, server, protocol.MethodTextDocumentRename, params, &raw)
		renamed <- answer{raw, err}
	}, func(err error) { renamed <- answer{nil, err} })
	a := renameAsked{doc: doc, server: server, pt: pt, askedIn: askedIn, rename: func() (json.RawMessage, error) {
		r := <-renamed
		return r.raw, r.err
	}}
	if server.Supports(protocol.MethodTextDocumentPrepareRename) {
		a.prepared = true
		a.prepareErr = c.Request(ctx, doc, server, protocol.MethodTextDocumentPrepareRename, pos, &a.prepare)
	}
	return planRename(ctx, c, req, a)
}

// renameAsked is a rename sent: where, to which server, prepareRename's
// answer when it was asked, and the rename's answer (rename waits for
// it; it is not read when prepareRename refuses the position).
type renameAsked struct {
	doc    *lsp.Document
	server lsp.Server
	pt     lsp.Point
	// askedIn is the file the rename was asked in (doc's, unless the
	// server renames from the declaration, which lies in another).
	askedIn    string
	prepared   bool
	prepare    json.RawMessage
	prepareErr error
	// prepareLater asks prepareRename, when it was not asked with the
	// rename (lang.RenameAsPrepared) and the rename's answer does not say
	// what it would (nameRenamedAt).
	prepareLater func() (json.RawMessage, error)
	// rename is the rename's answer (called again, the same answer).
	rename func() (json.RawMessage, error)
	// decoded is the rename's answer decoded once (decodeWorkspaceEdit),
	// for whoever reads its steps first.
	decoded *decodedEdit
	// ahead is what was started while the server computed the rename.
	ahead ahead
}

// decodedEdit is a WorkspaceEdit decoded once: nameRenamedAt reads its
// steps, then the changeset and the files it edits.
type decodedEdit struct {
	once sync.Once
	ops  []wsOp
	err  error
}

// of is raw's steps (raw is the same answer on every call), or the error
// decoding it gave.
func (d *decodedEdit) of(raw json.RawMessage) ([]wsOp, error) {
	d.once.Do(func() { d.ops, d.err = decodeWorkspaceEdit(raw) })
	return d.ops, d.err
}

// ahead is what a rename starts before the server's answer
// (lsp.Client.RenameAtThen): once the position is located, the files
// naming the name there (namingFiles) and, within a call that keeps its
// snapshots, the file's text on disk parsed for its language's
// FormatKeeps; once its request is on its way, while the server computes
// it, the snapshot of the file it was asked in, which the changeset of
// its edit reads (kept in the call's snapshot memo: taken after the
// open, like the one it saves; the apply compares the file with it as
// with any), its text parsed for FormatKeeps unless the disk's was that
// text.
type ahead struct {
	snapshotted chan struct{}
	name        string
	names       chan naming
	// disk, when started, waits for the file's text on disk parsed for
	// FormatKeeps (its keeps nil when it was not read).
	disk func() parsedFile
	// withRead, when not nil, receives the snapshot the read took of the
	// file (nil: none), which start takes rather than asking Neovim again.
	withRead chan *nvim.ReadSnapshot
	// rel is the file's workspace-relative path; got, when its language
	// has a FormatKeeps, waits for its text parsed for it once
	// snapshotted.
	rel string
	got func() parsedFile
}

// parsedFile is a file's text (as a changeset's document of it makes it)
// and its language's FormatKeeps of it (nil: not made); doc, when set,
// is the document text is the text of (its lines and final newline).
type parsedFile struct {
	text  string
	keeps func(at []int, renamed string) bool
	doc   preview.Document
}

// locate starts the files naming the name at pt, for a rename asked in
// file (workspace-relative; abs, its path as this call resolved it), in
// ctx, as soon as the disk's line located it, and (within a call that
// keeps its snapshots) the file's text on disk parsed for its language's
// FormatKeeps: both read no more than the disk, and either may take
// longer than the server to rename (the snapshot the parse would
// otherwise wait for comes after the open). Both in one goroutine, the
// parse first (the snapshot's parse waits for it; the files naming the
// name are read after the server's answer): it runs while Neovim starts
// the request, on two cores, and takes one of them at most. Not for free:
// gopls's rename keeps both cores busy, and what runs beside it lengthens
// it about as much (300 µs of spinning here, or once the request was
// sent, lengthened a rename preview on zap by about 0.3 ms; readsab).
func (h *ahead) locate(ctx context.Context, root workspace.Root, file, abs string, pt lsp.Point) {
	l := lang.ForFile(file)
	if l == nil {
		return
	}
	name := identAround(pt.Text, pt.Byte)
	var names chan naming
	if name != "" && name != h.name {
		names = make(chan naming, 1)
		h.name, h.names = name, names
	}
	var parsed chan parsedFile
	if h.disk == nil && l.FormatKeeps != nil && nvim.HasSnapshotMemo(ctx) {
		parsed = make(chan parsedFile, 1)
		h.disk = sync.OnceValue(func() parsedFile { return <-parsed })
	}
	if names == nil && parsed == nil {
		return
	}
	safego.Go("looking ahead of a rename's answer", func() {
		if parsed != nil {
			var pf parsedFile
			if text, ok := diskText(root.Dir(), abs); ok {
				pf.text, pf.keeps = text, formatKeepsOf(l, text, name)
			}
			parsed <- pf
		}
		if names != nil {
			names <- namingFiles(root, l, name)
		}
	}, func(error) {
		// A panic in either: the parse is not made (the snapshot's text
		// is parsed), and the files naming the name may be any.
		if parsed != nil {
			select {
			case parsed <- parsedFile{}:
			default:
			}
		}
		if names != nil {
			select {
			case names <- naming{name: name, unknown: true}:
			default:
			}
		}
	})
}

// start starts the rest for a rename asked in file (abs, its path as
// this call resolved it) at pt, in ctx (a snapshot only when ctx keeps
// snapshots for the plan), once its requests are on their way (and the
// files naming the name, when locate did not start them for it).
func (h *ahead) start(ctx context.Context, c *lsp.Client, file, abs string, pt lsp.Point) {
	root := c.Session.Root()
	h.locate(ctx, root, file, abs, pt)
	if !nvim.HasSnapshotMemo(ctx) {
		return
	}
	done := make(chan struct{})
	h.snapshotted, h.rel = done, root.Rel(abs)
	var parsed chan parsedFile
	if l := lang.ForFile(file); l != nil && l.FormatKeeps != nil {
		parsed = make(chan parsedFile, 1)
		h.got = sync.OnceValue(func() parsedFile { return <-parsed })
	}
	disk, name, withRead := h.disk, identAround(pt.Text, pt.Byte), h.withRead
	safego.Go("snapshotting the file a rename was asked in", func() {
		var snaps []nvim.FileSnapshot
		var err error
		taken := false
		if withRead != nil {
			if r := <-withRead; r != nil {
				snaps, err = c.Session.SnapshotOf(ctx, r)
				taken = err == nil
			}
		}
		if !taken {
			snaps, err = c.Session.Snapshot(ctx, []string{abs}, nvim.SnapshotOptions{})
		}
		close(done)
		if parsed == nil {
			return
		}
		var pf parsedFile
		if s := snaps; err == nil && len(s) == 1 && s[0].Err == nil && (s[0].Loaded || s[0].Exists) {
			// The text renamedAt gives FormatKeeps: parsed from the disk
			// already when the buffer holds the disk's text. The document
			// kept beside it tells the changeset's document of the same
			// snapshot by its lines (snapshotDoc's: the same strings).
			doc := snapshotDoc(s[0])
			pf = parsedAs(lang.ForFile(file), doc.Mapper().Text(), name, disk)
			pf.doc = doc
		}
		parsed <- pf
	}, func(error) {
		select {
		case <-done:
		default:
			close(done)
		}
		if parsed != nil {
			select {
			case parsed <- parsedFile{}:
			default:
			}
		}
	})
}

// parsedAs is text parsed for l's FormatKeeps of a rename of name: the
// disk's parse (disk, when not nil) when it was of that text, else parsed
// now.
func parsedAs(l *lang.Language, text, name string, disk func() parsedFile) parsedFile {
	if disk != nil {
		if d := disk(); d.keeps != nil && d.text == text {
			return d
		}
	}
	return parsedFile{text: text, keeps: formatKeepsOf(l, text, name)}
}

// formatKeeps is the FormatKeeps made ahead of path's text, when it was
// made of doc's text (nil otherwise).
func (h ahead) formatKeeps(path string, doc preview.Document) func([]int, string) bool {
	if h.got == nil || path != h.rel {
		return nil
	}
	if pf := h.got(); pf.keeps != nil && sameText(pf, doc) {
		return pf.keeps
	}
	return nil
}

// sameText reports whether doc's text (its lines joined by "\n", as
// formattedTexts reads it) is pf's: by their lines when pf has its
// document, strings the changeset's document of the same snapshot shares
// (compared without reading their bytes: about 11 KB made and compared
// on zap's logger.go otherwise).
func sameText(pf parsedFile, doc preview.Document) bool {
	if pf.doc.Lines != nil {
		return pf.doc.FinalNewline == doc.FinalNewline && slices.Equal(pf.doc.Lines, doc.Lines)
	}
	return pf.text == doc.Mapper().Text()
}

// naming is the files naming name, when started for that name (nil
// otherwise).
func (h ahead) naming(name string) chan naming {
	if h.names == nil || h.name != name {
		return nil
	}
	return h.names
}

// wait waits for the snapshot started, if any.
func (h ahead) wait() {
	if h.snapshotted != nil {
		<-h.snapshotted
	}
}

// namingFilesAsync is namingFiles in a goroutine of its own; a panic
// there makes a naming that says the scans may find something.
func namingFilesAsync(root workspace.Root, l *lang.Language, name string) chan naming {
	out := make(chan naming, 1)
	safego.Go("looking for the renamed symbol's uses left behind", func() {
		out <- namingFiles(root, l, name)
	}, func(error) { out <- naming{name: name, unknown: true} })
	return out
}

// planRename computes the plan from a's answers.
func planRename(ctx context.Context, c *lsp.Client, req RenameRequest, a renameAsked) (RenamePlan, error) {
	doc, server, pt := a.doc, a.server, a.pt
	if a.decoded == nil {
		a.decoded = &decodedEdit{}
	}
	where := renameWhere{doc.Rel, pt.Line + 1, pt.Char}
	plan := RenamePlan{Server: server.Name, NewName: req.NewName, OldName: identAround(pt.Text, pt.Byte)}
	plan.At = lsp.Location{File: doc.Rel, Line: pt.Line + 1, Column: pt.Char, EndLine: pt.Line + 1, EndColumn: pt.Char, Context: strings.TrimSpace(pt.Text)}
	if !a.prepared && a.prepareLater != nil {
		if at, name, ok := nameRenamedAt(ctx, c, a, req.NewName); ok {
			// What prepareRename would have said: the rename stands.
			plan.At, plan.OldName = at, name
		} else {
			a.prepared = true
			a.prepare, a.prepareErr = a.prepareLater()
		}
	}
	if a.prepared {
		raw := a.prepare
		if err := a.prepareErr; err != nil {
			if e := apierr.As(err); e.Code == apierr.OperationFailed {
				return RenamePlan{}, apierr.Errorf(apierr.PreconditionFailed, cannotRenameHint,
					"%s cannot rename at %s (%q): %s", server.Name, where, strings.TrimSpace(pt.Text), e.Message)
			}
			return RenamePlan{}, err
		}
		p, ok, err := decodePrepareRename(raw)
		if err != nil {
			return RenamePlan{}, apierr.Errorf(apierr.OperationFailed, "report this: the server's answer has a shape nvbridge does not decode",
				"%s: cannot decode the prepareRename answer %s: %v", server.Name, clipJSON(raw), err)
		}
		if !ok {
			what := "nothing renameable"
			if w := identAround(pt.Text, pt.Byte); w != "" {
				what = "\"" + w + "\" cannot be renamed"
			}
			return RenamePlan{}, apierr.Errorf(apierr.PreconditionFailed, cannotRenameHint,
				"%s says %s at %s (a keyword, a literal, or a symbol defined outside the workspace such as the standard library): %q",
				server.Name, what, where, strings.TrimSpace(pt.Text))
		}
		if p.Range != nil {
			if loc, err := c.ToolRangeAt(ctx, server.OffsetEncoding, doc, pt, *p.Range); err == nil {
				plan.At = loc
				if p.Range.Start.Line == p.Range.End.Line {
					start, _ := preview.UnitsToByte(pt.Text, int(p.Range.Start.Character), server.OffsetEncoding)
					end, _ := preview.UnitsToByte(pt.Text, int(p.Range.End.Character), server.OffsetEncoding)
					if int(p.Range.Start.Line) == pt.Line && start < end {
						plan.OldName = pt.Text[start:end]
					}
				}
			}
		}
		if p.Placeholder != "" {
			plan.OldName = p.Placeholder
		}
	}
	if plan.OldName == req.NewName {
		return RenamePlan{}, apierr.Errorf(apierr.InvalidParameter, "pass a different new_name",
			"the symbol at %s is already named %q", where, req.NewName)
	}
	raw, err := a.rename()
	if err != nil {
		if e := apierr.As(err); e.Code == apierr.OperationFailed {
			return RenamePlan{}, apierr.Errorf(apierr.PreconditionFailed, cannotRenameHint,
				"%s refused to rename %q at %s to %q: %s", server.Name, plan.OldName, where, req.NewName, e.Message)
		}
		return RenamePlan{}, err
	}
	if lsp.IsNullJSON(raw) {
		return RenamePlan{}, apierr.Errorf(apierr.PreconditionFailed, cannotRenameHint,
			"%s returned no edit for renaming %q at %s", server.Name, plan.OldName, where)
	}
	// Whether the scans below could find anything: the files that name
	// the old name, found while the server computed the rename when the
	// name was known then (a.ahead), else while Neovim is asked for the
	// texts the edit changes.
	l := doc.Language()
	root := c.Session.Root()
	ops, decodeErr := a.decoded.of(raw)
	edited := editedPaths(root, ops, decodeErr)
	var names chan naming
	if l != nil && plan.OldName != "" {
		if names = a.ahead.naming(plan.OldName); names == nil {
			names = namingFilesAsync(root, l, plan.OldName)
		}
	}
	a.ahead.wait()
	// The file the rename was asked in was resolved when it was opened
	// in this call (doc.Path): its edit is not resolved again, nor its
	// change where the changeset engine prepares it (plan.Resolved).
	plan.Resolved = doc.Path
	cs, err := workspaceChangesetOf(workspace.WithResolved(ctx, doc.Path), c, server.OffsetEncoding, raw, ops, decodeErr)
	if err != nil {
		return RenamePlan{}, err
	}
	if l := doc.Language(); l != nil && l.Macros && plan.OldName != "" {
		if cs, plan.MacrosRenamed, err = macroBodyEdits(c.Session.Root(), l, plan.OldName, req.NewName, cs); err != nil {
			return RenamePlan{}, apierr.Errorf(apierr.OperationFailed, "report this", "renaming %s in macro bodies: %v", plan.OldName, err)
		}
	}
	plan.Changeset = cs
	// Uses the server did not see: in the files that import the symbol's
	// file (a file the rename changed, the server saw whole).
	plan.LeftBehind = []LeftBehind{}
	leaves := func(n naming) bool {
		changed := changedPaths(cs)
		if !slices.Equal(changed, edited) {
			// The changeset changes other files than the edit names (C
			// macro bodies): asked of those.
			edited = changed
		}
		return n.mayLeaveBehind(root, l, edited, a.askedIn)
	}
	// Whether the scans below are made, when the files naming the old
	// name are known already (found while the server computed the rename).
	mayLeave, known := false, names == nil
	if names != nil {
		select {
		case n := <-names:
			mayLeave, known = leaves(n), true
		default:
		}
	}
	// The server's edit formatted (formatTouched) while the scans below
	// read the files it leaves untouched (neither reads what the other
	// makes), or here when no scan is made: another goroutine would only
	// be waited for.
	formatted := make(chan map[string]string, 1)
	unformatted := cs
	format := func() { formatted <- formattedTexts(unformatted, req.NewName, a.ahead.formatKeeps) }
	if known && !mayLeave {
		if safego.Call("formatting the renamed files", format) != nil {
			formatted <- nil
		}
	} else {
		safego.Go("formatting the renamed files", format, func(error) { formatted <- nil })
	}
	if !known {
		mayLeave = leaves(<-names)
	}
	if mayLeave {
		r := reachOf(ctx, c, req.File, req.Target, plan.OldName)
		if !r.local && !r.member {
			if cs, err = renameImportersOutside(ctx, c, l, r, plan.OldName, req.NewName, cs); err != nil {
				return RenamePlan{}, err
			}
			plan.Changeset = cs
		}
		if r.mayBeImported(l) {
			plan.LeftBehind, plan.LeftBehindTotal = findLeftBehindMember(c.Session.Root(), l, plan.OldName, cs, r.importers(c.Session.Root(), l), r.member)
		}
		if len(plan.LeftBehind) > 0 && !req.again && lang.RenamesFromDeclaration(server.Name) {
			// Its background index had not reached those files (Lua from a
			// fresh clangd: four of the eight files that call luaD_throw,
			// and Lua no longer linked); opened, they are in its index of
			// open files: asked again, it renames them too.
			if openAll(ctx, c, plan.LeftBehind) {
				again := req
				again.again = true
				return Rename(ctx, c, again)
			}
		}
		openLeftBehind(ctx, c, plan.LeftBehind)
	}
	if texts := <-formatted; len(texts) > 0 {
		if cs, err = withTexts(cs, texts); err != nil {
			return RenamePlan{}, err
		}
	}
	plan.Changeset = cs
	plan.Files, plan.EditCount = changesetStats(cs)
	if plan.EditCount == 0 {
		return RenamePlan{}, apierr.Errorf(apierr.OperationFailed, "check the position: it should be on the symbol's name",
			"%s returned an empty edit for renaming %q at %s", server.Name, plan.OldName, where)
	}
	return plan, nil
}

// renameWhere is where a rename was asked, as its errors name it
// ("file:line:column"), made only for an error.
type renameWhere struct {
	file       string
	line, char int
}

func (w renameWhere) String() string { return fmt.Sprintf("%s:%d:%d", w.file, w.line, w.char) }

// nameRenamedAt is, for a server that renames as its prepareRename would
// have it (lang.RenameAsPrepared) and a rename it answered, what that
// prepareRename would have answered: the range of the name its edit
// replaces with newName at the position (as a tool range) and that name.
// ok is false unless exactly one edit of the asked document replaces the
// whole identifier at the position, on its line, with newName (an
// import's name inserted, a signature changed, a package renamed from its
// clause: prepareRename is asked).
func nameRenamedAt(ctx context.Context, c *lsp.Client, a renameAsked, newName string) (lsp.Location, string, bool) {
	pt, enc := a.pt, a.server.OffsetEncoding
	name := identAround(pt.Text, pt.Byte)
	if name == "" || !lang.RenameAsPrepared(a.server.Name, pt.Text) {
		return lsp.Location{}, "", false
	}
	raw, err := a.rename()
	if err != nil || lsp.IsNullJSON(raw) {
		return lsp.Location{}, "", false
	}
	ops, err := a.decoded.of(raw)
	if err != nil {
		return lsp.Location{}, "", false
	}
	self := lsp.PathOf(a.doc.URI)
	var at *protocol.Range
	for _, op := range ops {
		if op.kind != "edit" || lsp.PathOf(op.uri) != self {
			continue
		}
		for _, e := range op.edits {
			r := e.Range
			if r == nil || e.NewText == nil || *e.NewText != newName || e.Snippet != nil ||
				int(r.Start.Line) != pt.Line || int(r.End.Line) != pt.Line {
				continue
			}
			start, exact := preview.UnitsToByte(pt.Text, int(r.Start.Character), enc)
			if !exact {
				continue
			}
			end, exact := preview.UnitsToByte(pt.Text, int(r.End.Character), enc)
			if !exact || start > pt.Byte || pt.Byte > end || end > len(pt.Text) || pt.Text[start:end] != name {
				continue
			}
			if at != nil {
				return lsp.Location{}, "", false
			}
			at = r
		}
	}
	if at == nil {
		return lsp.Location{}, "", false
	}
	loc, err := c.ToolRangeAt(ctx, enc, a.doc, pt, *at)
	if err != nil {
		return lsp.Location{}, "", false
	}
	return loc, name, true
}

// renameImportersOutside renames oldName in the files the server's edit
// left alone that import it by name from its module (requests' tests,
// outside pyright's include: from requests.utils import (...,
// get_auth_from_url, ...)): the import's entry and every use of the name
// it binds there (not an attribute of something else). A file that binds
// the name otherwise too, or already names newName, is left as it is (and
// listed in left_behind).
func renameImportersOutside(ctx context.Context, c *lsp.Client, l *lang.Language, r symbolReach, oldName, newName string, cs preview.Changeset) (preview.Changeset, error) {
	if l.Imports.Parse == nil || l.Imports.Resolve == nil || l.Imports.Folder {
		return cs, nil
	}
	root := c.Session.Root()
	scope := lang.NewScope(root.Dir())
	defAbs := filepath.Join(root.Dir(), filepath.FromSlash(r.defRel))
	after := afterTexts(cs)
	var cands []string
	for _, f := range languageFiles(root, l) {
		if _, changed := after[f]; changed || f == r.defRel {
			continue
		}
		abs := filepath.Join(root.Dir(), filepath.FromSlash(f))
		if root.Sensitive(abs) {
			continue
		}
		data, err := os.ReadFile(abs)
		if err != nil || !strings.Contains(string(data), oldName) || !importsByName(l, scope, abs, string(data), oldName, defAbs) {
			continue
		}
		cands = append(cands, f)
	}
	if len(cands) == 0 {
		return cs, nil
	}
	files, err := readFiles(ctx, c, cands)
	if err != nil {
		return cs, err
	}
	for _, f := range cands {
		text, ok := files.texts[f]
		abs := filepath.Join(root.Dir(), filepath.FromSlash(f))
		if !ok || !importsByName(l, scope, abs, text, oldName, defAbs) {
			continue
		}
		var edits []preview.ByteEdit
		for _, sp := range lang.Identifiers(l, text) {
			if text[sp.Start:sp.End] == newName {
				edits = nil
				break
			}
			if text[sp.Start:sp.End] == oldName && (sp.Start == 0 || text[sp.Start-1] != '.') {
				edits = append(edits, preview.ByteEdit{Start: sp.Start, End: sp.End, Text: newName})
			}
		}
		if len(edits) == 0 {
			continue
		}
		nt, err := preview.ApplyByteEdits(text, edits)
		if err != nil {
			return cs, apierr.Errorf(apierr.OperationFailed, "report this", "%s: %v", f, err)
		}
		old := files.docs[f]
		tes, err := preview.Minimize(old, []preview.TextEdit{{EndLine: len(old.Lines), NewText: nt}})
		if err != nil {
			return cs, apierr.Errorf(apierr.OperationFailed, "report this", "rebuild the edits of %s: %v", f, err)
		}
		cs.Files = append(cs.Files, preview.FileChange{Kind: preview.OpEdit, Path: f, Old: old, Edits: tes})
	}
	return cs, nil
}

// maxReopened bounds the files openAll opens.
const maxReopened = 64

// openAll opens the files of lb (at most maxReopened) and waits for
// their diagnostics: whether all were opened and diagnosed.
func openAll(ctx context.Context, c *lsp.Client, lb []LeftBehind) bool {
	seen := map[string]bool{}
	for _, l := range lb {
		if seen[l.File] {
			continue
		}
		if len(seen) == maxReopened {
			return false
		}
		seen[l.File] = true
		if _, err := c.Open(ctx, l.File); err != nil {
			return false
		}
	}
	// Parsed: the server's diagnostics of a file come once it has built
	// its AST, which puts the file in its index of open files.
	for f := range seen {
		if _, err := c.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: f}); err != nil {
			return false
		}
	}
	return true
}

// importsByName reports whether text (of the file abs) imports name by
// name from the file defAbs (Python's from-import, TypeScript's named
// import).
func importsByName(l *lang.Language, scope *lang.Scope, abs, text, name, defAbs string) bool {
	for _, imp := range l.Imports.Parse(text) {
		named := false
		for _, n := range imp.Names {
			if f := strings.Fields(n); len(f) > 0 && f[0] == name {
				named = true
			}
		}
		if !named {
			continue
		}
		for _, res := range l.Imports.Resolve(scope, abs, imp) {
			if res == defAbs {
				return true
			}
		}
	}
	return false
}

// declarationElsewhere is the symbol at pt's declaration when it lies in
// another workspace file (a C function's prototype in its header): the
// document, the point on the declaration's name and its rename server.
func declarationElsewhere(ctx context.Context, c *lsp.Client, doc *lsp.Document, pt lsp.Point) (*lsp.Document, lsp.Point, lsp.Server, bool) {
	col := pt.Char
	res, err := c.Declaration(ctx, doc.Rel, lsp.Target{Line: pt.Line + 1, Column: &col})
	if err != nil || len(res.Locations) == 0 {
		return nil, lsp.Point{}, lsp.Server{}, false
	}
	loc := res.Locations[0]
	if loc.File == "" || loc.OutsideWorkspace || loc.File == doc.Rel {
		return nil, lsp.Point{}, lsp.Server{}, false
	}
	d, err := c.Open(ctx, loc.File)
	if err != nil {
		return nil, lsp.Point{}, lsp.Server{}, false
	}
	s, err := d.ServerFor(protocol.MethodTextDocumentRename)
	if err != nil {
		return nil, lsp.Point{}, lsp.Server{}, false
	}
	col = loc.Column
	p, err := c.Locate(ctx, d, lsp.Target{Line: loc.Line, Column: &col})
	if err != nil || identAround(p.Text, p.Byte) != identAround(pt.Text, pt.Byte) {
		return nil, lsp.Point{}, lsp.Server{}, false
	}
	return d, p, s, true
}

const cannotRenameHint = "point at an identifier declared in the workspace (read_file shows the line; pass symbol to name it)"

// changesetStats lists a changeset's files (sorted) and counts its edits
// (a file operation without edits counts as one).
func changesetStats(cs preview.Changeset) ([]string, int) {
	seen := map[string]bool{}
	var files []string
	n := 0
	for _, fc := range cs.Files {
		for _, p := range []string{fc.Path, fc.NewPath} {
			if p != "" && !seen[p] {
				seen[p] = true
				files = append(files, p)
			}
		}
		if len(fc.Edits) == 0 && fc.Kind != preview.OpEdit {
			n++
		}
		n += len(fc.Edits)
	}
	sort.Strings(files)
	return files, n
}

// identAround returns the identifier-like word around byte offset b of line
// (identifierAt, with b past the end taken as the end).
func identAround(line string, b int) string {
	return lsp.IdentifierAt(line, min(b, len(line)))
}

func clipJSON(raw json.RawMessage) string {
	s := string(raw)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
