package preview

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestValidateErrors(t *testing.T) {
	d := doc("abc\n日本\ne\u0301\n😀\n\xff\xfe\n") // 5 lines, final newline
	cases := []struct {
		name  string
		doc   Document
		edits []TextEdit
		kind  string
		index int
	}{
		{"negative line", d, []TextEdit{{-1, 0, 0, 0, ""}}, KindOutOfRange, 0},
		{"negative col", d, []TextEdit{{0, -1, 0, 0, ""}}, KindOutOfRange, 0},
		{"col past line end", d, []TextEdit{{0, 0, 0, 4, ""}}, KindOutOfRange, 0},
		{"line past end", d, []TextEdit{{6, 0, 6, 0, ""}}, KindOutOfRange, 0},
		{"col on end-of-document line", d, []TextEdit{{5, 1, 5, 1, ""}}, KindOutOfRange, 0},
		{"end line past end, no final newline", doc("a\nb"), []TextEdit{{0, 0, 3, 0, ""}}, KindOutOfRange, 0},
		{"col on end line, no final newline", doc("a\nb"), []TextEdit{{2, 1, 2, 1, "x"}}, KindOutOfRange, 0},
		{"empty doc beyond (0,0)", doc(""), []TextEdit{{0, 1, 0, 1, "x"}}, KindOutOfRange, 0},
		{"second edit bad", d, []TextEdit{{0, 0, 0, 1, ""}, {0, 9, 0, 9, ""}}, KindOutOfRange, 1},
		{"inside CJK start", d, []TextEdit{{1, 1, 1, 3, ""}}, KindInsideMultibyte, 0},
		{"inside CJK end", d, []TextEdit{{1, 0, 1, 5, ""}}, KindInsideMultibyte, 0},
		{"inside emoji", d, []TextEdit{{3, 3, 3, 4, ""}}, KindInsideMultibyte, 0},
		{"inside combining mark", d, []TextEdit{{2, 2, 2, 2, "x"}}, KindInsideMultibyte, 0},
		{"inverted cols", d, []TextEdit{{0, 2, 0, 1, ""}}, KindInverted, 0},
		{"inverted lines", d, []TextEdit{{2, 0, 1, 0, ""}}, KindInverted, 0},
		{"overlap", d, []TextEdit{{0, 0, 0, 2, ""}, {0, 1, 0, 3, ""}}, KindOverlap, 1},
		{"overlap reported on the later one", d, []TextEdit{{0, 1, 0, 3, ""}, {0, 0, 0, 2, ""}}, KindOverlap, 0},
		{"same range twice", d, []TextEdit{{0, 0, 0, 2, "x"}, {0, 0, 0, 2, "y"}}, KindOverlap, 1},
		{"insert inside a range", d, []TextEdit{{0, 0, 2, 0, ""}, {1, 0, 1, 0, "x"}}, KindOverlap, 1},
		{"overlap across lines", d, []TextEdit{{0, 1, 1, 3, ""}, {1, 0, 2, 0, ""}}, KindOverlap, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Validate(c.doc, c.edits)
			var ee *EditError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v, want *EditError", err)
			}
			if ee.Kind != c.kind || ee.Index != c.index {
				t.Errorf("got %s at %d (%v), want %s at %d", ee.Kind, ee.Index, err, c.kind, c.index)
			}
			if _, err := Apply(c.doc, c.edits); !errors.As(err, &ee) {
				t.Errorf("Apply err = %v, want the same *EditError", err)
			}
			var ce *EditError
			if err := Check(c.doc, c.edits); !errors.As(err, &ce) || *ce != *ee {
				t.Errorf("Check err = %v, want %v", err, ee)
			}
		})
	}
}

func TestValidateAccepts(t *testing.T) {
	d := doc("abc\n日本\ne\u0301\n\xff\xfe\n")
	cases := []struct {
		name  string
		doc   Document
		edits []TextEdit
		want  []int // indexes of edits in the sorted result
	}{
		{"column at line end", d, []TextEdit{{0, 3, 0, 3, "x"}}, []int{0}},
		{"between CJK runes", d, []TextEdit{{1, 3, 1, 6, ""}}, []int{0}},
		{"before a combining mark", d, []TextEdit{{2, 1, 2, 1, "x"}}, []int{0}},
		{"inside invalid bytes", d, []TextEdit{{3, 1, 3, 2, ""}}, []int{0}},
		{"end of document", d, []TextEdit{{4, 0, 4, 0, "x"}}, []int{0}},
		{"end of document, no final newline", doc("a\nb"), []TextEdit{{1, 1, 2, 0, "x"}}, []int{0}},
		{"empty document", doc(""), []TextEdit{{0, 0, 0, 0, "x"}}, []int{0}},
		{"sorted by start", d, []TextEdit{{2, 0, 2, 1, ""}, {0, 0, 0, 1, ""}, {1, 0, 1, 3, ""}}, []int{1, 2, 0}},
		{"adjacent ranges", d, []TextEdit{{0, 1, 0, 2, "x"}, {0, 0, 0, 1, "y"}}, []int{1, 0}},
		{"inserts at one point keep their order", d, []TextEdit{{0, 1, 0, 1, "1"}, {0, 1, 0, 1, "2"}, {0, 1, 0, 1, "3"}}, []int{0, 1, 2}},
		{"insert goes before a range at the same start", d, []TextEdit{{0, 0, 0, 2, "r"}, {0, 0, 0, 0, "i"}}, []int{1, 0}},
		{"insert at a range's end", d, []TextEdit{{0, 2, 0, 2, "i"}, {0, 0, 0, 2, "r"}}, []int{1, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Validate(c.doc, c.edits)
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(c.doc, c.edits); err != nil {
				t.Errorf("Check refuses what Validate accepts: %v", err)
			}
			var want []TextEdit
			for _, i := range c.want {
				want = append(want, c.edits[i])
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestApply(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		edits []TextEdit
		want  string
	}{
		{"no edits", "a\nb\n", nil, "a\nb\n"},
		{"replace in line", "hello world\n", []TextEdit{{0, 6, 0, 11, "there"}}, "hello there\n"},
		{"split a line", "ab\n", []TextEdit{{0, 1, 0, 1, "\n"}}, "a\nb\n"},
		{"join lines", "a\nb\n", []TextEdit{{0, 1, 1, 0, ""}}, "ab\n"},
		{"insert lines", "a\nd\n", []TextEdit{{1, 0, 1, 0, "b\nc\n"}}, "a\nb\nc\nd\n"},
		{"insert at end of document", "a\n", []TextEdit{{1, 0, 1, 0, "b\n"}}, "a\nb\n"},
		{"insert at end, no final newline", "a", []TextEdit{{1, 0, 1, 0, "b"}}, "ab"},
		{"delete everything", "a\nb\n", []TextEdit{{0, 0, 2, 0, ""}}, ""},
		{"delete everything, no final newline", "a\nb", []TextEdit{{0, 0, 2, 0, ""}}, ""},
		{"add final newline", "a\nb", []TextEdit{{1, 1, 1, 1, "\n"}}, "a\nb\n"},
		{"remove final newline", "a\nb\n", []TextEdit{{1, 1, 2, 0, ""}}, "a\nb"},
		{"replace last line and newline", "a\nb\n", []TextEdit{{1, 0, 2, 0, "c"}}, "a\nc"},
		{"empty file gets content", "", []TextEdit{{0, 0, 0, 0, "x\n"}}, "x\n"},
		{"crlf keeps crlf", "a\r\nb\r\n", []TextEdit{{0, 1, 0, 1, "1\n2"}}, "a1\r\n2\r\nb\r\n"},
		{"crlf no final newline", "a\r\nb", []TextEdit{{1, 1, 2, 0, "\n"}}, "a\r\nb\r\n"},
		{"unicode bytes exact", "日本語\ne\u0301\n😀\n", []TextEdit{{0, 3, 0, 6, "本"}, {1, 1, 1, 3, ""}, {2, 0, 2, 4, "🙂\u0301"}}, "日本語\ne\n🙂\u0301\n"},
		{"several edits in any order", "abcdef\n", []TextEdit{{0, 4, 0, 5, "E"}, {0, 0, 0, 1, "A"}, {0, 2, 0, 3, "C"}}, "AbCdEf\n"},
		{"inserts at one point in order", "ab\n", []TextEdit{{0, 1, 0, 1, "1"}, {0, 1, 0, 1, "2"}}, "a12b\n"},
		{"insert then replace at one start", "ab\n", []TextEdit{{0, 0, 0, 1, "R"}, {0, 0, 0, 0, "I"}}, "IRb\n"},
		{"many edits on one line", "aaaaaaaa", []TextEdit{{0, 0, 0, 1, "b"}, {0, 2, 0, 3, "b"}, {0, 4, 0, 5, "b"}, {0, 6, 0, 7, "b"}}, "babababa"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := doc(c.in)
			before := slices.Clone(in.Lines)
			got := mustApply(t, in, c.edits)
			if string(got.Bytes()) != c.want {
				t.Errorf("got %q, want %q", got.Bytes(), c.want)
			}
			if want := doc(c.want); !slices.Equal(got.Lines, want.Lines) || got.FinalNewline != want.FinalNewline || got.EOL != in.EOL || got.Lines == nil {
				t.Errorf("got %#v, want the canonical %#v", got, want)
			}
			if !slices.Equal(in.Lines, before) {
				t.Errorf("Apply changed its input: %q", in.Lines)
			}
		})
	}
}

func TestApplyErrorReturnsNothing(t *testing.T) {
	got, err := Apply(doc("a\n"), []TextEdit{{0, 0, 0, 1, "x"}, {9, 0, 9, 0, "y"}})
	if err == nil || got.Lines != nil {
		t.Errorf("got %#v, %v; want no document and an error", got, err)
	}
}

// TestApplyJoinedLines: lines made of several pieces (an edit inside
// each) are joined into a buffer shared by the lines, grown as it fills:
// every line is still its own text, those joined before a growth too,
// as ApplyByteEdits makes the text.
func TestApplyJoinedLines(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "line %d: %s\n", i, strings.Repeat("x", i%40))
	}
	text := b.String()
	doc := ParseDocument(text)
	m := doc.Mapper()
	var edits []TextEdit
	var bytes []ByteEdit
	for i := range doc.Lines {
		if i%3 == 2 {
			continue
		}
		col := min(6, len(doc.Lines[i]))
		repl := strings.Repeat("é", i%13)
		edits = append(edits, TextEdit{StartLine: i, StartCol: col, EndLine: i, EndCol: col + 1, NewText: repl})
		off, err := m.Offset(i, col)
		if err != nil {
			t.Fatal(err)
		}
		bytes = append(bytes, ByteEdit{Start: off, End: off + 1, Text: repl})
	}
	want, err := ApplyByteEdits(text, bytes)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Apply(doc, edits)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Text(); got != want {
		t.Fatalf("Apply gives\n%s\nwant\n%s", got, want)
	}
}
