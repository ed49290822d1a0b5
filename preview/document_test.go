package preview

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

func TestParseDocument(t *testing.T) {
	cases := []struct {
		in    string
		lines []string
		eol   string
		final bool
	}{
		{"", []string{}, "\n", false},
		{"\n", []string{""}, "\n", true},
		{"a", []string{"a"}, "\n", false},
		{"a\n", []string{"a"}, "\n", true},
		{"a\nb", []string{"a", "b"}, "\n", false},
		{"a\r\n", []string{"a"}, "\r\n", true},
		{"a\r\nb", []string{"a", "b"}, "\r\n", false},
		{"a\r\nb\r\n", []string{"a", "b"}, "\r\n", true},
		{"\r\n\r\n", []string{"", ""}, "\r\n", true},
		// Mixed endings: not CRLF; the "\r" stays in its line, as Neovim shows ^M.
		{"a\r\nb\n", []string{"a\r", "b"}, "\n", true},
		// A "\r" on the unterminated last line is content, not a line ending.
		{"a\r\nb\r", []string{"a", "b\r"}, "\r\n", false},
		{"a\rb\n", []string{"a\rb"}, "\n", true},
		{"日本\n😀", []string{"日本", "😀"}, "\n", false},
	}
	for _, c := range cases {
		d := ParseDocument(c.in)
		if !slices.Equal(d.Lines, c.lines) || d.Lines == nil || d.EOL != c.eol || d.FinalNewline != c.final {
			t.Errorf("ParseDocument(%q) = %q eol=%q final=%v, want %q eol=%q final=%v", c.in, d.Lines, d.EOL, d.FinalNewline, c.lines, c.eol, c.final)
		}
		if got := string(d.Bytes()); got != c.in {
			t.Errorf("ParseDocument(%q).Bytes() = %q", c.in, got)
		}
	}
}

// TestDocumentBytesRoundTrip: Bytes inverts ParseDocument on random content
// made of the bytes that matter.
func TestDocumentBytesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("ab\r\n\n\xe6\x97\xa5\xff")
	for range 5000 {
		in := make([]byte, r.IntN(12))
		for i := range in {
			in[i] = alphabet[r.IntN(len(alphabet))]
		}
		if got := ParseDocument(string(in)).Bytes(); !bytes.Equal(got, in) {
			t.Fatalf("ParseDocument(%q).Bytes() = %q", in, got)
		}
	}
}

func TestDocumentBytesOddShapes(t *testing.T) {
	cases := []struct {
		d    Document
		want string
	}{
		{Document{}, ""},
		{Document{Lines: []string{}, FinalNewline: true}, ""}, // no line to terminate
		{Document{Lines: []string{"a", "b"}}, "a\nb"},         // EOL "" means "\n"
		{Document{Lines: []string{"a", "b"}, EOL: "\r\n", FinalNewline: true}, "a\r\nb\r\n"},
		{Document{Lines: []string{""}}, ""},
	}
	for _, c := range cases {
		if got := string(c.d.Bytes()); got != c.want {
			t.Errorf("%+v.Bytes() = %q, want %q", c.d, got, c.want)
		}
		if got := c.d.Len(); got != len(c.want) {
			t.Errorf("%+v.Len() = %d, want %d", c.d, got, len(c.want))
		}
	}
}

// TestDocumentWithin: Len is the length of Text, and Within gives the same
// document with its lines cut from that text.
func TestDocumentWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []byte("ab\r\n\n\xe6\x97\xa5")
	for range 2000 {
		in := make([]byte, r.IntN(16))
		for i := range in {
			in[i] = alphabet[r.IntN(len(alphabet))]
		}
		d := ParseDocument(string(in))
		// Lines of their own (as an edit makes them), not of in.
		for i, l := range d.Lines {
			d.Lines[i] = strings.Clone(l)
		}
		text := d.Text()
		if d.Len() != len(text) {
			t.Fatalf("%q: Len %d, Text has %d bytes", in, d.Len(), len(text))
		}
		w := d.Within(text)
		if !slices.Equal(w.Lines, d.Lines) || w.EOL != d.EOL || w.FinalNewline != d.FinalNewline || w.Text() != text {
			t.Fatalf("%q: Within gives %+v, want %+v", in, w, d)
		}
		base := uintptr(unsafe.Pointer(unsafe.StringData(text)))
		for _, l := range w.Lines {
			if p := uintptr(unsafe.Pointer(unsafe.StringData(l))); len(l) > 0 && (p < base || p+uintptr(len(l)) > base+uintptr(len(text))) {
				t.Fatalf("%q: line %q is not cut from the text", in, l)
			}
		}
	}
}

// TestParseBuffer: a dos buffer's lines end in "\r\n" even when no line of
// its text is terminated; other buffers are read as ParseDocument reads them.
func TestParseBuffer(t *testing.T) {
	for _, c := range []struct {
		text string
		dos  bool
		eol  string
	}{
		{"one line", true, "\r\n"},
		{"", true, "\r\n"},
		{"a\r\nb\r\n", true, "\r\n"},
		{"one line", false, "\n"},
		{"a\r\nb\r\n", false, "\r\n"},
	} {
		if d := ParseBuffer(c.text, c.dos); d.EOL != c.eol || !bytes.Equal(d.Bytes(), []byte(c.text)) && c.text != "" {
			t.Errorf("ParseBuffer(%q, dos=%v): EOL %q, bytes %q; want EOL %q", c.text, c.dos, d.EOL, d.Bytes(), c.eol)
		}
	}
}

// TestDocumentTextOneCopy: Text and Bytes of a file of many lines make
// its bytes in one allocation of the right size, appended to (a writer
// behind an interface escaped and took a call per line), and give the
// file's bytes back, with either line ending.
func TestDocumentTextOneCopy(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "\tline %d of a file\r\n", i)
	}
	for _, in := range []string{b.String(), strings.ReplaceAll(b.String(), "\r\n", "\n")} {
		d := ParseDocument(in)
		if d.Text() != in || string(d.Bytes()) != in {
			t.Fatalf("EOL %q: the text is not the file's", d.EOL)
		}
		if n := testing.AllocsPerRun(20, func() { _ = d.Text() }); n != 1 {
			t.Errorf("EOL %q: Text made %v allocations, want 1", d.EOL, n)
		}
		if n := testing.AllocsPerRun(20, func() { _ = d.Bytes() }); n != 1 {
			t.Errorf("EOL %q: Bytes made %v allocations, want 1", d.EOL, n)
		}
	}
}

// smallTexts is every text of up to seven bytes of "a", "\r" and "\n".
func smallTexts() []string {
	var texts []string
	var grow func(string)
	grow = func(s string) {
		texts = append(texts, s)
		if len(s) < 7 {
			for _, c := range []string{"a", "\r", "\n"} {
				grow(s + c)
			}
		}
	}
	grow("")
	return texts
}

// TestParsedAs: ParsedAs(d, text, dos) is whether d is ParseBuffer(text,
// dos), over every text of up to seven bytes of "a", "\r" and "\n", each
// against its own document and against the others' (and a document of
// another line ending, a nil one).
func TestParsedAs(t *testing.T) {
	texts := smallTexts()
	same := func(a, b Document) bool {
		return (a.Lines == nil) == (b.Lines == nil) && slices.Equal(a.Lines, b.Lines) && a.EOL == b.EOL && a.FinalNewline == b.FinalNewline
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, text := range texts {
		for _, dos := range []bool{false, true} {
			want := ParseBuffer(text, dos)
			if !ParsedAs(want, text, dos) {
				t.Fatalf("%q (dos %v): its own document %+v not taken", text, dos, want)
			}
			for range 20 {
				other := ParseBuffer(texts[rng.IntN(len(texts))], rng.IntN(2) == 0)
				if got := ParsedAs(other, text, dos); got != same(other, want) {
					t.Fatalf("%q (dos %v) against %+v: %v, want %v", text, dos, other, got, !got)
				}
			}
			for _, other := range []Document{{}, {Lines: want.Lines, EOL: "", FinalNewline: want.FinalNewline}} {
				if ParsedAs(other, text, dos) {
					t.Fatalf("%q (dos %v): %+v taken for %+v", text, dos, other, want)
				}
			}
		}
	}
}

// TestParsedAsPiecesOfText: a document whose lines are pieces of the text
// itself (the case ParsedAs tells by where they lie, cutFrom) is taken
// exactly when it is the text's parse: pieces cut anywhere, a line break
// or its "\r" inside a line or left out between two, over every text of
// up to seven bytes of "a", "\r" and "\n"; and the parse's own lines are
// told so.
func TestParsedAsPiecesOfText(t *testing.T) {
	texts := smallTexts()
	rng := rand.New(rand.NewPCG(3, 9))
	for _, text := range texts {
		for _, dos := range []bool{false, true} {
			want := ParseBuffer(text, dos)
			cr := crTerminatedText(text)
			if text != "" && !cutFrom(want.Lines, text, cr, want.FinalNewline) {
				t.Fatalf("%q (dos %v): its parse's lines %q not told by where they lie", text, dos, want.Lines)
			}
			for range 40 {
				var lines []string
				for off := 0; off < len(text) || len(lines) == 0; {
					n := rng.IntN(len(text) - off + 1)
					lines = append(lines, text[off:off+n])
					off += n + rng.IntN(3)
					if off > len(text) {
						break
					}
				}
				d := Document{Lines: lines, EOL: want.EOL, FinalNewline: rng.IntN(2) == 0}
				same := slices.Equal(d.Lines, want.Lines) && d.FinalNewline == want.FinalNewline
				if got := ParsedAs(d, text, dos); got != same {
					t.Fatalf("%q (dos %v) against %q (final %v): %v, want %v", text, dos, d.Lines, d.FinalNewline, got, same)
				}
			}
		}
	}
}
