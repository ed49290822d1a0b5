package refactor

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nvbridge/nvbridge/preview"
)

// TestRenamedAtOffsets: renamedAt's offsets (counted along the lines) are
// the Mapper's of each edit's start, the edits in any order, and an edit
// that is not a whole identifier renamed on its line gives none.
func TestRenamedAtOffsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"check", "x", "—", "a_b", "", "  ", "(", "Check2"}
	for range 500 {
		var lines []string
		for range 1 + rng.IntN(12) {
			l := ""
			for range rng.IntN(5) {
				l += words[rng.IntN(len(words))] + " "
			}
			lines = append(lines, l)
		}
		doc := preview.Document{Lines: lines, EOL: "\n", FinalNewline: rng.IntN(2) == 0}
		if rng.IntN(3) == 0 {
			doc.EOL = "\r\n" // offsets count "\n" line breaks all the same
		}
		var edits []preview.TextEdit
		word := func(c byte) bool {
			return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		}
		for li, l := range lines {
			for c := 0; c < len(l); c++ {
				if !word(l[c]) || c > 0 && word(l[c-1]) {
					continue
				}
				end := c
				for end < len(l) && word(l[end]) {
					end++
				}
				if identAround(l, c) == l[c:end] && rng.IntN(2) == 0 {
					edits = append(edits, preview.TextEdit{StartLine: li, StartCol: c, EndLine: li, EndCol: end, NewText: "renamed"})
				}
			}
		}
		if len(edits) == 0 {
			continue
		}
		rng.Shuffle(len(edits), func(i, j int) {
			if rng.IntN(4) == 0 {
				edits[i], edits[j] = edits[j], edits[i]
			}
		})
		fc := preview.FileChange{Kind: preview.OpEdit, Path: "a.go", Old: doc, Edits: edits}
		at, ok := renamedAt(fc, "renamed")
		if !ok {
			t.Fatalf("%q %v: not taken", lines, edits)
		}
		m := doc.Mapper()
		var want []int
		for _, e := range edits {
			off, err := m.Offset(e.StartLine, e.StartCol)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, off)
		}
		if !slices.Equal(at, want) {
			t.Fatalf("%q %v: offsets %v, want %v", lines, edits, at, want)
		}
		// An edit reaching past its identifier is not a rename's.
		bad := slices.Clone(edits)
		k := rng.IntN(len(bad))
		bad[k].EndCol = len(lines[bad[k].StartLine])
		if bad[k].EndCol != edits[k].EndCol {
			if _, ok := renamedAt(preview.FileChange{Kind: preview.OpEdit, Path: "a.go", Old: doc, Edits: bad}, "renamed"); ok && identAround(lines[bad[k].StartLine], bad[k].StartCol) != lines[bad[k].StartLine][bad[k].StartCol:] {
				t.Fatalf("%q %v: taken", lines, bad)
			}
		}
	}
}
