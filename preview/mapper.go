package preview

// Four position systems meet in nvbridge (as in gopls's protocol/mapper.go):
//   - tool positions: 1-based lines, 0-based columns counted in characters
//     (Unicode code points), what agents send and receive;
//   - Neovim positions: 0-based lines, 0-based byte columns into the line's
//     UTF-8 text: TextEdit's;
//   - LSP positions: 0-based lines, 0-based columns counted in a client's
//     offset encoding (UTF-16 code units by default, or UTF-8 bytes, or
//     UTF-32 code points);
//   - byte offsets into the text: what go/parser, tree-sitter and the
//     refactorings' planners read and edit (ByteEdit).
// A Mapper converts between the four for one text; the column functions
// (columns.go) convert within one line.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Mapper converts positions in one text between the four position systems
// and turns byte edits into TextEdits. The text is a document's lines
// joined by "\n", plus "\n" after a final newline (Document.EOL only
// matters on disk): what positions address. Its lines are the extended
// lines (see text): after a final newline comes one more, empty line, so
// (len(Lines), 0) is the end of the text.
//
// A Mapper made from a Document reads its lines as they are and joins them
// only when Text is asked; one made from a text indexes its lines on first
// use. Long lines are indexed for an encoding once (LineColumns). A Mapper
// is not safe for concurrent use.
type Mapper struct {
	doc     *text  // the extended lines, for a Mapper made from a Document
	flat    string // the text, once known
	hasFlat bool
	starts  []int // the offset at which each extended line starts, on first use

	enc     Encoding
	columns map[int]*LineColumns // long lines indexed for enc
}

// NewMapper returns the Mapper of text (lines joined by "\n").
func NewMapper(text string) *Mapper { return &Mapper{flat: text, hasFlat: true} }

// Mapper returns the Mapper of d's text as positions address it.
func (d Document) Mapper() *Mapper {
	t := newText(d)
	return &Mapper{doc: &t}
}

// Text is the text: the lines joined by "\n".
func (m *Mapper) Text() string {
	if !m.hasFlat {
		// Document{EOL: "\n"}.Text is the lines joined by "\n", a final one
		// after a final newline: the same bytes, written once.
		m.flat, m.hasFlat = Document{Lines: m.doc.lines, EOL: "\n", FinalNewline: m.doc.tail && len(m.doc.lines) > 0}.Text(), true
	}
	return m.flat
}

// index computes the lines' start offsets.
func (m *Mapper) index() []int {
	if m.starts != nil {
		return m.starts
	}
	if m.doc != nil {
		n := m.doc.count()
		m.starts = make([]int, n)
		at := 0
		for i := range n {
			m.starts[i] = at
			at += len(m.doc.line(i)) + 1
		}
		return m.starts
	}
	text := m.flat
	m.starts = make([]int, 1, strings.Count(text, "\n")+1)
	for at := 0; ; {
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			return m.starts
		}
		at += i + 1
		m.starts = append(m.starts, at)
	}
}

// size is the length of the text in bytes.
func (m *Mapper) size() int {
	if m.hasFlat {
		return len(m.flat)
	}
	starts := m.index()
	last := len(starts) - 1
	return starts[last] + len(m.doc.line(last))
}

// LineCount is the number of lines (at least 1: an empty text is one
// empty line).
func (m *Mapper) LineCount() int {
	if m.doc != nil {
		return m.doc.count()
	}
	return len(m.index())
}

// Line is the text of 0-based line i without its "\n" ("" outside the text).
func (m *Mapper) Line(i int) string {
	if m.doc != nil {
		if i < 0 || i >= m.doc.count() {
			return ""
		}
		return m.doc.line(i)
	}
	starts := m.index()
	switch {
	case i < 0 || i >= len(starts):
		return ""
	case i+1 < len(starts):
		return m.flat[starts[i] : starts[i+1]-1]
	}
	return m.flat[starts[i]:]
}

// LineOffset is the offset at which 0-based line i starts: the text's
// length past its last line.
func (m *Mapper) LineOffset(i int) int {
	starts := m.index()
	switch {
	case i < 0:
		return 0
	case i >= len(starts):
		return m.size()
	}
	return starts[i]
}

// LineAround returns the whole line holding offset off: where it starts and
// where the next one does (past its "\n"; the text's end on the last line).
// A "\n" belongs to the line it ends.
func (m *Mapper) LineAround(off int) (start, end int) {
	line, _ := m.Position(off)
	return m.LineOffset(line), m.LineOffset(line + 1)
}

// WholeLines widens [start, end) to whole lines: from the start of start's
// line to past the end of end's (see LineAround).
func (m *Mapper) WholeLines(start, end int) (int, int) {
	from, _ := m.LineAround(start)
	_, to := m.LineAround(end)
	return from, to
}

// Position converts an offset (clamped to the text) to a Neovim position:
// 0-based line and byte column.
func (m *Mapper) Position(off int) (line, col int) {
	starts := m.index()
	off = max(0, min(off, m.size()))
	line = sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	return line, off - starts[line]
}

// Offset converts a Neovim position (0-based line, byte column) to an
// offset. A column may be the line's length (its end).
func (m *Mapper) Offset(line, col int) (int, error) {
	if line < 0 || line >= m.LineCount() {
		return 0, fmt.Errorf("line %d is outside the text (%d lines)", line, m.LineCount())
	}
	if n := len(m.Line(line)); col < 0 || col > n {
		return 0, fmt.Errorf("column %d is outside line %d (%d bytes)", col, line, n)
	}
	return m.LineOffset(line) + col, nil
}

// CharPosition converts an offset (clamped to the text) to a tool
// position: 1-based line and character column. An offset inside a
// multibyte character counts as that character.
func (m *Mapper) CharPosition(off int) (line, char int) {
	l, col := m.Position(off)
	return l + 1, ByteToChar(m.Line(l), col)
}

// CharOffset converts a tool position (1-based line, character column) to
// an offset. A column may be the line's length in characters (its end).
func (m *Mapper) CharOffset(line, char int) (int, error) {
	if line < 1 || line > m.LineCount() {
		return 0, fmt.Errorf("line %d is outside the text (lines 1-%d)", line, m.LineCount())
	}
	b, err := CharToByte(m.Line(line-1), char)
	if err != nil {
		return 0, fmt.Errorf("line %d: %w", line, err)
	}
	return m.LineOffset(line-1) + b, nil
}

// UnitsPosition converts an offset (clamped to the text) to an LSP
// position in enc: 0-based line and column in enc's units.
func (m *Mapper) UnitsPosition(off int, enc Encoding) (line, units int) {
	l, col := m.Position(off)
	text := m.Line(l)
	if len(text) <= columnStride {
		return l, ByteToUnits(text, col, enc)
	}
	return l, m.longLine(l, text, enc).ByteToUnits(col)
}

// UnitsColumn converts an LSP position in enc (0-based line, column in
// enc's units) to the byte column of that line. Positions must be exact: a
// column past the end of its line or inside a character is an error, as
// is a line outside the text; (LineCount(), 0) of a text without a final
// newline is its end, as for TextEdit.
func (m *Mapper) UnitsColumn(line, units int, enc Encoding) (int, error) {
	n := m.LineCount()
	switch {
	case line == n && units == 0 && m.Line(n-1) != "":
		return 0, nil
	case line < 0 || line >= n:
		return 0, fmt.Errorf("position %d:%d is past the end of the document (%d lines)", line, units, n)
	}
	text := m.Line(line)
	var b int
	var exact bool
	if len(text) <= columnStride {
		b, exact = UnitsToByte(text, units, enc)
	} else {
		b, exact = m.longLine(line, text, enc).UnitsToByte(units)
	}
	if !exact {
		if total := ByteToUnits(text, len(text), enc); units > total {
			return 0, fmt.Errorf("position %d:%d is past the end of line %d (%d %s units)", line, units, line, total, enc)
		}
		return 0, fmt.Errorf("position %d:%d is inside a character (%s)", line, units, enc)
	}
	return b, nil
}

// longLine is line i (text, longer than columnStride) indexed for enc,
// once: many positions on one long line then cost linear time.
func (m *Mapper) longLine(i int, text string, enc Encoding) *LineColumns {
	if m.enc != enc {
		m.enc, m.columns = enc, nil
	}
	c := m.columns[i]
	if c == nil {
		if m.columns == nil {
			m.columns = map[int]*LineColumns{}
		}
		c = NewLineColumns(text, enc)
		m.columns[i] = c
	}
	return c
}

// ByteEdit replaces the bytes [Start, End) of a text with Text.
type ByteEdit struct {
	Start, End int
	Text       string
}

// TextEdit is e in Neovim positions.
func (m *Mapper) TextEdit(e ByteEdit) TextEdit {
	sl, sc := m.Position(e.Start)
	el, ec := m.Position(e.End)
	return TextEdit{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec, NewText: e.Text}
}

// ApplyByteEdits returns text with the edits made, ordered by start (edits
// starting at one offset in the given order). Overlapping edits and ranges
// outside the text are an error, and nothing is applied.
func ApplyByteEdits(text string, edits []ByteEdit) (string, error) {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b ByteEdit) int { return a.Start - b.Start })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		switch {
		case e.Start < 0 || e.Start > e.End || e.End > len(text):
			return "", fmt.Errorf("edit %d-%d is outside the text (%d bytes) or inverted", e.Start, e.End, len(text))
		case e.Start < last:
			return "", fmt.Errorf("overlapping edits at byte %d", e.Start)
		}
		b.WriteString(text[last:e.Start])
		b.WriteString(e.Text)
		last = e.End
	}
	b.WriteString(text[last:])
	return b.String(), nil
}
