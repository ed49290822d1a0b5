package preview

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// "aé世🎉e\u0301x": a, é (2 bytes), 世 (3 bytes), 🎉 (4 bytes, 2 UTF-16
// units), e + combining acute (1 + 2 bytes, two characters), x.
const mixed = "aé世🎉e\u0301x"

func TestColumnConversions(t *testing.T) {
	tests := []struct {
		char, byte, utf16 int
	}{
		{0, 0, 0},  // a
		{1, 1, 1},  // é
		{2, 3, 2},  // 世
		{3, 6, 3},  // 🎉
		{4, 10, 5}, // e
		{5, 11, 6}, // U+0301
		{6, 13, 7}, // x
		{7, 14, 8}, // end of line
	}
	for _, tt := range tests {
		b, err := CharToByte(mixed, tt.char)
		if err != nil || b != tt.byte {
			t.Errorf("CharToByte(%d) = %d, %v; want %d", tt.char, b, err, tt.byte)
		}
		if got := ByteToChar(mixed, tt.byte); got != tt.char {
			t.Errorf("ByteToChar(%d) = %d; want %d", tt.byte, got, tt.char)
		}
		for _, enc := range []struct {
			enc   Encoding
			units int
		}{{UTF8, tt.byte}, {UTF16, tt.utf16}, {UTF32, tt.char}} {
			u, err := CharToUnits(mixed, tt.char, enc.enc)
			if err != nil || u != enc.units {
				t.Errorf("CharToUnits(%d, %s) = %d, %v; want %d", tt.char, enc.enc, u, err, enc.units)
			}
			b, exact := UnitsToByte(mixed, enc.units, enc.enc)
			if b != tt.byte || !exact {
				t.Errorf("UnitsToByte(%d, %s) = %d, %v; want %d exact", enc.units, enc.enc, b, exact, tt.byte)
			}
		}
	}
}

func TestColumnErrorsAndClamping(t *testing.T) {
	if _, err := CharToByte(mixed, 8); err == nil {
		t.Error("CharToByte past the end: want an error")
	}
	if _, err := CharToByte(mixed, -1); err == nil {
		t.Error("CharToByte(-1): want an error")
	}
	// UTF-16 column 4 is between the two surrogates of 🎉: rounds down to its start.
	if b, exact := UnitsToByte(mixed, 4, UTF16); b != 6 || exact {
		t.Errorf("UnitsToByte inside surrogate pair = %d, %v; want 6, false", b, exact)
	}
	// UTF-8 column 2 is inside é: rounds down to its start.
	if b, exact := UnitsToByte(mixed, 2, UTF8); b != 1 || exact {
		t.Errorf("UnitsToByte inside é = %d, %v; want 1, false", b, exact)
	}
	if b, exact := UnitsToByte(mixed, 99, UTF16); b != len(mixed) || exact {
		t.Errorf("UnitsToByte past the end = %d, %v; want %d, false", b, exact, len(mixed))
	}
	if got := UnitsToChar("", 0, UTF16); got != 0 {
		t.Errorf("UnitsToChar on empty line = %d", got)
	}
}

// LineColumns gives exactly what the per-call functions give, at every
// column of long lines mixing ASCII, multibyte characters, emoji (two UTF-16
// units) and invalid UTF-8.
func TestLineColumnsMatchesPerCallConversion(t *testing.T) {
	pieces := []string{"a", "bc", "é", "世", "🎉", "e\u0301", "\xff", "\xe9", "\xf0\x9f", " "}
	r := rand.New(rand.NewPCG(3, 5))
	for range 30 {
		var b strings.Builder
		for b.Len() < 600+r.IntN(1500) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		line := b.String()
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			c := NewLineColumns(line, enc)
			total := ByteToUnits(line, len(line), enc)
			for u := -1; u <= total+2; u++ {
				wb, wx := UnitsToByte(line, u, enc)
				if gb, gx := c.UnitsToByte(u); gb != wb || gx != wx {
					t.Fatalf("%s UnitsToByte(%d) = %d,%v, want %d,%v in %q", enc, u, gb, gx, wb, wx, line)
				}
			}
			for i := -1; i <= len(line)+1; i++ {
				if got, want := c.ByteToUnits(i), ByteToUnits(line, i, enc); got != want {
					t.Fatalf("%s ByteToUnits(%d) = %d, want %d in %q", enc, i, got, want, line)
				}
			}
		}
	}
}
