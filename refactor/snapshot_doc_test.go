package refactor

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// countingParses counts the splits parsedBuffer makes until the test ends
// (the kept documents forgotten before and after).
func countingParses(t *testing.T) *int {
	n := 0
	old := parseBuffer
	forget := keptDocs.forget
	forget()
	parseBuffer = func(text string, dos bool) preview.Document {
		n++
		return old(text, dos)
	}
	t.Cleanup(func() { parseBuffer = old; forget() })
	return &n
}

// TestSnapshotDocKept: a snapshot's text split once serves the next
// snapshot of the same text (another string of the same bytes: another
// call's snapshot); a text changed in one byte (the same length: a buffer
// edited, a file rewritten with its mtime put back), the other line
// ending, and a caller changing its document's lines each get a document
// of their own, split from their own text.
func TestSnapshotDocKept(t *testing.T) {
	parses := countingParses(t)
	text := "package p\r\n\r\nfunc f() {}\r\n"
	s := nvim.FileSnapshot{Path: "/w/p.go", Loaded: true, Exists: true, Text: text, FileFormat: "dos"}
	d := snapshotDoc(s)
	if d.Text() != text || *parses != 1 {
		t.Fatalf("first: %q after %d parses", d.Text(), *parses)
	}
	// The caller's lines are its own.
	d.Lines[0] = "package q"
	s.Text = strings.Clone(text)
	if got := snapshotDoc(s); got.Text() != text || *parses != 1 {
		t.Fatalf("the same bytes again: %q after %d parses, want the text after 1", got.Text(), *parses)
	}
	edited := strings.Replace(text, "f()", "g()", 1)
	s.Text = edited
	if got := snapshotDoc(s); got.Text() != edited || *parses != 2 {
		t.Fatalf("one byte changed: %q after %d parses, want the edited text after 2", got.Text(), *parses)
	}
	// The same bytes, read as another file format: "\r" kept in the lines.
	s.Text, s.FileFormat = text, "unix"
	unix := preview.ParseBuffer(text, false)
	if got := snapshotDoc(s); got.EOL != unix.EOL || got.Text() != unix.Text() || *parses != 3 {
		t.Fatalf("unix: EOL %q after %d parses, want %q after 3", got.EOL, *parses, unix.EOL)
	}
	// Past the bound, the least recently used is split again; a text past
	// it is never kept.
	for i := range maxKeptDocs {
		s.Text = text + strings.Repeat("\r\n", i+1)
		snapshotDoc(s)
	}
	n := *parses
	s.Text, s.FileFormat = text, "dos"
	snapshotDoc(s)
	if *parses != n+1 {
		t.Fatalf("the first text, dropped: %d parses, want %d", *parses, n+1)
	}
	s.Text = strings.Repeat("x\n", maxKeptDocText)
	snapshotDoc(s)
	snapshotDoc(s)
	if *parses != n+3 {
		t.Fatalf("a text past the bound twice: %d parses, want %d", *parses, n+3)
	}
}
