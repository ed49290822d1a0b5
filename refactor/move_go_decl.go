package refactor

// The Go move's declarations: the top-level declaration at an offset (with
// its doc comment; a spec cut out of its group gets its keyword), the names
// a declaration declares, and what of the source package the moved code
// uses (go/types with faked imports).

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

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
