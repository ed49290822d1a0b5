package preview

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// roundTrip renders doc+edits as a diff, parses it back, turns it into
// edits again and checks both applications agree. It returns the diff.
func roundTrip(t testing.TB, d Document, edits []TextEdit) string {
	t.Helper()
	want := mustApply(t, d, edits)
	diff, err := UnifiedDiff(Changeset{Files: []FileChange{{Kind: OpEdit, Path: "f.txt", Old: d, Edits: edits}}})
	if err != nil {
		t.Fatalf("UnifiedDiff: %v", err)
	}
	patches, err := ParsePatch(diff)
	if err != nil {
		t.Fatalf("ParsePatch: %v\ndiff:\n%s", err, diff)
	}
	got := d
	switch {
	case diff == "" && len(patches) == 0:
	case len(patches) == 1:
		pe, err := patches[0].EditsFor(d)
		if err != nil {
			t.Fatalf("EditsFor: %v\ndiff:\n%s", err, diff)
		}
		got = mustApply(t, d, pe)
	default:
		t.Fatalf("got %d file patches from\n%s", len(patches), diff)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("round trip differs\ndoc: %q final=%v eol=%q\nedits: %v\nwant: %q\ngot:  %q\ndiff:\n%s",
			d.Lines, d.FinalNewline, d.EOL, edits, want.Bytes(), got.Bytes(), diff)
	}
	return diff
}

// TestRoundTripRandom: UnifiedDiff -> ParsePatch -> EditsFor -> Apply gives
// what Apply of the original edits gives, on random documents and edits.
func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 600 {
		d := randomDocument(r, 25)
		edits := randomEdits(r, d, 6)
		t.Run(fmt.Sprint(i), func(t *testing.T) { roundTrip(t, d, edits) })
	}
}

// TestApplyMatchesNaive checks Apply against byte-offset splicing.
func TestApplyMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		d := randomDocument(r, 15)
		edits := randomEdits(r, d, 5)
		got := mustApply(t, d, edits)
		if want := applyBytes(t, d, edits); joined(got) != want {
			t.Fatalf("doc %q final=%v edits %v:\nwant %q\ngot  %q", d.Lines, d.FinalNewline, edits, want, joined(got))
		}
	}
}
