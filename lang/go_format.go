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
//
// A name in a // comment (gopls renames the mentions in doc comments)
// moves nothing either: gofmt prints a comment's text as it is, except a
// doc comment at the start of a line, which it parses and prints again as
// go/doc/comment does (an old-style heading, a list, a code block): that
// one is kept when printing it again gives its renamed text back, which
// is told from the comment alone.

import (
	"go/ast"
	"go/build/constraint"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// goFormatKeeps is Go's FormatKeeps in one step.
func goFormatKeeps(src string, at []int, renamed string) bool {
	return goFormatKeepsOf(src)(at, renamed)
}

// goFormatKeepsOf is Go's FormatKeeps.
func goFormatKeepsOf(src string) func(at []int, renamed string) bool {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return func([]int, string) bool { return false }
	}
	tf := fset.File(f.Pos())
	line := func(p token.Pos) int { return tf.Line(p) }
	commented := map[int]bool{}
	// Every comment in source order, with its group.
	type inGroup struct {
		c *ast.Comment
		g *ast.CommentGroup
	}
	var comments []inGroup
	for _, g := range f.Comments {
		for _, c := range g.List {
			comments = append(comments, inGroup{c, g})
			for l := line(c.Pos()); l <= line(c.End()); l++ {
				commented[l] = true
			}
		}
	}
	return func(at []int, renamed string) bool {
		var groups map[*ast.CommentGroup][]int
		for _, off := range at {
			if off < 0 || off >= tf.Size() {
				return false
			}
			pos := tf.Pos(off)
			if i := sort.Search(len(comments), func(i int) bool { return comments[i].c.End() > pos }); i < len(comments) && comments[i].c.Pos() <= pos {
				if groups == nil {
					groups = map[*ast.CommentGroup][]int{}
				}
				groups[comments[i].g] = append(groups[comments[i].g], off)
				continue
			}
			if commented[line(pos)] || !layoutFree(f, pos, line) {
				return false
			}
		}
		for g, offs := range groups {
			if !commentKeeps(src, tf, f, g, offs, renamed, line) {
				return false
			}
		}
		return true
	}
}

// commentKeeps reports whether gofmt prints the comment group g of f
// (src, tf) as it is once the identifiers starting at the byte offsets
// offs (in g's comments) are renamed: a group of // comments, none a
// directive or a build constraint, outside anything laid out by width,
// and, when it starts a line (gofmt then formats it as a doc comment),
// one that go/doc/comment prints as it reads, renamed.
func commentKeeps(src string, tf *token.File, f *ast.File, g *ast.CommentGroup, offs []int, renamed string, line func(token.Pos) int) bool {
	if renamed == "" || !layoutFreeAround(f, g.Pos(), line) {
		return false
	}
	sort.Ints(offs)
	texts := make([]string, len(g.List))
	k := 0
	for i, c := range g.List {
		start := tf.Offset(c.Pos())
		text := c.Text
		if !strings.HasPrefix(text, "//") || goDirectiveComment(text) {
			return false
		}
		var b strings.Builder
		last := 0
		for ; k < len(offs) && offs[k] < start+len(text); k++ {
			rel := offs[k] - start
			n := goIdentLen(text[rel:])
			if rel < 2 || rel < last || n == 0 {
				return false
			}
			b.WriteString(text[last:rel])
			b.WriteString(renamed)
			last = rel + n
		}
		b.WriteString(text[last:])
		texts[i] = b.String()
		if texts[i] != text && goDirectiveComment(texts[i]) {
			return false
		}
	}
	if k != len(offs) {
		return false
	}
	if tf.Position(g.Pos()).Column != 1 {
		// Printed as it is (go/printer formats doc comments only where
		// they start a line).
		return true
	}
	// As go/printer's doc comment formatting: the text after each "//"
	// (one space cut), parsed and printed again, each line then "//",
	// "//\t..." or "// ...".
	var b strings.Builder
	for _, t := range texts {
		b.WriteString(strings.TrimPrefix(t[2:], " "))
		b.WriteString("\n")
	}
	var p comment.Parser
	var pr comment.Printer
	out := string(pr.Comment(p.Parse(b.String())))
	for _, t := range texts {
		l, rest, _ := strings.Cut(out, "\n")
		switch {
		case l == "":
			l = "//"
		case strings.HasPrefix(l, "\t"):
			l = "//" + l
		default:
			l = "// " + l
		}
		if l != t {
			return false
		}
		out = rest
	}
	return out == ""
}

// goDirectiveComment reports whether the // comment text is one gofmt
// treats apart: a directive (//go:..., //line, //export, //extern) or a
// build constraint.
func goDirectiveComment(text string) bool {
	after := text[2:]
	if strings.HasPrefix(after, "line ") || strings.HasPrefix(after, "extern ") || strings.HasPrefix(after, "export ") ||
		constraint.IsGoBuild(text) || constraint.IsPlusBuild(text) {
		return true
	}
	// //[a-z0-9]+:[a-z0-9]
	colon := strings.Index(after, ":")
	if colon <= 0 || colon+1 >= len(after) {
		return false
	}
	for i := 0; i <= colon+1; i++ {
		if c := after[i]; i != colon && !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// goIdentLen is the length in bytes of the Go identifier s starts with (0:
// none).
func goIdentLen(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if r != '_' && !unicode.IsLetter(r) && (n == 0 || !unicode.IsDigit(r)) {
			break
		}
		n += size
	}
	return n
}

// layoutFree reports whether no node around pos is laid out by width and
// an identifier starts at pos.
func layoutFree(f *ast.File, pos token.Pos, line func(token.Pos) int) bool {
	free, onIdent := layoutAround(f, pos, line)
	return free && onIdent
}

// layoutFreeAround reports whether no node around pos (a comment's, on no
// identifier) is laid out by width.
func layoutFreeAround(f *ast.File, pos token.Pos, line func(token.Pos) int) bool {
	free, _ := layoutAround(f, pos, line)
	return free
}

// layoutAround walks the nodes around pos: free when none is laid out by
// width (a struct, an interface, a key-value pair, a parenthesised
// declaration group, a composite literal over several lines, a body on
// one line), onIdent when an identifier starts at pos.
func layoutAround(f *ast.File, pos token.Pos, line func(token.Pos) int) (free, onIdent bool) {
	free = true
	oneLine := func(b *ast.BlockStmt) bool { return b != nil && line(b.Lbrace) == line(b.Rbrace) }
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || !free || pos < n.Pos() || pos >= n.End() {
			return false
		}
		switch n := n.(type) {
		case *ast.Ident:
			onIdent = onIdent || n.Pos() == pos
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
	return free, onIdent
}
