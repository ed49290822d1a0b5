package lang

// Identifiers: validating a new name (rename_symbol, the name of an
// extracted function or variable) and finding identifier tokens in source
// text, outside strings and comments (naming what an extract introduced).

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nvbridge/nvbridge/apierr"
)

// Ident is a language's identifier and token syntax. The zero value is the
// generic C-like rule: a letter or _ then letters, digits or _; // and /* */
// comments; '...' and "..." strings.
type Ident struct {
	// Dollar: $ is a letter (JavaScript).
	Dollar bool
	// Marks: combining marks and connector punctuation may follow the
	// first rune (Python, JavaScript).
	Marks bool
	// Joiners: ZWNJ and ZWJ may follow the first rune (JavaScript).
	Joiners bool
	// Hyphens: - is a letter (CSS: custom properties start with --).
	Hyphens bool
	// Keywords may not name a symbol; KeywordKind says what they are
	// ("keyword" when empty, "reserved word").
	Keywords    map[string]bool
	KeywordKind string
	// Invalid are other names that cannot name a symbol, with the reason
	// (Go: "_").
	Invalid map[string]string

	// LineComment starts a comment to the end of the line ("//" when
	// empty and HashComments is false).
	LineComment string
	// HashComments: # starts a line comment and there are no /* */ ones
	// (Python).
	HashComments bool
	// Templates: `...${ code }...` template literals (JavaScript).
	Templates bool
	// RawStrings: `...` strings without escapes, across lines (Go).
	RawStrings bool
	// TripleQuotes: """...""" and '''...''' strings (Python).
	TripleQuotes bool
	// StringPrefixes are words that prefix a string literal (Python's r,
	// f, b, rb ...), compared lower case.
	StringPrefixes []string

	// Tokens overrides the token lexer (Go: go/scanner).
	Tokens func(src string) []Span
}

// Span is a byte range [Start, End) of a source text.
type Span struct{ Start, End int }

// WordSet builds a keyword set from a space-separated list.
func WordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func identOf(l *Language) *Ident {
	if l == nil {
		return &Ident{}
	}
	return &l.Ident
}

// ValidateIdentifier checks that name can name a symbol in l (nil: any
// language): an identifier by the language's rules and not a keyword.
func ValidateIdentifier(l *Language, name string) error {
	id := identOf(l)
	bad := func(why string) error {
		return apierr.Errorf(apierr.InvalidParameter,
			"pass a valid identifier: a letter or _ followed by letters, digits or _, not a keyword",
			"%q is not a valid %s identifier: %s", name, l.DisplayName(), why)
	}
	if name == "" {
		return bad("it is empty")
	}
	if !utf8.ValidString(name) {
		return bad("it is not valid UTF-8")
	}
	for i, r := range name {
		if !id.Rune(r, i == 0) {
			if i == 0 && unicode.IsDigit(r) {
				return bad("it starts with a digit")
			}
			return bad("it contains " + quoteRune(r))
		}
	}
	if id.Keywords[name] {
		kind := id.KeywordKind
		if kind == "" {
			kind = "keyword"
		}
		return bad("it is a " + kind)
	}
	if why, ok := id.Invalid[name]; ok {
		return bad(why)
	}
	return nil
}

func quoteRune(r rune) string {
	if unicode.IsSpace(r) {
		return "white space"
	}
	return "'" + string(r) + "'"
}

// Rune reports whether r may appear in an identifier (first: at its start).
func (id *Ident) Rune(r rune, first bool) bool {
	switch {
	case r == '_' || unicode.IsLetter(r):
		return true
	case r == '$':
		return id.Dollar
	case r == '-':
		return id.Hyphens
	case unicode.IsDigit(r):
		return !first
	case !first && id.Marks && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)):
		return true
	case !first && id.Joiners && (r == '\u200c' || r == '\u200d'):
		return true
	}
	return false
}

// Identifiers returns the identifier tokens of src (strings and comments
// skipped) in order, by l's syntax (nil: the generic one).
func Identifiers(l *Language, src string) []Span {
	id := identOf(l)
	if id.Tokens != nil {
		return id.Tokens(src)
	}
	lx := &identLexer{id: id, src: src, line: id.LineComment}
	if lx.line == "" && !id.HashComments {
		lx.line = "//"
	}
	if id.HashComments {
		lx.line = "#"
	}
	lx.code(false)
	return lx.out
}

// identLexer finds identifiers outside strings and comments, and the
// code's tokens in order (OpenCall reads its brackets).
type identLexer struct {
	id   *Ident
	line string // line comment start
	src  string
	i    int
	out  []Span
	toks []codeToken
}

// tok records the token src[start:l.i].
func (l *identLexer) tok(start int, kind tokenKind) {
	l.toks = append(l.toks, codeToken{Span{start, l.i}, kind})
}

// code lexes until the end, or (inTemplate) until the "}" closing a
// template literal's ${ ... }.
func (l *identLexer) code(inTemplate bool) {
	depth := 0
	for l.i < len(l.src) {
		c := l.src[l.i]
		start := l.i
		switch {
		case strings.HasPrefix(l.src[l.i:], l.line):
			l.skipLine()
		case c == '/' && !l.id.HashComments && strings.HasPrefix(l.src[l.i:], "/*"):
			if end := strings.Index(l.src[l.i+2:], "*/"); end >= 0 {
				l.i += 2 + end + 2
			} else {
				l.i = len(l.src)
			}
		case c == '"' || c == '\'':
			l.quoted()
			l.tok(start, tokOther)
		case c == '`' && l.id.Templates:
			l.template()
			l.tok(start, tokOther)
		case c == '`' && l.id.RawStrings:
			if end := strings.IndexByte(l.src[l.i+1:], '`'); end >= 0 {
				l.i += 1 + end + 1
			} else {
				l.i = len(l.src)
			}
			l.tok(start, tokOther)
		case c == '{':
			depth++
			l.i++
			l.tok(start, tokOpen)
		case c == '}':
			if inTemplate && depth == 0 {
				l.i++
				return
			}
			depth--
			l.i++
			l.tok(start, tokClose)
		case c == '(' || c == '[':
			l.i++
			l.tok(start, tokOpen)
		case c == ')' || c == ']':
			l.i++
			l.tok(start, tokClose)
		default:
			r, size := utf8.DecodeRuneInString(l.src[l.i:])
			if l.id.Rune(r, true) {
				l.i += size
				for l.i < len(l.src) {
					r, size := utf8.DecodeRuneInString(l.src[l.i:])
					if !l.id.Rune(r, false) {
						break
					}
					l.i += size
				}
				if !l.stringPrefix(start) {
					l.out = append(l.out, Span{start, l.i})
					l.tok(start, tokIdent)
				}
				continue
			}
			if unicode.IsDigit(r) {
				// A number, with its suffix letters (0x1F, 1e9, 10n).
				for l.i < len(l.src) {
					r, size := utf8.DecodeRuneInString(l.src[l.i:])
					if !l.id.Rune(r, false) && r != '.' {
						break
					}
					l.i += size
				}
				l.tok(start, tokOther)
				continue
			}
			l.i += size
			if !unicode.IsSpace(r) {
				l.tok(start, tokOther)
			}
		}
	}
}

// stringPrefix reports whether the word just lexed is a string prefix
// (Python's r"...", f'...', b"...", rb'...') immediately followed by a
// quote; the string itself is lexed next.
func (l *identLexer) stringPrefix(start int) bool {
	if len(l.id.StringPrefixes) == 0 || l.i >= len(l.src) || (l.src[l.i] != '"' && l.src[l.i] != '\'') {
		return false
	}
	return contains(l.id.StringPrefixes, strings.ToLower(l.src[start:l.i]))
}

func (l *identLexer) skipLine() {
	if nl := strings.IndexByte(l.src[l.i:], '\n'); nl >= 0 {
		l.i += nl
	} else {
		l.i = len(l.src)
	}
}

// quoted skips a '...' or "..." string (and triple-quoted ones).
func (l *identLexer) quoted() {
	q := l.src[l.i]
	if l.id.TripleQuotes {
		triple := strings.Repeat(string(q), 3)
		if strings.HasPrefix(l.src[l.i:], triple) {
			l.i += 3
			for l.i < len(l.src) {
				if l.src[l.i] == '\\' {
					l.i += 2
					continue
				}
				if strings.HasPrefix(l.src[l.i:], triple) {
					l.i += 3
					return
				}
				l.i++
			}
			return
		}
	}
	l.i++
	for l.i < len(l.src) {
		switch l.src[l.i] {
		case '\\':
			l.i += 2
			continue
		case q:
			l.i++
			return
		case '\n':
			return // unterminated: stop at the line's end
		}
		l.i++
	}
}

// template skips a `...` template literal, lexing the code of its ${ }.
func (l *identLexer) template() {
	l.i++
	for l.i < len(l.src) {
		switch {
		case l.src[l.i] == '\\':
			l.i += 2
		case l.src[l.i] == '`':
			l.i++
			return
		case strings.HasPrefix(l.src[l.i:], "${"):
			l.i += 2
			l.code(true)
		default:
			l.i++
		}
	}
}
