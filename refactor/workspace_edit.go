package refactor

// WorkspaceEdits turned into changesets: a server's edit decoded step by
// step (text edits with versions, file creations, renames and deletions)
// against the files as Neovim holds them, edits outside the workspace
// refused, changesets merged.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

// wireTextEdit is a TextEdit or an AnnotatedTextEdit of a WorkspaceEdit
// as servers send it (lsp.DecodeWorkspaceEdit: in one pass, as
// encoding/json decodes it); the annotation is not needed: every change
// is previewed anyway.
type wireTextEdit = lsp.TextEditWire

// Changeset converts a server's WorkspaceEdit (raw JSON: `changes` or
// `documentChanges` with TextDocumentEdit incl. versions, CreateFile,
// RenameFile, DeleteFile, annotated edits) into a preview.Changeset,
// converting positions from enc to bytes against the text the server saw
// (loaded buffer, else disk). A documentChanges version that is not the
// buffer's current LSP version is a CONFLICT; overlapping edits, ranges past
// the end: OPERATION_FAILED with nothing changed. Each FileChange carries
// the text it was computed against as Old, so applying it later (edit.Engine)
// refuses if that text changed in the meantime.
func Changeset(ctx context.Context, c *lsp.Client, enc preview.Encoding, workspaceEdit json.RawMessage) (preview.Changeset, error) {
	ops, err := decodeWorkspaceEdit(workspaceEdit)
	if err != nil {
		return preview.Changeset{}, err
	}
	return changesetOf(ctx, c, enc, ops)
}

// changesetOf is Changeset of a WorkspaceEdit decoded (decodeWorkspaceEdit).
func changesetOf(ctx context.Context, c *lsp.Client, enc preview.Encoding, ops []wsOp) (preview.Changeset, error) {
	if len(ops) == 0 {
		return preview.Changeset{}, nil
	}
	root := c.Session.Root()
	fs := &virtualFiles{enc: enc, files: map[string]*vfile{}}
	var paths []string
	absOf := map[protocol.DocumentURI]string{}
	for _, op := range ops {
		for _, u := range op.uris() {
			if _, done := absOf[u]; done {
				continue
			}
			p := lsp.PathOf(u)
			if p == "" {
				return preview.Changeset{}, apierr.Errorf(apierr.OperationFailed,
					"nvbridge edits only files; apply this change yourself",
					"the server's edit touches %s, which is not a file", u)
			}
			// The file a rename was asked in was resolved when it was
			// opened in this call (workspace.WithResolved): not again.
			abs, err := root.ResolveIn(ctx, p)
			if err != nil {
				return preview.Changeset{}, apierr.Errorf(apierr.PreconditionFailed,
					"nvbridge edits only files inside the workspace root; apply this change yourself",
					"the edit touches %s, outside the workspace root %s", lsp.PathOf(u), root.Dir())
			}
			absOf[u] = abs
			if fs.files[abs] == nil {
				fs.files[abs] = &vfile{} // filled from the snapshot below
				paths = append(paths, abs)
			}
		}
	}
	snaps, err := c.Session.Snapshot(ctx, paths, nvim.SnapshotOptions{})
	if err != nil {
		return preview.Changeset{}, err
	}
	for i, s := range snaps {
		if s.Err != nil {
			return preview.Changeset{}, s.Err.APIError()
		}
		doc := snapshotDoc(s)
		fs.files[s.Path] = &vfile{
			rel: root.Rel(s.Path), snap: s, base: doc, baseExists: s.Loaded || s.Exists,
			cur: &content{origin: s.Path, doc: doc, exact: true}, order: i,
		}
		if !s.Loaded && !s.Exists {
			fs.files[s.Path].cur = nil
		}
	}
	for i, op := range ops {
		if err := fs.do(i, op, func(u protocol.DocumentURI) *vfile { return fs.files[absOf[u]] }); err != nil {
			return preview.Changeset{}, err
		}
	}
	return fs.changeset(paths)
}

// wsOp is one step of a WorkspaceEdit, in order.
type wsOp struct {
	kind    string // "edit", "create", "rename", "delete"
	uri     protocol.DocumentURI
	newURI  protocol.DocumentURI
	version *int64
	edits   []wireTextEdit
	opts    struct{ overwrite, ignoreIfExists, recursive, ignoreIfNotExists bool }
	// named are the URIs the step's entry names, whatever its kind
	// (editOutsideWorkspace's).
	named []protocol.DocumentURI
}

func (o wsOp) uris() []protocol.DocumentURI {
	if o.kind == "rename" {
		return []protocol.DocumentURI{o.uri, o.newURI}
	}
	return []protocol.DocumentURI{o.uri}
}

func decodeWorkspaceEdit(raw json.RawMessage) ([]wsOp, error) {
	bad := func(format string, args ...any) error {
		return apierr.Errorf(apierr.OperationFailed, "report this language server answer; nothing was changed",
			"malformed WorkspaceEdit: "+format, args...)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	we, err := lsp.DecodeWorkspaceEdit(raw)
	if err != nil {
		return nil, bad("%v", err)
	}
	var ops []wsOp
	if we.DocumentChanges != nil {
		for i, dc := range we.DocumentChanges {
			op := wsOp{kind: dc.Kind, uri: dc.URI, newURI: dc.NewURI}
			if dc.TextDocument != nil {
				op.named = append(op.named, dc.TextDocument.URI)
			}
			op.named = append(op.named, dc.URI, dc.OldURI, dc.NewURI)
			op.opts.overwrite, op.opts.ignoreIfExists = dc.Options.Overwrite, dc.Options.IgnoreIfExists
			op.opts.recursive, op.opts.ignoreIfNotExists = dc.Options.Recursive, dc.Options.IgnoreIfNotExists
			switch dc.Kind {
			case "":
				if dc.TextDocument == nil {
					return nil, bad("documentChanges[%d] is neither a TextDocumentEdit nor a file operation", i)
				}
				op.kind, op.uri, op.version, op.edits = "edit", dc.TextDocument.URI, dc.TextDocument.Version, dc.Edits
			case "create", "delete":
			case "rename":
				op.uri = dc.OldURI
			default:
				return nil, bad("documentChanges[%d] has unknown kind %q", i, dc.Kind)
			}
			if op.uri == "" || (op.kind == "rename" && op.newURI == "") {
				return nil, bad("documentChanges[%d] (%s) has no uri", i, op.kind)
			}
			ops = append(ops, op)
		}
		return ops, nil
	}
	uris := make([]protocol.DocumentURI, 0, len(we.Changes))
	for u := range we.Changes {
		uris = append(uris, u)
	}
	sort.Slice(uris, func(i, j int) bool { return uris[i] < uris[j] })
	for _, u := range uris {
		ops = append(ops, wsOp{kind: "edit", uri: u, edits: we.Changes[u], named: []protocol.DocumentURI{u}})
	}
	return ops, nil
}

// content is a file's text as the WorkspaceEdit's steps leave it.
type content struct {
	origin string // absolute path of the file this text descends from; "" when created
	doc    preview.Document
	// edits take origin's text to doc, while exact (a single batch of
	// edits); otherwise the whole text is replaced and minimised.
	edits []preview.TextEdit
	exact bool
	// pending: doc is still the text before edits (its single batch,
	// checked), until a later step or the changeset needs the text after
	// them (now). A rename's edit, one batch a file, never does: its
	// changeset is the edits, which the engine applies to the file's text
	// itself (some 13 us of applying on zap's logger.go before the
	// preview, made twice).
	pending bool
}

// now is the text as the steps so far leave it.
func (c *content) now() (preview.Document, error) {
	if c.pending {
		after, err := preview.Apply(c.doc, c.edits)
		if err != nil {
			return preview.Document{}, err
		}
		c.doc, c.pending = after, false
	}
	return c.doc, nil
}

type vfile struct {
	rel        string
	snap       nvim.FileSnapshot
	base       preview.Document
	baseExists bool
	cur        *content // nil: the file does not exist (now)
	order      int
}

type virtualFiles struct {
	enc   preview.Encoding
	files map[string]*vfile // by absolute path
}

func (fs *virtualFiles) do(i int, op wsOp, file func(protocol.DocumentURI) *vfile) error {
	f := file(op.uri)
	failf := func(code apierr.Code, remedy, format string, args ...any) error {
		return apierr.Errorf(code, remedy, "WorkspaceEdit step %d (%s %s): %s", i, op.kind, f.rel, fmt.Sprintf(format, args...))
	}
	switch op.kind {
	case "edit":
		if f.cur == nil {
			return failf(apierr.OperationFailed, "report this language server answer; nothing was changed", "the file does not exist")
		}
		// A version says which text the server edited (0 is a valid version,
		// and what gopls sends for files it does not have open).
		if v := op.version; v != nil && f.cur.origin == f.snap.Path && f.cur.exact && len(f.cur.edits) == 0 {
			switch known := f.snap.LSPVersion; {
			case known != nil && int64(*known) != *v:
				return failf(apierr.Conflict, "the buffer changed since the server computed this edit: request it again",
					"the server computed this edit for version %d of the document, the buffer is at version %d", *v, *known)
			case known == nil && *v > 0:
				return failf(apierr.Conflict, "request the change again",
					"the server edits version %d of a document no language server has open in Neovim", *v)
			}
		}
		cur, err := f.cur.now()
		if err != nil {
			return failf(apierr.OperationFailed, "report this language server answer; nothing was changed", "%v", err)
		}
		edits, err := convertEdits(cur, op.edits, fs.enc)
		if err != nil {
			return failf(apierr.OperationFailed, "report this language server answer; nothing was changed", "%v", err)
		}
		if f.cur.exact && len(f.cur.edits) == 0 && (f.cur.origin != "" || len(cur.Lines) == 0) {
			// The first batch: checked as applying would check it, applied
			// only when needed (now).
			if err := preview.Check(cur, edits); err != nil {
				return failf(apierr.OperationFailed, "report this language server answer; nothing was changed", "%v", err)
			}
			f.cur.edits, f.cur.pending = edits, true
			return nil
		}
		after, err := preview.Apply(cur, edits)
		if err != nil {
			return failf(apierr.OperationFailed, "report this language server answer; nothing was changed", "%v", err)
		}
		f.cur.exact = false
		f.cur.doc = after
	case "create":
		switch {
		case f.snap.IsDir:
			return failf(apierr.Conflict, "the server wants to create a file where a folder is; apply the change by hand", "a directory of that name exists")
		case f.cur != nil && op.opts.overwrite:
			f.cur.doc, f.cur.exact, f.cur.edits, f.cur.pending = preview.Document{Lines: []string{}, EOL: f.cur.doc.EOL}, false, nil, false
		case f.cur != nil && op.opts.ignoreIfExists:
		case f.cur != nil:
			return failf(apierr.Conflict, "delete or rename the existing file first", "the file already exists")
		default:
			f.cur = &content{doc: preview.Document{Lines: []string{}, EOL: "\n"}, exact: true}
		}
	case "rename":
		to := file(op.newURI)
		switch {
		case f.cur == nil:
			return failf(apierr.OperationFailed, "report this language server answer; nothing was changed", "the file does not exist")
		case f.snap.IsDir:
			return failf(apierr.Unsupported, "rename the folder yourself", "renaming folders is not supported")
		case to.cur != nil && op.opts.ignoreIfExists:
			return nil
		case to.cur != nil && !op.opts.overwrite:
			return failf(apierr.Conflict, "pick another name, or delete the target first", "the target %s already exists", to.rel)
		}
		to.cur, f.cur = f.cur, nil
	case "delete":
		switch {
		case f.snap.IsDir:
			return failf(apierr.Unsupported, "delete the folder yourself", "deleting folders is not supported")
		case f.cur == nil && op.opts.ignoreIfNotExists:
		case f.cur == nil:
			return failf(apierr.OperationFailed, "report this language server answer; nothing was changed", "the file does not exist")
		default:
			f.cur = nil
		}
	}
	return nil
}

// changeset turns the final state into file changes: deletions first (a
// rename may then take a deleted file's place), then the rest in the order
// the files first appear.
func (fs *virtualFiles) changeset(paths []string) (preview.Changeset, error) {
	var deletes, rest []preview.FileChange
	kept := map[string]bool{} // origins whose text lives on somewhere
	for _, p := range paths {
		f := fs.files[p]
		if f.cur != nil && f.cur.origin == "" && f.baseExists {
			// Deleted and created again: an edit of the whole text.
			f.cur.origin, f.cur.exact = p, false
		}
		if f.cur != nil && f.cur.origin != "" {
			kept[f.cur.origin] = true
		}
	}
	// A file the edit creates takes the line endings of the files it read
	// (CRLF in a CRLF project: tsserver's Move to file writes "\n").
	eol := ""
	for _, p := range paths {
		if f := fs.files[p]; f.baseExists && f.base.EOL != "" && eol == "" {
			eol = f.base.EOL
		}
	}
	for _, p := range paths {
		f := fs.files[p]
		if f.baseExists && !kept[p] {
			deletes = append(deletes, preview.FileChange{Kind: preview.OpDelete, Path: f.rel, Old: f.base})
		}
		c := f.cur
		if c == nil {
			continue
		}
		fc := preview.FileChange{Kind: preview.OpEdit, Path: f.rel}
		switch {
		case c.origin == "":
			fc.Kind, fc.Old = preview.OpCreate, preview.Document{Lines: []string{}, EOL: c.doc.EOL}
			if eol != "" {
				fc.Old.EOL = eol
			}
		case c.origin != p:
			from := fs.files[c.origin]
			fc.Kind, fc.Path, fc.NewPath, fc.Old = preview.OpRename, from.rel, f.rel, from.base
		default:
			fc.Old = f.base
		}
		switch {
		case c.exact:
			fc.Edits = c.edits
		default:
			// The whole text with "\n" line breaks.
			doc, err := c.now()
			if err != nil {
				return preview.Changeset{}, apierr.Errorf(apierr.OperationFailed, "report this", "%s: %v", f.rel, err)
			}
			whole := []preview.TextEdit{{EndLine: len(fc.Old.Lines), NewText: doc.Mapper().Text()}}
			edits, err := preview.Minimize(fc.Old, whole)
			if err != nil {
				return preview.Changeset{}, apierr.Errorf(apierr.OperationFailed, "report this", "%s: %v", f.rel, err)
			}
			fc.Edits = edits
		}
		if fc.Kind == preview.OpEdit && len(fc.Edits) == 0 {
			continue
		}
		rest = append(rest, fc)
	}
	return preview.Changeset{Files: append(deletes, rest...)}, nil
}

// convertEdits converts LSP text edits (positions in enc) to byte edits on
// doc. Positions must be exact: a column past the end of its line or inside
// a character is an error, as is a line past the end; the end of the
// document is (line count, 0). "\r\n" in new text becomes "\n", as Neovim
// does (a CRLF buffer's lines hold no "\r").
func convertEdits(doc preview.Document, edits []wireTextEdit, enc preview.Encoding) ([]preview.TextEdit, error) {
	out := make([]preview.TextEdit, 0, len(edits))
	m := doc.Mapper()
	for i, e := range edits {
		if e.Range == nil || e.NewText == nil {
			if e.Snippet != nil {
				return nil, fmt.Errorf("edit %d is a snippet edit, which nvbridge does not apply", i)
			}
			return nil, fmt.Errorf("edit %d has no range or newText", i)
		}
		start, end := e.Range.Start, e.Range.End
		sc, err := m.UnitsColumn(int(start.Line), int(start.Character), enc)
		if err != nil {
			return nil, fmt.Errorf("edit %d start: %w", i, err)
		}
		ec, err := m.UnitsColumn(int(end.Line), int(end.Character), enc)
		if err != nil {
			return nil, fmt.Errorf("edit %d end: %w", i, err)
		}
		out = append(out, preview.TextEdit{StartLine: int(start.Line), StartCol: sc, EndLine: int(end.Line), EndCol: ec,
			NewText: strings.ReplaceAll(*e.NewText, "\r\n", "\n")})
	}
	return out, nil
}

// workspaceChangeset converts a server's WorkspaceEdit into a changeset,
// after refusing edits to files outside the workspace.
func workspaceChangeset(ctx context.Context, c *lsp.Client, enc preview.Encoding, raw json.RawMessage) (preview.Changeset, error) {
	ops, err := decodeWorkspaceEdit(raw)
	return workspaceChangesetOf(ctx, c, enc, raw, ops, err)
}

// workspaceChangesetOf is workspaceChangeset of raw decoded already: its
// steps ops, or the error decoding it gave (decodeErr).
func workspaceChangesetOf(ctx context.Context, c *lsp.Client, enc preview.Encoding, raw json.RawMessage, ops []wsOp, decodeErr error) (preview.Changeset, error) {
	var outside []string
	if decodeErr != nil {
		// The files it names, as far as they are told, before what is
		// malformed.
		outside = editOutsideWorkspace(c, raw)
	} else {
		outside = opsOutsideWorkspace(c, ops)
	}
	if len(outside) > 0 {
		return preview.Changeset{}, apierr.Errorf(apierr.PreconditionFailed,
			"nvbridge edits only files inside the workspace; the symbol is probably defined outside it (standard library or a dependency)",
			"the server's edit touches %d file(s) outside the workspace, e.g. %s", len(outside), outside[0]).
			WithDetails(map[string]any{"outside_files": outside})
	}
	if decodeErr != nil {
		return preview.Changeset{}, decodeErr
	}
	cs, err := changesetOf(ctx, c, enc, ops)
	if err != nil {
		return preview.Changeset{}, err
	}
	// Servers list files in no particular order (gopls: map order); edits
	// of distinct files commute, so sort them for a stable diff. File
	// operations keep the server's order.
	for _, fc := range cs.Files {
		if fc.Kind != preview.OpEdit {
			return cs, nil
		}
	}
	sort.SliceStable(cs.Files, func(i, j int) bool { return cs.Files[i].Path < cs.Files[j].Path })
	return cs, nil
}

// editOutsideWorkspace lists the files a WorkspaceEdit names that are outside
// the workspace root.
func editOutsideWorkspace(c *lsp.Client, raw json.RawMessage) []string {
	var we struct {
		Changes         map[string]json.RawMessage `json:"changes"`
		DocumentChanges []struct {
			TextDocument *struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			URI    string `json:"uri"`
			OldURI string `json:"oldUri"`
			NewURI string `json:"newUri"`
		} `json:"documentChanges"`
	}
	if json.Unmarshal(raw, &we) != nil {
		return nil // the conversion reports the malformed edit
	}
	var uris []string
	for u := range we.Changes {
		uris = append(uris, u)
	}
	for _, dc := range we.DocumentChanges {
		if dc.TextDocument != nil {
			uris = append(uris, dc.TextDocument.URI)
		}
		uris = append(uris, dc.URI, dc.OldURI, dc.NewURI)
	}
	return outsideWorkspace(c, uris)
}

// opsOutsideWorkspace is editOutsideWorkspace of a WorkspaceEdit decoded.
func opsOutsideWorkspace(c *lsp.Client, ops []wsOp) []string {
	var uris []string
	for _, op := range ops {
		for _, u := range op.named {
			uris = append(uris, string(u))
		}
	}
	return outsideWorkspace(c, uris)
}

// outsideWorkspace lists the files of uris outside the workspace root
// (sorted, once each; a URI that is not a file by itself).
func outsideWorkspace(c *lsp.Client, uris []string) []string {
	root := c.Session.Root()
	seen := map[string]bool{}
	var out []string
	for _, u := range uris {
		if u == "" {
			continue
		}
		p := lsp.PathOf(protocol.DocumentURI(u))
		if p == "" {
			p = string(u) // not a file: named by its URI
		}
		if !root.Contains(p) && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// mergeChangesets appends b's file changes to a's; edits of a file both
// change are combined (they were computed against the same text).
func mergeChangesets(a, b preview.Changeset) preview.Changeset {
	for _, fc := range b.Files {
		merged := false
		if fc.Kind == preview.OpEdit {
			for i := range a.Files {
				if a.Files[i].Kind == preview.OpEdit && a.Files[i].Path == fc.Path {
					a.Files[i].Edits = append(a.Files[i].Edits, fc.Edits...)
					merged = true
					break
				}
			}
		}
		if !merged {
			a.Files = append(a.Files, fc)
		}
	}
	return a
}

// editedPaths lists the workspace-relative paths a WorkspaceEdit names
// (sorted; nil when it did not decode: decodeErr), from its steps ops: the
// files its changeset will change, before their texts are read.
func editedPaths(root workspace.Root, ops []wsOp, decodeErr error) []string {
	if decodeErr != nil {
		return nil
	}
	var out []string
	for _, op := range ops {
		for _, u := range op.uris() {
			if p := lsp.PathOf(u); p != "" && root.Contains(p) {
				out = append(out, root.Rel(p))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
