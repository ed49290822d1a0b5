package preview

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// TextEdit replaces the text between two positions. Lines are 0-based,
// columns are 0-based byte offsets into the line (Neovim's units). End is
// exclusive. NewText uses "\n" between lines and is inserted verbatim: a "\r"
// in it becomes part of a line, so callers holding LSP text for a CRLF file
// must turn its "\r\n" into "\n" first (as Neovim's apply_text_edits does).
//
// (len(Lines), 0) is the end of the document; see the package comment.
type TextEdit struct {
	StartLine, StartCol, EndLine, EndCol int
	NewText                              string
}

func (e TextEdit) String() string {
	return fmt.Sprintf("%d:%d-%d:%d %q", e.StartLine, e.StartCol, e.EndLine, e.EndCol, e.NewText)
}

// Kinds of EditError.
const (
	KindOutOfRange      = "out_of_range"
	KindOverlap         = "overlap"
	KindInsideMultibyte = "inside_multibyte"
	KindInverted        = "inverted"
)

// EditError says why an edit was rejected. Index is the edit's index in the
// slice the caller passed.
type EditError struct {
	Index int
	Kind  string // one of the Kind constants
	Msg   string
}

func (e *EditError) Error() string {
	return fmt.Sprintf("edit %d: %s: %s", e.Index, e.Kind, e.Msg)
}

// span is a validated edit: normalised positions and the caller's index
// (-1 for edits this package made up).
type span struct {
	start, end pos
	text       string
	index      int
}

func (s span) edit() TextEdit {
	return TextEdit{s.start.line, s.start.col, s.end.line, s.end.col, s.text}
}

// Validate checks edits against doc and returns them sorted by start (then
// end, so an insertion goes before a replacement starting at the same point;
// otherwise the given order is kept, so two inserts at one point apply in
// order). It rejects, as *EditError: positions out of range (a column may be
// len(line); (len(Lines), 0) is the end of the document), an end before its
// start, a column inside a multibyte UTF-8 sequence, and overlapping edits.
func Validate(doc Document, edits []TextEdit) ([]TextEdit, error) {
	spans, err := validate(newText(doc), edits)
	if err != nil {
		return nil, err
	}
	sorted := make([]TextEdit, len(spans))
	for i, s := range spans {
		sorted[i] = edits[s.index]
	}
	return sorted, nil
}

// Check is Validate's check alone (its error, the same), sorting nothing
// for the caller: a changeset's single batch of edits is checked where it
// is made and applied by the engine, which sorts them itself.
func Check(doc Document, edits []TextEdit) error {
	_, err := validated(newText(doc), edits, false)
	return err
}

// Apply returns the document after the edits, or an error and no document.
// The result keeps doc's EOL and is canonical (see Document).
func Apply(doc Document, edits []TextEdit) (Document, error) {
	t := newText(doc)
	spans, err := validate(t, edits)
	if err != nil {
		return Document{}, err
	}
	return documentFromLines(t.rewrite(0, t.count()-1, spans), doc.eol()), nil
}

func validate(t text, edits []TextEdit) ([]span, error) {
	return validated(t, edits, true)
}

// validated is validate, its spans made only when spansToo.
func validated(t text, edits []TextEdit, spansToo bool) ([]span, error) {
	// Sort pointer-free keys rather than spans: no write barriers, and
	// sorting is most of the work for a thousand unsorted edits.
	type key struct {
		start, end pos
		index      int
	}
	// A few edits' keys on the stack: a rename's preview validates its
	// nine edits four times on the way to the diff.
	var few [16]key
	var keys []key
	if len(edits) <= len(few) {
		keys = few[:len(edits)]
	} else {
		keys = make([]key, len(edits))
	}
	for i, e := range edits {
		start, err := t.position(i, "start", e.StartLine, e.StartCol)
		if err != nil {
			return nil, err
		}
		end, err := t.position(i, "end", e.EndLine, e.EndCol)
		if err != nil {
			return nil, err
		}
		if start.cmp(end) > 0 {
			return nil, &EditError{i, KindInverted, fmt.Sprintf("end %d:%d is before start %d:%d", e.EndLine, e.EndCol, e.StartLine, e.StartCol)}
		}
		keys[i] = key{start, end, i}
	}
	// By start, then end (an insertion goes before a range starting at the
	// same point), then the caller's order: a stable sort's result.
	byPosition := func(a, b key) int {
		if c := a.start.cmp(b.start); c != 0 {
			return c
		}
		if c := a.end.cmp(b.end); c != 0 {
			return c
		}
		return a.index - b.index
	}
	if !slices.IsSortedFunc(keys, byPosition) { // edits usually arrive sorted
		slices.SortFunc(keys, byPosition)
	}
	var spans []span
	if spansToo {
		spans = make([]span, len(keys))
	}
	for i, k := range keys {
		if i > 0 && k.start.cmp(keys[i-1].end) < 0 {
			a, b := edits[keys[i-1].index], edits[k.index]
			return nil, &EditError{k.index, KindOverlap, fmt.Sprintf("%d:%d-%d:%d overlaps edit %d (%d:%d-%d:%d)",
				b.StartLine, b.StartCol, b.EndLine, b.EndCol, keys[i-1].index, a.StartLine, a.StartCol, a.EndLine, a.EndCol)}
		}
		if spansToo {
			spans[i] = span{k.start, k.end, edits[k.index].NewText, k.index}
		}
	}
	return spans, nil
}

// position checks one position of edit i and normalises it.
func (t text) position(i int, which string, line, col int) (pos, error) {
	n := t.count()
	switch {
	case line >= 0 && line < n && col >= 0:
		l := t.line(line)
		if col > len(l) {
			return pos{}, &EditError{i, KindOutOfRange, fmt.Sprintf("%s %d:%d is past the end of line %d (%d bytes)", which, line, col, line, len(l))}
		}
		if insideRune(l, col) {
			return pos{}, &EditError{i, KindInsideMultibyte, fmt.Sprintf("%s %d:%d is inside a multibyte character", which, line, col)}
		}
		return pos{line, col}, nil
	case !t.tail && line == n && col == 0:
		// (len(Lines), 0) of a file without a final newline: the end of the
		// last line is the end of the document.
		return t.endPos(), nil
	}
	return pos{}, &EditError{i, KindOutOfRange, fmt.Sprintf("%s %d:%d is outside the document (%d lines)", which, line, col, len(t.lines))}
}

// insideRune reports whether col splits a valid multibyte UTF-8 sequence.
// Invalid bytes (a Latin-1 file, say) are single units and can be split.
func insideRune(s string, col int) bool {
	if col >= len(s) || utf8.RuneStart(s[col]) {
		return false
	}
	for start := col - 1; start >= 0 && start >= col-(utf8.UTFMax-1); start-- {
		if utf8.RuneStart(s[start]) {
			r, size := utf8.DecodeRuneInString(s[start:])
			return !(r == utf8.RuneError && size <= 1) && start+size > col
		}
	}
	return false
}

// rewrite returns extended lines first..last after the spans, which must lie
// within them, sorted and not overlapping. Unchanged lines are shared, not
// copied.
func (t text) rewrite(first, last int, spans []span) []string {
	w := lineWriter{out: make([]string, 0, last-first+1+len(spans))}
	cur := pos{first, 0}
	for _, s := range spans {
		w.copyText(t, cur, s.start)
		w.writeText(s.text)
		cur = s.end
	}
	w.copyText(t, cur, pos{last, len(t.line(last))})
	w.endLine()
	return w.out
}

// lineWriter assembles lines from pieces without copying whole lines.
type lineWriter struct {
	out     []string
	pending []string // pieces of the current line
	// joined holds the lines made of several pieces, each a string of its
	// bytes (only ever appended to: a line's bytes are never written
	// again), where a string each was an allocation per edited line (nine
	// of a rename's Apply's fourteen).
	joined []byte
}

func (w *lineWriter) write(s string) {
	if s != "" {
		w.pending = append(w.pending, s)
	}
}

func (w *lineWriter) endLine() {
	var l string
	switch len(w.pending) {
	case 0:
	case 1:
		l = w.pending[0]
	default:
		n := 0
		for _, p := range w.pending {
			n += len(p)
		}
		if n > 0 {
			if cap(w.joined)-len(w.joined) < n {
				w.joined = make([]byte, 0, max(n, 2*cap(w.joined), 256))
			}
			from := len(w.joined)
			for _, p := range w.pending {
				w.joined = append(w.joined, p...)
			}
			l = unsafe.String(&w.joined[from], n)
		}
	}
	w.out = append(w.out, l)
	w.pending = w.pending[:0]
}

// writeText writes s, which may contain "\n".
func (w *lineWriter) writeText(s string) {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			w.write(s)
			return
		}
		w.write(s[:i])
		w.endLine()
		s = s[i+1:]
	}
}

// copyText writes t's text between two positions.
func (w *lineWriter) copyText(t text, from, to pos) {
	if from.line == to.line {
		w.write(t.line(from.line)[from.col:to.col])
		return
	}
	w.write(t.line(from.line)[from.col:])
	w.endLine()
	// Lines strictly between from and to are never the tail.
	w.out = append(w.out, t.lines[from.line+1:to.line]...)
	w.write(t.line(to.line)[:to.col])
}
