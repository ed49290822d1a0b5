package refactor

// The Go move's imports: adding the ones a file now needs (in the group
// gofmt expects, an alias when the name is taken or unusual) and dropping
// the ones left unused.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

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
	if last != nil && last.Lparen.IsValid() && len(last.Specs) > 0 {
		if out, ok := insertIntoGroups(text, fset, last, paths, specs); ok {
			return out, names, nil
		}
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

// insertIntoGroups adds specs (for paths, in the same order) to an import
// block whose specs each sit on lines of their own: each in the group
// (blank-line separated) whose imports share the longest path prefix with
// it, a standard library import in the standard library's group, at its
// sorted place (gofmt sorts within groups). ok is false when a path shares
// nothing with any group (the caller's rule then decides) or the block's
// layout is not one spec per line.
func insertIntoGroups(text string, fset *token.FileSet, block *ast.GenDecl, paths, specs []string) (string, bool) {
	m := preview.NewMapper(text)
	line := func(p token.Pos) int { l, _ := m.Position(fset.Position(p).Offset); return l }
	type group struct {
		paths      []string
		firstLines []int // each spec's first line
		last       int   // the group's last line
	}
	var groups []*group
	prevEnd := -2
	for _, sp := range block.Specs {
		is := sp.(*ast.ImportSpec)
		p, _ := strconv.Unquote(is.Path.Value)
		start, end := line(sp.Pos()), line(sp.End())
		if is.Doc != nil {
			start = line(is.Doc.Pos())
		}
		if start <= prevEnd {
			return "", false // two specs on a line
		}
		if start > prevEnd+1 || len(groups) == 0 {
			groups = append(groups, &group{})
		}
		g := groups[len(groups)-1]
		g.paths, g.firstLines, g.last = append(g.paths, p), append(g.firstLines, start), end
		prevEnd = end
	}
	if line(block.Rparen) <= prevEnd {
		return "", false
	}
	isStd := func(p string) bool { return !strings.Contains(strings.Split(p, "/")[0], ".") }
	shared := func(a, b string) int {
		as, bs := strings.Split(a, "/"), strings.Split(b, "/")
		n := 0
		for n < len(as) && n < len(bs) && as[n] == bs[n] {
			n++
		}
		return n
	}
	type ins struct {
		line, order int
		text        string
	}
	var adds []ins
	for i, p := range paths {
		best, bestN := -1, 0
		for gi, g := range groups {
			for _, q := range g.paths {
				n := shared(p, q)
				if isStd(p) && isStd(q) {
					n = 1 << 10
				}
				if n > bestN || n == bestN && n > 0 {
					best, bestN = gi, n
				}
			}
		}
		if best < 0 {
			return "", false
		}
		g := groups[best]
		at := g.last + 1
		for k, q := range g.paths {
			if q > p {
				at = g.firstLines[k]
				break
			}
		}
		adds = append(adds, ins{at, i, "\t" + specs[i] + "\n"})
	}
	// Bottom up, and at one line the last first, so each lands in order.
	sort.Slice(adds, func(i, j int) bool {
		return adds[i].line > adds[j].line || adds[i].line == adds[j].line && adds[i].order > adds[j].order
	})
	for _, a := range adds {
		off := m.LineOffset(a.line)
		text = text[:off] + a.text + text[off:]
	}
	return text, true
}
