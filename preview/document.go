package preview

import (
	"strings"
	"unsafe"
)

// Document is a file's text as Neovim holds it: lines without terminators.
//
// Several Documents can hold the same text (Lines []string{} and []string{""}
// without FinalNewline are both the empty file); everything in this package
// works on the text, and the Documents it returns are canonical: an empty
// file is Lines []string{} with FinalNewline false.
type Document struct {
	Lines        []string // never nil for an existing file; an empty file is []string{}
	EOL          string   // "\n" or "\r\n": how lines end on disk ("" means "\n")
	FinalNewline bool     // the last line is terminated on disk
}

// ParseDocument splits file content into a Document. The EOL is "\r\n" only
// when every terminated line ends in "\r\n" (what Neovim detects as
// fileformat=dos); otherwise a stray "\r" stays part of its line, as Neovim
// shows it (^M), so Bytes gives back the exact input.
func ParseDocument(s string) Document {
	if len(s) == 0 {
		return Document{Lines: []string{}, EOL: "\n"}
	}
	final := strings.HasSuffix(s, "\n")
	if final {
		s = s[:len(s)-1]
	}
	lines := strings.Split(s, "\n")
	eol := "\n"
	if CRTerminated(lines, final) {
		eol = "\r\n"
		for i := range terminatedOf(lines, final) {
			lines[i] = strings.TrimSuffix(lines[i], "\r")
		}
	}
	return Document{Lines: lines, EOL: eol, FinalNewline: final}
}

// CRTerminated reports whether lines (a text cut at "\n"; its last line
// terminated when final) has a terminated line and every one ends in
// "\r": what ParseDocument reads as a CRLF text.
func CRTerminated(lines []string, final bool) bool {
	terminated := terminatedOf(lines, final)
	for _, l := range terminated {
		if !strings.HasSuffix(l, "\r") {
			return false
		}
	}
	return len(terminated) > 0
}

// terminatedOf is lines less the last unless final.
func terminatedOf(lines []string, final bool) []string {
	if !final && len(lines) > 0 {
		return lines[:len(lines)-1]
	}
	return lines
}

// ParseBuffer is ParseDocument for the text of a Neovim buffer: a buffer
// with fileformat=dos ends its lines in "\r\n" even while none is
// terminated yet (one line, or 'eol' off).
func ParseBuffer(text string, dos bool) Document {
	doc := ParseDocument(text)
	if dos {
		doc.EOL = "\r\n"
	}
	return doc
}

// ParsedAs reports whether d is ParseBuffer(text, dos) (its lines, line
// ending and final newline), compared along text without splitting it: a
// document made of a snapshot's text is known for that text's without a
// second split (a rename's file, some 30 us on the way to its preview).
func ParsedAs(d Document, text string, dos bool) bool {
	cr := crTerminatedText(text)
	eol := "\n"
	if dos || cr {
		eol = "\r\n"
	}
	final := strings.HasSuffix(text, "\n")
	if d.Lines == nil || d.EOL != eol || d.FinalNewline != final {
		return false
	}
	if text == "" {
		return len(d.Lines) == 0
	}
	if cutFrom(d.Lines, text, cr, final) {
		return true
	}
	body := strings.TrimSuffix(text, "\n")
	for n := 0; ; n++ {
		i := strings.IndexByte(body, '\n')
		line := body
		if i >= 0 {
			line = body[:i]
		}
		if cr && (i >= 0 || final) {
			line = strings.TrimSuffix(line, "\r")
		}
		if n >= len(d.Lines) || d.Lines[n] != line {
			return false
		}
		if i < 0 {
			return n+1 == len(d.Lines)
		}
		body = body[i+1:]
	}
}

// cutFrom reports whether lines are text's lines as ParsedAs cuts them
// (at each "\n", a "\r" before it cut too when cr; text ends in "\n"
// when final) by where they lie: each a piece of text's own bytes, at
// the line's place, and text's "\n" the line breaks between them alone.
// The lines of a snapshot's document are pieces of its text, and the
// snapshot that prepares its change holds the same string: told
// without comparing or cutting them (3-7 us on zap's logger.go, on the
// way to a rename's preview). False says nothing: compared then.
func cutFrom(lines []string, text string, cr, final bool) bool {
	sep := 1
	if cr {
		sep = 2
	}
	breaks := len(lines) - 1
	if final {
		breaks++
	}
	off := 0
	for i, l := range lines {
		if len(l) > 0 && (off+len(l) > len(text) || unsafe.StringData(l) != unsafe.StringData(text[off:])) {
			return false
		}
		off += len(l)
		if i < breaks {
			// (With cr, every "\n" follows a "\r".)
			if off+sep > len(text) || text[off+sep-1] != '\n' {
				return false
			}
			off += sep
		}
	}
	return off == len(text) && strings.Count(text, "\n") == breaks
}

// crTerminatedText is CRTerminated of text cut at "\n": text has a "\n"
// and each follows a "\r".
func crTerminatedText(text string) bool {
	found := false
	for i := strings.IndexByte(text, '\n'); i >= 0; {
		if i == 0 || text[i-1] != '\r' {
			return false
		}
		found = true
		next := strings.IndexByte(text[i+1:], '\n')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return found
}

// Bytes is the inverse of ParseDocument: the file content on disk.
func (d Document) Bytes() []byte {
	return d.appendTo(make([]byte, 0, d.size()))
}

// Text is Bytes as a string, made without a second copy.
func (d Document) Text() string {
	b := d.appendTo(make([]byte, 0, d.size()))
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
}

// Within is d with its lines cut from text, which must be d.Text(): the
// same document, its lines sharing that one string.
func (d Document) Within(text string) Document {
	lines := make([]string, len(d.Lines))
	off, eol := 0, len(d.eol())
	for i, l := range d.Lines {
		lines[i] = text[off : off+len(l)]
		off += len(l) + eol
	}
	d.Lines = lines
	return d
}

// Len is the length of Text, without making it.
func (d Document) Len() int {
	if len(d.Lines) == 0 {
		return 0
	}
	n := len(d.eol()) * (len(d.Lines) - 1)
	if d.FinalNewline {
		n += len(d.eol())
	}
	for _, l := range d.Lines {
		n += len(l)
	}
	return n
}

func (d Document) size() int {
	size, eol := 0, len(d.eol())
	for _, l := range d.Lines {
		size += len(l) + eol
	}
	return size
}

// appendTo appends the file content to b: appends to a slice of the
// right size, where a writer behind an interface took a call per line
// and per line break (a rename's file of 400 lines: 38 us, the appends
// a fifth of it), on the way from a server's answer to the preview
// (renamedAt's text, the edit applied, the diff).
func (d Document) appendTo(b []byte) []byte {
	eol := d.eol()
	for i, l := range d.Lines {
		if i > 0 {
			b = append(b, eol...)
		}
		b = append(b, l...)
	}
	if d.FinalNewline && len(d.Lines) > 0 {
		b = append(b, eol...)
	}
	return b
}

func (d Document) eol() string {
	if d.EOL == "" {
		return "\n"
	}
	return d.EOL
}

// text is a Document seen the way positions address it: the "extended"
// lines, which are Lines plus one empty line after a final newline (or the
// single empty line of an empty file). Every valid position, once
// normalised, is a column within one of these lines, and the text is exactly
// strings.Join(extended lines, "\n").
type text struct {
	lines []string
	tail  bool // an empty line follows lines
}

func newText(d Document) text {
	return text{lines: d.Lines, tail: d.FinalNewline || len(d.Lines) == 0}
}

// count is the number of extended lines (always >= 1).
func (t text) count() int {
	if t.tail {
		return len(t.lines) + 1
	}
	return len(t.lines)
}

func (t text) line(i int) string {
	if i < len(t.lines) {
		return t.lines[i]
	}
	return "" // the tail
}

// block returns extended lines first..last inclusive.
func (t text) block(first, last int) []string {
	if last < len(t.lines) {
		return t.lines[first : last+1]
	}
	b := make([]string, 0, last-first+1)
	b = append(b, t.lines[first:]...)
	return append(b, "")
}

// endPos is the position of the end of the text.
func (t text) endPos() pos {
	last := t.count() - 1
	return pos{last, len(t.line(last))}
}

// Real lines are what a diff shows: the lines that exist in the file, each
// terminated except possibly the last. The text ends with "\n" (or is empty)
// exactly when the last extended line is empty, so that line is not real.
func (t text) realCount() int {
	n := t.count()
	if t.line(n-1) == "" {
		return n - 1
	}
	return n
}

// lastUnterminated reports whether the last real line lacks a newline.
func (t text) lastUnterminated() bool {
	return t.line(t.count()-1) != ""
}

// documentFromLines builds the canonical Document whose extended lines are
// ext (len(ext) >= 1).
func documentFromLines(ext []string, eol string) Document {
	last := len(ext) - 1
	if ext[last] == "" {
		lines := ext[:last:last]
		return Document{Lines: lines, EOL: eol, FinalNewline: len(lines) > 0}
	}
	return Document{Lines: ext, EOL: eol}
}

// pos is a normalised position: a line index into the extended lines and a
// byte column within it.
type pos struct{ line, col int }

func (a pos) cmp(b pos) int {
	switch {
	case a.line != b.line:
		return a.line - b.line
	default:
		return a.col - b.col
	}
}
