package lang

// Calls: which call's argument list a position is in, read from the code's
// brackets (strings and comments skipped). Signature help names no callee;
// nvbridge asks where the callee is declared before showing what a server
// says about it.

// tokenKind classifies a code token.
type tokenKind uint8

const (
	tokIdent tokenKind = iota // an identifier or a keyword
	tokOpen                   // ( [ {
	tokClose                  // ) ] }
	tokOther                  // a string, a number, an operator
)

// codeToken is one token of a source text.
type codeToken struct {
	Span
	kind tokenKind
}

// closerOf pairs brackets.
var closerOf = map[byte]byte{'(': ')', '[': ']', '{': '}'}

// OpenCall returns the span of the identifier naming the innermost call
// whose argument list src leaves open (src: the text up to a position),
// by l's syntax (nil: the generic one): "Sign" for `secret.Sign(a, b`,
// "Map" for `Map[int](x`. A parenthesis that does not follow a name (a
// grouping one, `if (`, `func(`) is not a call: the enclosing one is
// looked for. ok is false when src leaves no call open.
func OpenCall(l *Language, src string) (callee Span, ok bool) {
	id := identOf(l)
	lx := &identLexer{id: id, src: src, line: id.LineComment}
	if lx.line == "" && !id.HashComments {
		lx.line = "//"
	}
	if id.HashComments {
		lx.line = "#"
	}
	lx.code(false)
	toks := lx.toks
	var open []int          // indices of the brackets still open
	opener := map[int]int{} // a closing bracket's index -> its opener's
	for i, t := range toks {
		switch t.kind {
		case tokOpen:
			open = append(open, i)
		case tokClose:
			// To the bracket it closes; a stray closer closes nothing.
			for j := len(open) - 1; j >= 0; j-- {
				if closerOf[src[toks[open[j]].Start]] == src[t.Start] {
					opener[i] = open[j]
					open = open[:j]
					break
				}
			}
		}
	}
	for j := len(open) - 1; j >= 0; j-- {
		k := open[j]
		if src[toks[k].Start] != '(' {
			continue // a list, index or block inside the call's arguments
		}
		p := k - 1
		if p >= 0 && toks[p].kind == tokClose && src[toks[p].Start] == ']' {
			if o, found := opener[p]; found {
				p = o - 1 // type arguments: Map[int](
			}
		}
		if p >= 0 && toks[p].kind == tokIdent && !id.Keywords[src[toks[p].Start:toks[p].End]] {
			return toks[p].Span, true
		}
	}
	return Span{}, false
}
