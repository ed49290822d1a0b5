package refactor

// move_symbol for Go, the pure half: go/parser finds the declaration (with
// its doc comment, a type with its method set), go/types (on the source
// package alone, imports faked) finds what the moved code uses from its
// package, and the references gopls gave are rewritten as package
// qualifiers. Imports are added and removed in every touched file, the
// files gofmt'ed, and the workspace import graph checked for a cycle.
// No I/O: the caller reads the files and turns the texts into a changeset.

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

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

type goPiece struct {
	file       string
	start, end int    // the cut in file (whole lines)
	keyword    string // "var"/"const"/"type" for a spec cut out of a group
	text       string // the declaration's text (keyword added)
	node       ast.Node
	what       string
	nameOff    int // the declared name's byte offset in file
}

type goFile struct {
	rel  string
	text string
	m    *preview.Mapper // of text
	f    *ast.File
	fset *token.FileSet
}

func parseGoFile(fset *token.FileSet, rel, text string) (*goFile, error) {
	f, err := parser.ParseFile(fset, rel, text, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	return &goFile{rel: rel, text: text, m: preview.NewMapper(text), f: f, fset: fset}, nil
}

func (g *goFile) off(p token.Pos) int { return g.fset.Position(p).Offset }

// lines widens the bytes [a, b) of the file to whole lines.
func (g *goFile) lines(a, b token.Pos) (int, int) { return g.m.WholeLines(g.off(a), g.off(b)) }

// importName is the local name of an import spec ("" for _ and .).
func importName(spec *ast.ImportSpec) (name, p string) {
	p, _ = strconv.Unquote(spec.Path.Value)
	if spec.Name != nil {
		if spec.Name.Name == "_" || spec.Name.Name == "." {
			return "", p
		}
		return spec.Name.Name, p
	}
	return guessPackageName(p), p
}

// guessPackageName is the usual name of the package at import path p: its
// last element without a version suffix or a "go-" prefix.
func guessPackageName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" && path.Dir(p) != "." {
		base = path.Base(path.Dir(p))
	}
	base = strings.TrimPrefix(strings.TrimSuffix(base, ".go"), "go-")
	if i := strings.IndexAny(base, ".-"); i >= 0 {
		base = base[:i]
	}
	return base
}

func goRecvBase(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func moveErr(code apierr.Code, hint, format string, args ...any) error {
	return apierr.Errorf(code, hint, format, args...)
}

// findGoDecl finds the top-level declaration around off: the piece to cut
// and the declared name.
func findGoDecl(g *goFile, off int) (goPiece, string, error) {
	for _, d := range g.f.Decls {
		if off < g.off(d.Pos()) || off > g.off(d.End()) {
			if fd, ok := d.(*ast.FuncDecl); !ok || fd.Doc == nil || off < g.off(fd.Doc.Pos()) || off > g.off(d.End()) {
				if gd, ok := d.(*ast.GenDecl); !ok || gd.Doc == nil || off < g.off(gd.Doc.Pos()) || off > g.off(d.End()) {
					continue
				}
			}
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			start := d.Pos()
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
			p := goPiece{file: g.rel, node: d, nameOff: g.off(d.Name.Pos())}
			p.start, p.end = g.lines(start, d.End())
			p.text = g.text[p.start:p.end]
			if r := goRecvBase(d); r != "" {
				p.what = "method " + r + "." + d.Name.Name
				return p, d.Name.Name, nil
			}
			p.what = "func " + d.Name.Name
			return p, d.Name.Name, nil
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				return goPiece{}, "", moveErr(apierr.InvalidParameter, "point at a function, type, constant or variable declaration",
					"%s: the position is on an import declaration", g.rel)
			}
			var spec ast.Spec
			for _, s := range d.Specs {
				a := s.Pos()
				if doc := specDoc(s); doc != nil {
					a = doc.Pos()
				}
				if from, to := g.lines(a, s.End()); off >= from && off <= to {
					spec = s
				}
			}
			if spec == nil && len(d.Specs) == 1 {
				spec = d.Specs[0]
			}
			if spec == nil {
				return goPiece{}, "", moveErr(apierr.InvalidParameter, "point at the line of one name in the group",
					"%s: the position is on a %s group, not on one of its declarations", g.rel, d.Tok)
			}
			name, nameOff, err := specName(g, d, spec)
			if err != nil {
				return goPiece{}, "", err
			}
			what := d.Tok.String() + " " + name
			if len(d.Specs) == 1 {
				start := d.Pos()
				if d.Doc != nil {
					start = d.Doc.Pos()
				}
				p := goPiece{file: g.rel, node: d, what: what, nameOff: nameOff}
				p.start, p.end = g.lines(start, d.End())
				p.text = g.text[p.start:p.end]
				return p, name, nil
			}
			if d.Tok == token.CONST {
				for _, s := range d.Specs {
					if vs := s.(*ast.ValueSpec); len(vs.Values) == 0 || usesIota(vs) {
						return goPiece{}, "", moveErr(apierr.Unsupported, "give each constant of the group an explicit value first",
							"%s: %s belongs to a const group using iota or implicit values; moving it alone would change its value", g.rel, name)
					}
				}
			}
			a := spec.Pos()
			if doc := specDoc(spec); doc != nil {
				a = doc.Pos()
			}
			p := goPiece{file: g.rel, node: spec, keyword: d.Tok.String(), what: what, nameOff: nameOff}
			p.start, p.end = g.lines(a, spec.End())
			body := g.text[p.start:p.end]
			// Dedent the spec and put the keyword before its first code line.
			var lines []string
			keyed := false
			for _, l := range strings.SplitAfter(body, "\n") {
				l = strings.TrimPrefix(l, "\t")
				if !keyed && !strings.HasPrefix(strings.TrimSpace(l), "//") && strings.TrimSpace(l) != "" {
					l = d.Tok.String() + " " + l
					keyed = true
				}
				lines = append(lines, l)
			}
			p.text = strings.Join(lines, "")
			return p, name, nil
		}
	}
	return goPiece{}, "", moveErr(apierr.InvalidParameter, "point at a top-level declaration's line (read_file shows the lines); pass symbol to name it",
		"%s: no top-level declaration at the position", g.rel)
}

func specDoc(s ast.Spec) *ast.CommentGroup {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return s.Doc
	case *ast.ValueSpec:
		return s.Doc
	}
	return nil
}

func specName(g *goFile, d *ast.GenDecl, s ast.Spec) (string, int, error) {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return s.Name.Name, g.off(s.Name.Pos()), nil
	case *ast.ValueSpec:
		if len(s.Names) != 1 && len(d.Specs) > 1 {
			return "", 0, moveErr(apierr.Unsupported, "split the declaration into one name per line first",
				"%s: %d names share one %s declaration", g.rel, len(s.Names), d.Tok)
		}
		if len(s.Names) != 1 {
			return "", 0, moveErr(apierr.Unsupported, "split the declaration into one name per declaration first",
				"%s: %d names share one %s declaration; nvbridge moves one name's references", g.rel, len(s.Names), d.Tok)
		}
		return s.Names[0].Name, g.off(s.Names[0].Pos()), nil
	}
	return "", 0, moveErr(apierr.InvalidParameter, "point at a declaration", "%s: nothing to move here", g.rel)
}

func usesIota(vs *ast.ValueSpec) bool {
	found := false
	for _, v := range vs.Values {
		ast.Inspect(v, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
				found = true
			}
			return !found
		})
	}
	return found
}

// declaredNames lists the package-level names a piece declares.
func declaredNames(n ast.Node) []string {
	switch d := n.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil {
			return nil
		}
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var out []string
		for _, s := range d.Specs {
			out = append(out, declaredNames(s)...)
		}
		return out
	case *ast.TypeSpec:
		return []string{d.Name.Name}
	case *ast.ValueSpec:
		var out []string
		for _, n := range d.Names {
			out = append(out, n.Name)
		}
		return out
	}
	return nil
}

// planGoMove computes a Go move.
func planGoMove(in goMoveInput) (goMoveOutput, error) {
	out := goMoveOutput{Texts: map[string]string{}}
	parsed := map[string]*goFile{}
	fset := token.NewFileSet()
	parse := func(rel string) (*goFile, error) {
		if g, ok := parsed[rel]; ok {
			return g, nil
		}
		text, ok := in.Files[rel]
		if !ok {
			return nil, fmt.Errorf("%s was not read", rel)
		}
		g, err := parseGoFile(fset, rel, text)
		if err != nil {
			return nil, moveErr(apierr.PreconditionFailed, "fix the syntax error first (get_diagnostics lists it)",
				"%s does not parse: %v", rel, err)
		}
		parsed[rel] = g
		return g, nil
	}
	src, err := parse(in.Source)
	if err != nil {
		return out, err
	}
	main, name, err := findGoDecl(src, in.Offset)
	if err != nil {
		return out, err
	}
	srcDir, tgtDir := path.Dir(in.Source), path.Dir(in.Target)
	srcPkg := src.f.Name.Name
	out.SamePackage = srcDir == tgtDir
	// The files of the source package (same folder and package name).
	var pkgFiles []*goFile
	for _, rel := range in.Dirs[srcDir] {
		g, err := parse(rel)
		if err != nil {
			return out, err
		}
		if g.f.Name.Name == srcPkg {
			pkgFiles = append(pkgFiles, g)
		}
	}
	pieces := []goPiece{main}
	if _, isType := main.node.(*ast.TypeSpec); isType || isTypeDecl(main.node) {
		// A type moves with its method set (the source file's methods
		// first).
		sorted := append([]*goFile(nil), pkgFiles...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].rel == in.Source && sorted[j].rel != in.Source })
		for _, g := range sorted {
			for _, d := range g.f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || goRecvBase(fd) != name {
					continue
				}
				start := fd.Pos()
				if fd.Doc != nil {
					start = fd.Doc.Pos()
				}
				p := goPiece{file: g.rel, node: fd, what: "method " + name + "." + fd.Name.Name}
				p.start, p.end = g.lines(start, fd.End())
				p.text = g.text[p.start:p.end]
				pieces = append(pieces, p)
			}
		}
	}
	for _, p := range pieces {
		out.Moved = append(out.Moved, p.what)
	}
	inMoved := func(file string, off int) bool {
		for _, p := range pieces {
			if p.file == file && off >= p.start && off < p.end {
				return true
			}
		}
		return false
	}
	if in.Source == in.Target {
		return out, moveErr(apierr.InvalidParameter, "pass another target_file", "%s is already in %s", name, in.Target)
	}

	// The target package: its name and top-level names.
	tgtPkg := ""
	tgtNames := map[string]bool{}
	for _, rel := range in.Dirs[tgtDir] {
		g, err := parse(rel)
		if err != nil {
			return out, err
		}
		if strings.HasSuffix(rel, "_test.go") && strings.HasSuffix(g.f.Name.Name, "_test") {
			continue
		}
		if rel == in.Target || tgtPkg == "" || !strings.HasSuffix(rel, "_test.go") {
			if tgtPkg == "" || rel == in.Target {
				tgtPkg = g.f.Name.Name
			}
		}
		if g.f.Name.Name != tgtPkg {
			continue
		}
		for _, d := range g.f.Decls {
			for _, n := range declaredNames(d) {
				tgtNames[n] = true
			}
		}
	}
	if in.TargetExists {
		g, err := parse(in.Target)
		if err != nil {
			return out, err
		}
		tgtPkg = g.f.Name.Name
	}
	if tgtPkg == "" {
		tgtPkg = goPackageNameFor(tgtDir)
		if out.SamePackage {
			tgtPkg = srcPkg
		}
	}
	out.Package = tgtPkg
	if out.SamePackage && tgtPkg != srcPkg {
		return out, moveErr(apierr.InvalidParameter, "pick a file of package "+srcPkg,
			"%s is in package %s, %s in package %s", in.Target, tgtPkg, in.Source, srcPkg)
	}
	srcPath, tgtPath := in.ImportPath(srcDir), in.ImportPath(tgtDir)

	// What the moved code uses: imports (by file) and, across packages,
	// package-level names of the source package.
	type use struct{ name, path string }
	usedImports := map[string]use{} // path -> local name as written
	for _, p := range pieces {
		g := parsed[p.file]
		names := map[string]string{}
		for _, spec := range g.f.Imports {
			if n, ip := importName(spec); n != "" {
				names[n] = ip
			} else if spec.Name != nil && spec.Name.Name == "." {
				return out, moveErr(apierr.Unsupported, "replace the dot import with a named one first",
					"%s dot-imports %s; nvbridge cannot tell which names the moved code takes from it", g.rel, ip)
			}
		}
		ast.Inspect(p.node, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := se.X.(*ast.Ident); ok && id.Obj == nil {
					if ip, ok := names[id.Name]; ok {
						usedImports[ip] = use{name: id.Name, path: ip}
					}
				}
			}
			return true
		})
	}
	// Package-level objects of the source package the moved code uses.
	var deps []types.Object
	var depIdents map[*ast.Ident]types.Object
	if !out.SamePackage {
		if _, isMethod := main.node.(*ast.FuncDecl); isMethod && goRecvBase(main.node.(*ast.FuncDecl)) != "" {
			return out, moveErr(apierr.Unsupported, "move the receiver type instead: it takes its method set along",
				"%s is a method of %s; a method must stay in its type's package: move the receiver type, it takes its method set along", main.what, goRecvBase(main.node.(*ast.FuncDecl)))
		}
		if tgtPkg == "main" {
			return out, moveErr(apierr.InvalidParameter, "pick a target file in an importable package",
				"%s is in package main, which no package can import", in.Target)
		}
		if tgtNames[name] {
			return out, moveErr(apierr.Conflict, "rename one of them first (rename_symbol)",
				"package %s (%s) already declares %s", tgtPkg, tgtDir, name)
		}
		deps, depIdents = sourceDeps(fset, pkgFiles, pieces)
		var unexported []string
		for _, o := range deps {
			if !o.Exported() {
				unexported = append(unexported, o.Name())
			}
		}
		if len(unexported) > 0 {
			return out, moveErr(apierr.PreconditionFailed,
				"move those too, or export them first (rename_symbol), then move",
				"the moved code uses unexported %s of package %s, which package %s could not reach", strings.Join(unexported, ", "), srcPkg, tgtPkg)
		}
	}

	// Rewrite the references.
	edits := map[string][]preview.ByteEdit{}
	for _, p := range pieces {
		edits[p.file] = append(edits[p.file], preview.ByteEdit{Start: p.start, End: p.end})
	}
	needTgt := map[string]bool{}     // files that must import the target package
	maybeUnused := map[string]bool{} // files whose source import may now be unused
	remaining := 0
	for _, r := range in.Refs {
		if inMoved(r.File, r.Offset) || out.SamePackage {
			continue
		}
		remaining++
		g, err := parse(r.File)
		if err != nil {
			return out, err
		}
		sel := selectorAt(g, r.Offset)
		rdir := path.Dir(r.File)
		internal := rdir == srcDir && g.f.Name.Name == srcPkg
		inTgt := rdir == tgtDir && g.f.Name.Name == tgtPkg
		switch {
		case sel != nil && inTgt:
			edits[r.File] = append(edits[r.File], preview.ByteEdit{Start: g.off(sel.X.Pos()), End: g.off(sel.Sel.Pos())})
			maybeUnused[r.File] = true
		case sel != nil:
			edits[r.File] = append(edits[r.File], preview.ByteEdit{Start: g.off(sel.X.Pos()), End: g.off(sel.X.End()), Text: tgtPlaceholder})
			needTgt[r.File] = true
			maybeUnused[r.File] = true
		case internal:
			edits[r.File] = append(edits[r.File], preview.ByteEdit{Start: r.Offset, End: r.Offset, Text: tgtPlaceholder + "."})
			needTgt[r.File] = true
		default:
			for _, spec := range g.f.Imports {
				if _, ip := importName(spec); ip == srcPath && spec.Name != nil && spec.Name.Name == "." {
					return out, moveErr(apierr.Unsupported, "replace the dot import with a named one first",
						"%s dot-imports %s; nvbridge does not rewrite references through a dot import", r.File, srcPath)
				}
			}
			return out, moveErr(apierr.OperationFailed, "report this",
				"%s: a reference to %s at byte %d is neither qualified nor in its package", r.File, name, r.Offset)
		}
		out.Qualified++
	}
	if !out.SamePackage && remaining > 0 && !ast.IsExported(name) {
		return out, moveErr(apierr.PreconditionFailed,
			"export it first (rename_symbol to "+exportedName(name)+"), then move it; or move its users along",
			"%s is unexported and still used %d time(s) outside the moved code; package %s could not reach it in package %s (export it first)",
			name, remaining, srcPkg, tgtPkg)
	}

	// The moved text, with qualifiers for what it uses from the source.
	var moved []string
	for _, p := range pieces {
		text := p.text
		// Names the moved code took from the target package lose their
		// qualifier there; names it uses from the source get one.
		var pe []preview.ByteEdit
		g := parsed[p.file]
		if !out.SamePackage {
			tgtNames := map[string]bool{}
			for _, spec := range g.f.Imports {
				if n, ip := importName(spec); n != "" && ip == tgtPath {
					tgtNames[n] = true
				}
			}
			ast.Inspect(p.node, func(n ast.Node) bool {
				if se, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := se.X.(*ast.Ident); ok && id.Obj == nil && tgtNames[id.Name] {
						pe = append(pe, preview.ByteEdit{Start: g.off(id.Pos()) - p.start, End: g.off(se.Sel.Pos()) - p.start})
					}
				}
				return true
			})
		}
		if len(deps) > 0 {
			for _, id := range identsIn(p.node) {
				if _, ok := depIdents[id]; ok {
					at := g.off(id.Pos()) - p.start
					pe = append(pe, preview.ByteEdit{Start: at, End: at, Text: srcPkg + "."})
				}
			}
			usedImports[srcPath] = use{name: srcPkg, path: srcPath}
		}
		if p.keyword != "" && len(pe) > 0 {
			return out, moveErr(apierr.Unsupported, "move the declaration out of its group first",
				"%s names other packages' declarations from inside a %s group", p.what, p.keyword)
		}
		if text, err = preview.ApplyByteEdits(text, pe); err != nil {
			return out, moveErr(apierr.OperationFailed, "report this", "%v", err)
		}
		moved = append(moved, strings.TrimRight(text, "\n"))
	}
	movedText := strings.Join(moved, "\n\n") + "\n"

	// New texts.
	newTexts := map[string]string{}
	for file, es := range edits {
		g, _ := parse(file)
		t, err := preview.ApplyByteEdits(g.text, es)
		if err != nil {
			return out, moveErr(apierr.OperationFailed, "report this", "%s: %v", file, err)
		}
		newTexts[file] = t
	}
	base := in.Files[in.Target]
	if t, ok := newTexts[in.Target]; ok {
		base = t
	}
	if !in.TargetExists {
		base = "package " + tgtPkg + "\n"
	}
	newTexts[in.Target] = strings.TrimRight(base, "\n") + "\n\n" + movedText

	// Imports: the target gets what the moved code uses; files that name
	// the target package import it; imports left unused go.
	var addFor = map[string][]use{}
	for _, u := range usedImports {
		addFor[in.Target] = append(addFor[in.Target], u)
	}
	for f := range needTgt {
		addFor[f] = append(addFor[f], use{path: tgtPath})
	}
	removeFrom := map[string][]string{}
	for f := range maybeUnused {
		removeFrom[f] = append(removeFrom[f], srcPath)
	}
	for _, p := range pieces {
		for ip := range usedImports {
			removeFrom[p.file] = append(removeFrom[p.file], ip)
		}
	}
	for file, text := range newTexts {
		want := map[string]string{}
		for _, u := range addFor[file] {
			switch {
			case u.path == tgtPath && file == in.Target:
				// the target does not import itself
			case u.path == tgtPath:
				want[u.path] = tgtPkg
			default:
				want[u.path] = u.name
			}
		}
		text, names, err := addImports(file, text, want)
		if err != nil {
			return out, err
		}
		if q, ok := names[tgtPath]; ok {
			text = strings.ReplaceAll(text, tgtPlaceholder, q)
		}
		if q, ok := names[srcPath]; ok && file == in.Target && q != srcPkg {
			return out, moveErr(apierr.Unsupported, "rename the import in "+file+" to "+srcPkg+" first",
				"%s imports %s as %s; the moved code names it %s", file, srcPath, q, srcPkg)
		}
		for _, ip := range removeFrom[file] {
			if text, err = dropUnusedImport(file, text, ip); err != nil {
				return out, err
			}
		}
		if strings.Contains(text, tgtPlaceholder) {
			return out, moveErr(apierr.OperationFailed, "report this", "%s: a qualifier was left unresolved", file)
		}
		formatted, err := format.Source([]byte(text))
		if err != nil {
			return out, moveErr(apierr.OperationFailed, "report this (nothing was changed)",
				"after the move %s would not parse: %v", file, err)
		}
		out.Texts[file] = string(formatted)
	}
	for f, t := range out.Texts {
		if in.Files[f] == t && (f != in.Target || in.TargetExists) {
			delete(out.Texts, f)
		}
	}
	if err := checkGoCycle(in, out.Texts); err != nil {
		return out, err
	}
	return out, nil
}

func isTypeDecl(n ast.Node) bool {
	gd, ok := n.(*ast.GenDecl)
	return ok && gd.Tok == token.TYPE && len(gd.Specs) == 1
}

func exportedName(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// goPackageNameFor is the package name for a new folder.
func goPackageNameFor(dir string) string {
	base := path.Base(dir)
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || unicode.IsDigit(rune(s[0])) {
		s = "pkg" + s
	}
	return s
}

// selectorAt returns the qualified identifier X.Name whose Name starts at
// off, when X is a plain identifier.
func selectorAt(g *goFile, off int) *ast.SelectorExpr {
	var found *ast.SelectorExpr
	ast.Inspect(g.f, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		if se, ok := n.(*ast.SelectorExpr); ok && g.off(se.Sel.Pos()) == off {
			if id, ok := se.X.(*ast.Ident); ok && id.Obj == nil {
				found = se
			}
		}
		return true
	})
	return found
}

func identsIn(n ast.Node) []*ast.Ident {
	var out []*ast.Ident
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			out = append(out, id)
		}
		return true
	})
	return out
}

// sourceDeps type-checks the source package with faked imports (errors
// ignored: Uses still names the package-level object each identifier
// refers to, shadowing taken into account) and returns the package-level
// objects the pieces use that do not move, with the identifiers naming
// them inside the pieces.
func sourceDeps(fset *token.FileSet, pkgFiles []*goFile, pieces []goPiece) ([]types.Object, map[*ast.Ident]types.Object) {
	var asts []*ast.File
	for _, g := range pkgFiles {
		asts = append(asts, g.f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: fakeImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check("src", fset, asts, info)
	movedNames := map[string]bool{}
	for _, p := range pieces {
		for _, n := range declaredNames(p.node) {
			movedNames[n] = true
		}
	}
	seen := map[types.Object]bool{}
	var out []types.Object
	idents := map[*ast.Ident]types.Object{}
	for _, p := range pieces {
		for _, id := range identsIn(p.node) {
			o := info.Uses[id]
			if o == nil || pkg == nil || o.Pkg() != pkg || o.Parent() != pkg.Scope() || movedNames[o.Name()] {
				continue
			}
			idents[id] = o
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, idents
}

type fakeImporter struct{}

func (fakeImporter) Import(p string) (*types.Package, error) {
	pk := types.NewPackage(p, guessPackageName(p))
	pk.MarkComplete()
	return pk, nil
}

// tgtPlaceholder stands for the target package's qualifier until each
// file's import of it is known (an identifier, so the file still parses).
const tgtPlaceholder = "nvbridgeMoveTarget__"

// addImports makes text import every path of want (path -> local name;
// an alias is written when the name is not the path's usual one) and
// returns the local name the file uses for each (an existing import of the
// path wins; a name taken by another import gets a number).
func addImports(file, text string, want map[string]string) (string, map[string]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, text, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return "", nil, moveErr(apierr.OperationFailed, "report this (nothing was changed)", "%s would not parse: %v", file, err)
	}
	names := map[string]string{}
	taken := map[string]bool{}
	for _, spec := range f.Imports {
		n, p := importName(spec)
		if _, ok := want[p]; ok && n != "" {
			names[p] = n
		}
		taken[n] = true
	}
	var paths []string
	for p := range want {
		if _, ok := names[p]; !ok {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return text, names, nil
	}
	sort.Strings(paths)
	var specs, std, other []string
	for _, p := range paths {
		local, alias := want[p], want[p] != guessPackageName(p)
		for i := 2; taken[local]; i++ {
			local, alias = fmt.Sprintf("%s%d", want[p], i), true
		}
		taken[local] = true
		names[p] = local
		spec := strconv.Quote(p)
		if alias {
			spec = local + " " + spec
		}
		specs = append(specs, spec)
		if strings.Contains(strings.Split(p, "/")[0], ".") {
			other = append(other, spec)
		} else {
			std = append(std, spec)
		}
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	m := preview.NewMapper(text)
	var last *ast.GenDecl
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			last = gd
		}
	}
	lines := func(ss []string) string {
		if len(ss) == 0 {
			return ""
		}
		return "\t" + strings.Join(ss, "\n\t") + "\n"
	}
	block := lines(std) + lines(other)
	if len(std) > 0 && len(other) > 0 {
		block = lines(std) + "\n" + lines(other)
	}
	isStd := func(spec *ast.ImportSpec) bool {
		p, _ := strconv.Unquote(spec.Path.Value)
		return !strings.Contains(strings.Split(p, "/")[0], ".")
	}
	switch {
	case last != nil && last.Lparen.IsValid() && len(last.Specs) > 0:
		// The standard library's imports go to the first group, the
		// others to the last (gofmt sorts each group); a new group when
		// the block has only the other kind.
		_, first := m.LineAround(off(last.Lparen))
		at, _ := m.LineAround(off(last.Rparen))
		if strings.TrimSpace(text[at:off(last.Rparen)]) != "" || first > at {
			at = off(last.Rparen) // ) on a spec's line
			return text[:at] + "\n" + lines(specs) + text[at:], names, nil
		}
		head, tail := lines(std), lines(other)
		if head != "" && !isStd(last.Specs[0].(*ast.ImportSpec)) {
			head += "\n"
		}
		if tail != "" && isStd(last.Specs[len(last.Specs)-1].(*ast.ImportSpec)) {
			tail = "\n" + tail
		}
		return text[:first] + head + text[first:at] + tail + text[at:], names, nil
	case last != nil && len(last.Specs) == 1 && !last.Lparen.IsValid():
		// import "x" becomes a block.
		spec := last.Specs[0].(*ast.ImportSpec)
		old := text[off(spec.Pos()):off(spec.End())]
		if isStd(spec) {
			std = append([]string{old}, std...)
		} else {
			other = append([]string{old}, other...)
		}
		block := lines(std) + lines(other)
		if len(std) > 0 && len(other) > 0 {
			block = lines(std) + "\n" + lines(other)
		}
		return text[:off(last.Pos())] + "import (\n" + block + ")" + text[off(last.End()):], names, nil
	case last != nil:
		at := off(last.End())
		return text[:at] + "\nimport (\n" + block + ")" + text[at:], names, nil
	case len(specs) == 1:
		_, at := m.LineAround(off(f.Name.End()))
		return text[:at] + "\nimport " + specs[0] + "\n" + text[at:], names, nil
	default:
		_, at := m.LineAround(off(f.Name.End()))
		return text[:at] + "\nimport (\n" + block + ")\n" + text[at:], names, nil
	}
}

// dropUnusedImport removes text's import of ip when its name is no longer
// used (blank and dot imports stay).
func dropUnusedImport(file, text, ip string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, text, parser.ParseComments)
	if err != nil {
		return "", moveErr(apierr.OperationFailed, "report this (nothing was changed)", "%s would not parse: %v", file, err)
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	m := preview.NewMapper(text)
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, s := range gd.Specs {
			spec := s.(*ast.ImportSpec)
			n, p := importName(spec)
			if p != ip || n == "" || usesName(f, n) {
				continue
			}
			if len(gd.Specs) == 1 {
				start := gd.Pos()
				if gd.Doc != nil {
					start = gd.Doc.Pos()
				}
				a, b := m.WholeLines(off(start), off(gd.End()))
				return text[:a] + text[b:], nil
			}
			start := spec.Pos()
			if spec.Doc != nil {
				start = spec.Doc.Pos()
			}
			a, b := m.WholeLines(off(start), off(spec.End()))
			if strings.TrimSpace(text[a:off(start)]) != "" || strings.TrimSpace(text[off(spec.End()):b]) != "" && spec.Comment == nil {
				// Shares its line with other tokens: cut the spec alone.
				return text[:off(start)] + text[off(spec.End()):], nil
			}
			return text[:a] + text[b:], nil
		}
	}
	return text, nil
}

// usesName reports whether f uses name as a package qualifier.
func usesName(f *ast.File, name string) bool {
	used := false
	ast.Inspect(f, func(n ast.Node) bool {
		if se, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := se.X.(*ast.Ident); ok && id.Name == name && id.Obj == nil {
				used = true
			}
		}
		return !used
	})
	return used
}

// checkGoCycle refuses a move whose new imports close a cycle in the
// workspace's package graph: among non-test files, or through a package's
// own (internal) test files, which go test refuses too. The packages the
// move touches are read again from their new texts.
func checkGoCycle(in goMoveInput, newTexts map[string]string) error {
	graph, tests := map[string][]string{}, map[string][]string{}
	for k, v := range in.Graph {
		graph[k] = v
	}
	for k, v := range in.TestGraph {
		tests[k] = v
	}
	touched := map[string]bool{}
	for f := range newTexts {
		touched[path.Dir(f)] = true
	}
	var changed []string
	for dir := range touched {
		ip := in.ImportPath(dir)
		if ip == "" {
			continue
		}
		files := append([]string(nil), in.Dirs[dir]...)
		if _, ok := newTexts[in.Target]; ok && path.Dir(in.Target) == dir && !in.TargetExists {
			files = append(files, in.Target)
		}
		var edges, testEdges []string
		seen, seenTest := map[string]bool{}, map[string]bool{}
		for _, f := range files {
			text, ok := newTexts[f]
			if !ok {
				text = in.Files[f]
			}
			pf, err := parser.ParseFile(token.NewFileSet(), f, text, parser.ImportsOnly)
			if err != nil {
				continue
			}
			isTest := strings.HasSuffix(f, "_test.go")
			if isTest && strings.HasSuffix(pf.Name.Name, "_test") {
				continue // an external test package may import anything
			}
			for _, spec := range pf.Imports {
				p, _ := strconv.Unquote(spec.Path.Value)
				switch {
				case isTest && !seenTest[p]:
					seenTest[p] = true
					testEdges = append(testEdges, p)
				case !isTest && !seen[p]:
					seen[p] = true
					edges = append(edges, p)
				}
			}
		}
		sort.Strings(edges)
		sort.Strings(testEdges)
		graph[ip], tests[ip] = edges, testEdges
		changed = append(changed, ip)
	}
	sort.Strings(changed)
	refuse := func(chain []string, test bool) error {
		what := "an import cycle"
		if test {
			what = "an import cycle through " + chain[0] + "'s own tests (go test refuses it)"
		}
		return apierr.Errorf(apierr.PreconditionFailed,
			"move the code that creates the dependency along, or pick a target package that does not import the source",
			"the move would create %s: %s", what, strings.Join(chain, " -> ")).
			WithDetails(map[string]any{"cycle": chain})
	}
	for _, u := range changed {
		for _, v := range graph[u] {
			if cyc := pathBetween(graph, v, u); cyc != nil && !(slices.Contains(in.Graph[u], v) && pathBetween(in.Graph, v, u) != nil) {
				return refuse(append([]string{u}, cyc...), false)
			}
		}
	}
	var pkgs []string
	for p := range tests {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		for _, v := range tests[p] {
			if cyc := pathBetween(graph, v, p); cyc != nil && (pathBetween(in.Graph, v, p) == nil || !slices.Contains(in.TestGraph[p], v)) {
				return refuse(append([]string{p}, cyc...), true)
			}
		}
	}
	return nil
}

// pathBetween returns a path of imports from a to b (both included), nil
// when there is none.
func pathBetween(g map[string][]string, a, b string) []string {
	prev := map[string]string{a: ""}
	queue := []string{a}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u == b {
			var out []string
			for x := b; x != ""; x = prev[x] {
				out = append([]string{x}, out...)
			}
			return out
		}
		for _, v := range g[u] {
			if _, ok := prev[v]; !ok {
				if _, known := g[v]; known || v == b {
					prev[v] = u
					queue = append(queue, v)
				}
			}
		}
	}
	return nil
}
