package refactor

// Python's f-strings at an inlined call: a parameter used as a whole
// replacement field ({name}) whose argument is a plain string literal is
// spliced into the f-string's text (f"{name}/{v}" with "python-requests"
// becomes f"python-requests/{v}"); any other argument that would put the
// f-string's own quote (or a backslash) inside a replacement field is left
// alone when the project supports a Python older than 3.12 (PEP 701), as
// its requires-python says.

import (
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/syntax"
)

// exprRepl replaces bytes [start, end) of the inlined expression.
type exprRepl struct {
	start, end int
	text       string
}

// stringQuote is the quote a string literal opens with (after its prefix).
func stringQuote(lit string) string {
	t := strings.TrimLeft(lit, "rRbBuUfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(t, q) {
			return q
		}
	}
	return ""
}

func interpAround(interps []fInterp, u syntax.Node) *fInterp {
	for i := range interps {
		if u.StartByte >= interps[i].start && u.EndByte <= interps[i].end {
			return &interps[i]
		}
	}
	return nil
}

// pythonMinor is the oldest Python 3 minor version the project supports
// (requires-python), 8 when it says none; 99 for a language without
// restricted interpolations.
func pythonMinor(c *lsp.Client, rules *syntaxRules) int {
	if rules.interpolation == "" {
		return 99
	}
	if m, ok := lang.PythonMinVersion(c.Session.Root().Dir()); ok {
		return m
	}
	return 8
}

// plainStringContent is the text between the quotes of a single plain
// string literal ("abc", 'a"b'; no prefix, not triple-quoted, not
// concatenated), and its quote.
func plainStringContent(lit string) (content string, quote byte, ok bool) {
	if len(lit) < 2 || (lit[0] != '"' && lit[0] != '\'') || strings.HasPrefix(lit, `"""`) || strings.HasPrefix(lit, `'''`) {
		return "", 0, false
	}
	q := lit[0]
	for i := 1; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case '\n':
			return "", 0, false
		case q:
			if i != len(lit)-1 {
				return "", 0, false
			}
			return lit[1:i], q, true
		}
	}
	return "", 0, false
}

// intoInterpolation is the replacement of parameter use u (inside the
// f-string replacement field fi) by value, or why the call is left alone.
func intoInterpolation(fi fInterp, u syntax.Node, param, value string, minor int) (exprRepl, string) {
	if content, q, ok := plainStringContent(value); ok && fi.text == "{"+param+"}" {
		content = strings.NewReplacer("{", "{{", "}", "}}").Replace(content)
		if outer := fi.quote; len(outer) == 1 && outer[0] != q {
			// A quote the argument held raw is escaped in the f-string.
			var b strings.Builder
			for i := 0; i < len(content); i++ {
				if content[i] == '\\' && i+1 < len(content) {
					b.WriteString(content[i : i+2])
					i++
					continue
				}
				if content[i] == outer[0] {
					b.WriteByte('\\')
				}
				b.WriteByte(content[i])
			}
			content = b.String()
		}
		return exprRepl{fi.start, fi.end, content}, ""
	}
	r := exprRepl{u.StartByte, u.EndByte, value}
	if minor >= 12 {
		return r, ""
	}
	quote := fi.quote
	if len(quote) == 3 {
		quote = quote[:1] + quote[:1] + quote[:1]
	}
	if quote != "" && strings.Contains(value, quote) || strings.Contains(value, "\\") || strings.Contains(value, "#") {
		return r, "the argument " + value + " would go inside an f-string's replacement field with the f-string's own quote, a backslash or a #, which Python before 3.12 rejects (the project supports 3." + strconv.Itoa(minor) + ")"
	}
	return r, ""
}
