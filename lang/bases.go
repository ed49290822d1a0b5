package lang

// Class headers: the base list of a class or interface declaration, for
// the type hierarchy fallback (servers without typeHierarchy). One parser
// serves the languages with class syntax (Python's parenthesised bases,
// TypeScript's and Java's extends/implements); their registry entries
// point at it.

import (
	"regexp"
	"strings"
)

// classHeader matches a class or interface declaration up to its name.
var classHeader = regexp.MustCompile(`(?:^|[\s;])(?:class|interface)\s+([\p{L}_$][\p{L}\p{N}_$]*)`)

// ClassSubclassAt reports whether byte b of line lies in the base list of a class
// (or interface) declared on that line, and returns that class's name and
// its byte offset.
func ClassSubclassAt(line string, b int) (string, int, bool) {
	m := classHeader.FindStringSubmatchIndex(line)
	if m == nil || b < m[3] {
		return "", 0, false
	}
	rest := line[m[3]:b]
	// In the base list: Python's parentheses, or after extends/implements.
	if !strings.Contains(rest, "(") && !heritageRe.MatchString(rest) {
		return "", 0, false
	}
	// Not inside the class body on the same line.
	if strings.ContainsAny(rest, "{") || strings.Contains(rest, "):") {
		return "", 0, false
	}
	return line[m[2]:m[3]], m[2], true
}

var (
	identRe    = regexp.MustCompile(`[\p{L}_$][\p{L}\p{N}_$]*`)
	heritageRe = regexp.MustCompile(`\b(extends|implements)\b`)
)

// ClassBases parses the base list of the class or interface declared at the
// start of lines: Python's class X(A, b.B, metaclass=M), TypeScript's and
// Java's class X<T> extends A<T> implements B, C { and interface X extends
// A, B {. Dotted names give their last part; type arguments and keyword
// arguments are skipped.
func ClassBases(lines []string) []BaseRef {
	text := strings.Join(lines, "\n")
	m := classHeader.FindStringSubmatchIndex(text)
	if m == nil {
		return nil
	}
	i := m[3]
	// Skip type parameters: class X<T extends Y> ...
	i = skipSpace(text, i)
	if i < len(text) && text[i] == '<' {
		i = skipBalanced(text, i)
	}
	i = skipSpace(text, i)
	var segments [][2]int // byte spans of base expressions
	if i < len(text) && text[i] == '(' {
		end := skipBalanced(text, i)
		segments = splitTop(text, i+1, end-1)
	} else {
		// extends/implements lists up to the body.
		end := len(text)
		for j := i; j < len(text); j++ {
			if text[j] == '{' || text[j] == ';' {
				end = j
				break
			}
			if text[j] == '<' {
				j = skipBalanced(text, j) - 1
			}
		}
		kw := heritageRe.FindAllStringIndex(text[i:end], -1)
		for k, span := range kw {
			from := i + span[1]
			to := end
			if k+1 < len(kw) {
				to = i + kw[k+1][0]
			}
			segments = append(segments, splitTop(text, from, to)...)
		}
	}
	var out []BaseRef
	for _, s := range segments {
		seg := text[s[0]:s[1]]
		if strings.Contains(seg, "=") {
			continue // keyword argument (metaclass=...)
		}
		// Cut type arguments, then take the last dotted part.
		if k := strings.IndexAny(seg, "<["); k >= 0 {
			seg = seg[:k]
		}
		ids := identRe.FindAllStringIndex(seg, -1)
		if len(ids) == 0 {
			continue
		}
		last := ids[len(ids)-1]
		at := s[0] + last[0]
		name := seg[last[0]:last[1]]
		if name == "object" {
			continue
		}
		line := strings.Count(text[:at], "\n")
		lineStart := strings.LastIndex(text[:at], "\n") + 1
		out = append(out, BaseRef{Line: line, Byte: at - lineStart, Name: name})
	}
	return out
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipBalanced returns the index after the bracket that closes s[i].
func skipBalanced(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '(', '[', '<', '{':
			depth++
		case ')', ']', '>', '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(s)
}

// splitTop splits s[from:to] at commas outside brackets, trimmed spans.
func splitTop(s string, from, to int) [][2]int {
	var out [][2]int
	depth, start := 0, from
	add := func(a, b int) {
		for a < b && strings.ContainsRune(" \t\n\r", rune(s[a])) {
			a++
		}
		for b > a && strings.ContainsRune(" \t\n\r", rune(s[b-1])) {
			b--
		}
		if a < b {
			out = append(out, [2]int{a, b})
		}
	}
	for j := from; j < to && j < len(s); j++ {
		switch s[j] {
		case '(', '[', '<', '{':
			depth++
		case ')', ']', '>', '}':
			depth--
		case ',':
			if depth == 0 {
				add(start, j)
				start = j + 1
			}
		}
	}
	add(start, min(to, len(s)))
	return out
}

// BasesIn parses the base list of the class declared at the start of lines
// of file: by its language's Bases, the generic parser for a language the
// registry does not know, none for one without class syntax.
func BasesIn(file string, lines []string) []BaseRef {
	l := ForFile(file)
	switch {
	case l == nil:
		return ClassBases(lines)
	case l.Bases == nil:
		return nil
	}
	return l.Bases(lines)
}

// SubclassIn reports whether byte b of line (in file) sits in the base list
// of a class declared on that line, by file's language as BasesIn.
func SubclassIn(file, line string, b int) (string, int, bool) {
	l := ForFile(file)
	switch {
	case l == nil:
		return ClassSubclassAt(line, b)
	case l.SubclassAt == nil:
		return "", 0, false
	}
	return l.SubclassAt(line, b)
}
