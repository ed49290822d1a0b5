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
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// goFormatKeeps is Go's FormatKeeps in one step.
func goFormatKeeps(src string, at []int, renamed string) bool {
	return goFormatKeepsOf(src, "")(at, renamed)
}

// goFormatKeepsOf is Go's FormatKeeps. With name (the name the renames
// replace), the paragraphs of the file and the bodies of its functions
// that do not mention it are not parsed (goBlanked): an offset in one of
// them parses the whole file then.
func goFormatKeepsOf(src, name string) func(at []int, renamed string) bool {
	if name != "" && goBlankWorth(src, name) {
		if blanked, skipped, bodies := goBlanked(src, name); skipped != nil {
			if f, tf, ok := goParseBlanked(blanked, bodies); ok {
				keeps := goKeepsParsed(f, tf, name)
				// Parsed whole once, by whichever call needs it first: a
				// FormatKeeps may be kept and called by renames side by
				// side (refactor's formatKeepsOf).
				whole := sync.OnceValue(func() func(at []int, renamed string) bool { return goFormatKeepsOf(src, "") })
				return func(at []int, renamed string) bool {
					for _, off := range at {
						if i := sort.Search(len(skipped), func(i int) bool { return skipped[i].End > off }); i < len(skipped) && skipped[i].Start <= off {
							return whole()(at, renamed)
						}
					}
					return keeps(at, renamed)
				}
			}
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return func([]int, string) bool { return false }
	}
	return goKeepsParsed(f, fset.File(f.Pos()), name)
}

// goParseBlanked parses text, src blanked by goBlanked; ok when it parses
// and each of the bodies blanked is the inside of a function's body.
func goParseBlanked(text string, bodies []Span) (*ast.File, *token.File, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", text, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, false
	}
	tf := fset.File(f.Pos())
	k := 0
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && k < len(bodies) &&
			tf.Offset(fd.Body.Lbrace)+1 == bodies[k].Start && tf.Offset(fd.Body.Rbrace) == bodies[k].End {
			k++
		}
	}
	return f, tf, k == len(bodies)
}

// goBlanked is src with the paragraphs (but the package clause's) and the
// function bodies that do not mention name blanked (each byte but a line
// break a space: every other byte where it was), the spans blanked in
// order, and the bodies among them; none (nil) when src does not lex. A
// paragraph (goLex) holds whole declarations and their comments, apart
// from the others' by an empty line; a body is blanked when its function
// starts a line ("func ..."), its "{" ends that line and its "}" is alone
// on its own: no comment, token or line shares a line with a blanked
// byte, so the positions, lines and comment groups outside are src's, and
// no node outside holds a blanked one (goParseBlanked checks the bodies).
// A //line comment, which renumbers the lines after it, is not blanked.
func goBlanked(src, name string) (text string, skipped, bodies []Span) {
	allBodies, paras, head, ok := goLex(src)
	if !ok {
		return "", nil, nil
	}
	mentions := func(sp Span) bool {
		t := src[sp.Start:sp.End]
		return strings.Contains(t, name) || strings.Contains(t, "//line") || strings.Contains(t, "/*line")
	}
	for i, p := range paras {
		if i > head && !mentions(p) {
			skipped = append(skipped, p)
		}
	}
	inSkipped := func(b Span) bool {
		i := sort.Search(len(skipped), func(i int) bool { return skipped[i].End > b.Start })
		return i < len(skipped) && skipped[i].Start <= b.Start
	}
	for _, b := range allBodies {
		if !inSkipped(b) && !mentions(b) {
			bodies = append(bodies, b)
		}
	}
	if len(skipped)+len(bodies) == 0 {
		return "", nil, nil
	}
	skipped = append(skipped, bodies...)
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Start < skipped[j].Start })
	buf := []byte(src)
	for _, sp := range skipped {
		for i := sp.Start; i < sp.End; i++ {
			if buf[i] != '\n' {
				buf[i] = ' '
			}
		}
	}
	return unsafe.String(unsafe.SliceData(buf), len(buf)), skipped, bodies // buf is not written again
}

// goBlankWorth reports whether goBlanked may blank a quarter of src for
// name, as far as a look for empty lines, "\nfunc " and "\n}\n" tells
// (the paragraphs and bodies goLex would find, but for what brackets,
// strings and comments hold): the lexing and the copy cost less than the
// parse of what they blank then.
func goBlankWorth(src, name string) bool {
	paras := 0
	for rest := src; rest != ""; {
		p, after, _ := strings.Cut(rest, "\n\n")
		if !strings.Contains(p, name) {
			paras += len(p)
		}
		rest = after
	}
	if paras*4 >= len(src) {
		return true
	}
	blankable := 0
	for i := 0; i < len(src); {
		start := strings.Index(src[i:], "\nfunc ")
		if start < 0 {
			break
		}
		start += i
		end := strings.Index(src[start:], "\n}\n")
		if end < 0 {
			break
		}
		end += start
		if !strings.Contains(src[start:end], name) {
			blankable += end - start
		}
		i = end + 2
	}
	return blankable*4 >= len(src)
}

// goFuncBodies are the insides (between "{" and "}") of src's top-level
// brace pairs whose "{" ends a line starting with "func" and whose "}" is
// alone on its line: function bodies, unless the parse says otherwise
// (goParseBlanked checks). ok is false when src does not lex (an
// unterminated string or comment, unbalanced braces).
func goFuncBodies(src string) (bodies []Span, ok bool) {
	bodies, _, _, ok = goLex(src)
	return bodies, ok
}

// goLex lexes src for goBlanked: the insides of the function bodies
// goFuncBodies tells, and src's paragraphs: the runs of lines between
// empty ones where the empty line lies outside every bracket, string and
// comment, after a token that ends a statement at a line's end (an
// identifier but a keyword other than break, continue, fallthrough and
// return; a literal; ")", "]", "}", "++", "--"), so that no declaration
// holds it; head is the index of the paragraph holding the first token
// (the package clause).
func goLex(src string) (bodies, paras []Span, head int, ok bool) {
	depth, nest, open := 0, 0, -1
	lineStart, paraStart := 0, 0
	semi, seen := true, false
	head = -1
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !seen && c != '\n' && c != ' ' && c != '\t' && c != '\r' && c != '/' {
			seen, head = true, len(paras)
		}
		switch c {
		case '\n':
			if i > 0 && src[i-1] == '\n' && depth == 0 && nest == 0 && semi {
				if paraStart < i {
					paras = append(paras, Span{Start: paraStart, End: i})
				}
				paraStart = i + 1
			}
			lineStart = i + 1
		case ' ', '\t', '\r':
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				end := strings.IndexByte(src[i:], '\n')
				if end < 0 {
					i = len(src)
					break
				}
				i += end - 1 // the line break is read next
			} else if i+1 < len(src) && src[i+1] == '*' {
				end := strings.Index(src[i+2:], "*/")
				if end < 0 {
					return nil, nil, 0, false
				}
				end += i + 2
				if nl := strings.LastIndexByte(src[i:end], '\n'); nl >= 0 {
					lineStart = i + nl + 1
				}
				i = end + 1
			} else {
				semi = false
			}
		case '"', '\'':
			j := i + 1
			for ; j < len(src) && src[j] != c; j++ {
				if src[j] == '\n' {
					return nil, nil, 0, false
				}
				if src[j] == '\\' {
					j++
				}
			}
			if j >= len(src) {
				return nil, nil, 0, false
			}
			i, semi = j, true
		case '`':
			end := strings.IndexByte(src[i+1:], '`')
			if end < 0 {
				return nil, nil, 0, false
			}
			end += i + 1
			if nl := strings.LastIndexByte(src[i:end], '\n'); nl >= 0 {
				lineStart = i + nl + 1
			}
			i, semi = end, true
		case '{':
			if depth == 0 {
				open = -1
				if strings.HasPrefix(src[lineStart:], "func") && restOfLineBlank(src, i+1) {
					open = i + 1
				}
			}
			depth++
			semi = false
		case '}':
			depth--
			if depth < 0 {
				return nil, nil, 0, false
			}
			if depth == 0 && open >= 0 && lineStart == i && restOfLineBlank(src, i+1) {
				bodies = append(bodies, Span{Start: open, End: i})
			}
			semi = true
		case '(', '[':
			nest++
			semi = false
		case ')', ']':
			if nest--; nest < 0 {
				return nil, nil, 0, false
			}
			semi = true
		case '+', '-':
			semi = i > 0 && src[i-1] == c && !semi
			if semi && i+1 < len(src) && src[i+1] == c {
				semi = false
			}
		default:
			if goWordByte[c] {
				j := i + 1
				for j < len(src) && goWordByte[src[j]] {
					j++
				}
				w := src[i:j]
				semi = w[len(w)-1] != '.' && !goKeywordGoesOn(w)
				i = j - 1
			} else {
				semi = false
			}
		}
	}
	if paraStart < len(src) {
		paras = append(paras, Span{Start: paraStart, End: len(src)})
	}
	return bodies, paras, head, depth == 0 && nest == 0
}

// goWordByte: the bytes of identifiers, keywords and numbers (a "." of
// a selector or a float too), any byte of a multibyte letter.
var goWordByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '_' || c == '.' || c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// goKeywordGoesOn reports whether w is a keyword after which a statement
// goes on past the line's end (all but break, continue, fallthrough and
// return).
func goKeywordGoesOn(w string) bool {
	switch w {
	case "case", "chan", "const", "default", "defer", "else", "for", "func", "go", "goto", "if", "import",
		"interface", "map", "package", "range", "select", "struct", "switch", "type", "var":
		return true
	}
	return false
}

// restOfLineBlank reports whether src holds only spaces and tabs from i
// to the end of its line.
func restOfLineBlank(src string, i int) bool {
	for ; i < len(src) && src[i] != '\n'; i++ {
		if src[i] != ' ' && src[i] != '\t' && src[i] != '\r' {
			return false
		}
	}
	return true
}

// goKeepsParsed is Go's FormatKeeps of the file f (tf) parsed. With name,
// whether each identifier named so is free of layout (layoutFree) is
// told once, here: the parse is made while the server computes the
// rename (and kept for the next rename of the name), the answer after
// its edit came; an offset on another identifier is told then.
func goKeepsParsed(f *ast.File, tf *token.File, name string) func(at []int, renamed string) bool {
	line := func(p token.Pos) int { return tf.Line(p) }
	var named map[token.Pos]bool
	if name != "" {
		named = layoutFreeNamed(f, name, line)
	}
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
	inComment := func(pos token.Pos) (inGroup, bool) {
		if i := sort.Search(len(comments), func(i int) bool { return comments[i].c.End() > pos }); i < len(comments) && comments[i].c.Pos() <= pos {
			return comments[i], true
		}
		return inGroup{}, false
	}
	// The offsets of the name's identifiers renamed as they are whatever
	// the new name (free, on a line without a comment), sorted: a rename
	// of those alone is told by them. The search of the comments, the
	// line of each offset and the maps, asked after the server's answer,
	// read the parse's nodes scattered over the heap, cold by then (6-7 us
	// for a rename's nine edits on zap's logger.go).
	var ready []int
	for pos, free := range named {
		if _, in := inComment(pos); free && !in && !commented[line(pos)] {
			ready = append(ready, tf.Offset(pos))
		}
	}
	slices.Sort(ready)
	return func(at []int, renamed string) bool {
		all := len(ready) > 0
		for _, off := range at {
			if _, found := slices.BinarySearch(ready, off); !found {
				all = false
				break
			}
		}
		if all {
			return true
		}
		var groups map[*ast.CommentGroup][]int
		for _, off := range at {
			if off < 0 || off >= tf.Size() {
				return false
			}
			pos := tf.Pos(off)
			if c, in := inComment(pos); in {
				if groups == nil {
					groups = map[*ast.CommentGroup][]int{}
				}
				groups[c.g] = append(groups[c.g], off)
				continue
			}
			free, told := named[pos]
			if !told {
				free = layoutFree(f, pos, line)
			}
			if commented[line(pos)] || !free {
				return false
			}
		}
		for g, offs := range groups {
			if !commentKeeps(tf, f, g, offs, renamed, line) {
				return false
			}
		}
		return true
	}
}

// commentKeeps reports whether gofmt prints the comment group g of f
// (tf) as it is once the identifiers starting at the byte offsets
// offs (in g's comments) are renamed: a group of // comments, none a
// directive or a build constraint, outside anything laid out by width,
// and, when it starts a line (gofmt then formats it as a doc comment),
// one that go/doc/comment prints as it reads, renamed.
func commentKeeps(tf *token.File, f *ast.File, g *ast.CommentGroup, offs []int, renamed string, line func(token.Pos) int) bool {
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
	free, onIdent := layoutWalk(f, pos, line)
	return free && onIdent
}

// layoutFreeNamed is layoutFree at each identifier of f named name, by
// its position, told in one walk of f: an identifier is free when none
// of the nodes holding it is laid out by width (the nodes layoutAround
// walks to it).
func layoutFreeNamed(f *ast.File, name string, line func(token.Pos) int) map[token.Pos]bool {
	out := map[token.Pos]bool{}
	// The walk's state: whether the nodes entered so far are free, one
	// entry a node (ast.Inspect calls nil when it leaves one).
	stack := []bool{true}
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		free := stack[len(stack)-1] && layoutFreeNode(n, line)
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			out[id.Pos()] = free
		}
		stack = append(stack, free)
		return true
	})
	return out
}

// layoutFreeNode reports whether n itself lays nothing out by width (as
// layoutAround judges each node around a position).
func layoutFreeNode(n ast.Node, line func(token.Pos) int) bool {
	oneLine := func(b *ast.BlockStmt) bool { return b != nil && line(b.Lbrace) == line(b.Rbrace) }
	switch n := n.(type) {
	case *ast.StructType, *ast.InterfaceType, *ast.KeyValueExpr:
		return false
	case *ast.GenDecl:
		return !n.Lparen.IsValid()
	case *ast.CompositeLit:
		return line(n.Lbrace) == line(n.Rbrace)
	case *ast.FuncDecl:
		return !oneLine(n.Body)
	case *ast.FuncLit:
		return !oneLine(n.Body)
	case *ast.BlockStmt:
		return !oneLine(n)
	}
	return true
}

// layoutWalk is layoutAround (a test counts the walks).
var layoutWalk = layoutAround

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
	// From the declaration holding pos, when one does: the file's other
	// nodes (its package clause, the other declarations) hold no pos.
	var from ast.Node = f
	if i := sort.Search(len(f.Decls), func(i int) bool { return f.Decls[i].End() > pos }); i < len(f.Decls) && f.Decls[i].Pos() <= pos {
		from = f.Decls[i]
	}
	ast.Inspect(from, func(n ast.Node) bool {
		if n == nil || !free || pos < n.Pos() || pos >= n.End() {
			return false
		}
		if id, ok := n.(*ast.Ident); ok {
			onIdent = onIdent || id.Pos() == pos
		}
		free = layoutFreeNode(n, line)
		return free
	})
	return free, onIdent
}
