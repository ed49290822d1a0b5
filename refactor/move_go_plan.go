package refactor

// move_symbol for Go, the pure half: go/parser finds the declaration (with
// its doc comment, a type with its method set), go/types (on the source
// package alone, imports faked) finds what the moved code uses from its
// package, and the references gopls gave are rewritten as package
// qualifiers. Imports are added and removed in every touched file, the
// files gofmt'ed, and the workspace import graph checked for a cycle
// (move_go_cycle.go). No I/O: the caller (move_go.go) reads the files and
// turns the texts into a changeset.

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

// goMoveInput is what the pure Go move needs: the texts of every file it
// may read or touch (workspace-relative path -> text with "\n" breaks).
type goMoveInput struct {
	Files  map[string]string
	Source string // the file holding the declaration
	Offset int    // a byte offset inside the declaration in Source
	Target string // the target file (need not exist: TargetExists)

	TargetExists bool
	// Dirs lists the .go files of each folder involved (source and target
	// folders, every reference's folder): dir -> files, all in Files.
	Dirs map[string][]string
	// Refs are the references of the symbol (file, byte offset of the
	// identifier), the declaration excluded.
	Refs []goRef
	// ImportPath names a folder's import path ("" outside any module).
	ImportPath func(dir string) string
	// Graph is the workspace's package import graph (import path -> the
	// import paths its non-test files import), before the move; TestGraph
	// what each package's internal test files import.
	Graph, TestGraph map[string][]string
}

type goRef struct {
	File   string
	Offset int
}

// goMoveOutput is the computed move.
type goMoveOutput struct {
	Texts   map[string]string // the new text of every changed or created file
	Moved   []string          // declarations moved ("func F", "type T", "method T.M")
	Package string            // the target package's name
	// SamePackage: the target is in the source's package (no reference
	// changes).
	SamePackage bool
	Qualified   int // references rewritten
}

// goMove is one Go move being planned: its input, the files parsed so
// far, and what each step found.
type goMove struct {
	in     goMoveInput
	out    goMoveOutput
	fset   *token.FileSet
	parsed map[string]*goFile

	name     string    // the declared name
	main     goPiece   // the declaration at the offset
	pieces   []goPiece // what moves: main, and a type's methods
	pkgFiles []*goFile // the source package's files

	srcDir, tgtDir   string
	srcPkg, tgtPkg   string
	srcPath, tgtPath string          // the packages' import paths
	tgtNames         map[string]bool // the target package's top-level names

	// usedImports are the imports the moved code uses (path -> as named);
	// deps the source package's objects it uses, named by depIdents.
	usedImports map[string]goImportUse
	deps        []types.Object
	depIdents   map[*ast.Ident]types.Object

	// edits are the byte edits of each file (the cut pieces, the rewritten
	// references); needTgt the files that must import the target package,
	// maybeUnused those whose import of the source may now be unused.
	edits                map[string][]preview.ByteEdit
	needTgt, maybeUnused map[string]bool
}

// goImportUse is an import the moved code uses: its local name and path.
type goImportUse struct{ name, path string }

// planGoMove computes a Go move.
func planGoMove(in goMoveInput) (goMoveOutput, error) {
	m := &goMove{in: in, out: goMoveOutput{Texts: map[string]string{}}, fset: token.NewFileSet(), parsed: map[string]*goFile{}}
	for _, step := range []func() error{m.declaration, m.targetPackage, m.sourceUses, m.rewriteReferences} {
		if err := step(); err != nil {
			return m.out, err
		}
	}
	moved, err := m.movedText()
	if err != nil {
		return m.out, err
	}
	texts, err := m.newTexts(moved)
	if err != nil {
		return m.out, err
	}
	if err := m.fixImports(texts); err != nil {
		return m.out, err
	}
	for f, t := range m.out.Texts {
		if in.Files[f] == t && (f != in.Target || in.TargetExists) {
			delete(m.out.Texts, f)
		}
	}
	if err := checkGoCycle(in, m.out.Texts); err != nil {
		return m.out, err
	}
	return m.out, nil
}

// parse parses a file of the input, once.
func (m *goMove) parse(rel string) (*goFile, error) {
	if g, ok := m.parsed[rel]; ok {
		return g, nil
	}
	text, ok := m.in.Files[rel]
	if !ok {
		return nil, fmt.Errorf("%s was not read", rel)
	}
	g, err := parseGoFile(m.fset, rel, text)
	if err != nil {
		return nil, moveErr(apierr.PreconditionFailed, "fix the syntax error first (get_diagnostics lists it)",
			"%s does not parse: %v", rel, err)
	}
	m.parsed[rel] = g
	return g, nil
}

// declaration finds what moves: the declaration at the offset and, for a
// type, its method set (the source file's methods first).
func (m *goMove) declaration() error {
	in := m.in
	src, err := m.parse(in.Source)
	if err != nil {
		return err
	}
	m.main, m.name, err = findGoDecl(src, in.Offset)
	if err != nil {
		return err
	}
	m.srcDir, m.tgtDir = path.Dir(in.Source), path.Dir(in.Target)
	m.srcPkg = src.f.Name.Name
	m.out.SamePackage = m.srcDir == m.tgtDir
	// The files of the source package (same folder and package name).
	for _, rel := range in.Dirs[m.srcDir] {
		g, err := m.parse(rel)
		if err != nil {
			return err
		}
		if g.f.Name.Name == m.srcPkg {
			m.pkgFiles = append(m.pkgFiles, g)
		}
	}
	m.pieces = []goPiece{m.main}
	if _, isType := m.main.node.(*ast.TypeSpec); isType || isTypeDecl(m.main.node) {
		sorted := append([]*goFile(nil), m.pkgFiles...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].rel == in.Source && sorted[j].rel != in.Source })
		for _, g := range sorted {
			for _, d := range g.f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || goRecvBase(fd) != m.name {
					continue
				}
				start := fd.Pos()
				if fd.Doc != nil {
					start = fd.Doc.Pos()
				}
				p := goPiece{file: g.rel, node: fd, what: "method " + m.name + "." + fd.Name.Name}
				p.start, p.end = g.lines(start, fd.End())
				p.text = g.text[p.start:p.end]
				m.pieces = append(m.pieces, p)
			}
		}
	}
	for _, p := range m.pieces {
		m.out.Moved = append(m.out.Moved, p.what)
	}
	if in.Source == in.Target {
		return moveErr(apierr.InvalidParameter, "pass another target_file", "%s is already in %s", m.name, in.Target)
	}
	return nil
}

// inMoved reports whether byte off of file lies in a moved piece.
func (m *goMove) inMoved(file string, off int) bool {
	for _, p := range m.pieces {
		if p.file == file && off >= p.start && off < p.end {
			return true
		}
	}
	return false
}

// targetPackage finds the target package's name and top-level names.
func (m *goMove) targetPackage() error {
	in := m.in
	m.tgtNames = map[string]bool{}
	for _, rel := range in.Dirs[m.tgtDir] {
		g, err := m.parse(rel)
		if err != nil {
			return err
		}
		if strings.HasSuffix(rel, "_test.go") && strings.HasSuffix(g.f.Name.Name, "_test") {
			continue
		}
		if rel == in.Target || m.tgtPkg == "" || !strings.HasSuffix(rel, "_test.go") {
			if m.tgtPkg == "" || rel == in.Target {
				m.tgtPkg = g.f.Name.Name
			}
		}
		if g.f.Name.Name != m.tgtPkg {
			continue
		}
		for _, d := range g.f.Decls {
			for _, n := range declaredNames(d) {
				m.tgtNames[n] = true
			}
		}
	}
	if in.TargetExists {
		g, err := m.parse(in.Target)
		if err != nil {
			return err
		}
		m.tgtPkg = g.f.Name.Name
	}
	if m.tgtPkg == "" {
		m.tgtPkg = goPackageNameFor(m.tgtDir)
		if m.out.SamePackage {
			m.tgtPkg = m.srcPkg
		}
	}
	m.out.Package = m.tgtPkg
	if m.out.SamePackage && m.tgtPkg != m.srcPkg {
		return moveErr(apierr.InvalidParameter, "pick a file of package "+m.srcPkg,
			"%s is in package %s, %s in package %s", in.Target, m.tgtPkg, in.Source, m.srcPkg)
	}
	m.srcPath, m.tgtPath = in.ImportPath(m.srcDir), in.ImportPath(m.tgtDir)
	return nil
}

// sourceUses finds what the moved code uses: imports (by file) and, across
// packages, package-level names of the source package, which must be
// exported for the target to reach them.
func (m *goMove) sourceUses() error {
	m.usedImports = map[string]goImportUse{}
	for _, p := range m.pieces {
		g := m.parsed[p.file]
		names := map[string]string{}
		for _, spec := range g.f.Imports {
			if n, ip := importName(spec); n != "" {
				names[n] = ip
			} else if spec.Name != nil && spec.Name.Name == "." {
				return moveErr(apierr.Unsupported, "replace the dot import with a named one first",
					"%s dot-imports %s; nvbridge cannot tell which names the moved code takes from it", g.rel, ip)
			}
		}
		ast.Inspect(p.node, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := se.X.(*ast.Ident); ok && id.Obj == nil {
					if ip, ok := names[id.Name]; ok {
						m.usedImports[ip] = goImportUse{name: id.Name, path: ip}
					}
				}
			}
			return true
		})
	}
	if m.out.SamePackage {
		return nil
	}
	if fd, isFunc := m.main.node.(*ast.FuncDecl); isFunc && goRecvBase(fd) != "" {
		return moveErr(apierr.Unsupported, "move the receiver type instead: it takes its method set along",
			"%s is a method of %s; a method must stay in its type's package: move the receiver type, it takes its method set along", m.main.what, goRecvBase(fd))
	}
	if m.tgtPkg == "main" {
		return moveErr(apierr.InvalidParameter, "pick a target file in an importable package",
			"%s is in package main, which no package can import", m.in.Target)
	}
	if m.tgtNames[m.name] {
		return moveErr(apierr.Conflict, "rename one of them first (rename_symbol)",
			"package %s (%s) already declares %s", m.tgtPkg, m.tgtDir, m.name)
	}
	m.deps, m.depIdents = sourceDeps(m.fset, m.pkgFiles, m.pieces)
	var unexported []string
	for _, o := range m.deps {
		if !o.Exported() {
			unexported = append(unexported, o.Name())
		}
	}
	if len(unexported) > 0 {
		return moveErr(apierr.PreconditionFailed,
			"move those too, or export them first (rename_symbol), then move",
			"the moved code uses unexported %s of package %s, which package %s could not reach", strings.Join(unexported, ", "), m.srcPkg, m.tgtPkg)
	}
	return nil
}

// rewriteReferences cuts the pieces out and qualifies the references left
// outside them with the target package (or drops the qualifier of one in
// the target package).
func (m *goMove) rewriteReferences() error {
	m.edits = map[string][]preview.ByteEdit{}
	for _, p := range m.pieces {
		m.edits[p.file] = append(m.edits[p.file], preview.ByteEdit{Start: p.start, End: p.end})
	}
	m.needTgt, m.maybeUnused = map[string]bool{}, map[string]bool{}
	remaining := 0
	for _, r := range m.in.Refs {
		if m.inMoved(r.File, r.Offset) || m.out.SamePackage {
			continue
		}
		remaining++
		g, err := m.parse(r.File)
		if err != nil {
			return err
		}
		sel := selectorAt(g, r.Offset)
		rdir := path.Dir(r.File)
		internal := rdir == m.srcDir && g.f.Name.Name == m.srcPkg
		inTgt := rdir == m.tgtDir && g.f.Name.Name == m.tgtPkg
		switch {
		case sel != nil && inTgt:
			m.edits[r.File] = append(m.edits[r.File], preview.ByteEdit{Start: g.off(sel.X.Pos()), End: g.off(sel.Sel.Pos())})
			m.maybeUnused[r.File] = true
		case sel != nil:
			m.edits[r.File] = append(m.edits[r.File], preview.ByteEdit{Start: g.off(sel.X.Pos()), End: g.off(sel.X.End()), Text: tgtPlaceholder})
			m.needTgt[r.File] = true
			m.maybeUnused[r.File] = true
		case internal:
			m.edits[r.File] = append(m.edits[r.File], preview.ByteEdit{Start: r.Offset, End: r.Offset, Text: tgtPlaceholder + "."})
			m.needTgt[r.File] = true
		default:
			for _, spec := range g.f.Imports {
				if _, ip := importName(spec); ip == m.srcPath && spec.Name != nil && spec.Name.Name == "." {
					return moveErr(apierr.Unsupported, "replace the dot import with a named one first",
						"%s dot-imports %s; nvbridge does not rewrite references through a dot import", r.File, m.srcPath)
				}
			}
			return moveErr(apierr.OperationFailed, "report this",
				"%s: a reference to %s at byte %d is neither qualified nor in its package", r.File, m.name, r.Offset)
		}
		m.out.Qualified++
	}
	if !m.out.SamePackage && remaining > 0 && !ast.IsExported(m.name) {
		return moveErr(apierr.PreconditionFailed,
			"export it first (rename_symbol to "+exportedName(m.name)+"), then move it; or move its users along",
			"%s is unexported and still used %d time(s) outside the moved code; package %s could not reach it in package %s (export it first)",
			m.name, remaining, m.srcPkg, m.tgtPkg)
	}
	return nil
}

// movedText is the moved code as the target holds it: names it took from
// the target package lose their qualifier, names it uses from the source
// get one.
func (m *goMove) movedText() (string, error) {
	var moved []string
	for _, p := range m.pieces {
		var pe []preview.ByteEdit
		g := m.parsed[p.file]
		if !m.out.SamePackage {
			tgtQualifiers := map[string]bool{}
			for _, spec := range g.f.Imports {
				if n, ip := importName(spec); n != "" && ip == m.tgtPath {
					tgtQualifiers[n] = true
				}
			}
			ast.Inspect(p.node, func(n ast.Node) bool {
				if se, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := se.X.(*ast.Ident); ok && id.Obj == nil && tgtQualifiers[id.Name] {
						pe = append(pe, preview.ByteEdit{Start: g.off(id.Pos()) - p.start, End: g.off(se.Sel.Pos()) - p.start})
					}
				}
				return true
			})
		}
		if len(m.deps) > 0 {
			for _, id := range identsIn(p.node) {
				if _, ok := m.depIdents[id]; ok {
					at := g.off(id.Pos()) - p.start
					pe = append(pe, preview.ByteEdit{Start: at, End: at, Text: m.srcPkg + "."})
				}
			}
			m.usedImports[m.srcPath] = goImportUse{name: m.srcPkg, path: m.srcPath}
		}
		if p.keyword != "" && len(pe) > 0 {
			return "", moveErr(apierr.Unsupported, "move the declaration out of its group first",
				"%s names other packages' declarations from inside a %s group", p.what, p.keyword)
		}
		text, err := preview.ApplyByteEdits(p.text, pe)
		if err != nil {
			return "", moveErr(apierr.OperationFailed, "report this", "%v", err)
		}
		moved = append(moved, strings.TrimRight(text, "\n"))
	}
	return strings.Join(moved, "\n\n") + "\n", nil
}

// newTexts applies each file's edits and appends the moved code to the
// target (created with its package clause when missing).
func (m *goMove) newTexts(moved string) (map[string]string, error) {
	in := m.in
	texts := map[string]string{}
	for file, es := range m.edits {
		g, _ := m.parse(file)
		t, err := preview.ApplyByteEdits(g.text, es)
		if err != nil {
			return nil, moveErr(apierr.OperationFailed, "report this", "%s: %v", file, err)
		}
		texts[file] = t
	}
	base := in.Files[in.Target]
	if t, ok := texts[in.Target]; ok {
		base = t
	}
	if !in.TargetExists {
		base = m.sourceHeader() + "package " + m.tgtPkg + "\n"
	}
	texts[in.Target] = strings.TrimRight(base, "\n") + "\n\n" + moved
	return texts, nil
}

// sourceHeader is the comment a new file takes from the source file: its
// comments above the package clause that are neither the package's doc
// comment nor build constraints (a license header, as every file of zap
// begins with), with the blank line after them; "" when there are none.
func (m *goMove) sourceHeader() string {
	g, err := m.parse(m.in.Source)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, cg := range g.f.Comments {
		if cg.Pos() >= g.f.Package {
			break
		}
		if cg == g.f.Doc || strings.Contains(cg.Text(), "+build") || slices.ContainsFunc(cg.List, func(c *ast.Comment) bool {
			return strings.HasPrefix(c.Text, "//go:")
		}) {
			continue
		}
		start, end := g.fset.Position(cg.Pos()).Offset, g.fset.Position(cg.End()).Offset
		b.WriteString(g.text[start:end])
		b.WriteString("\n\n")
	}
	return b.String()
}

// fixImports gives the target the imports the moved code uses and the
// files that name the target package its import, drops the imports left
// unused, and gofmts every file into the output.
func (m *goMove) fixImports(texts map[string]string) error {
	in := m.in
	addFor := map[string][]goImportUse{}
	for _, u := range m.usedImports {
		addFor[in.Target] = append(addFor[in.Target], u)
	}
	for f := range m.needTgt {
		addFor[f] = append(addFor[f], goImportUse{path: m.tgtPath})
	}
	removeFrom := map[string][]string{}
	for f := range m.maybeUnused {
		removeFrom[f] = append(removeFrom[f], m.srcPath)
	}
	for _, p := range m.pieces {
		for ip := range m.usedImports {
			removeFrom[p.file] = append(removeFrom[p.file], ip)
		}
	}
	for file, text := range texts {
		want := map[string]string{}
		for _, u := range addFor[file] {
			switch {
			case u.path == m.tgtPath && file == in.Target:
				// the target does not import itself
			case u.path == m.tgtPath:
				want[u.path] = m.tgtPkg
			default:
				want[u.path] = u.name
			}
		}
		text, names, err := addImports(file, text, want)
		if err != nil {
			return err
		}
		if q, ok := names[m.tgtPath]; ok {
			text = strings.ReplaceAll(text, tgtPlaceholder, q)
		}
		if q, ok := names[m.srcPath]; ok && file == in.Target && q != m.srcPkg {
			return moveErr(apierr.Unsupported, "rename the import in "+file+" to "+m.srcPkg+" first",
				"%s imports %s as %s; the moved code names it %s", file, m.srcPath, q, m.srcPkg)
		}
		for _, ip := range removeFrom[file] {
			if text, err = dropUnusedImport(file, text, ip); err != nil {
				return err
			}
		}
		if strings.Contains(text, tgtPlaceholder) {
			return moveErr(apierr.OperationFailed, "report this", "%s: a qualifier was left unresolved", file)
		}
		formatted, err := format.Source([]byte(text))
		if err != nil {
			return moveErr(apierr.OperationFailed, "report this (nothing was changed)",
				"after the move %s would not parse: %v", file, err)
		}
		m.out.Texts[file] = gofmtTouched(in.Files[file], text, string(formatted))
	}
	return nil
}

// gofmtTouched is text formatted as gofmt would where the move changed it:
// all of it when the file was gofmt-clean before (or is new), else only
// the lines the move changed, so declarations it did not touch keep their
// bytes (gofmt since Go 1.19 also rewrites old doc comments).
func gofmtTouched(orig, text, formatted string) string {
	if orig == "" {
		return formatted
	}
	if clean, err := format.Source([]byte(orig)); err == nil && string(clean) == orig {
		return formatted
	}
	return formatInside(orig, text, formatted)
}
