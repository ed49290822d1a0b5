package refactor

// move_symbol's domain half: move a top-level declaration (with its doc
// comment; a Go type with its method set) to another file, created when
// missing, and update every import and qualified reference. Per language:
// Go from go/parser and gopls's references (move_go.go), TypeScript with
// tsserver's own "Move to file" refactoring (move_ts.go), Python from
// pyright's references and the file's syntax (move_py.go). The result is one
// changeset (file creation included) and the import updates it makes.

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// MoveRequest is what move_symbol asks.
type MoveRequest struct {
	File       string
	Target     lsp.Target
	TargetFile string
}

// ImportUpdate is one import a move changed in a file: Old removed, New
// added ("" for none).
type ImportUpdate struct {
	File string `json:"file"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// MovePlan is a computed move, not yet previewed or applied.
type MovePlan struct {
	Changeset preview.Changeset
	Server    string
	// How: what computed the move ("gopls references + go/ast",
	// "tsserver Move to file", ...).
	How    string
	Symbol string
	// Moved lists the declarations moved ("func Area", "type Circle",
	// "method Circle.Area").
	Moved         []string
	From, To      string
	Created       bool
	ImportUpdates []ImportUpdate
	// References is how many references were rewritten.
	References int
	Files      []string
	// LeftBehind lists uses of the moved name in files the move did not
	// touch that also name the source module (tests or files the server
	// does not see), at most maxLeftBehind of LeftBehindTotal.
	LeftBehind      []LeftBehind
	LeftBehindTotal int
}

const moveHint = "point at a top-level declaration (its line and symbol name)"

// mover moves the top-level declaration at pt of doc to target (workspace
// relative) in one language.
type mover func(ctx context.Context, c *lsp.Client, doc *lsp.Document, pt lsp.Point, target string) (MovePlan, error)

// movers are the languages' moves (move_go.go, move_ts.go, move_py.go).
var movers = byLanguage[mover]{}

// Move computes the changeset moving the declaration at req.Target of
// req.File to req.TargetFile. Nothing is changed.
func Move(ctx context.Context, c *lsp.Client, req MoveRequest) (MovePlan, error) {
	root := c.Session.Root()
	if strings.TrimSpace(req.TargetFile) == "" {
		return MovePlan{}, apierr.New(apierr.InvalidParameter, "target_file is empty", "pass the file to move the declaration to, relative to the workspace root")
	}
	tgtAbs, err := root.Resolve(req.TargetFile)
	if err != nil {
		return MovePlan{}, err
	}
	doc, err := c.Open(ctx, req.File)
	if err != nil {
		return MovePlan{}, err
	}
	l := doc.Language()
	if l == nil {
		return MovePlan{}, apierr.Errorf(apierr.Unsupported, "move_symbol supports "+movers.languages(),
			"%s: no language nvbridge knows", doc.Rel)
	}
	if tl := lang.ForFile(tgtAbs); tl != l {
		return MovePlan{}, apierr.Errorf(apierr.InvalidParameter, "pick a target file of the same language (extension "+strings.Join(l.Extensions, ", ")+")",
			"%s is not a %s file", req.TargetFile, l.DisplayName())
	}
	if st, err := os.Stat(tgtAbs); err == nil && st.IsDir() {
		return MovePlan{}, apierr.Errorf(apierr.InvalidParameter, "name a file, not a folder", "%s is a folder", req.TargetFile)
	}
	tgtRel := root.Rel(tgtAbs)
	if tgtAbs == doc.Path {
		return MovePlan{}, apierr.Errorf(apierr.InvalidParameter, "pass another target_file", "the declaration is already in %s", tgtRel)
	}
	pt, err := c.Locate(ctx, doc, req.Target)
	if err != nil {
		return MovePlan{}, err
	}
	// Steps: the declaration, its references (moveReferences), the
	// rewritten files.
	ctx, steps := newSteps(ctx, "move_symbol", 3)
	steps.next("reading the declaration at %s:%d", doc.Rel, pt.Line+1)
	move := movers[l]
	if move == nil {
		return MovePlan{}, apierr.Errorf(apierr.Unsupported, "move_symbol supports "+movers.languages()+"; move the code with edit_buffer",
			"move_symbol does not support %s files (%s)", l.DisplayName(), doc.Rel)
	}
	plan, err := move(ctx, c, doc, pt, tgtRel)
	if err == nil && plan.Symbol != "" {
		srcLeaf := strings.TrimSuffix(path.Base(doc.Rel), path.Ext(doc.Rel))
		if l.Imports.Folder {
			srcLeaf = path.Base(path.Dir(doc.Rel))
		}
		touched := map[string]bool{}
		for _, f := range plan.Changeset.Files {
			touched[f.Path] = true
		}
		plan.LeftBehind, plan.LeftBehindTotal = findLeftBehind(c.Session.Root(), l, plan.Symbol, plan.Changeset, func(file, text string, changed bool) bool {
			if changed || touched[file] || file == doc.Rel || file == tgtRel {
				return false
			}
			if l.Imports.Folder && path.Dir(file) == path.Dir(doc.Rel) {
				return false // the same package: no import names it
			}
			return strings.Contains(text, srcLeaf)
		})
		openLeftBehind(ctx, c, plan.LeftBehind)
	}
	if err == nil {
		steps.next("moved %s to %s: %d file(s) changed", plan.Symbol, tgtRel, len(plan.Changeset.Files))
	}
	return plan, err
}

// moveFiles is the text of files as Neovim holds them (loaded buffer, else
// disk), keyed by workspace-relative path.
type moveFiles struct {
	docs    map[string]preview.Document
	texts   map[string]string
	exists  map[string]bool
	mappers map[string]*preview.Mapper // of texts, on first use
}

// offset is the byte offset of a tool position (1-based line, character
// column) in rel's text: CONFLICT when the text has no such position (it
// changed since the position was found).
func (files moveFiles) offset(rel string, line, char int) (int, error) {
	m := files.mappers[rel]
	if m == nil {
		m = preview.NewMapper(files.texts[rel])
		files.mappers[rel] = m
	}
	off, err := m.CharOffset(line, char)
	if err != nil {
		return 0, apierr.Errorf(apierr.Conflict, "retry: the file changed while the move was computed", "%s: %v", rel, err)
	}
	return off, nil
}

// readMore adds rels to files (those not read yet and those read again
// alike: the latest text wins).
func readMore(ctx context.Context, c *lsp.Client, files moveFiles, rels []string) error {
	if len(rels) == 0 {
		return nil
	}
	extra, err := readFiles(ctx, c, rels)
	if err != nil {
		return err
	}
	for f, t := range extra.texts {
		files.texts[f], files.docs[f], files.exists[f] = t, extra.docs[f], true
		delete(files.mappers, f)
	}
	return nil
}

// readFiles snapshots files (workspace-relative); a missing file reads as
// not existing.
func readFiles(ctx context.Context, c *lsp.Client, rels []string) (moveFiles, error) {
	out := moveFiles{docs: map[string]preview.Document{}, texts: map[string]string{}, exists: map[string]bool{},
		mappers: map[string]*preview.Mapper{}}
	snaps, err := snapshotRels(ctx, c, rels, nvim.SnapshotOptions{Reconcile: true})
	if err != nil {
		return out, err
	}
	for _, s := range snaps {
		rel := c.Session.Root().Rel(s.Path)
		if !s.Loaded && !s.Exists {
			continue
		}
		d := snapshotDoc(s)
		out.docs[rel] = d
		out.texts[rel] = d.Mapper().Text()
		out.exists[rel] = true
	}
	return out, nil
}

// sortedKeys lists m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// textsChangeset turns new texts into a changeset over files: an edit of
// each existing file (minimized), a creation of each new one.
func textsChangeset(files moveFiles, texts map[string]string) (preview.Changeset, error) {
	var names []string
	for f := range texts {
		names = append(names, f)
	}
	sort.Strings(names)
	// A new file takes the line endings of the files the move read (the
	// source's: CRLF in a CRLF project).
	eol := ""
	for _, f := range sortedKeys(files.docs) {
		if files.exists[f] && files.docs[f].EOL != "" {
			eol = files.docs[f].EOL
			break
		}
	}
	var cs preview.Changeset
	for _, f := range names {
		if !files.exists[f] {
			cs.Files = append(cs.Files, preview.FileChange{Kind: preview.OpCreate, Path: f, Old: preview.Document{Lines: []string{}, EOL: eol},
				Edits: []preview.TextEdit{{NewText: texts[f]}}})
			continue
		}
		old := files.docs[f]
		whole := preview.TextEdit{EndLine: len(old.Lines), NewText: texts[f]}
		edits, err := preview.Minimize(old, []preview.TextEdit{whole})
		if err != nil {
			return cs, apierr.Errorf(apierr.OperationFailed, "report this", "rebuild the edits of %s: %v", f, err)
		}
		if len(edits) > 0 {
			cs.Files = append(cs.Files, preview.FileChange{Kind: preview.OpEdit, Path: f, Old: old, Edits: edits})
		}
	}
	return cs, nil
}

// importUpdates compares each changed file's imports before and after.
func importUpdates(l *lang.Language, before map[string]string, after map[string]string) []ImportUpdate {
	out := []ImportUpdate{}
	if l == nil || l.Imports.Parse == nil {
		return out
	}
	var names []string
	for f := range after {
		names = append(names, f)
	}
	sort.Strings(names)
	key := func(i lang.Import) string {
		if i.Alias != "" {
			return i.Alias + " " + i.Path
		}
		return i.Path
	}
	for _, f := range names {
		count := func(text string) (map[string]int, []string) {
			m := map[string]int{}
			var order []string
			for _, imp := range l.Imports.Parse(text) {
				if len(imp.Names) > 0 {
					for _, n := range imp.Names {
						k := n + " from " + imp.Path
						if m[k] == 0 {
							order = append(order, k)
						}
						m[k]++
					}
					continue
				}
				if m[key(imp)] == 0 {
					order = append(order, key(imp))
				}
				m[key(imp)]++
			}
			return m, order
		}
		old, oldOrder := count(before[f])
		nw, newOrder := count(after[f])
		var removed, added []string
		for _, k := range oldOrder {
			if nw[k] < old[k] {
				removed = append(removed, k)
			}
		}
		for _, k := range newOrder {
			if old[k] < nw[k] {
				added = append(added, k)
			}
		}
		for i := 0; i < max(len(removed), len(added)); i++ {
			u := ImportUpdate{File: f}
			if i < len(removed) {
				u.Old = removed[i]
			}
			if i < len(added) {
				u.New = added[i]
			}
			out = append(out, u)
		}
	}
	return out
}

// moveReferences returns every reference of the symbol at the tool
// position (line, char) of file, the declaration excluded; refused when the server's answer is
// incomplete or names files nvbridge may not edit.
func moveReferences(ctx context.Context, c *lsp.Client, file string, line, char int) ([]lsp.Location, string, error) {
	stepsOf(ctx).next("finding the references at %s:%d", file, line)
	res, err := c.References(ctx, file, lsp.Target{Line: line, Column: &char}, lsp.ReferencesOptions{MaxResults: 1 << 20})
	if err != nil {
		return nil, "", err
	}
	if res.Incomplete != "" {
		return nil, "", apierr.Errorf(apierr.Timeout, "retry when the server has analysed the workspace",
			"%s's references may be incomplete (%s); moving now could miss a reference", res.Server, res.Incomplete)
	}
	var out []lsp.Location
	for _, g := range res.Files {
		if g.File == "" || g.OutsideWorkspace || g.Sensitive {
			what := g.File
			if what == "" {
				what = g.URI
			}
			return nil, "", apierr.Errorf(apierr.PreconditionFailed, "move it by hand, or allow the file (--allow-sensitive)",
				"%s references the symbol from %s, which nvbridge may not edit", res.Server, what)
		}
		for _, r := range g.References {
			out = append(out, lsp.Location{File: g.File, Line: r.Line, Column: r.Column, EndLine: r.EndLine, EndColumn: r.EndColumn})
		}
	}
	return out, res.Server, nil
}

// dirFiles lists the files with one of exts directly in dir (workspace
// relative), sorted; files the policy protects are left out (never read).
func dirFiles(c *lsp.Client, dir string, exts ...string) []string {
	root := c.Session.Root()
	abs := filepath.Join(root.Dir(), filepath.FromSlash(dir))
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !e.Type().IsRegular() {
			continue
		}
		for _, x := range exts {
			if strings.HasSuffix(e.Name(), x) && !root.Sensitive(filepath.Join(abs, e.Name())) {
				out = append(out, path.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out
}

// topLevelAt returns the top-level declaration (a document symbol without
// a container) around pt, refusing a point on a nested one (a method, a
// field: the server moves whole top-level statements) or on none.
func topLevelAt(ctx context.Context, c *lsp.Client, doc *lsp.Document, pt lsp.Point) (lsp.FlatSymbol, error) {
	flat, err := c.DeclaredSymbols(ctx, doc.Rel)
	if err != nil {
		return lsp.FlatSymbol{}, err
	}
	inside := func(r protocol.Range, p protocol.Position) bool {
		after := p.Line > r.Start.Line || p.Line == r.Start.Line && p.Character >= r.Start.Character
		before := p.Line < r.End.Line || p.Line == r.End.Line && p.Character <= r.End.Character
		return after && before
	}
	var top *lsp.FlatSymbol
	for i := range flat {
		s := &flat[i]
		p := pt.In(s.Enc)
		if s.Container == "" && inside(s.Range, p) {
			top = s
		}
	}
	if top == nil {
		return lsp.FlatSymbol{}, apierr.Errorf(apierr.InvalidParameter, moveHint,
			"%s:%d: no top-level declaration here (%q)", doc.Rel, pt.Line+1, strings.TrimSpace(pt.Text))
	}
	for i := range flat {
		s := &flat[i]
		p := pt.In(s.Enc)
		if s.Container != "" && s.Selection != nil && inside(*s.Selection, p) && inside(top.Range, s.Range.Start) {
			return lsp.FlatSymbol{}, apierr.Errorf(apierr.Unsupported, "point at "+top.Name+" to move it whole",
				"%s:%d: %s is a member of %s; move_symbol moves top-level declarations", doc.Rel, pt.Line+1, s.Name, top.Name)
		}
	}
	return *top, nil
}
