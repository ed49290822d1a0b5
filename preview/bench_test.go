package preview

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func codeLikeDocument(n int) Document {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("\tvalue%d := compute(%d, \"日本\") // line %d", i, i, i)
	}
	return Document{Lines: lines, EOL: "\n", FinalNewline: true}
}

// scatteredRenames renames "value" to "result" on k distinct random lines.
func scatteredRenames(r *rand.Rand, d Document, k int) []TextEdit {
	edits := make([]TextEdit, k)
	for i, l := range r.Perm(len(d.Lines))[:k] {
		edits[i] = TextEdit{l, 1, l, 6, "result"}
	}
	return edits
}

// BenchmarkUnifiedDiff1000EditsIn100kLines: the whole preview path for a
// workspace-wide rename landing in one big file.
func BenchmarkUnifiedDiff1000EditsIn100kLines(b *testing.B) {
	d := codeLikeDocument(100_000)
	edits := scatteredRenames(rand.New(rand.NewPCG(1, 1)), d, 1000)
	cs := Changeset{Files: []FileChange{{Kind: OpEdit, Path: "big.go", Old: d, Edits: edits}}}
	for b.Loop() {
		if _, err := Validate(d, edits); err != nil {
			b.Fatal(err)
		}
		if _, err := Apply(d, edits); err != nil {
			b.Fatal(err)
		}
		if _, err := UnifiedDiff(cs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnifiedDiff200Files: a changeset touching 200 ordinary files.
func BenchmarkUnifiedDiff200Files(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	var cs Changeset
	for i := range 200 {
		d := codeLikeDocument(500)
		cs.Files = append(cs.Files, FileChange{Kind: OpEdit, Path: fmt.Sprintf("pkg%d/file%d.go", i%20, i), Old: d, Edits: scatteredRenames(r, d, 5)})
	}
	for b.Loop() {
		if _, err := UnifiedDiff(cs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMinimizeWholeDocument10kLines: a formatter's whole-document
// replacement of a 10,000-line file that changed 100 lines.
func BenchmarkMinimizeWholeDocument10kLines(b *testing.B) {
	d := codeLikeDocument(10_000)
	after := mustApply(b, d, scatteredRenames(rand.New(rand.NewPCG(3, 3)), d, 100))
	whole := []TextEdit{{0, 0, len(d.Lines), 0, joined(after)}}
	for b.Loop() {
		if _, err := Minimize(d, whole); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParsePatchEditsFor1000Hunks: reading back the big diff.
func BenchmarkParsePatchEditsFor1000Hunks(b *testing.B) {
	d := codeLikeDocument(100_000)
	edits := scatteredRenames(rand.New(rand.NewPCG(1, 1)), d, 1000)
	diff, err := UnifiedDiff(Changeset{Files: []FileChange{{Kind: OpEdit, Path: "big.go", Old: d, Edits: edits}}})
	if err != nil || strings.Count(diff, "\n@@ ") < 500 {
		b.Fatalf("%v: %d hunks", err, strings.Count(diff, "\n@@ "))
	}
	for b.Loop() {
		ps, err := ParsePatch(diff)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ps[0].EditsFor(d); err != nil {
			b.Fatal(err)
		}
	}
}

// Many edits (issue 8: quadratic work): 40,000 edits, one per line of a
// 40,000-line file (each change adjacent to the next) and all on one line of
// 1 MB. Both must take well under a second.
const manyEdits = 40_000

// oneEditPerLine replaces "value" on every line of a 40,000-line document.
func oneEditPerLine() (Document, []TextEdit) {
	d := codeLikeDocument(manyEdits)
	edits := make([]TextEdit, len(d.Lines))
	for l := range d.Lines {
		edits[l] = TextEdit{l, 1, l, 6, "result"}
	}
	return d, edits
}

// oneLongLine is a 1 MB line with an "a" every 25 bytes (40,000 of them, a
// multibyte character between), and the edits replacing each "a" with "A".
func oneLongLine() (Document, []TextEdit) {
	const unit = "a" + "bcdefghijklmnopqrstuvw" + "é" // 25 bytes
	d := Document{Lines: []string{strings.Repeat(unit, manyEdits)}, EOL: "\n", FinalNewline: true}
	edits := make([]TextEdit, manyEdits)
	for i := range edits {
		edits[i] = TextEdit{0, i * len(unit), 0, i*len(unit) + 1, "A"}
	}
	return d, edits
}

func BenchmarkUnifiedDiff40kEdits(b *testing.B) {
	for _, c := range []struct {
		name string
		make func() (Document, []TextEdit)
	}{{"one-per-line", oneEditPerLine}, {"one-line", oneLongLine}} {
		d, edits := c.make()
		cs := Changeset{Files: []FileChange{{Kind: OpEdit, Path: "big.go", Old: d, Edits: edits}}}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				min, err := Minimize(d, edits)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Apply(d, min); err != nil {
					b.Fatal(err)
				}
				if _, err := UnifiedDiff(cs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPatch40kEdits: reading back the 40,000-edit diffs (ParsePatch,
// EditsFor) and minimising the edits they give, as apply_patch does.
func BenchmarkPatch40kEdits(b *testing.B) {
	for _, c := range []struct {
		name string
		make func() (Document, []TextEdit)
	}{{"one-per-line", oneEditPerLine}, {"one-line", oneLongLine}, {"every-other-line", everyOtherLine}} {
		d, edits := c.make()
		diff, err := UnifiedDiff(Changeset{Files: []FileChange{{Kind: OpEdit, Path: "big.go", Old: d, Edits: edits}}})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				ps, err := ParsePatch(diff)
				if err != nil {
					b.Fatal(err)
				}
				pe, err := ps[0].EditsFor(d)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Minimize(d, pe); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// everyOtherLine renames "value" on every other line of an 80,000-line
// document: one hunk of 40,000 changes between unchanged lines.
func everyOtherLine() (Document, []TextEdit) {
	d := codeLikeDocument(2 * manyEdits)
	edits := make([]TextEdit, 0, manyEdits)
	for l := 0; l < len(d.Lines); l += 2 {
		edits = append(edits, TextEdit{l, 1, l, 6, "result"})
	}
	return d, edits
}
