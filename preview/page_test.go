package preview

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDiffPage(t *testing.T) {
	const diff = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n"
	hunk2 := strings.Index(diff, "@@ -9")
	cases := []struct {
		name       string
		diff       string
		offset     int
		max        int
		want       string
		wantOffset int
	}{
		{"fits", diff, 0, len(diff), diff, len(diff)},
		{"the rest fits", diff, hunk2, len(diff) - hunk2, diff[hunk2:], len(diff)},
		{"ends where a hunk starts", diff, 0, hunk2 + 4, diff[:hunk2], hunk2},
		{"ends after its last line when no hunk starts in its second half", diff, 0, 30, "diff --git a/f b/f\n--- a/f\n", 27},
		{"a line longer than the page is cut between characters", "+" + strings.Repeat("é", 10) + "\n", 0, 6, "+éé", 5},
		{"a line longer than half the page is cut, not left whole for the next", "@@ -1 +1 @@\n-" + strings.Repeat("x", 100) + "\n", 0, 40, "@@ -1 +1 @@\n-" + strings.Repeat("x", 27), 40},
		{"a page shorter than a character holds that character", "é\n", 0, 1, "é", 2},
		{"at the end", diff, len(diff), 10, "", len(diff)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, next := DiffPage(c.diff, c.offset, c.max)
			if got != c.want || next != c.wantOffset {
				t.Errorf("got %q, %d; want %q, %d", got, next, c.want, c.wantOffset)
			}
		})
	}
}

// TestDiffPageCoversTheDiff pages through a real diff with page sizes from
// tiny to large: the pages put together are the diff, none is over its
// size, and every page but the last ends after a line (at a file or hunk
// start when one is in its second half), or between two characters when no
// line ends in its second half.
func TestDiffPageCoversTheDiff(t *testing.T) {
	var cs Changeset
	for f := range 20 {
		d := codeLikeDocument(200)
		var edits []TextEdit
		for l := f % 7; l < 200; l += 9 + f {
			edits = append(edits, TextEdit{l, 1, l, 6, "result"})
		}
		cs.Files = append(cs.Files, FileChange{Kind: OpEdit, Path: fmt.Sprintf("pkg/f%d.go", f), Old: d, Edits: edits})
	}
	diff, err := UnifiedDiff(cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, max := range []int{1, 7, 60, 100, 1000, 4096, len(diff) - 1, len(diff)} {
		var b strings.Builder
		pages := 0
		for offset := 0; offset < len(diff); pages++ {
			page, next := DiffPage(diff, offset, max)
			if next != offset+len(page) || len(page) == 0 {
				t.Fatalf("max %d: page at %d is %d bytes, next %d", max, offset, len(page), next)
			}
			if len(page) > max && utf8.RuneCountInString(page) > 1 {
				t.Fatalf("max %d: page at %d is %d bytes", max, offset, len(page))
			}
			if next < len(diff) && !strings.HasSuffix(page, "\n") {
				if strings.LastIndexByte(page, '\n')+1 >= (max+1)/2 || !utf8.RuneStart(diff[next]) {
					t.Fatalf("max %d: page at %d ends inside a line: %q", max, offset, page)
				}
			}
			if next < len(diff) && strings.HasSuffix(page, "\n") && max >= 100 {
				hunk := strings.LastIndex(page, "\n@@ ")
				if f := strings.LastIndex(page, "\ndiff --git "); f > hunk {
					hunk = f
				}
				if hunk+1 >= (max+1)/2 && !strings.HasPrefix(diff[next:], "@@ ") && !strings.HasPrefix(diff[next:], "diff --git ") {
					t.Fatalf("max %d: page at %d ends after a line, not where the hunk at %d starts", max, offset, offset+hunk+1)
				}
			}
			b.WriteString(page)
			offset = next
		}
		if b.String() != diff {
			t.Fatalf("max %d: the %d pages are not the diff", max, pages)
		}
	}
}
