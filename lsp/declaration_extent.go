package lsp

import "strings"

// declarationExtent returns how many of lines (the declaration's first
// line, then what follows it in the file) belong to the declaration that
// starts on the first line, judged by indentation the way every supported
// language lays code out:
//   - a line indented deeper than the first belongs to it (a body, a
//     continued signature);
//   - a line at the first line's indentation belongs to it only when it
//     starts with a closing bracket (the "}" of a Go or TypeScript body, the
//     ") error {" of a wrapped signature); after a closer that does not open
//     again, the declaration is over;
//   - anything else, a blank line or a line indented less (the closing
//     brace of the interface a method is declared in) ends it.
//
// So the next one-line method, the next interface method or the enclosing
// type's closing brace never show up as part of a definition's source. At
// least the first line is always kept.
func declarationExtent(lines []string) int {
	if len(lines) == 0 {
		return 0
	}
	base := indentWidth(lines[0])
	open := opensBlock(lines[0])
	n := 1
	for _, line := range lines[1:] {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			break
		}
		w := indentWidth(line)
		switch {
		case w > base:
			if !open && !continues(lines[n-1]) {
				// The first line was complete (a one-line declaration); a
				// deeper line after it is not this declaration's.
				return n
			}
			n++
			continue
		case w == base && strings.ContainsAny(trimmed[:1], ")]}"):
			n++
			if !opensBlock(line) {
				return n
			}
			open = true
			continue
		}
		break
	}
	return n
}

// indentWidth counts a line's leading blanks (a tab counts as one: a file
// indents consistently, and only comparisons within one file matter).
func indentWidth(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}

// opensBlock reports whether a line leaves a bracket or a Python block
// open: its last meaningful character is an opener, or a ":" ending a
// Python header.
func opensBlock(line string) bool {
	t := strings.TrimSpace(stripLineComment(line))
	if t == "" {
		return false
	}
	switch t[len(t)-1] {
	case '{', '(', '[', ':', ',', '=', '\\':
		return true
	}
	return strings.Count(t, "(") > strings.Count(t, ")") ||
		strings.Count(t, "{") > strings.Count(t, "}") ||
		strings.Count(t, "[") > strings.Count(t, "]")
}

// continues reports whether a line is unfinished, so the next, deeper line
// carries on the same declaration (an operator or an opener at its end).
func continues(line string) bool {
	t := strings.TrimSpace(stripLineComment(line))
	if t == "" {
		return false
	}
	if opensBlock(t) {
		return true
	}
	switch t[len(t)-1] {
	case '+', '-', '*', '/', '|', '&', '.', '>', '<':
		return true
	}
	return false
}

// stripLineComment drops a trailing // or # comment (a rough cut: enough to
// see a line's last code character; strings holding "//" are rare in
// declaration headers).
func stripLineComment(line string) string {
	if i := strings.Index(line, "//"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	return line
}
