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
// them, and the first maxListed matches: positions in tool units are worked
// out for those only. Matches never overlap (leftmost first, as
// strings.Index and RE2 find them). More than maxMatches (when positive) is
// an error, found before any edit is made.
func replaceEdits(doc preview.Document, rel string, r Replacement, maxMatches int) ([]preview.TextEdit, []Match, error) {
	old, repl := r.Old, r.New
	if doc.EOL == "\r\n" {
		// A CRLF buffer's lines hold no "\r": match and insert plain "\n".
		old = strings.ReplaceAll(old, "\r\n", "\n")
		repl = strings.ReplaceAll(repl, "\r\n", "\n")
	}
	m := doc.Mapper()
	text := m.Text()
	var edits []preview.TextEdit
	var listed []Match
	// Matches come in order: count characters from the previous match on
	// the same line, not from the line's start (which made n matches on
	// one line cost O(n * line length)).
	cur := struct{ line, off, chars int }{line: -1}
	add := func(from, to int, with string) {
		edits = append(edits, m.TextEdit(preview.ByteEdit{Start: from, End: to, Text: with}))
		if len(listed) == maxListed {
			return
		}
		l, _ := m.Position(from)
		if l != cur.line {
			cur.line, cur.off, cur.chars = l, m.LineOffset(l), 0
		}
		cur.chars += utf8.RuneCountInString(text[cur.off:from])
		cur.off = from
		listed = append(listed, Match{Line: l + 1, Column: cur.chars, Text: text[from:to]})
	}
	switch {
	case r.Regex:
		re, err := regexp.Compile(old)
		if err != nil {
			return nil, nil, apierr.Errorf(apierr.InvalidParameter, "old is a Go RE2 regular expression when regex is true (https://pkg.go.dev/regexp/syntax)",
				"invalid regular expression: %v", err)
		}
		// One past the limit is enough to refuse: the rest are never looked for.
		limit := -1
		if maxMatches > 0 {
			limit = maxMatches + 1
		}
		spans := re.FindAllStringSubmatchIndex(text, limit)
		if maxMatches > 0 && len(spans) > maxMatches {
			return nil, nil, tooManyMatches(rel, r, fmt.Sprintf("more than %d times", maxMatches), maxMatches)
		}
		// Without "$" the replacement is the same string for every match.
		expand := strings.Contains(repl, "$")
		edits = make([]preview.TextEdit, 0, len(spans))
		for _, m := range spans {
			with := repl
			if expand {
				with = string(re.ExpandString(nil, repl, text, m))
			}
			add(m[0], m[1], with)
		}
	case old == "":
		return nil, nil, apierr.New(apierr.InvalidParameter, "old is empty", "pass the exact text to replace")
	default:
		// strings.Count counts the same non-overlapping matches as the loop.
		n := strings.Count(text, old)
		if maxMatches > 0 && n > maxMatches {
			return nil, nil, tooManyMatches(rel, r, fmt.Sprintf("%d times", n), maxMatches)
		}
		edits = make([]preview.TextEdit, 0, n)
		for at := 0; ; {
			i := strings.Index(text[at:], old)
			if i < 0 {
				break
			}
			add(at+i, at+i+len(old), repl)
			at += i + len(old)
		}
	}
	return edits, listed, checkCount(rel, r, listed, len(edits))
}

// tooManyMatches refuses a replacement of more matches than one change may
// make (Engine.MaxEdits).
func tooManyMatches(rel string, r Replacement, times string, max int) error {
	return apierr.Errorf(apierr.InvalidParameter,
		"narrow old so that it matches fewer places (more surrounding text, or a stricter regex), or ask for nvbridge to be started with a larger --max-edits",
		"%s occurs %s in %s; one change makes at most %d edits (nothing was changed)", describe(r), times, rel, max)
}

// describe names what a replacement looks for, for messages.
func describe(r Replacement) string {
	what := fmt.Sprintf("%q", r.Old)
	if r.Regex {
		what = "pattern " + what
	}
	return what
}

// maxListed is how many matches a result or an error lists.
const maxListed = 50

// checkCount checks the number of matches found against r.Count; listed
// are the first of them (at most maxListed), for the message.
func checkCount(rel string, r Replacement, listed []Match, found int) error {
	what := describe(r)
	if found == 0 {
		return apierr.Errorf(apierr.ResourceNotFound,
			"read the file (read_file) and pass the exact text, including whitespace; or use regex",
			"%s does not occur in %s", what, rel)
	}
	if r.Count == nil || *r.Count == found {
		return nil
	}
	// The message and details list at most maxListed matches: a count
	// check failing on a million matches must not answer megabytes.
	where := make([]string, 0, len(listed)+1)
	for _, m := range listed {
		where = append(where, fmt.Sprintf("%d:%d", m.Line, m.Column))
	}
	if len(listed) < found {
		where = append(where, fmt.Sprintf("and %d more", found-len(listed)))
	}
	if found > *r.Count {
		return apierr.Errorf(apierr.Ambiguous,
			"include more surrounding text in old so that it matches only where intended, or set count to the number of matches (omit it to replace all)",
			"%s occurs %d times in %s (at %s), not %d", what, found, rel, strings.Join(where, ", "), *r.Count).
			WithDetails(map[string]any{"matches": listed})
	}
	return apierr.Errorf(apierr.ResourceNotFound,
		"read the file (read_file) and check the text, or omit count to replace every match",
		"%s occurs %d times in %s (at %s), not %d", what, found, rel, strings.Join(where, ", "), *r.Count).
		WithDetails(map[string]any{"matches": listed})
}
