package lsp

// Identifiers per language: validating a new name (rename_symbol, the name
// of an extracted function or variable) and finding identifier tokens in
// source text, outside strings and comments (naming what an extract
// introduced).

import (
	"go/scanner"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nvbridge/nvbridge/apierr"
)

// Language is the source language of a buffer, by Neovim filetype.
type Language string

const (
	LangGo         Language = "go"
	LangPython     Language = "python"
	LangTypeScript Language = "typescript" // also JavaScript and the React variants
	LangOther      Language = ""
)

// LanguageOf maps a Neovim filetype to a Language.
func LanguageOf(filetype string) Language {
	switch filetype {
	case "go":
		return LangGo
	case "python":
		return LangPython
	case "typescript", "typescriptreact", "javascript", "javascriptreact":
		return LangTypeScript
	}
	return LangOther
}

func (l Language) name() string {
	switch l {
	case LangGo:
		return "Go"
	case LangPython:
		return "Python"
	case LangTypeScript:
		return "TypeScript/JavaScript"
	}
	return "this language"
}

var goKeywords = wordSet(`break case chan const continue default defer else fallthrough for func go goto if
	import interface map package range return select struct switch type var`)

// Python's hard keywords (soft keywords such as match, case, type and _
// are valid names).
var pythonKeywords = wordSet(`False None True and as assert async await break class continue def del elif else
	except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield`)

// ECMAScript reserved words and the strict-mode ones (modules and classes
// are strict code).
var tsKeywords = wordSet(`break case catch class const continue debugger default delete do else enum export extends
	false finally for function if import in instanceof new null return super switch this throw true try typeof
	var void while with implements interface let package private protected public static yield await`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// ValidateIdentifier checks that name can name a symbol in lang: an
// identifier by the language's rules and not a keyword. For other
// languages it checks the common rule (a letter or _ then letters, digits
// or _).
func ValidateIdentifier(lang Language, name string) error {
	bad := func(why string) error {
		return apierr.Errorf(apierr.InvalidParameter,
			"pass a valid identifier: a letter or _ followed by letters, digits or _, not a keyword",
			"%q is not a valid %s identifier: %s", name, lang.name(), why)
	}
	if name == "" {
		return bad("it is empty")
	}
	if !utf8.ValidString(name) {
		return bad("it is not valid UTF-8")
	}
	for i, r := range name {
		if !identRune(lang, r, i == 0) {
			if i == 0 && unicode.IsDigit(r) {
				return bad("it starts with a digit")
			}
			return bad("it contains " + quoteRune(r))
		}
	}
	switch lang {
	case LangGo:
		if goKeywords[name] {
			return bad("it is a keyword")
		}
		if name == "_" {
			return bad("_ is the blank identifier")
		}
	case LangPython:
		if pythonKeywords[name] {
			return bad("it is a keyword")
		}
	case LangTypeScript:
		if tsKeywords[name] {
			return bad("it is a reserved word")
		}
	}
	return nil
}

func quoteRune(r rune) string {
	if unicode.IsSpace(r) {
		return "white space"
	}
	return "'" + string(r) + "'"
}

// identRune reports whether r may appear in an identifier of lang (first:
// at its start).
func identRune(lang Language, r rune, first bool) bool {
	switch {
	case r == '_' || unicode.IsLetter(r):
		return true
	case r == '$':
		return lang == LangTypeScript
	case unicode.IsDigit(r):
		return !first
	case !first && (lang == LangPython || lang == LangTypeScript) && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)):
		return true
	case !first && lang == LangTypeScript && (r == '\u200c' || r == '\u200d'):
		return true
	}
	return false
}

// identToken is a byte range [start, end) of a source text.
type identToken struct{ start, end int }

// identifierTokens returns the identifiers of src (strings and comments
// skipped) in order. Go uses go/scanner; Python and TypeScript/JavaScript a
// small identLexer that knows their string and comment syntax (template literals
// included); other languages a C-like one.
func identifierTokens(lang Language, src string) []identToken {
	if lang == LangGo {
		return goIdentifiers(src)
	}
	return lexIdentifiers(lang, src)
}

func goIdentifiers(src string) []identToken {
	fset := token.NewFileSet()
	file := fset.AddFile("x.go", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), func(token.Position, string) {}, 0)
	var out []identToken
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.IDENT {
			off := file.Offset(pos)
			out = append(out, identToken{off, off + len(lit)})
		}
	}
}

type identLexer struct {
	lang Language
	src  string
	i    int
	out  []identToken
}

func lexIdentifiers(lang Language, src string) []identToken {
	l := &identLexer{lang: lang, src: src}
	l.code(false)
	return l.out
}

// code lexes until the end, or (inTemplate) until the "}" closing a
// template literal's ${ ... }.
func (l *identLexer) code(inTemplate bool) {
	depth := 0
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '#' && l.lang == LangPython:
			l.skipLine()
		case c == '/' && l.lang != LangPython && strings.HasPrefix(l.src[l.i:], "//"):
			l.skipLine()
		case c == '/' && l.lang != LangPython && strings.HasPrefix(l.src[l.i:], "/*"):
			if end := strings.Index(l.src[l.i+2:], "*/"); end >= 0 {
				l.i += 2 + end + 2
			} else {
				l.i = len(l.src)
			}
		case c == '"' || c == '\'':
			l.quoted()
		case c == '`' && l.lang == LangTypeScript:
			l.template()
		case c == '{':
			depth++
			l.i++
		case c == '}':
			if inTemplate && depth == 0 {
				l.i++
				return
			}
			depth--
			l.i++
		default:
			r, size := utf8.DecodeRuneInString(l.src[l.i:])
			if identRune(l.lang, r, true) {
				start := l.i
				l.i += size
				for l.i < len(l.src) {
					r, size := utf8.DecodeRuneInString(l.src[l.i:])
					if !identRune(l.lang, r, false) {
						break
					}
					l.i += size
				}
				if !l.stringPrefix(start) {
					l.out = append(l.out, identToken{start, l.i})
				}
				continue
			}
			if unicode.IsDigit(r) {
				// A number, with its suffix letters (0x1F, 1e9, 10n).
				for l.i < len(l.src) {
					r, size := utf8.DecodeRuneInString(l.src[l.i:])
					if !identRune(l.lang, r, false) && r != '.' {
						break
					}
					l.i += size
				}
				continue
			}
			l.i += size
		}
	}
}

// stringPrefix reports whether the word just lexed is a Python string
// prefix (r"...", f'...', b"...", rb'...') immediately followed by a quote;
// the string itself is lexed next.
func (l *identLexer) stringPrefix(start int) bool {
	if l.lang != LangPython || l.i >= len(l.src) || (l.src[l.i] != '"' && l.src[l.i] != '\'') {
		return false
	}
	switch strings.ToLower(l.src[start:l.i]) {
	case "r", "u", "f", "b", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

func (l *identLexer) skipLine() {
	if nl := strings.IndexByte(l.src[l.i:], '\n'); nl >= 0 {
		l.i += nl
	} else {
		l.i = len(l.src)
	}
}

// quoted skips a '...' or "..." string (Python: also triple-quoted).
func (l *identLexer) quoted() {
	q := l.src[l.i]
	if l.lang == LangPython {
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
