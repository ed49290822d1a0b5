package edit

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/nvbridge/nvbridge/preview"
)

// FuzzPatchApply drives apply_patch's pure path: patch text -> ParsePatch
// -> EditsFor (against a document) -> Apply and the buffer plan. Nothing may
// panic; whatever applies must give Neovim's canonical buffer, and must
// round-trip: the diff rendered from the patch's edits, parsed and applied
// again, gives the same document.
//
//	go test ./edit -run '^$' -fuzz FuzzPatchApply -fuzztime 30s
func FuzzPatchApply(f *testing.F) {
	f.Add("a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
	f.Add("x\ny", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n")
	f.Add("", "diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+1\n+2\n")
	f.Add("one\r\ntwo\r\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n one\r\n+1.5\r\n two\r\n")
	f.Add("héllo 世界\n🎉\n", "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-🎉\n+🚀\n")
	f.Add("a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-a\n-b\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-1\n+one\n 2\n@@ -8,2 +8,3 @@\n 8\n 9\n+10\n")
	f.Fuzz(func(t *testing.T, content, patch string) {
		doc := preview.ParseDocument(content)
		fps, err := preview.ParsePatch(patch)
		if err != nil {
			return
		}
		for _, fp := range fps {
			edits, err := fp.EditsFor(doc)
			if err != nil {
				continue
			}
			after, err := preview.Apply(doc, edits)
			if err != nil {
				t.Fatalf("EditsFor gave edits Apply rejects: %v\nedits %v", err, edits)
			}
			checkPlan(t, doc, edits)
			diff, err := preview.UnifiedDiff(preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "f", Old: doc, Edits: edits}}})
			if err != nil {
				t.Fatalf("UnifiedDiff: %v", err)
			}
			again := doc
			if diff != "" {
				re, err := preview.ParsePatch(diff)
				if err != nil || len(re) != 1 {
					t.Fatalf("re-parse of our own diff: %v (%d files)\n%s", err, len(re), diff)
				}
				e2, err := re[0].EditsFor(doc)
				if err != nil {
					t.Fatalf("our own diff does not apply: %v\n%s", err, diff)
				}
				if again, err = preview.Apply(doc, e2); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(again.Bytes(), after.Bytes()) {
				t.Fatalf("round trip differs:\nwant %q\ngot  %q\ndiff:\n%s", after.Bytes(), again.Bytes(), diff)
			}
		}
	})
}

// FuzzBufferPlan checks planBuffer against the buffer model on random
// documents and edits chosen by the fuzzer's seed.
func FuzzBufferPlan(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i*7+1)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		r := rand.New(rand.NewPCG(a, b))
		d := randomDoc(r, 8)
		if r.IntN(4) == 0 {
			d.EOL = "\r\n"
		}
		checkPlan(t, d, randomEdits(r, d, 5))
	})
}
