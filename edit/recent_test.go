package edit_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// TestStoredPreviewKeepsOnlyTextsApplyUses: a stored preview holds for its
// apply the texts after the change that the session's text cache keeps
// (the large file's), not the small files' (no check's copy runs here).
// Applying it still gives every buffer its new text, and the next change
// on each file plans from the right text: the large one from what the
// apply left in the text cache, the small ones read again.
func TestStoredPreviewKeepsOnlyTextsApplyUses(t *testing.T) {
	var large strings.Builder
	for i := 0; large.Len() < nvim.TextCacheMin+1000; i++ {
		fmt.Fprintf(&large, "line %05d of the large file\n", i)
	}
	v := newEnv(t, map[string]string{
		"r/small.txt":  "one\ntwo\nthree\n",
		"r/closed.txt": "alpha\nbeta\n",
		"r/large.txt":  large.String(),
	})
	v.open("r/small.txt")
	v.open("r/large.txt")
	cs := preview.Changeset{Files: []preview.FileChange{
		fileChange("r/small.txt", te(1, 0, 1, 3, "TWO")),
		fileChange("r/closed.txt", te(0, 0, 0, 5, "ALPHA")),
		fileChange("r/large.txt", te(2, 0, 2, 4, "LINE"), te(100, 0, 100, 4, "LINE")),
	}}
	res, err := v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.e.RecentKept(); !slices.Equal(got, []string{"r/large.txt"}) {
		t.Fatalf("the stored preview holds the texts of %v, want only r/large.txt's (the texts the text cache keeps)", got)
	}
	applied, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false)
	if err != nil {
		t.Fatal(err)
	}
	if !applied.Applied || applied.EditCount != 4 {
		t.Fatalf("apply of the stored preview: %+v", applied)
	}
	if v.e.RecentKept() != nil {
		t.Errorf("the applied preview's texts are still held: %v", v.e.RecentKept())
	}
	wantLarge := strings.Replace(strings.Replace(large.String(), "line 00002", "LINE 00002", 1), "line 00100", "LINE 00100", 1)
	want := map[string]string{"r/small.txt": "one\nTWO\nthree\n", "r/closed.txt": "ALPHA\nbeta\n", "r/large.txt": wantLarge}
	for rel, text := range want {
		if got := v.buffer(rel); got.Text != text || !got.Modified {
			t.Errorf("%s after the apply: modified %v, text %q..., want %q...", rel, got.Modified, head(got.Text), head(text))
		}
	}
	// The next change on each file starts from the applied text.
	next := preview.Changeset{Files: []preview.FileChange{
		fileChange("r/small.txt", te(2, 0, 2, 5, "THREE")),
		fileChange("r/closed.txt", te(1, 0, 1, 4, "BETA")),
		fileChange("r/large.txt", te(3, 0, 3, 4, "LINE")),
	}}
	res, err = v.e.Submit(v.ctx, next, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"-three", "+THREE", "-beta", "+BETA", "-line 00003", "+LINE 00003", " TWO", " ALPHA", " LINE 00002"} {
		if !strings.Contains(res.Diff, "\n"+line) {
			t.Errorf("the next preview's diff lacks %q:\n%s", line, res.Diff)
		}
	}
	if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false); err != nil {
		t.Fatal(err)
	}
	want["r/small.txt"], want["r/closed.txt"] = "one\nTWO\nTHREE\n", "ALPHA\nBETA\n"
	want["r/large.txt"] = strings.Replace(wantLarge, "line 00003", "LINE 00003", 1)
	for rel, text := range want {
		if got := v.buffer(rel); got.Text != text {
			t.Errorf("%s after the second apply: %q..., want %q...", rel, head(got.Text), head(text))
		}
	}
}

func head(s string) string { return s[:min(len(s), 80)] }
