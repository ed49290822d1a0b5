package lang

// Whether gofmt would change a formatted Go file once identifiers in it
// were renamed, told from its syntax without printing it: gofmt lays out
// by width only where it aligns columns (the fields of a struct or an
// interface, a parenthesised group of constants, variables or types, the
// keys of a composite literal written over several lines, comments after
// code, one-line function bodies side by side) and where it keeps a
// function's body on one line (while the whole fits in 100 columns).
// Anywhere else a name of another width leaves every other byte as gofmt
// prints it.

import (
	"go/ast"
	"go/parser"
	"go/token"
)

// goFormatKeeps is Go's FormatKeeps in one step.
func goFormatKeeps(src string, at []int) bool { return goFormatKeepsOf(src)(at) }

// goFormatKeepsOf is Go's FormatKeeps.
func goFormatKeepsOf(src string) func(at []int) bool {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return func([]int) bool { return false }
	}
	tf := fset.File(f.Pos())
	line := func(p token.Pos) int { return tf.Line(p) }
	commented := map[int]bool{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			for l := line(c.Pos()); l <= line(c.End()); l++ {
				commented[l] = true
			}
		}
	}
	return func(at []int) bool {
		for _, off := range at {
			if off < 0 || off >= tf.Size() {
				return false
			}
			pos := tf.Pos(off)
			if commented[line(pos)] || !layoutFree(f, pos, line) {
				return false
			}
		}
		return true
	}
}

// layoutFree reports whether no node around pos is laid out by width.
func layoutFree(f *ast.File, pos token.Pos, line func(token.Pos) int) bool {
	free, found := true, false
	oneLine := func(b *ast.BlockStmt) bool { return b != nil && line(b.Lbrace) == line(b.Rbrace) }
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || !free || pos < n.Pos() || pos >= n.End() {
			return false
		}
		switch n := n.(type) {
		case *ast.Ident:
			found = found || n.Pos() == pos
		case *ast.StructType, *ast.InterfaceType, *ast.KeyValueExpr:
			free = false
		case *ast.GenDecl:
			free = !n.Lparen.IsValid()
		case *ast.CompositeLit:
			free = line(n.Lbrace) == line(n.Rbrace)
		case *ast.FuncDecl:
			free = !oneLine(n.Body)
		case *ast.FuncLit:
			free = !oneLine(n.Body)
		case *ast.BlockStmt:
			free = !oneLine(n)
		}
		return free
	})
	return free && found
}
