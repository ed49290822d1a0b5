package refactor

import (
	"testing"

	"github.com/nvbridge/nvbridge/lang"
)

// TestParsedAs: the disk's parse, made before the buffer's text is
// known, is taken only for that very text; a buffer that holds another
// (unsaved changes) is parsed itself, and its FormatKeeps answers for its
// own layout.
func TestParsedAs(t *testing.T) {
	// At the same offset, "ab": a plain statement on the disk, a field of
	// an aligned struct in the buffer (gofmt lays it out by width).
	disk := "package p\n\nfunc ffffff() {\n\tab := 1\n\t_ = ab\n}\n"
	buffer := "package p\n\ntype T struct {\n\tab int\n\tc  int\n}\n"
	at := []int{len("package p\n\ntype T struct {\n\t")}
	if disk[at[0]:at[0]+2] != "ab" || buffer[at[0]:at[0]+2] != "ab" {
		t.Fatal("the test's texts moved")
	}
	calls := 0
	parsed := func() parsedFile {
		calls++
		return parsedFile{text: disk, keeps: lang.Go.FormatKeeps(disk, "ab")}
	}
	if !parsed().keeps(at, "abc") || lang.Go.FormatKeeps(buffer, "ab")(at, "abc") {
		t.Fatal("the texts do not tell the two layouts apart")
	}
	got := parsedAs(lang.Go, disk, "ab", parsed)
	if got.text != disk || !got.keeps(at, "abc") || calls != 2 {
		t.Fatalf("the disk's own text: %q, keeps %v, %d calls", got.text, got.keeps(at, "abc"), calls)
	}
	if got = parsedAs(lang.Go, buffer, "ab", parsed); got.text != buffer || got.keeps(at, "abc") {
		t.Fatalf("the buffer's text: %q, keeps %v", got.text, got.keeps(at, "abc"))
	}
	if got = parsedAs(lang.Go, buffer, "ab", nil); got.text != buffer || got.keeps(at, "abc") {
		t.Fatalf("no disk parse: %q, keeps %v", got.text, got.keeps(at, "abc"))
	}
}
