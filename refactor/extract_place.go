package refactor

// An extracted function next to its caller: tsserver's "Extract to
// function in module scope" inserts the new function before the next
// function declaration it finds, which in a long module can be a thousand
// lines away (zod's types.ts). The new declaration is moved to right after
// the top-level declaration holding the call, as gopls places its own.

import (
	"regexp"
	"strings"
)

// placeNextToCaller returns text with the top-level function name declares
// moved right after the top-level block that calls it, or text unchanged
// when it is there already or the shape is not one it reads (a brace
// language's column-0 declarations closed by a column-0 "}").
func placeNextToCaller(text, name string) string {
	lines := strings.Split(text, "\n")
	decl := regexp.MustCompile(`^(export\s+)?(async\s+)?(function\*?|func|def)\s+` + regexp.QuoteMeta(name) + `\b`)
	call := regexp.MustCompile(`(^|[^\w$.])` + regexp.QuoteMeta(name) + `\s*[(<]`)
	start := -1
	for i, l := range lines {
		if decl.MatchString(l) {
			start = i
			break
		}
	}
	if start < 0 {
		return text
	}
	end := blockEnd(lines, start)
	if end < 0 {
		return text
	}
	callAt := -1
	for i, l := range lines {
		if (i < start || i > end) && call.MatchString(l) && strings.HasPrefix(l, " ") || (i < start || i > end) && call.MatchString(l) && strings.HasPrefix(l, "\t") {
			callAt = i
			break
		}
	}
	if callAt < 0 {
		return text
	}
	// The top-level block holding the call: from the last column-0 line
	// above it to its column-0 closing line.
	top := callAt
	for top > 0 && !isTopLevelStart(lines[top]) {
		top--
	}
	callerEnd := blockEnd(lines, top)
	if callerEnd < 0 || callerEnd < callAt {
		return text
	}
	if start > callerEnd && start <= callerEnd+2 {
		return text // next to it already
	}
	// Cut the declaration with the blank line after it (else before it).
	cutFrom, cutTo := start, end+1
	if cutTo < len(lines) && strings.TrimSpace(lines[cutTo]) == "" {
		cutTo++
	} else if cutFrom > 0 && strings.TrimSpace(lines[cutFrom-1]) == "" {
		cutFrom--
	}
	block := append([]string{}, lines[start:end+1]...)
	rest := append(append([]string{}, lines[:cutFrom]...), lines[cutTo:]...)
	at := callerEnd + 1
	if callerEnd > start {
		at -= cutTo - cutFrom
	}
	insert := append([]string{""}, block...)
	if at < len(rest) && strings.TrimSpace(rest[at]) != "" {
		insert = append(insert, "")
	}
	out := append(append(append([]string{}, rest[:at]...), insert...), rest[at:]...)
	return strings.Join(out, "\n")
}

func isTopLevelStart(l string) bool {
	return l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '}' && l[0] != ')' && !strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "*") && !strings.HasPrefix(l, "/*")
}

// blockEnd is the line closing the top-level block starting at start: the
// first later line starting with "}" at column 0 ("}", "};", "});"), or
// start itself for a one-line declaration; -1 when none.
func blockEnd(lines []string, start int) int {
	if strings.Count(lines[start], "{") > 0 && strings.Count(lines[start], "{") == strings.Count(lines[start], "}") {
		return start
	}
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "}") {
			return i
		}
		if isTopLevelStart(lines[i]) {
			return -1
		}
	}
	return -1
}
