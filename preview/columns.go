package preview

// Columns within one line, in the units of each position system (see
// Mapper for whole texts): characters (tool columns), bytes (Neovim's) and
// an LSP client's offset encoding. They serve callers holding one line (a
// located point, a server's range on one line); a Mapper uses them for its
// lines.

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// Encoding is a client's offset encoding, as Neovim names it.
type Encoding string

const (
	UTF8  Encoding = "utf-8"
	UTF16 Encoding = "utf-16"
	UTF32 Encoding = "utf-32"
)

// CharToByte converts a column in characters to a byte offset into line.
// A column equal to the line's length in characters is the line's end.
func CharToByte(line string, char int) (int, error) {
	if char < 0 {
		return 0, fmt.Errorf("column %d is negative", char)
	}
	n := 0
	for i := range line {
		if n == char {
			return i, nil
		}
		n++
	}
	if n == char {
		return len(line), nil
	}
	return 0, fmt.Errorf("column %d is past the end of the line (%d characters)", char, n)
}

// ByteToChar converts a byte offset into line to a column in characters.
// An offset inside a multibyte character counts as that character.
func ByteToChar(line string, b int) int {
	if b > len(line) {
		b = len(line)
	}
	n := 0
	for i := range line {
		if i >= b {
			break
		}
		n++
	}
	return n
}

// ByteToUnits converts a byte offset into line to a column in enc's units.
func ByteToUnits(line string, b int, enc Encoding) int {
	if b > len(line) {
		b = len(line)
	}
	switch enc {
	case UTF8:
		return b
	case UTF32:
		return ByteToChar(line, b)
	}
	units := 0
	for i, r := range line {
		if i >= b {
			break
		}
		units += utf16Len(r)
	}
	return units
}

// UnitsToByte converts a column in enc's units to a byte offset into line.
// Servers' positions are trusted loosely, as Neovim does: a column past the
// end clamps to the end and one inside a character rounds to its start. The
// exact flag reports whether no such adjustment was needed.
func UnitsToByte(line string, units int, enc Encoding) (b int, exact bool) {
	if units < 0 {
		return 0, false
	}
	switch enc {
	case UTF8:
		if units > len(line) {
			return len(line), false
		}
		b = units
		for b > 0 && b < len(line) && !utf8.RuneStart(line[b]) {
			b--
		}
		return b, b == units
	case UTF32:
		b, err := CharToByte(line, units)
		if err != nil {
			return len(line), false
		}
		return b, true
	}
	n := 0
	for i, r := range line {
		if n == units {
			return i, true
		}
		n += utf16Len(r)
		if n > units {
			return i, false // inside a surrogate pair
		}
	}
	return len(line), n == units
}

// CharToUnits converts a column in characters to enc's units.
func CharToUnits(line string, char int, enc Encoding) (int, error) {
	b, err := CharToByte(line, char)
	if err != nil {
		return 0, err
	}
	return ByteToUnits(line, b, enc), nil
}

// UnitsToChar converts a column in enc's units to characters (loosely, as
// UnitsToByte).
func UnitsToChar(line string, units int, enc Encoding) int {
	b, _ := UnitsToByte(line, units, enc)
	return ByteToChar(line, b)
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// columnStride is the spacing, in bytes, of a LineColumns' checkpoints.
const columnStride = 256

// LineColumns converts many columns of one line, each in time bounded by
// columnStride rather than by the line's length: converting n positions on
// one long line with the functions above rescans the line from its start
// every time, O(n * line length). Use it where a line may hold many
// positions (edits, references); the results are those of UnitsToByte and
// ByteToUnits.
type LineColumns struct {
	line string
	enc  Encoding
	// Checkpoints at rune starts (as ranging over line visits them), about
	// columnStride bytes apart: byte offset and units before it.
	bytes, units []int
}

// NewLineColumns indexes line for enc in one pass.
func NewLineColumns(line string, enc Encoding) *LineColumns {
	c := &LineColumns{line: line, enc: enc, bytes: []int{0}, units: []int{0}}
	if enc == UTF8 || len(line) <= columnStride {
		return c
	}
	u, next := 0, columnStride
	for i, r := range line {
		if i >= next {
			c.bytes = append(c.bytes, i)
			c.units = append(c.units, u)
			next = i + columnStride
		}
		if enc == UTF16 {
			u += utf16Len(r)
		} else {
			u++
		}
	}
	return c
}

// UnitsToByte is UnitsToByte(line, units, enc).
func (c *LineColumns) UnitsToByte(units int) (int, bool) {
	if c.enc == UTF8 || units < 0 {
		return UnitsToByte(c.line, units, c.enc)
	}
	// The last checkpoint at or before units.
	k := sort.Search(len(c.units), func(i int) bool { return c.units[i] > units }) - 1
	b, exact := UnitsToByte(c.line[c.bytes[k]:], units-c.units[k], c.enc)
	return c.bytes[k] + b, exact
}

// ByteToUnits is ByteToUnits(line, b, enc).
func (c *LineColumns) ByteToUnits(b int) int {
	if c.enc == UTF8 {
		return ByteToUnits(c.line, b, c.enc)
	}
	b = max(0, min(b, len(c.line)))
	k := sort.Search(len(c.bytes), func(i int) bool { return c.bytes[i] > b }) - 1
	return c.units[k] + ByteToUnits(c.line[c.bytes[k]:], b-c.bytes[k], c.enc)
}
