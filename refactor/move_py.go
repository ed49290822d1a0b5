package refactor

// move_symbol for Python: pyright has no move, so the declaration is cut
// from the file's syntax (tree-sitter, package syntax: a top-level def,
// class, decorated definition or assignment, with the comment lines right
// above it) and every reference pyright finds is rewritten: `from src
// import name` becomes `from target import name`, a qualified `src.name`
// (`import pkg.src`, `from pkg import src`, `import pkg.src as s`) becomes
// `target.name` with the target imported, a use left in the source imports
// the name from the target. The moved code takes along the imports it uses
// (relative ones made absolute when the package changes) and imports the
// source's names it uses; a move that would then import the source and the
// target from each other (a circular import) is refused.

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/syntax"
)

const pyDeclQuery = `
(module (function_definition name: (identifier) @name) @decl)
(module (class_definition name: (identifier) @name) @decl)
(module (decorated_definition definition: [(function_definition name: (identifier) @name) (class_definition name: (identifier) @name)]) @decl)
(module (expression_statement (assignment left: (identifier) @name)) @decl)
`

// Identifiers that are not names of the scope: attribute and keyword
// argument names.
const pyIdentQuery = `
(identifier) @id
(attribute attribute: (identifier) @attr)
(keyword_argument name: (identifier) @kw)
`

type pyDecl struct {
	name       string
	start, end int // the declaration's bytes
}

func init() { movers.register(lang.Python, movePython) }

func movePython(ctx context.Context, c *lsp.Client, doc *lsp.Document, pt lsp.Point, target string) (MovePlan, error) {
	py := doc.Language()
	files, err := readFiles(ctx, c, []string{doc.Rel, target})
	if err != nil {
		return MovePlan{}, err
	}
	srcText := files.texts[doc.Rel]
	src, err := syntax.ForFile(doc.Path, srcText)
	if err != nil {
		return MovePlan{}, err
	}
	matches, err := syntax.Query(ctx, c.Session, src, pyDeclQuery, syntax.QueryOptions{})
	if err != nil {
		return MovePlan{}, err
	}
	srcMap := preview.NewMapper(srcText)
	off, err := srcMap.Offset(pt.Line, pt.Byte)
	if err != nil {
		return MovePlan{}, apierr.Errorf(apierr.Conflict, "retry: the file changed while the move was computed", "%s: %v", doc.Rel, err)
	}
	var decls []pyDecl
	var chosen *pyDecl
	for _, m := range matches {
		d, n := m.Get("decl"), m.Get("name")
		if d == nil || n == nil {
			continue
		}
		decls = append(decls, pyDecl{name: n.Text, start: d.StartByte, end: d.EndByte})
		if start, _ := srcMap.LineAround(d.StartByte); off >= start && off <= d.EndByte {
			chosen = &decls[len(decls)-1]
		}
	}
	if chosen == nil {
		return MovePlan{}, apierr.Errorf(apierr.InvalidParameter, moveHint,
			"%s:%d: no top-level def, class or assignment here (%q)", doc.Rel, pt.Line+1, strings.TrimSpace(pt.Text))
	}
	decl := *chosen
	declLine, _ := srcMap.Position(decl.start)
	if t := strings.TrimSpace(pt.Text); pt.Line != declLine && pt.Text != t &&
		(strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") || strings.HasPrefix(t, "class ")) {
		return MovePlan{}, apierr.Errorf(apierr.Unsupported, "point at "+decl.name+" to move it whole",
			"%s:%d: %q is a member of %s; move_symbol moves top-level declarations", doc.Rel, pt.Line+1, t, decl.name)
	}
	idents, err := syntax.Query(ctx, c.Session, src, pyIdentQuery, syntax.QueryOptions{})
	if err != nil {
		return MovePlan{}, err
	}
	skip := map[int]bool{}
	for _, m := range idents {
		for _, k := range []string{"attr", "kw"} {
			if n := m.Get(k); n != nil {
				skip[n.StartByte] = true
			}
		}
	}
	used := map[string]bool{}
	for _, m := range idents {
		if n := m.Get("id"); n != nil && !skip[n.StartByte] && n.StartByte >= decl.start && n.EndByte <= decl.end {
			used[n.Text] = true
		}
	}
	nameLine, nameChar := srcMap.CharPosition(0)
	for _, m := range matches {
		if d, n := m.Get("decl"), m.Get("name"); d != nil && n != nil && d.StartByte == decl.start {
			nameLine, nameChar = srcMap.CharPosition(n.StartByte)
		}
	}
	refs, server, err := moveReferences(ctx, c, doc.Rel, nameLine, nameChar)
	if err != nil {
		return MovePlan{}, err
	}
	var more []string
	for _, r := range refs {
		more = append(more, r.File)
	}
	if err := readMore(ctx, c, files, more); err != nil {
		return MovePlan{}, err
	}
	root := c.Session.Root()
	in := pyMoveInput{
		l: py, scope: lang.NewScope(root.Dir()), root: root.Dir(), files: files.texts, source: doc.Rel, target: target,
		targetExists: files.exists[target], decl: decl, decls: decls, used: used,
	}
	for _, r := range refs {
		if _, ok := files.texts[r.File]; !ok {
			continue
		}
		off, err := files.offset(r.File, r.Line, r.Column)
		if err != nil {
			return MovePlan{}, err
		}
		in.refs = append(in.refs, goRef{File: r.File, Offset: off})
	}
	outside, err := pyImportersOutside(ctx, c, files, in, refs)
	if err != nil {
		return MovePlan{}, err
	}
	in.refs = append(in.refs, outside...)
	texts, n, err := planPyMove(in)
	if err != nil {
		return MovePlan{}, err
	}
	cs, err := textsChangeset(files, texts)
	if err != nil {
		return MovePlan{}, err
	}
	plan := MovePlan{Changeset: cs, Server: server, How: "pyright references, tree-sitter", Symbol: decl.name,
		Moved: []string{decl.name}, From: doc.Rel, To: target, Created: !files.exists[target], References: n,
		ImportUpdates: importUpdates(py, files.texts, texts)}
	plan.Files, _ = changesetStats(cs)
	return plan, nil
}

// pyImportersOutside finds the uses pyright's references leave out: the
// files outside its view (requests' tests, outside its include) that
// import the moved name from the source module (from requests.utils import
// (..., select_proxy, ...)). Each use there, the import's entry, the bare
// names it binds and qualified uses through the source module, is a
// reference planPyMove rewrites as it does pyright's; files (in.files)
// gains the files' texts.
func pyImportersOutside(ctx context.Context, c *lsp.Client, files moveFiles, in pyMoveInput, refs []lsp.Location) ([]goRef, error) {
	name := in.decl.name
	seen := map[string]bool{in.source: true, in.target: true}
	for _, r := range refs {
		seen[r.File] = true
	}
	root := c.Session.Root()
	var cands []string
	for _, f := range languageFiles(root, in.l) {
		if seen[f] {
			continue
		}
		abs := filepath.Join(root.Dir(), filepath.FromSlash(f))
		if root.Sensitive(abs) {
			continue
		}
		data, err := os.ReadFile(abs)
		if err != nil || !strings.Contains(string(data), name) || !pyImportsFrom(in, f, string(data), name, in.source) {
			continue
		}
		cands = append(cands, f)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	if err := readMore(ctx, c, files, cands); err != nil {
		return nil, err
	}
	var out []goRef
	for _, f := range cands {
		text, ok := files.texts[f]
		if !ok || !pyImportsFrom(in, f, text, name, in.source) {
			continue
		}
		for _, sp := range lang.Identifiers(in.l, text) {
			if text[sp.Start:sp.End] != name {
				continue
			}
			if sp.Start > 0 && text[sp.Start-1] == '.' {
				q := sp.Start - 1
				for q > 0 && (isWordByte(text[q-1]) || text[q-1] == '.') {
					q--
				}
				if !in.bindsModule(f, text, text[q:sp.Start-1]) {
					continue // another object's attribute
				}
			}
			out = append(out, goRef{File: f, Offset: sp.Start})
		}
	}
	return out, nil
}

type pyMoveInput struct {
	l            *lang.Language
	scope        *lang.Scope
	root         string
	files        map[string]string
	source       string
	target       string
	targetExists bool
	decl         pyDecl
	decls        []pyDecl
	used         map[string]bool
	refs         []goRef
}

func (in pyMoveInput) abs(rel string) string {
	return filepath.Join(in.root, filepath.FromSlash(rel))
}

// module is the dotted name importers of rel write (from the import root:
// never src.pkg for a src layout).
func (in pyMoveInput) module(rel string) string {
	return lang.PythonModule(in.scope, in.abs(rel))
}

// pkg is the package rel's relative imports start from.
func (in pyMoveInput) pkg(rel string) string {
	return pyPackageOf(in.module(rel), path.Base(rel) == "__init__.py")
}

// resolvesTo reports whether imp in file names the module file target.
func (in pyMoveInput) resolvesTo(file string, imp lang.Import, target string) bool {
	abs := in.abs(target)
	for _, r := range in.l.Imports.Resolve(in.scope, in.abs(file), imp) {
		if r == abs {
			return true
		}
	}
	// A target that does not exist yet: by name.
	return pyAbsolute(in.pkg(file), imp.Path) == in.module(target)
}

// written is how file writes an import of the absolute module mod: relative
// when the file already imports relatively and mod shares its top-level
// package, else absolute.
func (in pyMoveInput) written(file, text, mod string) string {
	if usesRelativeImports(text) {
		if rel := pyRelative(in.pkg(file), mod); rel != "" {
			return rel
		}
	}
	return mod
}

// definesTopLevel reports whether text binds name at its top level (a def,
// a class, an assignment or an import).
func definesTopLevel(text, name string) bool {
	re := regexp.MustCompile(`(?m)^(?:async\s+def|def|class)\s+` + regexp.QuoteMeta(name) + `\b|^` + regexp.QuoteMeta(name) + `\s*(?::[^=\n]*)?=[^=]`)
	if re.MatchString(text) {
		return true
	}
	for _, imp := range lang.Python.Imports.Parse(text) {
		if imp.Col >= 0 && imp.Line >= 0 {
			lines := strings.Split(text, "\n")
			if l := lines[imp.Line]; !strings.HasPrefix(l, "from ") && !strings.HasPrefix(l, "import ") {
				continue
			}
		}
		if st, ok := parsePyFrom(text, imp.Line); ok {
			for _, e := range st.entries {
				if e.alias == name || e.alias == "" && e.name == name {
					return true
				}
			}
		}
	}
	return false
}

// planPyMove computes the new texts of a Python move and how many
// references it rewrote.
func planPyMove(in pyMoveInput) (map[string]string, int, error) {
	name := in.decl.name
	srcMod, tgtMod := in.module(in.source), in.module(in.target)
	if srcMod == "" || tgtMod == "" {
		return nil, 0, apierr.Errorf(apierr.Unsupported, "move it to a module file",
			"%s or %s is not a module Python can import by name", in.source, in.target)
	}
	src := in.files[in.source]
	srcMap := preview.NewMapper(src)
	// The piece: the declaration with the comment lines right above it.
	start, end := srcMap.WholeLines(in.decl.start, in.decl.end)
	for start > 0 {
		prev, _ := srcMap.LineAround(start - 1)
		if !strings.HasPrefix(strings.TrimSpace(src[prev:start]), "#") {
			break
		}
		start = prev
	}
	piece := src[start:end]
	inPiece := func(file string, off int) bool { return file == in.source && off >= start && off < end }
	tgtText := in.files[in.target]
	if !in.targetExists {
		tgtText = ""
	}
	if definesTopLevel(tgtText, name) && !pyImportsFrom(in, in.target, tgtText, name, in.source) {
		return nil, 0, apierr.Errorf(apierr.PreconditionFailed, "rename one of them first, or pick another target",
			"%s already defines %s", in.target, name)
	}

	// What the moved code needs: the source's imports it uses (as absolute
	// modules; none of the target itself), and the source's other
	// top-level names.
	var needs []pyAdd
	addNeed := func(a pyAdd) {
		for _, x := range needs {
			if x == a {
				return
			}
		}
		needs = append(needs, a)
	}
	srcLines := strings.Split(src, "\n")
	srcPkg := in.pkg(in.source)
	for _, imp := range in.l.Imports.Parse(src) {
		l := srcLines[imp.Line]
		if !strings.HasPrefix(l, "from ") && !strings.HasPrefix(l, "import ") {
			continue // indented: inside a function, a try or an if
		}
		mod := pyAbsolute(srcPkg, imp.Path)
		switch {
		case len(imp.Names) > 0:
			st, ok := parsePyFrom(src, imp.Line)
			if !ok {
				continue
			}
			for _, e := range st.entries {
				bound := e.name
				if e.alias != "" {
					bound = e.alias
				}
				if !in.used[bound] {
					continue
				}
				if mod == tgtMod {
					continue // the target's own name: no self-import
				}
				addNeed(pyAdd{module: mod, name: e.name, alias: e.alias})
			}
		case imp.Alias != "":
			if in.used[imp.Alias] {
				addNeed(pyAdd{module: mod, alias: imp.Alias})
			}
		default:
			if in.used[strings.Split(imp.Path, ".")[0]] {
				addNeed(pyAdd{module: imp.Path})
			}
		}
	}
	var deps []string
	for _, d := range in.decls {
		if d.name != name && in.used[d.name] {
			deps = append(deps, d.name)
		}
	}
	sort.Strings(deps)

	// Rewrite the references.
	type fileEdits struct {
		edits []preview.ByteEdit
		add   []pyAdd
	}
	per := map[string]*fileEdits{}
	get := func(f string) *fileEdits {
		if per[f] == nil {
			per[f] = &fileEdits{}
		}
		return per[f]
	}
	get(in.source).edits = append(get(in.source).edits, preview.ByteEdit{Start: start, End: end})
	tgtParent, tgtLeaf := "", tgtMod
	if i := strings.LastIndex(tgtMod, "."); i >= 0 {
		tgtParent, tgtLeaf = tgtMod[:i], tgtMod[i+1:]
	}
	n := 0
	sourceStillUses := false
	doneStmt := map[string]bool{}
	bare := map[string]int{}
	for _, r := range in.refs {
		if inPiece(r.File, r.Offset) {
			continue
		}
		text := in.files[r.File]
		textMap := preview.NewMapper(text)
		lines := strings.Split(text, "\n")
		line, _ := textMap.Position(r.Offset)
		fe := get(r.File)
		// In an import statement of the source module?
		handled := false
		for _, imp := range in.l.Imports.Parse(text) {
			if len(imp.Names) == 0 || !in.resolvesTo(r.File, imp, in.source) {
				continue
			}
			st, ok := parsePyFrom(text, imp.Line)
			if !ok || r.Offset < st.start || r.Offset >= st.end {
				if s, e, ok2 := importStatement(lines, imp.Line); ok2 && line >= s && line <= e && !ok {
					return nil, 0, apierr.Errorf(apierr.Unsupported, "move it by hand",
						"%s:%d: nvbridge cannot read this import of %s", r.File, s+1, imp.Path)
				}
				continue
			}
			handled = true
			key := r.File + ":" + strconv.Itoa(st.start)
			if doneStmt[key] {
				break
			}
			doneStmt[key] = true
			k := -1
			for i, e := range st.entries {
				if e.name == name {
					k = i
				}
			}
			if k < 0 {
				return nil, 0, apierr.Errorf(apierr.Unsupported, "move it by hand",
					"%s:%d: %s is not among the names this import takes", r.File, line+1, name)
			}
			fe.edits = append(fe.edits, st.removeEntry(text, k))
			if r.File != in.target {
				fe.add = append(fe.add, pyAdd{module: in.written(r.File, text, tgtMod), name: name, alias: st.entries[k].alias})
			}
			n++
			break
		}
		if handled {
			continue
		}
		// Qualified: mod.name.
		if r.Offset > 0 && text[r.Offset-1] == '.' {
			q := r.Offset - 1
			for q > 0 && (isWordByte(text[q-1]) || text[q-1] == '.') {
				q--
			}
			qual := text[q : r.Offset-1]
			if !in.bindsModule(r.File, text, qual) {
				return nil, 0, apierr.Errorf(apierr.Unsupported, "move it by hand",
					"%s:%d: %s.%s does not name module %s through an import nvbridge reads", r.File, line+1, qual, name, srcMod)
			}
			if r.File == in.target {
				fe.edits = append(fe.edits, preview.ByteEdit{Start: q, End: r.Offset})
			} else {
				fe.edits = append(fe.edits, preview.ByteEdit{Start: q, End: r.Offset - 1, Text: tgtLeaf})
				if tgtParent != "" {
					fe.add = append(fe.add, pyAdd{module: in.written(r.File, text, tgtParent), name: tgtLeaf})
				} else {
					fe.add = append(fe.add, pyAdd{module: tgtMod})
				}
			}
			n++
			continue
		}
		if r.File == in.source {
			sourceStillUses = true
			fe.add = append(fe.add, pyAdd{module: in.written(r.File, text, tgtMod), name: name})
			n++
			continue
		}
		// A use bound by the file's from-import, rewritten with it.
		bare[r.File] = line + 1
		n++
	}
	for f, line := range bare {
		if f == in.target {
			continue
		}
		found := false
		for k := range doneStmt {
			found = found || strings.HasPrefix(k, f+":")
		}
		if !found {
			return nil, 0, apierr.Errorf(apierr.Unsupported, "move it by hand",
				"%s:%d: a use of %s that nvbridge cannot tie to an import of %s", f, line, name, srcMod)
		}
	}
	if len(deps) > 0 {
		if sourceStillUses {
			return nil, 0, apierr.Errorf(apierr.PreconditionFailed,
				"move those along (one at a time, then this), or leave "+name+" where it is",
				"the move would make a circular import: %s uses %s of %s, and %s still uses %s", name, strings.Join(deps, ", "), srcMod, srcMod, name)
		}
		for _, d := range deps {
			addNeed(pyAdd{module: srcMod, name: d})
		}
	}

	out := map[string]string{}
	for f, fe := range per {
		t, err := preview.ApplyByteEdits(in.files[f], fe.edits)
		if err != nil {
			return nil, 0, apierr.Errorf(apierr.OperationFailed, "report this", "%s: %v", f, err)
		}
		out[f] = t
	}
	style := pyProjectStyle(in.root, srcMod, tgtMod)
	// The target.
	body := strings.TrimRight(piece, "\n") + "\n"
	tgt, ok := out[in.target]
	if !ok {
		tgt = in.files[in.target]
	}
	if !in.targetExists {
		tgt = ""
	}
	if strings.TrimSpace(tgt) == "" {
		tgt = body
	} else {
		tgt = strings.TrimRight(tgt, "\n") + "\n\n\n" + body
	}
	var tgtAdds []pyAdd
	for _, a := range needs {
		if a.name != "" && definesTopLevel(in.files[in.target], entryName(a)) && in.targetExists {
			continue // the target has it already
		}
		a.module = in.written(in.target, tgt, a.module)
		tgtAdds = append(tgtAdds, a)
	}
	out[in.target] = pyAddImports(tgt, tgtAdds, style)
	for f, fe := range per {
		if f == in.target {
			continue
		}
		out[f] = pyAddImports(out[f], fe.add, style)
	}
	for f, t := range out {
		abs := in.abs(f)
		t = pyDropUnused(in.l, t, func(imp lang.Import) bool {
			if f == in.source && pyBinds(imp, in.used) {
				return true // an import the moved code used
			}
			for _, r := range in.l.Imports.Resolve(in.scope, abs, imp) {
				if r == in.abs(in.source) {
					return true
				}
			}
			return false
		})
		out[f] = tidyBlankLines(t)
	}
	if sourceStillUses {
		for _, imp := range in.l.Imports.Parse(out[in.target]) {
			if in.resolvesTo(in.target, imp, in.source) {
				return nil, 0, apierr.Errorf(apierr.PreconditionFailed,
					"pick a target module that does not import "+srcMod+", or move the code "+srcMod+" uses along",
					"the move would make a circular import: %s would import %s from %s, which imports %s (line %d)",
					srcMod, name, tgtMod, imp.Path, imp.Line+1)
			}
		}
	}
	for _, imp := range in.l.Imports.Parse(out[in.target]) {
		if in.resolvesTo(in.target, imp, in.target) && len(imp.Names) > 0 {
			return nil, 0, apierr.Errorf(apierr.OperationFailed, "report this",
				"the move would make %s import itself (line %d)", in.target, imp.Line+1)
		}
	}
	for f, t := range out {
		if in.files[f] == t && (f != in.target || in.targetExists) {
			delete(out, f)
		}
	}
	return out, n, nil
}

func entryName(a pyAdd) string {
	if a.alias != "" {
		return a.alias
	}
	return a.name
}

// pyImportsFrom reports whether text (of file) imports name from the
// module file src (a binding the move replaces).
func pyImportsFrom(in pyMoveInput, file, text, name, src string) bool {
	for _, imp := range in.l.Imports.Parse(text) {
		for _, n := range imp.Names {
			if n == name && in.resolvesTo(file, imp, src) {
				return true
			}
		}
	}
	return false
}

// pyBinds reports whether imp binds one of names.
func pyBinds(imp lang.Import, names map[string]bool) bool {
	for _, n := range imp.Names {
		if names[n] {
			return true
		}
	}
	return imp.Alias != "" && names[imp.Alias] || len(imp.Names) == 0 && imp.Alias == "" && names[strings.Split(imp.Path, ".")[0]]
}

// bindsModule reports whether qual, in file, names the source module.
func (in pyMoveInput) bindsModule(file, text, qual string) bool {
	srcMod := in.module(in.source)
	for _, imp := range in.l.Imports.Parse(text) {
		if !in.resolvesTo(file, imp, in.source) {
			continue
		}
		switch {
		case imp.Alias != "" && imp.Alias == qual:
			return true
		case len(imp.Names) > 0:
			for _, n := range imp.Names {
				if n == qual && strings.HasSuffix(srcMod, "."+n) || n == srcMod {
					return true
				}
			}
			// from pkg import mod as m: m.name.
			if st, ok := parsePyFrom(text, imp.Line); ok {
				for _, e := range st.entries {
					if e.alias == qual && pyAbsolute(in.pkg(file), st.module)+"."+e.name == srcMod {
						return true
					}
				}
			}
		case imp.Alias == "" && imp.Path == qual && qual == srcMod:
			return true
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// insertPyImports adds import lines after a file's last top-level import
// (else after its docstring), skipping lines already there.
func insertPyImports(text string, add []string) string {
	lines := strings.Split(text, "\n")
	have := map[string]bool{}
	for _, l := range lines {
		have[strings.TrimSpace(l)] = true
	}
	var todo []string
	for _, a := range add {
		if !have[a] {
			have[a] = true
			todo = append(todo, a)
		}
	}
	if len(todo) == 0 {
		return text
	}
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "import ") || strings.HasPrefix(l, "from ") {
			if _, e, ok := importStatement(lines, i); ok {
				at = e
			}
		}
	}
	block := strings.Join(todo, "\n")
	if at >= 0 {
		return strings.Join(append(lines[:at+1], append([]string{block}, lines[at+1:]...)...), "\n")
	}
	// After a module docstring.
	i := 0
	if t := strings.TrimSpace(text); strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, `'''`) {
		q := t[:3]
		for j, l := range lines {
			if strings.Count(l, q) >= 2 || j > 0 && strings.Contains(l, q) {
				i = j + 1
				break
			}
		}
		return strings.Join(append(lines[:i], append([]string{"", block}, lines[i:]...)...), "\n")
	}
	return block + "\n\n\n" + text
}

var blankRun = regexp.MustCompile(`\n{4,}`)

// tidyBlankLines keeps at most two blank lines in a row (PEP 8 between
// top-level definitions) and one final newline.
func tidyBlankLines(t string) string {
	t = blankRun.ReplaceAllString(t, "\n\n\n")
	return strings.TrimRight(t, "\n") + "\n"
}
