package refactor

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/lang"
)

// countingGo is Go with its FormatKeeps counted (a language of its own:
// the kept parses of lang.Go are not its).
func countingGo() (*lang.Language, *int) {
	l := *lang.Go
	parses := 0
	l.FormatKeeps = func(src, name string) func([]int, string) bool {
		parses++
		return lang.Go.FormatKeeps(src, name)
	}
	return &l, &parses
}

// TestFormatKeepsKept: a rename asked again in the same text takes the
// parse made for the first (the file is not parsed again), and a text
// changed in one byte, of the same length, is parsed again, its answer
// its own: "ab" a plain variable, then a field of an aligned struct
// (gofmt lays it out by width).
func TestFormatKeepsKept(t *testing.T) {
	l, parses := countingGo()
	plain := "package p\n\nfunc ffffff() {\n\tab := 1\n\t_ = ab\n}\n"
	aligned := "package p\n\ntype TT struct {\n\tab int\n\tcd int\n}\n"
	at, at2 := []int{len("package p\n\nfunc ffffff() {\n\t")}, []int{len("package p\n\ntype TT struct {\n\t")}
	if len(plain) != len(aligned) || plain[at[0]:at[0]+2] != "ab" || aligned[at2[0]:at2[0]+2] != "ab" {
		t.Fatal("the test's texts moved")
	}
	if !formatKeepsOf(l, plain, "ab")(at, "abc") {
		t.Fatal("a plain variable renamed: gofmt keeps it")
	}
	if !formatKeepsOf(l, plain, "ab")(at, "abc") || *parses != 1 {
		t.Fatalf("asked again in the same text: %d parses, want 1", *parses)
	}
	// Another name in the same text is another parse (the parts a parse
	// skips depend on it).
	formatKeepsOf(l, plain, "x")
	if *parses != 2 {
		t.Fatalf("another name: %d parses, want 2", *parses)
	}
	// Another text of the same length: its own parse, its own answer.
	if formatKeepsOf(l, aligned, "ab")(at2, "abc") {
		t.Fatal("a field of a struct renamed: gofmt may align it, FormatKeeps must say no")
	}
	if *parses != 3 {
		t.Fatalf("a changed text: %d parses, want 3", *parses)
	}
	if !formatKeepsOf(l, plain, "ab")(at, "abc") || *parses != 3 {
		t.Fatalf("the first text again: %d parses, want 3 (still kept)", *parses)
	}
}

// TestFormatKeepsKeptBounded: past maxKeptParses texts, the least
// recently used is parsed again; a text past maxKeptParseText is never
// kept.
func TestFormatKeepsKeptBounded(t *testing.T) {
	l, parses := countingGo()
	texts := make([]string, maxKeptParses+1)
	for i := range texts {
		texts[i] = "package p\n\nvar ab" + string(rune('a'+i)) + " = 1\n"
		formatKeepsOf(l, texts[i], "ab")
	}
	formatKeepsOf(l, texts[len(texts)-1], "ab")
	if *parses != len(texts) {
		t.Fatalf("the last text again: %d parses, want %d", *parses, len(texts))
	}
	formatKeepsOf(l, texts[0], "ab")
	if *parses != len(texts)+1 {
		t.Fatalf("the first text, dropped: %d parses, want %d", *parses, len(texts)+1)
	}
	big := "package p\n\nvar ab = 1\n" + string(make([]byte, maxKeptParseText))
	formatKeepsOf(l, big, "ab")
	formatKeepsOf(l, big, "ab")
	if *parses != len(texts)+3 {
		t.Fatalf("a large text twice: %d parses, want %d", *parses, len(texts)+3)
	}
	// Two texts of over half the bound: the second drops the first.
	half := func(c string) string {
		return "package p\n\nvar ab = 1\n// " + strings.Repeat(c, maxKeptParseText/2) + "\n"
	}
	n := *parses
	formatKeepsOf(l, half("x"), "ab")
	formatKeepsOf(l, half("y"), "ab")
	formatKeepsOf(l, half("y"), "ab")
	if *parses != n+2 {
		t.Fatalf("the second half-bound text again: %d parses, want %d", *parses, n+2)
	}
	formatKeepsOf(l, half("x"), "ab")
	if *parses != n+3 {
		t.Fatalf("the first half-bound text again, dropped: %d parses, want %d", *parses, n+3)
	}
	if total := keptParses.textBytes(); total > maxKeptParseText {
		t.Fatalf("%d bytes of text kept, past the bound %d", total, maxKeptParseText)
	}
}
