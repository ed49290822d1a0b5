package preview

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// doc builds a Document from its on-disk content.
func doc(content string) Document { return ParseDocument(content) }

// linePool holds line contents that stress bytes: CJK, emoji, a combining
// mark, a stray "\r", whitespace and duplicates (which make diffs ambiguous).
var linePool = []string{
	"", "a", "b", "c", "func main() {", "}", "\treturn nil", "日本語のテキスト", "emoji 😀 here",
	"e\u0301 combining", "x\r", " ", "a", "b", "// comment", "-- dashes", "+plus", "@@ not a hunk",
	`\ backslash`, "diff --git a/x b/x",
}

// textPool holds NewText values: empty, single and multi line, with or
// without a trailing newline.
var textPool = []string{
	"", "a", "Z", "\n", "new line\n", "two\nlines\n", "partial\nline", "日本", "😀", "\u0301",
	"x\ny\nz\nw\nv\n", "\n\n", "tail", "-", "+", " ", "\\",
}

// randomDocument returns a document of up to maxLines lines.
func randomDocument(r *rand.Rand, maxLines int) Document {
	n := r.IntN(maxLines + 1)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = linePool[r.IntN(len(linePool))]
	}
	d := Document{Lines: lines, EOL: "\n", FinalNewline: n > 0 && r.IntN(4) != 0}
	if r.IntN(3) == 0 {
		d.EOL = "\r\n"
	}
	return d
}

// boundaries returns the columns of s that are not inside a UTF-8 sequence.
func boundaries(s string) []int {
	var cols []int
	for i := range len(s) + 1 {
		if !insideRune(s, i) {
			cols = append(cols, i)
		}
	}
	return cols
}

// randomPos returns a valid position of d, sometimes the end (len(Lines), 0).
func randomPos(r *rand.Rand, d Document) [2]int {
	if len(d.Lines) == 0 || r.IntN(12) == 0 {
		return [2]int{len(d.Lines), 0}
	}
	l := r.IntN(len(d.Lines))
	cols := boundaries(d.Lines[l])
	// Favour line starts and ends: that is where edits that change line
	// structure and the final newline happen.
	switch r.IntN(3) {
	case 0:
		return [2]int{l, 0}
	case 1:
		return [2]int{l, len(d.Lines[l])}
	}
	return [2]int{l, cols[r.IntN(len(cols))]}
}

// randomEdits returns up to maxEdits valid, non-overlapping edits of d, in
// random order.
func randomEdits(r *rand.Rand, d Document, maxEdits int) []TextEdit {
	k := r.IntN(maxEdits + 1)
	ps := make([][2]int, 2*k)
	for i := range ps {
		ps[i] = randomPos(r, d)
	}
	slices.SortFunc(ps, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	edits := make([]TextEdit, k)
	for i := range edits {
		s, e := ps[2*i], ps[2*i+1]
		edits[i] = TextEdit{s[0], s[1], e[0], e[1], textPool[r.IntN(len(textPool))]}
		if r.IntN(8) == 0 { // now and then a larger rewrite, for Minimize
			var b strings.Builder
			for range r.IntN(8) {
				b.WriteString(linePool[r.IntN(len(linePool))])
				b.WriteByte('\n')
			}
			edits[i].NewText = b.String()
		}
	}
	// Any order will do: Validate sorts, inserts at one point apply in list
	// order, and every check compares with Apply of this same list.
	r.Shuffle(len(edits), func(i, j int) { edits[i], edits[j] = edits[j], edits[i] })
	return edits
}

// mustApply applies edits or fails the test.
func mustApply(t testing.TB, d Document, edits []TextEdit) Document {
	t.Helper()
	out, err := Apply(d, edits)
	if err != nil {
		t.Fatalf("Apply: %v\nedits: %v", err, edits)
	}
	return out
}

// applyBytes applies edits to the text with a naive, obviously correct
// method: positions become byte offsets into the joined text.
func applyBytes(t testing.TB, d Document, edits []TextEdit) string {
	t.Helper()
	text := strings.Join(d.Lines, "\n")
	if d.FinalNewline && len(d.Lines) > 0 {
		text += "\n"
	}
	starts := []int{0}
	for i, c := range []byte(text) {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	offset := func(line, col int) int {
		if line == len(d.Lines) && col == 0 {
			return len(text)
		}
		return starts[line] + col
	}
	sorted, err := Validate(d, edits)
	if err != nil {
		t.Fatalf("Validate: %v", err)
	}
	var b strings.Builder
	at := 0
	for _, e := range sorted {
		s := offset(e.StartLine, e.StartCol)
		b.WriteString(text[at:s])
		b.WriteString(e.NewText)
		at = offset(e.EndLine, e.EndCol)
	}
	b.WriteString(text[at:])
	return b.String()
}

// joined is a document's text in the "\n" model (EOL not applied).
func joined(d Document) string {
	s := strings.Join(d.Lines, "\n")
	if d.FinalNewline && len(d.Lines) > 0 {
		s += "\n"
	}
	return s
}
