package edit_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/preview"
)

// TestPatchRoundTrip: preview(changeset) -> apply_patch of that diff ->
// the same buffers as applying the changeset itself.
func TestPatchRoundTrip(t *testing.T) {
	files := map[string]string{
		"p/uni.txt":  "héllo 世界 🎉\nnaïve e\u0301\nplain\n" + numbered(10),
		"p/crlf.txt": "one\r\ntwo\r\nthree\r\n",
		"p/open.txt": "a\nb\nc",
	}
	v := newEnv(t, files)
	v.open("p/crlf.txt")
	v.userEdit("p/uni.txt", 2, "PLAIN (unsaved)")
	cs := preview.Changeset{Files: []preview.FileChange{
		fileChange("p/uni.txt", te(0, 7, 0, 13, "world"), te(1, 7, 1, 10, "é"), te(8, 0, 9, 0, ""), te(12, 0, 12, 0, "new 12\n")),
		fileChange("p/crlf.txt", te(1, 0, 1, 3, "TWO\nTWO and a half")),
		fileChange("p/open.txt", te(2, 0, 2, 1, "C"), te(0, 0, 0, 0, "start\n")),
		{Kind: preview.OpCreate, Path: "p/made.txt", Edits: []preview.TextEdit{te(0, 0, 0, 0, "made\n")}},
	}}
	res, err := v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.e.Discard(res.ChangesetID); err != nil {
		t.Fatal(err)
	}
	viaPatch, err := v.e.ApplyPatch(v.ctx, res.Diff, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if viaPatch.Diff != res.Diff {
		t.Fatalf("apply_patch previews another diff:\n%s\nwant\n%s", viaPatch.Diff, res.Diff)
	}
	if _, err := v.e.ApplyStored(v.ctx, viaPatch.ChangesetID, false); err != nil {
		t.Fatal(err)
	}
	names := []string{"p/uni.txt", "p/crlf.txt", "p/open.txt", "p/made.txt"}
	patched := map[string]string{}
	for _, n := range names {
		patched[n] = v.buffer(n).Text
	}
	// Back to the state before (one undo per buffer; the created buffer is
	// discarded), then apply the changeset itself.
	for _, n := range names[:3] {
		v.undo(n)
	}
	if _, err := v.e.DiscardBuffer(v.ctx, "p/made.txt", false); err != nil {
		t.Fatal(err)
	}
	if _, err := v.e.Submit(v.ctx, cs, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if got := v.buffer(n).Text; got != patched[n] {
			t.Errorf("%s: via patch %q, via changeset %q", n, patched[n], got)
		}
	}
	if got := patched["p/crlf.txt"]; got != "one\r\nTWO\r\nTWO and a half\r\nthree\r\n" {
		t.Errorf("crlf.txt = %q", got)
	}
}

// TestPatchErrors: bad patches change nothing and say where they fail.
func TestPatchErrors(t *testing.T) {
	v := newEnv(t, map[string]string{"pe/f.txt": "one\ntwo\nthree\n", "pe/g.txt": "g\n"})
	v.open("pe/f.txt")
	v.userEdit("pe/f.txt", 1, "TWO (unsaved)")
	cases := []struct {
		name, patch string
		code        apierr.Code
		says        string
	}{
		{"context differs from the buffer (it matches the disk)",
			"--- a/pe/f.txt\n+++ b/pe/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
			apierr.Conflict, "hunk 1"},
		{"second file does not match",
			"--- a/pe/g.txt\n+++ b/pe/g.txt\n@@ -1 +1 @@\n-g\n+G\n--- a/pe/f.txt\n+++ b/pe/f.txt\n@@ -3 +3 @@\n-nope\n+x\n",
			apierr.Conflict, "line 3"},
		{"counts do not match the lines", "--- a/pe/f.txt\n+++ b/pe/f.txt\n@@ -1,2 +1,2 @@\n one\n",
			apierr.InvalidParameter, "patch line"},
		{"no file sections", "just text\n", apierr.InvalidParameter, "no file sections"},
		{"creating an existing file", "--- /dev/null\n+++ b/pe/g.txt\n@@ -0,0 +1 @@\n+x\n", apierr.Conflict, "already exists"},
		{"outside the workspace", "--- a/../x.txt\n+++ b/../x.txt\n@@ -1 +1 @@\n-a\n+b\n", apierr.InvalidParameter, "outside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.e.ApplyPatch(v.ctx, c.patch, edit.Options{})
			e := wantCode(t, err, c.code)
			if !strings.Contains(e.Message, c.says) {
				t.Errorf("message %q does not say %q", e.Message, c.says)
			}
			if got := v.buffer("pe/f.txt").Text; got != "one\nTWO (unsaved)\nthree\n" {
				t.Errorf("f.txt changed: %q", got)
			}
			if v.buffer("pe/g.txt").Loaded {
				t.Error("g.txt was loaded")
			}
		})
	}
}
