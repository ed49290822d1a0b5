package preview

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestMinimize(t *testing.T) {
	ten := numbered(10)
	replaceAll := func(d Document, newContent string) TextEdit {
		return TextEdit{0, 0, len(d.Lines), 0, newContent}
	}
	cases := []struct {
		name  string
		doc   Document
		edits []TextEdit
		want  []TextEdit
	}{
		{"small edits pass through as given", ten,
			[]TextEdit{{5, 2, 5, 3, "x"}, {1, 0, 3, 0, "a\nb\n"}, {10, 0, 10, 0, "end\n"}},
			[]TextEdit{{1, 0, 3, 0, "a\nb\n"}, {5, 2, 5, 3, "x"}, {10, 0, 10, 0, "end\n"}}},
		{"whole replacement, one line changed", ten,
			[]TextEdit{replaceAll(ten, strings.Replace(joined(ten), "line 4\n", "line four\n", 1))},
			[]TextEdit{{3, 0, 4, 0, "line four\n"}}},
		{"whole replacement, lines deleted and inserted", ten,
			[]TextEdit{replaceAll(ten, strings.Replace(strings.Replace(joined(ten), "line 2\nline 3\n", "", 1), "line 9\n", "line 9\nnew\n", 1))},
			[]TextEdit{{1, 0, 3, 0, ""}, {9, 0, 9, 0, "new\n"}}},
		{"whole replacement, identical", ten, []TextEdit{replaceAll(ten, joined(ten))}, nil},
		{"whole replacement drops the final newline", doc("a\nb\nc\nd\n"),
			[]TextEdit{{0, 0, 4, 0, "a\nb\nc\nd"}}, []TextEdit{{3, 1, 4, 0, ""}}},
		{"whole replacement adds a final newline", doc("a\nb\nc\nd"),
			[]TextEdit{{0, 0, 4, 0, "a\nb\nc\nd\n"}}, []TextEdit{{3, 1, 3, 1, "\n"}}},
		{"whole replacement, unterminated last line removed", doc("a\nb\nc\nd"),
			[]TextEdit{{0, 0, 4, 0, "a\nb\nc"}}, []TextEdit{{2, 1, 3, 1, ""}}},
		{"whole replacement, lines appended without final newline", doc("a\nb\nc\nd"),
			[]TextEdit{{0, 0, 4, 0, "a\nb\nc\nd\ne\nf"}}, []TextEdit{{3, 1, 3, 1, "\ne\nf"}}},
		{"whole replacement of an empty file", doc(""),
			[]TextEdit{{0, 0, 0, 0, "a\nb\nc\nd\n"}}, []TextEdit{{0, 0, 0, 0, "a\nb\nc\nd\n"}}},
		{"large edit sharing a line with a small one is diffed together", ten,
			[]TextEdit{{0, 0, 0, 4, "LINE"}, {0, 5, 6, 0, "1\nline 2\nline 3\nline 4\nline 5\nline 6\n"}},
			[]TextEdit{{0, 0, 1, 0, "LINE 1\n"}}},
		{"complete rewrite is one replacement", doc("a\nb\nc\nd\n"),
			[]TextEdit{{0, 0, 4, 0, "w\nx\ny\nz\n"}}, []TextEdit{{0, 0, 4, 0, "w\nx\ny\nz\n"}}},
		{"crlf document", doc("a\r\nb\r\nc\r\nd\r\n"),
			[]TextEdit{{0, 0, 4, 0, "a\nB\nc\nd\n"}}, []TextEdit{{1, 0, 2, 0, "B\n"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Minimize(c.doc, c.edits)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
			if a, b := mustApply(t, c.doc, got).Bytes(), mustApply(t, c.doc, c.edits).Bytes(); !bytes.Equal(a, b) {
				t.Errorf("minimized edits give %q, the originals %q", a, b)
			}
		})
	}
}

// TestMinimizeManyChainedEdits: more than maxJointEdits large edits chained
// by the lines they share form one cluster, which is minimised edit by edit:
// each multi-line replacement that only adds lines becomes the insertion of
// those lines, and nothing else changes.
func TestMinimizeManyChainedEdits(t *testing.T) {
	const n = 3 * maxJointEdits
	d := numbered(n + 1)
	var edits, want []TextEdit
	for l := range n {
		// "N\nline" across the end of line l and the start of line l+1.
		col := len(d.Lines[l]) - len(fmt.Sprint(l+1))
		edits = append(edits, TextEdit{l, col, l + 1, 4, fmt.Sprintf("%d\na\nb\nc\nline", l+1)})
		want = append(want, TextEdit{l + 1, 0, l + 1, 0, "a\nb\nc\n"})
	}
	got, err := Minimize(d, edits)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if a, b := mustApply(t, d, got).Bytes(), mustApply(t, d, edits).Bytes(); !bytes.Equal(a, b) {
		t.Errorf("minimized edits give %q, the originals %q", a, b)
	}
}

// TestMinimizeManyChainedEditsRandom: random clusters of more than
// maxJointEdits edits chained by shared lines, some large, some keeping part
// of the text they replace. The minimized edits apply to the same text, and
// each lies within one of the given edits (edit by edit, nothing outside an
// edit is rewritten).
func TestMinimizeManyChainedEditsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for i := range 300 {
		d := randomDocument(r, 3*maxJointEdits)
		if len(d.Lines) < maxJointEdits+2 {
			continue
		}
		// One edit per line boundary: from a column of line l to a column
		// of line l+1, new text from the pool or the old text with a pool
		// text inserted in the middle.
		var edits []TextEdit
		prevCol := 0
		for l := 0; l+1 < len(d.Lines); l++ {
			cols := boundaries(d.Lines[l])
			startCols := cols[slices.IndexFunc(cols, func(c int) bool { return c >= prevCol }):]
			sc := startCols[r.IntN(len(startCols))]
			next := boundaries(d.Lines[l+1])
			ec := next[r.IntN(len(next))]
			old := d.Lines[l][sc:] + "\n" + d.Lines[l+1][:ec]
			text := textPool[r.IntN(len(textPool))]
			if r.IntN(2) == 0 {
				k := strings.IndexByte(old, '\n')
				text = old[:k+1] + strings.Repeat("x\n", 1+r.IntN(4)) + textPool[r.IntN(len(textPool))] + old[k:]
			}
			edits = append(edits, TextEdit{l, sc, l + 1, ec, text})
			prevCol = ec
		}
		got, err := Minimize(d, edits)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustApply(t, d, got), mustApply(t, d, edits); !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("case %d: doc %q final=%v\nedits %v\nminimized %v\ngive %q, want %q", i, d.Lines, d.FinalNewline, edits, got, a.Bytes(), b.Bytes())
		}
		before := func(l1, c1, l2, c2 int) bool { return l1 < l2 || l1 == l2 && c1 <= c2 }
		for _, e := range got {
			if !slices.ContainsFunc(edits, func(g TextEdit) bool {
				return before(g.StartLine, g.StartCol, e.StartLine, e.StartCol) && before(e.EndLine, e.EndCol, g.EndLine, g.EndCol)
			}) {
				t.Fatalf("case %d: minimized edit %v lies outside every given edit %v", i, e, edits)
			}
		}
	}
}

func TestMinimizeRejectsInvalidEdits(t *testing.T) {
	if _, err := Minimize(doc("a\n"), []TextEdit{{0, 0, 0, 5, ""}}); err == nil {
		t.Error("want an error")
	}
}

// TestMinimizeWholeReplacementIsMinimal replaces random documents wholesale
// with versions that differ by a few known line operations, and checks the
// minimized edits apply to the same text and touch no more lines than those
// operations did.
func TestMinimizeWholeReplacementIsMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 300 {
		d := randomDocument(r, 60)
		// Enough lines that the whole replacement is not a small edit, which
		// would pass through; and a final newline, to keep edits whole-line
		// (the final newline has its own cases above).
		d.Lines = append([]string{"base 1", "base 2", "base 3", "base 4"}, d.Lines...)
		d.FinalNewline = true
		lines := slices.Clone(d.Lines)
		budget := 0 // an upper bound on removed + inserted lines
		for k := range r.IntN(5) {
			fresh := fmt.Sprintf("changed %d.%d", i, k) // matches nothing
			switch op := r.IntN(3); {
			case op == 0 && len(lines) > 0:
				lines[r.IntN(len(lines))] = fresh
				budget += 2
			case op == 1 && len(lines) > 0:
				j := r.IntN(len(lines))
				lines = slices.Delete(lines, j, j+1)
				budget++
			default:
				lines = slices.Insert(lines, r.IntN(len(lines)+1), fresh)
				budget++
			}
		}
		whole := TextEdit{0, 0, len(d.Lines), 0, joinTerminated(lines)}
		got, err := Minimize(d, []TextEdit{whole})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustApply(t, d, got), mustApply(t, d, []TextEdit{whole}); !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("case %d: minimized edits %v give %q, want %q", i, got, a.Bytes(), b.Bytes())
		}
		touched := 0
		for _, e := range got {
			if e.StartCol != 0 || e.EndCol != 0 || e.NewText != "" && !strings.HasSuffix(e.NewText, "\n") {
				t.Fatalf("case %d: %v is not a whole-line edit", i, e)
			}
			touched += e.EndLine - e.StartLine + strings.Count(e.NewText, "\n")
		}
		if touched > budget {
			t.Errorf("case %d: edits %v touch %d lines, the change needs at most %d", i, got, touched, budget)
		}
	}
}

// TestMinimizeRandom: on random edit sets the minimized edits apply to the
// same text.
func TestMinimizeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 2000 {
		d := randomDocument(r, 20)
		edits := randomEdits(r, d, 5)
		got, err := Minimize(d, edits)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustApply(t, d, got), mustApply(t, d, edits); !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("doc %q final=%v\nedits %v\nminimized %v\ngive %q, want %q", d.Lines, d.FinalNewline, edits, got, a.Bytes(), b.Bytes())
		}
	}
}
