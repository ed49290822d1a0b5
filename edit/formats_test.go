package edit_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
)

// TestCRLF: a fileformat=dos buffer holds no "\r"; the diff shows "\r\n"
// as on disk, and a save writes CRLF.
func TestCRLF(t *testing.T) {
	v := newEnv(t, map[string]string{"crlf/win.txt": "first\r\nsecond\r\nthird\r\n"})
	v.open("crlf/win.txt")
	var ff string
	v.lua(`return vim.bo[vim.fn.bufnr(...)].fileformat`, &ff, v.abs("crlf/win.txt"))
	if ff != "dos" {
		t.Fatalf("fileformat = %q, want dos", ff)
	}
	res, err := v.e.EditLines(v.ctx, "crlf/win.txt", []edit.LineEdit{{LineStart: 2, LineEnd: 2, NewText: "SECOND\r\nand a half\n"}}, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Diff, "+SECOND\r\n+and a half\r\n") {
		t.Fatalf("diff does not show CRLF lines:\n%q", res.Diff)
	}
	golden(t, "crlf", "a CRLF file (fileformat=dos): lines in the diff end in \\r\\n as on disk", res.Diff)
	gitApplyCheck(t, v.root, "crlf")
	if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, true); err != nil {
		t.Fatal(err)
	}
	if got := v.disk("crlf/win.txt"); got != "first\r\nSECOND\r\nand a half\r\nthird\r\n" {
		t.Fatalf("disk = %q", got)
	}
}

// TestNoFinalNewline: a file without a final newline keeps it that way when
// edited and saved, unless the edit adds one.
func TestNoFinalNewline(t *testing.T) {
	v := newEnv(t, map[string]string{"eol/open.txt": "one\ntwo\nlast", "eol/closed.txt": "a\nb"})
	res, err := v.e.EditLines(v.ctx, "eol/open.txt", []edit.LineEdit{
		{LineStart: 3, LineEnd: 3, NewText: "LAST"},
		{LineStart: 4, LineEnd: 3, NewText: "appended"},
	}, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "no_final_newline", "the last line has no newline before and after the edit", res.Diff)
	gitApplyCheck(t, v.root, "no_final_newline")
	if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, true); err != nil {
		t.Fatal(err)
	}
	if got := v.disk("eol/open.txt"); got != "one\ntwo\nLAST\nappended" {
		t.Fatalf("disk = %q", got)
	}

	// A patch that adds the final newline (the new last line lacks the
	// "\ No newline" marker).
	patch := "--- a/eol/closed.txt\n+++ b/eol/closed.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
	res, err = v.e.ApplyPatch(v.ctx, patch, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "add_final_newline", "an edit that adds the missing final newline", res.Diff)
	gitApplyCheck(t, v.root, "add_final_newline")
	if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, true); err != nil {
		t.Fatal(err)
	}
	if got := v.disk("eol/closed.txt"); got != "a\nb\n" {
		t.Fatalf("disk = %q", got)
	}
	var lines int
	v.lua(`return vim.api.nvim_buf_line_count(vim.fn.bufnr(...))`, &lines, v.abs("eol/closed.txt"))
	if lines != 2 {
		t.Fatalf("buffer has %d lines, want 2 (no empty line standing for the newline)", lines)
	}
}

// TestUserModifiedNeverSavedSilently: save=true saves every file of a
// changeset or none: one buffer holding the user's unsaved edit refuses
// the whole changeset (PRECONDITION_FAILED naming it, nothing changed or
// saved); without save it applies and leaves the buffers unsaved.
func TestUserModifiedNeverSavedSilently(t *testing.T) {
	v := newEnv(t, map[string]string{"m/user.txt": "keep\nme\n", "m/clean.txt": "c1\nc2\n"})
	v.userEdit("m/user.txt", 0, "user typed this")
	res, err := v.e.ApplyPatch(v.ctx, strings.Join([]string{
		"--- a/m/user.txt", "+++ b/m/user.txt", "@@ -1,2 +1,2 @@", " user typed this", "-me", "+ME",
		"--- a/m/clean.txt", "+++ b/m/clean.txt", "@@ -1,2 +1,2 @@", "-c1", "+C1", " c2", "",
	}, "\n"), edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "user_modified", "a patch validated against the buffer (with the user's unsaved line), not the disk", res.Diff)
	gitApplyCheck(t, snapshotDir(t, map[string]string{"m/user.txt": "user typed this\nme\n", "m/clean.txt": "c1\nc2\n"}), "user_modified")
	if !strings.Contains(res.Files[0].Note, "unsaved") {
		t.Errorf("preview does not warn about the unsaved buffer: %+v", res.Files[0])
	}
	_, err = v.e.ApplyStored(v.ctx, res.ChangesetID, true)
	e := wantCode(t, err, apierr.PreconditionFailed)
	if !strings.Contains(e.Message, "m/user.txt") || !strings.Contains(e.Message, "all") && !strings.Contains(e.Message, "none") {
		t.Errorf("the refusal does not name the file and the rule: %s", e.Message)
	}
	if got := v.buffer("m/user.txt").Text; got != "user typed this\nme\n" {
		t.Errorf("user.txt buffer = %q: changed by a refused changeset", got)
	}
	if b := v.buffer("m/clean.txt"); b.Loaded && b.Text != "c1\nc2\n" {
		t.Errorf("clean.txt buffer = %q: changed by a refused changeset", b.Text)
	}
	for rel, want := range map[string]string{"m/user.txt": "keep\nme\n", "m/clean.txt": "c1\nc2\n"} {
		if got := v.disk(rel); got != want {
			t.Errorf("%s on disk = %q: saved although the changeset was refused", rel, got)
		}
	}
	res, err = v.e.ApplyStored(v.ctx, res.ChangesetID, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Saved || res.Files[1].Saved {
		t.Errorf("saved without save: %+v", res.Files)
	}
	if got := v.buffer("m/user.txt").Text; got != "user typed this\nME\n" {
		t.Errorf("user.txt buffer = %q", got)
	}
}

// TestOwnUnsavedChangesAreSaved: unsaved changes nvbridge made itself do
// not stop save=true; once the user edits after them, they do (the whole
// change is refused).
func TestOwnUnsavedChangesAreSaved(t *testing.T) {
	v := newEnv(t, map[string]string{"o/ours.txt": "1\n2\n3\n"})
	step := func(line int, text string, save bool) (edit.FileResult, error) {
		t.Helper()
		res, err := v.e.EditLines(v.ctx, "o/ours.txt", []edit.LineEdit{{LineStart: line, LineEnd: line, NewText: text}}, edit.Options{Save: save})
		if err != nil {
			return edit.FileResult{}, err
		}
		return res.Files[0], nil
	}
	must := func(f edit.FileResult, err error) edit.FileResult {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	must(step(1, "one", false))
	must(step(2, "two", false))
	if f := must(step(3, "three", true)); !f.Saved {
		t.Fatalf("not saved: %+v", f)
	}
	if got := v.disk("o/ours.txt"); got != "one\ntwo\nthree\n" {
		t.Fatalf("disk = %q", got)
	}
	must(step(1, "ONE", false))
	v.userEdit("o/ours.txt", 1, "user")
	_, err := step(3, "THREE", true)
	wantCode(t, err, apierr.PreconditionFailed)
	if got := v.disk("o/ours.txt"); got != "one\ntwo\nthree\n" {
		t.Fatalf("disk = %q", got)
	}
	if got := v.buffer("o/ours.txt").Text; got != "ONE\nuser\nthree\n" {
		t.Fatalf("buffer = %q: a refused change was applied", got)
	}
}

// TestNotLoaded: a file no buffer holds is loaded, edited, and written only
// when asked.
func TestNotLoaded(t *testing.T) {
	v := newEnv(t, map[string]string{"n/cold.txt": "c\no\nl\nd\n"})
	one := 1
	res, err := v.e.Replace(v.ctx, "n/cold.txt", edit.Replacement{Old: "l\n", New: "L\n", Count: &one}, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if v.buffer("n/cold.txt").Loaded {
		t.Fatal("the preview loaded the file")
	}
	if !strings.Contains(res.Files[0].Note, "not loaded") {
		t.Errorf("note = %q", res.Files[0].Note)
	}
	golden(t, "not_loaded", "a file that is not loaded in Neovim (diff against the disk)", res.Diff)
	gitApplyCheck(t, v.root, "not_loaded")
	res2, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false)
	if err != nil {
		t.Fatal(err)
	}
	b := v.buffer("n/cold.txt")
	if !b.Loaded || !b.Modified || b.Text != "c\no\nL\nd\n" || !res2.Files[0].IsModified {
		t.Fatalf("buffer %+v, result %+v", b, res2.Files[0])
	}
	if got := v.disk("n/cold.txt"); got != "c\no\nl\nd\n" {
		t.Fatalf("disk changed without save: %q", got)
	}
	if _, err := v.e.Save(v.ctx, "n/cold.txt", false); err != nil {
		t.Fatal(err)
	}
	if got := v.disk("n/cold.txt"); got != "c\no\nL\nd\n" {
		t.Fatalf("disk after save_buffer = %q", got)
	}
}

// TestLatin1 (issue 8): Neovim reads a Latin-1 file through 'fileencodings'
// and shows "café"; replace_in_buffer matches that same text whether or not
// the file is loaded, says the file's encoding, and a save writes Latin-1
// bytes back.
func TestLatin1(t *testing.T) {
	const disk = "caf\xe9 au lait\nna\xefve\n"
	v := newEnv(t, map[string]string{"enc/unloaded.txt": disk, "enc/loaded.txt": disk})
	v.open("enc/loaded.txt")
	d, err := v.e.Diff(v.ctx, "enc/loaded.txt")
	if err != nil {
		t.Fatal(err)
	}
	if d.HasChanges {
		t.Errorf("get_buffer_diff of an unchanged Latin-1 buffer shows changes:\n%s", d.Diff)
	}
	for _, rel := range []string{"enc/unloaded.txt", "enc/loaded.txt"} {
		t.Run(rel, func(t *testing.T) {
			res, err := v.e.Replace(v.ctx, rel, edit.Replacement{Old: "café", New: "thé"}, edit.Options{Preview: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.MatchesFound != 1 || !strings.Contains(res.Diff, "-café au lait\n+thé au lait\n") {
				t.Fatalf("%d matches, diff:\n%s", res.MatchesFound, res.Diff)
			}
			if note := res.Files[0].Note; !strings.Contains(note, "latin1") {
				t.Errorf("note %q does not name the file's encoding", note)
			}
			if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, true); err != nil {
				t.Fatal(err)
			}
			if got := v.disk(rel); got != "th\xe9 au lait\nna\xefve\n" {
				t.Fatalf("disk after save = %q, want Latin-1 bytes", got)
			}
		})
	}
}
