package preview

import (
	"strings"
	"testing"
)

// mappers returns the Mapper of text made both ways: from the text and
// from its Document (whose EOL does not change the positions).
func mappers(text string) map[string]*Mapper {
	doc := ParseDocument(strings.ReplaceAll(text, "\n", "\r\n"))
	return map[string]*Mapper{"text": NewMapper(text), "document": doc.Mapper()}
}

func TestMapperPositions(t *testing.T) {
	// Line 0 "aé世" (a, é: 2 bytes, 世: 3 bytes), line 1 "🎉x" (🎉: 4 bytes,
	// 2 UTF-16 units), line 2 the empty line after the final newline.
	const text = "aé世\n🎉x\n"
	tests := []struct {
		off             int
		line, col       int // Neovim
		toolLine, char  int // tool
		utf16, utf8unit int // LSP columns
	}{
		{0, 0, 0, 1, 0, 0, 0},
		{1, 0, 1, 1, 1, 1, 1},
		{3, 0, 3, 1, 2, 2, 3},
		{6, 0, 6, 1, 3, 3, 6}, // the end of line 0
		{7, 1, 0, 2, 0, 0, 0},
		{11, 1, 4, 2, 1, 2, 4},
		{12, 1, 5, 2, 2, 3, 5},
		{13, 2, 0, 3, 0, 0, 0}, // the end of the text
	}
	for how, m := range mappers(text) {
		if m.Text() != text || m.LineCount() != 3 || m.Line(1) != "🎉x" || m.Line(2) != "" || m.Line(3) != "" {
			t.Fatalf("%s: text %q, %d lines, line 1 %q", how, m.Text(), m.LineCount(), m.Line(1))
		}
		for _, tt := range tests {
			if l, c := m.Position(tt.off); l != tt.line || c != tt.col {
				t.Errorf("%s: Position(%d) = %d:%d, want %d:%d", how, tt.off, l, c, tt.line, tt.col)
			}
			if off, err := m.Offset(tt.line, tt.col); err != nil || off != tt.off {
				t.Errorf("%s: Offset(%d, %d) = %d, %v; want %d", how, tt.line, tt.col, off, err, tt.off)
			}
			if l, c := m.CharPosition(tt.off); l != tt.toolLine || c != tt.char {
				t.Errorf("%s: CharPosition(%d) = %d:%d, want %d:%d", how, tt.off, l, c, tt.toolLine, tt.char)
			}
			if off, err := m.CharOffset(tt.toolLine, tt.char); err != nil || off != tt.off {
				t.Errorf("%s: CharOffset(%d, %d) = %d, %v; want %d", how, tt.toolLine, tt.char, off, err, tt.off)
			}
			for enc, units := range map[Encoding]int{UTF16: tt.utf16, UTF8: tt.utf8unit} {
				if l, u := m.UnitsPosition(tt.off, enc); l != tt.line || u != units {
					t.Errorf("%s: UnitsPosition(%d, %s) = %d:%d, want %d:%d", how, tt.off, enc, l, u, tt.line, units)
				}
				if c, err := m.UnitsColumn(tt.line, units, enc); err != nil || c != tt.col {
					t.Errorf("%s: UnitsColumn(%d, %d, %s) = %d, %v; want %d", how, tt.line, units, enc, c, err, tt.col)
				}
			}
		}
	}
}

func TestMapperErrorsAndClamping(t *testing.T) {
	for how, m := range mappers("ab\n🎉\n") {
		for _, bad := range [][2]int{{-1, 0}, {3, 0}, {0, 3}, {1, -1}} {
			if _, err := m.Offset(bad[0], bad[1]); err == nil {
				t.Errorf("%s: Offset(%d, %d): want an error", how, bad[0], bad[1])
			}
		}
		for _, bad := range [][2]int{{0, 0}, {4, 0}, {1, 3}, {2, 2}} {
			if _, err := m.CharOffset(bad[0], bad[1]); err == nil {
				t.Errorf("%s: CharOffset(%d, %d): want an error", how, bad[0], bad[1])
			}
		}
		// Inside the surrogate pair, past the line's end, past the text.
		for _, bad := range [][2]int{{1, 1}, {0, 3}, {3, 0}, {4, 0}} {
			if _, err := m.UnitsColumn(bad[0], bad[1], UTF16); err == nil {
				t.Errorf("%s: UnitsColumn(%d, %d): want an error", how, bad[0], bad[1])
			}
		}
		if l, c := m.Position(99); l != 2 || c != 0 {
			t.Errorf("%s: Position past the end = %d:%d, want the end 2:0", how, l, c)
		}
		if l, c := m.Position(-4); l != 0 || c != 0 {
			t.Errorf("%s: Position(-4) = %d:%d, want 0:0", how, l, c)
		}
	}
	// Without a final newline, (LineCount(), 0) is the end of the text; an
	// empty text has no such end beyond its one empty line.
	for how, m := range mappers("ab\ncd") {
		if c, err := m.UnitsColumn(2, 0, UTF16); err != nil || c != 0 {
			t.Errorf("%s: UnitsColumn at the end of a text without a final newline = %d, %v", how, c, err)
		}
	}
	for how, m := range mappers("") {
		if m.LineCount() != 1 || m.Text() != "" {
			t.Errorf("%s: empty text: %d lines, %q", how, m.LineCount(), m.Text())
		}
		if _, err := m.UnitsColumn(1, 0, UTF16); err == nil {
			t.Errorf("%s: UnitsColumn(1, 0) of an empty text: want an error", how)
		}
	}
}

func TestMapperLines(t *testing.T) {
	for how, m := range mappers("one\ntwo\nthree") {
		for _, tt := range []struct{ off, start, end int }{
			{0, 0, 4}, {3, 0, 4}, // the "\n" belongs to the line it ends
			{4, 4, 8}, {9, 8, 13}, {13, 8, 13},
		} {
			if s, e := m.LineAround(tt.off); s != tt.start || e != tt.end {
				t.Errorf("%s: LineAround(%d) = %d-%d, want %d-%d", how, tt.off, s, e, tt.start, tt.end)
			}
		}
		if s, e := m.WholeLines(5, 7); s != 4 || e != 8 {
			t.Errorf("%s: WholeLines(5, 7) = %d-%d, want 4-8", how, s, e)
		}
		if m.LineOffset(1) != 4 || m.LineOffset(3) != 13 || m.LineOffset(-1) != 0 {
			t.Errorf("%s: LineOffset 1, 3, -1 = %d, %d, %d", how, m.LineOffset(1), m.LineOffset(3), m.LineOffset(-1))
		}
	}
}

// A long line's columns are indexed once and give what the per-call
// functions give.
func TestMapperLongLine(t *testing.T) {
	line := strings.Repeat("aé🎉", 200)
	m := NewMapper("x\n" + line + "\n")
	for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
		for b := 0; b <= len(line); b += 7 {
			if b < len(line) && !isRuneStart(line, b) {
				continue
			}
			l, u := m.UnitsPosition(2+b, enc)
			if l != 1 || u != ByteToUnits(line, b, enc) {
				t.Fatalf("%s: UnitsPosition(%d) = %d:%d", enc, 2+b, l, u)
			}
			if c, err := m.UnitsColumn(1, u, enc); err != nil || c != b {
				t.Fatalf("%s: UnitsColumn(1, %d) = %d, %v; want %d", enc, u, c, err, b)
			}
		}
	}
}

func isRuneStart(s string, b int) bool { return s[b]&0xC0 != 0x80 }

func TestMapperTextEdit(t *testing.T) {
	const text = "package p\n\nfunc é() {}\n"
	m := NewMapper(text)
	e := m.TextEdit(ByteEdit{Start: 16, End: 18, Text: "f"})
	if e != (TextEdit{StartLine: 2, StartCol: 5, EndLine: 2, EndCol: 7, NewText: "f"}) {
		t.Fatalf("TextEdit = %v", e)
	}
	doc, err := Apply(ParseDocument(text), []TextEdit{e})
	if err != nil || doc.Text() != "package p\n\nfunc f() {}\n" {
		t.Fatalf("applied: %q, %v", doc.Text(), err)
	}
}

func TestApplyByteEdits(t *testing.T) {
	tests := []struct {
		name  string
		edits []ByteEdit
		want  string
		bad   bool
	}{
		{"none", nil, "abcdef", false},
		{"unsorted", []ByteEdit{{4, 5, "E"}, {0, 1, "A"}}, "AbcdEf", false},
		{"inserts at one offset keep their order", []ByteEdit{{2, 2, "1"}, {2, 2, "2"}, {2, 3, "C"}}, "ab12Cdef", false},
		{"delete and append", []ByteEdit{{0, 3, ""}, {6, 6, "!"}}, "def!", false},
		{"overlap", []ByteEdit{{0, 3, "x"}, {2, 4, "y"}}, "", true},
		{"past the end", []ByteEdit{{5, 7, "x"}}, "", true},
		{"inverted", []ByteEdit{{3, 2, "x"}}, "", true},
	}
	for _, tt := range tests {
		got, err := ApplyByteEdits("abcdef", tt.edits)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("%s: %q, %v; want %q (error %v)", tt.name, got, err, tt.want, tt.bad)
		}
	}
}
