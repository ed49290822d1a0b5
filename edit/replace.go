package edit

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

// Replacement says what replace_in_buffer replaces.
type Replacement struct {
	Old string
	New string
	// Count, when set, is how many matches the caller expects; a different
	// number is an error (AMBIGUOUS when there are more), so "count: 1"
	// never replaces the wrong one of several. Unset replaces every match.
	Count *int
	// Regex: Old is a Go RE2 pattern (matched against the whole text, lines
	// joined by "\n") and New may use $1, ${name}.
	Regex bool
}

// Match is one occurrence, in tool positions (1-based line, 0-based
// character column).
type Match struct {
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Text   string `json:"text"`
}

// replaceEdits finds r's matches in doc and returns the edits replacing
// them. Matches never overlap (leftmost first, as strings.Index and RE2 find
// them).
func replaceEdits(doc preview.Document, rel string, r Replacement) ([]preview.TextEdit, []Match, error) {
	old, repl := r.Old, r.New
	if doc.EOL == "\r\n" {
		// A CRLF buffer's lines hold no "\r": match and insert plain "\n".
		old = strings.ReplaceAll(old, "\r\n", "\n")
		repl = strings.ReplaceAll(repl, "\r\n", "\n")
	}
	text := docText(doc)
	var spans [][]int
	replacement := func([]int) string { return repl }
	switch {
	case r.Regex:
		re, err := regexp.Compile(old)
		if err != nil {
			return nil, nil, apierr.Errorf(apierr.InvalidParameter, "old is a Go RE2 regular expression when regex is true (https://pkg.go.dev/regexp/syntax)",
				"invalid regular expression: %v", err)
		}
		spans = re.FindAllStringSubmatchIndex(text, -1)
		replacement = func(m []int) string { return string(re.ExpandString(nil, repl, text, m)) }
	case old == "":
		return nil, nil, apierr.New(apierr.InvalidParameter, "old is empty", "pass the exact text to replace")
	default:
		for at := 0; ; {
			i := strings.Index(text[at:], old)
			if i < 0 {
				break
			}
			spans = append(spans, []int{at + i, at + i + len(old)})
			at += i + len(old)
		}
	}
	idx := newLineIndex(text)
	edits := make([]preview.TextEdit, 0, len(spans))
	matches := make([]Match, 0, len(spans))
	// Matches come in order: count characters from the previous match on
	// the same line, not from the line's start (which made n matches on
	// one line cost O(n * line length)).
	cur := struct{ line, off, chars int }{line: -1}
	for _, m := range spans {
		edits = append(edits, idx.edit(m[0], m[1], replacement(m)))
		l, _ := idx.pos(m[0])
		if l != cur.line {
			cur.line, cur.off, cur.chars = l, idx.starts[l], 0
		}
		cur.chars += utf8.RuneCountInString(text[cur.off:m[0]])
		cur.off = m[0]
		matches = append(matches, Match{Line: l + 1, Column: cur.chars, Text: text[m[0]:m[1]]})
	}
	return edits, matches, checkCount(rel, r, matches)
}

// docText is the document's text as positions address it: lines joined by
// "\n", with a final "\n" when the file has one.
func docText(doc preview.Document) string {
	return preview.Document{Lines: doc.Lines, FinalNewline: doc.FinalNewline}.Text()
}

// maxListed is how many matches a result or an error lists.
const maxListed = 50

func checkCount(rel string, r Replacement, matches []Match) error {
	what := fmt.Sprintf("%q", r.Old)
	if r.Regex {
		what = "pattern " + what
	}
	if len(matches) == 0 {
		return apierr.Errorf(apierr.ResourceNotFound,
			"read the file (read_file) and pass the exact text, including whitespace; or use regex",
			"%s does not occur in %s", what, rel)
	}
	if r.Count == nil || *r.Count == len(matches) {
		return nil
	}
	// The message and details list at most maxListed matches: a count
	// check failing on a million matches must not answer megabytes.
	listed := matches[:min(len(matches), maxListed)]
	where := make([]string, 0, len(listed)+1)
	for _, m := range listed {
		where = append(where, fmt.Sprintf("%d:%d", m.Line, m.Column))
	}
	if len(listed) < len(matches) {
		where = append(where, fmt.Sprintf("and %d more", len(matches)-len(listed)))
	}
	if len(matches) > *r.Count {
		return apierr.Errorf(apierr.Ambiguous,
			"include more surrounding text in old so that it matches only where intended, or set count to the number of matches (omit it to replace all)",
			"%s occurs %d times in %s (at %s), not %d", what, len(matches), rel, strings.Join(where, ", "), *r.Count).
			WithDetails(map[string]any{"matches": listed})
	}
	return apierr.Errorf(apierr.ResourceNotFound,
		"read the file (read_file) and check the text, or omit count to replace every match",
		"%s occurs %d times in %s (at %s), not %d", what, len(matches), rel, strings.Join(where, ", "), *r.Count).
		WithDetails(map[string]any{"matches": listed})
}

// lineIndex converts byte offsets in a text (lines joined by "\n") to
// positions.
type lineIndex struct {
	starts []int // byte offset of each line
}

func newLineIndex(text string) lineIndex {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return lineIndex{starts}
}

func (x lineIndex) pos(off int) (line, col int) {
	lo, hi := 0, len(x.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if x.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, off - x.starts[lo]
}

func (x lineIndex) edit(from, to int, text string) preview.TextEdit {
	sl, sc := x.pos(from)
	el, ec := x.pos(to)
	return preview.TextEdit{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec, NewText: text}
}
