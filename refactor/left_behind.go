package refactor

// What the server could not see: after a rename, a move or a signature
// change, the old name is looked for as a whole identifier (strings and
// comments skipped, by the language's lexer) in the workspace's files of
// that language, as they will be after the change (the changeset applied
// to the files it touches, the others as on disk): tests, files outside
// the server's include, C macro bodies. Each place found is listed; the
// caller says so in its summary. For C and C++, a macro whose body names
// the renamed symbol is renamed with it (macroBodyEdits).

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

type treeNode = workspace.TreeNode

var workspaceTreeAll = workspace.TreeOptions{MaxDepth: workspace.MaxTreeDepth, MaxEntries: workspace.MaxTreeEntries}

// LeftBehind is a place where the old name still occurs after a change.
type LeftBehind struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Context string `json:"context"`
}

// maxLeftBehind bounds the places listed (LeftBehindTotal counts them all).
const maxLeftBehind = 50

// maxScanFiles bounds the files read for left-behind names.
const maxScanFiles = 5000

// languageFiles lists the workspace's files of l (workspace-relative,
// sorted): .gitignore'd, hidden and sensitive files and node_modules left
// out. The list is shared (see languageLists): it must not be changed.
func languageFiles(root workspace.Root, l *lang.Language) []string {
	tree, err := root.TreeCached(".", workspaceTreeAll)
	return languageFilesOf(tree, err, l)
}

// languageFilesOf is languageFiles of the workspace's tree (TreeCached's
// answer, or projectTree's).
func languageFilesOf(tree workspace.Tree, err error, l *lang.Language) []string {
	if err != nil || tree.Root == nil {
		return nil
	}
	key := languageListKey{tree: tree.Root, lang: l}
	languageLists.Lock()
	out, ok := languageLists.m[key]
	languageLists.Unlock()
	if ok {
		return out
	}
	var walk func(n treeNode)
	walk = func(n treeNode) {
		if n.Type == "dir" && (n.Name == "node_modules" || n.Name == "vendor" && l != lang.Go) {
			return
		}
		if n.Type == "file" && lang.ForFile(n.Path) == l {
			out = append(out, n.Path)
		}
		for _, ch := range n.Children {
			walk(*ch)
		}
	}
	walk(*tree.Root)
	sort.Strings(out)
	if len(out) > maxScanFiles {
		out = out[:maxScanFiles]
	}
	languageLists.Lock()
	if len(languageLists.m) >= maxLanguageLists {
		clear(languageLists.m)
	}
	languageLists.m[key] = out
	languageLists.Unlock()
	return out
}

// languageLists memoizes languageFiles by the tree it read (a tree
// walked again is another): a workspace unchanged since the last rename
// is not walked nor filtered again.
var languageLists = struct {
	sync.Mutex
	m map[languageListKey][]string
}{m: map[languageListKey][]string{}}

type languageListKey struct {
	tree *treeNode
	lang *lang.Language
}

// maxLanguageLists bounds languageLists (the trees a workspace.Root
// keeps, times the languages asked).
const maxLanguageLists = 32

// afterTexts is each changed file's text after cs (by path; a renamed
// file under its new path).
func afterTexts(cs preview.Changeset) map[string]string {
	out := map[string]string{}
	for _, fc := range cs.Files {
		if fc.Kind == preview.OpDelete {
			out[fc.Path] = ""
			continue
		}
		doc, err := preview.Apply(fc.Old, fc.Edits)
		if err != nil {
			continue
		}
		p := fc.Path
		if fc.NewPath != "" {
			p = fc.NewPath
			out[fc.Path] = ""
		}
		out[p] = doc.Text()
	}
	return out
}

// findLeftBehind lists where name occurs as an identifier in l's files
// after cs, in the files keep accepts (nil: all), and how many there are.
func findLeftBehind(root workspace.Root, l *lang.Language, name string, cs preview.Changeset, keep func(file, text string, changed bool) bool) ([]LeftBehind, int) {
	return findLeftBehindMember(root, l, name, cs, keep, false)
}

// findLeftBehindMember is findLeftBehind counting, when member, only the
// uses after a "." (a field or method).
func findLeftBehindMember(root workspace.Root, l *lang.Language, name string, cs preview.Changeset, keep func(file, text string, changed bool) bool, member bool) ([]LeftBehind, int) {
	if name == "" || l == nil {
		return []LeftBehind{}, 0
	}
	after := afterTexts(cs)
	out := []LeftBehind{}
	total := 0
	for _, f := range languageFiles(root, l) {
		text, changed := after[f]
		var spans []lang.Span
		if !changed {
			if root.Policy().Denied(f) != "" {
				continue
			}
			abs := filepath.Join(root.Dir(), filepath.FromSlash(f))
			var ok bool
			if text, spans, ok = readNaming(l, abs, name); !ok {
				continue
			}
		}
		if !strings.Contains(text, name) || keep != nil && !keep(f, text, changed) {
			continue
		}
		if spans == nil {
			spans = lang.Identifiers(l, text)
		}
		var m *preview.Mapper
		for _, sp := range spans {
			if text[sp.Start:sp.End] != name || member && (sp.Start == 0 || text[sp.Start-1] != '.') {
				continue
			}
			total++
			if len(out) >= maxLeftBehind {
				continue
			}
			if m == nil {
				m = preview.NewMapper(text)
			}
			line, char := m.CharPosition(sp.Start)
			ls, le := m.LineAround(sp.Start)
			out = append(out, LeftBehind{File: f, Line: line, Column: char, Context: strings.TrimSpace(text[ls:le])})
		}
	}
	return out, total
}

// cMacro is a #define of a C/C++ file: its name, parameters and where its
// body lies.
type cMacro struct {
	name      string
	params    map[string]bool
	bodyStart int
	bodyEnd   int
}

var cDefine = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\(([^)]*)\))?`)

// cMacros reads the #defines of a C/C++ text (continuation lines
// included).
func cMacros(text string) []cMacro {
	var out []cMacro
	for _, m := range cDefine.FindAllStringSubmatchIndex(text, -1) {
		mac := cMacro{name: text[m[2]:m[3]], params: map[string]bool{}, bodyStart: m[1]}
		if m[6] >= 0 {
			for _, p := range strings.Split(text[m[6]:m[7]], ",") {
				mac.params[strings.TrimSpace(p)] = true
			}
		}
		end := m[1]
		for end < len(text) {
			nl := strings.IndexByte(text[end:], '\n')
			if nl < 0 {
				end = len(text)
				break
			}
			end += nl
			if strings.HasSuffix(strings.TrimRight(text[:end], " \t\r"), "\\") {
				end++
				continue
			}
			break
		}
		mac.bodyEnd = end
		out = append(out, mac)
	}
	return out
}

// macroBodyEdits renames oldName to newName in the bodies of the C/C++
// macros of files (as they will be after cs) that name it where it is not
// one of the macro's parameters: a macro that expands to a use of the
// renamed symbol (clangd renames the expansion sites' symbol but not the
// macro's text). It returns cs with those edits added and the macros
// renamed in ("lmem.h: luaM_error").
func macroBodyEdits(root workspace.Root, l *lang.Language, oldName, newName string, cs preview.Changeset) (preview.Changeset, []string, error) {
	after := afterTexts(cs)
	var touched []string
	for _, f := range languageFiles(root, l) {
		text, changed := after[f]
		if !changed {
			abs := filepath.Join(root.Dir(), filepath.FromSlash(f))
			if root.Sensitive(abs) {
				continue
			}
			data, err := os.ReadFile(abs)
			if err != nil || !strings.Contains(string(data), oldName) {
				continue
			}
			text = string(data)
		}
		if !strings.Contains(text, oldName) {
			continue
		}
		var edits []preview.ByteEdit
		for _, mac := range cMacros(text) {
			if mac.params[oldName] || mac.name == oldName {
				continue
			}
			body := text[mac.bodyStart:mac.bodyEnd]
			hit := false
			for _, sp := range lang.Identifiers(l, body) {
				if body[sp.Start:sp.End] == oldName {
					edits = append(edits, preview.ByteEdit{Start: mac.bodyStart + sp.Start, End: mac.bodyStart + sp.End, Text: newName})
					hit = true
				}
			}
			if hit {
				touched = append(touched, path.Base(f)+": "+mac.name)
			}
		}
		if len(edits) == 0 {
			continue
		}
		if changed {
			// Merge into the file's change: rebuild it from its new text.
			nt, err := preview.ApplyByteEdits(text, edits)
			if err != nil {
				return cs, nil, err
			}
			cs, err = withTexts(cs, map[string]string{f: nt})
			if err != nil {
				return cs, nil, err
			}
			continue
		}
		nt, err := preview.ApplyByteEdits(text, edits)
		if err != nil {
			return cs, nil, err
		}
		old := preview.ParseDocument(text)
		tes, err := preview.Minimize(old, []preview.TextEdit{{EndLine: len(old.Lines), NewText: nt}})
		if err != nil {
			return cs, nil, err
		}
		cs.Files = append(cs.Files, preview.FileChange{Kind: preview.OpEdit, Path: f, Old: old, Edits: tes})
	}
	return cs, touched, nil
}

// symbolReach is where a symbol may be used outside what the server
// changed: its kind (top-level, a member, or local to a function) and the
// files that may name it (those importing its file or package).
type symbolReach struct {
	// local: a function's local or parameter (no document symbol): it is
	// used nowhere else, nothing is looked for.
	local bool
	// member: a field or method: only uses after a "." count.
	member bool
	defRel string
}

// reachOf asks where the symbol at target of file is defined and what it
// is there (its document symbol's container).
func reachOf(ctx context.Context, c *lsp.Client, file string, target lsp.Target, name string) symbolReach {
	return askReach(ctx, c, file, target).of(name)
}

// reachAnswer is what reachOf asks the server: the definition of the
// symbol at a target and its file's document symbols.
type reachAnswer struct {
	file string
	// def is the definition in the workspace (nil: none).
	def *lsp.SourceLocation
	// flat are def's file's symbols (nil with symbolsErr: not known).
	flat       []lsp.FlatSymbol
	symbolsErr error
}

// askReach asks where the symbol at target of file is defined and the
// symbols of that file: file's own symbols beside the definition (a
// symbol is most often renamed in the file that declares it), another
// file's once the definition names it.
func askReach(ctx context.Context, c *lsp.Client, file string, target lsp.Target) reachAnswer {
	type symbols struct {
		flat []lsp.FlatSymbol
		err  error
	}
	ownCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	own := make(chan symbols, 1)
	safego.Go("the symbols of the file a rename is asked in", func() {
		flat, err := c.DeclaredSymbols(ownCtx, file)
		own <- symbols{flat, err}
	}, func(err error) { own <- symbols{nil, err} })
	a := reachAnswer{file: file}
	defs, err := c.Definition(ctx, file, target)
	if err != nil || len(defs.Locations) == 0 || defs.Locations[0].File == "" || defs.Locations[0].OutsideWorkspace {
		return a
	}
	a.def = &defs.Locations[0]
	if a.def.File == file {
		s := <-own
		a.flat, a.symbolsErr = s.flat, s.err
	} else {
		a.flat, a.symbolsErr = c.DeclaredSymbols(ctx, a.def.File)
	}
	return a
}

// of is the reach of the symbol named name.
func (a reachAnswer) of(name string) symbolReach {
	if a.def == nil {
		return symbolReach{defRel: a.file}
	}
	r := symbolReach{defRel: a.def.File}
	if a.symbolsErr != nil {
		return r
	}
	for _, s := range a.flat {
		sel := s.Range
		if s.Selection != nil {
			sel = *s.Selection
		}
		// gopls names a method after its receiver ("(*Logger).check"),
		// with no container: the qualified name makes it a member.
		if lsp.SymbolNamed(s.Name, name) && int(sel.Start.Line) == a.def.Line-1 {
			r.member = s.Container != "" || s.Name != name
			return r
		}
	}
	r.local = true
	return r
}

// mayBeImported reports whether importers can keep any file: not for a
// local, nor in a language whose imports nvbridge does not read (the
// scan would then find nothing, and is not made).
func (r symbolReach) mayBeImported(l *lang.Language) bool {
	return !r.local && l.Imports.Parse != nil && l.Imports.Resolve != nil
}

// importers is a keep function for findLeftBehind: untouched files that
// import the definition's file (or its folder, for a language whose
// importers import folders, or that share its folder then).
func (r symbolReach) importers(root workspace.Root, l *lang.Language) func(file, text string, changed bool) bool {
	scope := lang.NewScope(root.Dir())
	defAbs := filepath.Join(root.Dir(), filepath.FromSlash(r.defRel))
	defDir := filepath.Dir(defAbs)
	return func(file, text string, changed bool) bool {
		if changed || !r.mayBeImported(l) {
			return false
		}
		abs := filepath.Join(root.Dir(), filepath.FromSlash(file))
		if l.Imports.Folder && filepath.Dir(abs) == defDir {
			return true
		}
		for _, imp := range l.Imports.Parse(text) {
			for _, res := range l.Imports.Resolve(scope, abs, imp) {
				if res == defAbs || l.Imports.Folder && res == defDir {
					return true
				}
			}
		}
		return false
	}
}

// naming is what naming.mayLeaveBehind needs of the workspace's files of a
// language before the rename's edit is known: those that name a name as
// an identifier, each with the files (or folders) its imports resolve
// to. Made while the server computes the rename (planRename), it leaves
// to the edit only the comparison with the files it changes.
type naming struct {
	name  string
	files []namingFile
	// unknown: the files could not be told (the scans may find some).
	unknown bool
}

type namingFile struct {
	rel, abs string
	imports  []string
}

// namingFiles is naming for name among l's files (none when l has no
// import syntax: neither scan is made, symbolReach.mayBeImported).
func namingFiles(root workspace.Root, l *lang.Language, name string) naming {
	n := naming{name: name}
	if l.Imports.Parse == nil || l.Imports.Resolve == nil {
		return n
	}
	scope := lang.NewScope(root.Dir())
	now, hashed := time.Now(), hashIdent(name)
	changes := fileChanges(root.Dir())
	at := changes.Begin()
	// Its go.mod files and packages' folders as the last scans read them,
	// while nothing happened to them (scope_fs.go).
	scope.FS = followedFS{changes: changes, at: at}
	tree, err := projectTree(root, changes, at)
	files := languageFilesOf(tree, err, l)
	key := namingKey{dir: root.Dir(), policy: root.Policy(), lang: l, name: name}
	if kept, ok := keptNaming(key, files, at, scope); ok {
		n.files = kept
		return n
	}
	var keep []namingKeptFile
	keepable := at.OK()
	for _, f := range files {
		if root.Policy().Denied(f) != "" {
			continue
		}
		abs := filepath.Join(root.Dir(), filepath.FromSlash(f))
		text, spans, kept, entry, ok, followed := readNamingEntry(l, abs, hashed, now, changes, at)
		keepable = keepable && followed
		if !ok {
			continue
		}
		if kept != nil {
			if !kept.names(text, name) {
				continue
			}
		} else {
			if spans == nil {
				spans = lang.Identifiers(l, text)
			}
			if !slices.ContainsFunc(spans, func(sp lang.Span) bool { return text[sp.Start:sp.End] == name }) {
				continue
			}
		}
		nf := namingFile{rel: f, abs: abs}
		for _, imp := range importsOf(l, abs, entry, text) {
			nf.imports = append(nf.imports, l.Imports.Resolve(scope, abs, imp)...)
		}
		n.files = append(n.files, nf)
		// Its imports kept in its entry (importsOf), or the scan is not.
		keepable = keepable && entry != nil
		keep = append(keep, namingKeptFile{rel: f, abs: abs})
	}
	if keepable {
		keepNaming(key, files, at, keep)
	}
	return n
}

// mayLeaveBehind reports, for n's name, whether the scans a rename makes
// for the uses its server did not see (findLeftBehindMember kept to a
// symbolReach's importers, and renameImportersOutside) could find any, before the server
// is asked where the symbol is declared: whether a file the rename leaves
// untouched (not in changed, its workspace-relative paths) names the name as
// an identifier and imports one of the files in changed or asked (the file
// the rename was asked in), or, in a language whose importers import
// folders, one of their folders or lies in one. The symbol's declaration
// is one of those files (the rename changes it; the reach falls back on
// asked when the server names none), so every file those scans keep is
// kept here: when none is, they find nothing whatever the server would
// answer, and it need not be asked.
func (n naming) mayLeaveBehind(root workspace.Root, l *lang.Language, changed []string, asked string) bool {
	if l.Imports.Parse == nil || l.Imports.Resolve == nil {
		return false // neither scan is made (symbolReach.mayBeImported)
	}
	if n.unknown {
		return true
	}
	files, dirs, skip := map[string]bool{}, map[string]bool{}, map[string]bool{}
	add := func(rel string) {
		abs := filepath.Join(root.Dir(), filepath.FromSlash(rel))
		files[abs], dirs[filepath.Dir(abs)] = true, true
	}
	add(asked)
	for _, p := range changed {
		skip[p] = true
		add(p)
	}
	for _, f := range n.files {
		if skip[f.rel] {
			continue
		}
		if l.Imports.Folder && dirs[filepath.Dir(f.abs)] {
			return true
		}
		for _, res := range f.imports {
			if files[res] || l.Imports.Folder && dirs[res] {
				return true
			}
		}
	}
	return false
}

// changedPaths lists the workspace-relative paths cs changes (a renamed
// file by both).
func changedPaths(cs preview.Changeset) []string {
	var out []string
	for _, fc := range cs.Files {
		out = append(out, fc.Path)
		if fc.NewPath != "" {
			out = append(out, fc.NewPath)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// maxOpenLeftBehind bounds the files openLeftBehind opens.
const maxOpenLeftBehind = 8

// openLeftBehind opens the first files of lb (a test outside pyright's
// include, a module tsserver's move did not update), so that their
// servers diagnose them and the diagnostics delta of the apply compares
// them: the change most likely breaks them, and neither pyright nor
// tsserver diagnoses a file nobody opened. A file that does not open is
// left out (the list still names it).
func openLeftBehind(ctx context.Context, c *lsp.Client, lb []LeftBehind) {
	seen := map[string]bool{}
	for _, l := range lb {
		if seen[l.File] || len(seen) == maxOpenLeftBehind {
			continue
		}
		seen[l.File] = true
		if _, err := c.Open(ctx, l.File); err != nil && ctx.Err() != nil {
			return
		}
	}
}
