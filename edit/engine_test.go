package edit_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/preview"
)

// te builds a text edit (0-based lines, byte columns).
func te(sl, sc, el, ec int, text string) preview.TextEdit {
	return preview.TextEdit{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec, NewText: text}
}

func fileChange(path string, edits ...preview.TextEdit) preview.FileChange {
	return preview.FileChange{Kind: preview.OpEdit, Path: path, Edits: edits}
}

// TestAtomicMultiFile: a changeset over three files, one modified by the
// user, one loaded and clean, one not loaded; failures injected in the last
// file restore all three byte for byte (modified flags too), and a success
// is one undo step per buffer.
func TestAtomicMultiFile(t *testing.T) {
	v := newEnv(t, map[string]string{
		"atom/one.txt":   "alpha\nbeta\ngamma\ndelta\n",
		"atom/two.txt":   "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
		"atom/three.txt": "x\ny\nz\n",
	})
	v.open("atom/two.txt")
	v.userEdit("atom/one.txt", 0, "ALPHA (user, unsaved)")
	cs := preview.Changeset{Files: []preview.FileChange{
		fileChange("atom/one.txt", te(1, 0, 1, 4, "BETA"), te(3, 5, 3, 5, "!")),
		fileChange("atom/two.txt", te(0, 0, 0, 1, "one"), te(5, 0, 6, 0, ""), te(11, 0, 11, 2, "twelve")),
		fileChange("atom/three.txt", te(2, 0, 2, 1, "Z"), te(3, 0, 3, 0, "w\n")),
	}}
	type state struct {
		buf  [3]buffer
		disk [3]string
	}
	names := []string{"atom/one.txt", "atom/two.txt", "atom/three.txt"}
	capture := func() state {
		var s state
		for i, n := range names {
			s.buf[i], s.disk[i] = v.buffer(n), v.disk(n)
		}
		return s
	}
	before := capture()
	if before.buf[2].Loaded || !before.buf[0].Modified || before.buf[1].Modified {
		t.Fatalf("setup: %+v", before)
	}

	res, err := v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "multi_file", "three files: one modified by the user (diff against its buffer), one loaded, one not loaded", res.Diff)
	gitApplyCheck(t, snapshotDir(t, map[string]string{
		"atom/one.txt": before.buf[0].Text, "atom/two.txt": before.disk[1], "atom/three.txt": before.disk[2],
	}), "multi_file")

	// A rollback undoes, which moves changedtick; a validation failure
	// touches nothing at all.
	withoutTicks := func(s state) state {
		for i := range s.buf {
			s.buf[i].Tick = 0
		}
		return s
	}
	failures := []struct {
		name       string
		hook       func()
		code       apierr.Code
		rolledBack bool
	}{
		{"error while editing file 3 (rollback)", func() { v.e.FailAfterEditing(v.abs("atom/three.txt")) }, apierr.OperationFailed, true},
		{"bad range in file 3 (validation)", func() { v.e.BadRange(v.abs("atom/three.txt")) }, apierr.InvalidParameter, false},
		{"stale changedtick in file 3 (validation)", func() {
			v.open("atom/three.txt")
			v.e.StaleTick(v.abs("atom/three.txt"))
		}, apierr.Conflict, false},
		{"error while editing file 3, all loaded (rollback)", func() { v.e.FailAfterEditing(v.abs("atom/three.txt")) }, apierr.OperationFailed, true},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			f.hook()
			defer v.e.ClearHooks()
			before = capture()
			_, err := v.e.Submit(v.ctx, cs, edit.Options{})
			e := wantCode(t, err, f.code)
			if !strings.Contains(e.Message, "three.txt") {
				t.Errorf("error does not name the file: %s", e.Message)
			}
			after := capture()
			if f.rolledBack {
				after, before = withoutTicks(after), withoutTicks(before)
			}
			if after != before {
				t.Fatalf("not restored:\nbefore %+v\nafter  %+v", before, after)
			}
			if _, err := v.e.Undo(v.ctx, "atom/two.txt"); apierr.CodeOf(err) != apierr.PreconditionFailed {
				t.Errorf("undo after a rolled back change: %v, want PRECONDITION_FAILED (nothing to undo)", err)
			}
		})
	}

	t.Run("applied, then one undo per buffer", func(t *testing.T) {
		res, err := v.e.Submit(v.ctx, cs, edit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Applied || res.EditCount != 7 || len(res.Files) != 3 {
			t.Fatalf("result %+v", res)
		}
		if got := v.buffer("atom/two.txt").Text; got != "one\n2\n3\n4\n5\n7\n8\n9\n10\n11\ntwelve\n" {
			t.Fatalf("two.txt = %q", got)
		}
		if got := v.buffer("atom/three.txt").Text; got != "x\ny\nZ\nw\n" {
			t.Fatalf("three.txt = %q", got)
		}
		for i, n := range names {
			v.undo(n) // one u
			if got := v.buffer(n); got.Text != before.buf[i].Text || got.Modified != before.buf[i].Modified {
				t.Errorf("%s after one undo: %+v, want %+v", n, got, before.buf[i])
			}
		}
	})
}

// TestConflictAfterPreview: a change to a target between preview and apply
// makes apply_changeset refuse; nothing of the changeset is applied.
func TestConflictAfterPreview(t *testing.T) {
	v := newEnv(t, map[string]string{"c/loaded.txt": "a\nb\nc\n", "c/other.txt": "1\n2\n", "c/disk.txt": "p\nq\n", "c/clean.txt": "m\nn\n"})
	v.open("c/loaded.txt")
	v.open("c/clean.txt")
	preview1 := func(files ...string) edit.Result {
		t.Helper()
		var fcs []preview.FileChange
		for _, f := range files {
			fcs = append(fcs, fileChange(f, te(0, 0, 0, 1, "CHANGED")))
		}
		res, err := v.e.Submit(v.ctx, preview.Changeset{Files: fcs}, edit.Options{Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("buffer edited through the session", func(t *testing.T) {
		res := preview1("c/other.txt", "c/loaded.txt")
		v.userEdit("c/loaded.txt", 2, "user")
		_, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false)
		wantCode(t, err, apierr.Conflict)
		if got := v.buffer("c/loaded.txt").Text; got != "a\nb\nuser\n" {
			t.Errorf("loaded.txt = %q", got)
		}
		if got := v.buffer("c/other.txt"); got.Loaded {
			t.Errorf("other.txt was loaded (%+v); nothing should have changed", got)
		}
	})
	t.Run("unloaded file changed on disk", func(t *testing.T) {
		res := preview1("c/disk.txt")
		v.write("c/disk.txt", "p\nq\nr\n")
		_, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false)
		wantCode(t, err, apierr.Conflict)
		if v.buffer("c/disk.txt").Loaded {
			t.Error("disk.txt was loaded")
		}
	})
	t.Run("loaded clean file changed on disk", func(t *testing.T) {
		res := preview1("c/clean.txt")
		v.write("c/clean.txt", "m\nn\no\n")
		_, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false)
		wantCode(t, err, apierr.Conflict)
		if got := v.buffer("c/clean.txt"); got.Text != "m\nn\no\n" || got.Modified {
			t.Errorf("clean.txt = %+v, want the disk's new text, unmodified", got)
		}
	})
	t.Run("unknown, applied, discarded and expired ids", func(t *testing.T) {
		_, err := v.e.ApplyStored(v.ctx, "cs_nope", false)
		wantCode(t, err, apierr.ResourceNotFound)
		res := preview1("c/other.txt")
		if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false); err != nil {
			t.Fatal(err)
		}
		_, err = v.e.ApplyStored(v.ctx, res.ChangesetID, false)
		wantCode(t, err, apierr.ResourceNotFound)
		res = preview1("c/loaded.txt")
		if err := v.e.Discard(res.ChangesetID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, v.e.Discard(res.ChangesetID), apierr.ResourceNotFound)

		v.e.MaxStored = 2
		ids := []string{preview1("c/loaded.txt").ChangesetID, preview1("c/loaded.txt").ChangesetID, preview1("c/loaded.txt").ChangesetID}
		wantCode(t, v.e.Discard(ids[0]), apierr.ResourceNotFound)
		if err := v.e.Discard(ids[2]); err != nil {
			t.Fatal(err)
		}
		clock := time.Now()
		v.e.SetClock(func() time.Time { return clock })
		id := preview1("c/loaded.txt").ChangesetID
		clock = clock.Add(v.e.MaxAge + time.Second)
		_, err = v.e.ApplyStored(v.ctx, id, false)
		wantCode(t, err, apierr.ResourceNotFound)
	})
}

// TestUnicode: ranges next to and inside CJK, emoji and combining marks.
func TestUnicode(t *testing.T) {
	const text = "package text\n\nfunc Greet(name string) string {\n\tgreeting := \"héllo 世界 🎉 \" + name\n\treturn greeting\n}\n\n// naïve café 🙂 世界 (e + U+0301: e\u0301)\n"
	v := newEnv(t, map[string]string{"u/unicode.go.txt": text})
	v.open("u/unicode.go.txt")
	line3 := "\tgreeting := \"héllo 世界 🎉 \" + name"
	emoji := strings.Index(line3, "🎉")
	world := strings.Index(line3, "世界")
	combining := strings.Index("// naïve café 🙂 世界 (e + U+0301: e\u0301)", "e\u0301")
	cs := preview.Changeset{Files: []preview.FileChange{fileChange("u/unicode.go.txt",
		te(3, world, 3, world+len("世界"), "World"),
		te(3, emoji, 3, emoji+len("🎉"), "🚀"),
		te(7, combining, 7, combining+len("e\u0301"), "é"),
	)}}
	res, err := v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "unicode", "replacements of CJK, an emoji (4 bytes, a UTF-16 surrogate pair) and e + combining acute", res.Diff)
	gitApplyCheck(t, v.root, "unicode")
	if _, err := v.e.ApplyStored(v.ctx, res.ChangesetID, false); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(text, "世界 🎉", "World 🚀", 1), "e\u0301)", "é)", 1)
	if got := v.buffer("u/unicode.go.txt").Text; got != want {
		t.Fatalf("buffer:\n%q\nwant\n%q", got, want)
	}

	newLine := "\tgreeting := \"héllo World 🚀 \" + name"
	rocket, eAcute := strings.Index(newLine, "🚀"), strings.Index(newLine, "é")
	for _, col := range []int{rocket + 1, rocket + 2, rocket + 3, eAcute + 1} {
		_, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
			fileChange("u/unicode.go.txt", te(3, 0, 3, col, "x"))}}, edit.Options{})
		e := wantCode(t, err, apierr.InvalidParameter)
		if !strings.Contains(e.Message, "multibyte") {
			t.Errorf("message %q does not say why", e.Message)
		}
	}
	if got := v.buffer("u/unicode.go.txt").Text; got != want {
		t.Fatalf("a rejected edit changed the buffer:\n%q", got)
	}

	t.Run("replace_in_buffer counts characters", func(t *testing.T) {
		one := 1
		res, err := v.e.Replace(v.ctx, "u/unicode.go.txt", edit.Replacement{Old: "🙂 世界", New: "🙂 world", Count: &one}, edit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.MatchesFound != 1 || res.Matches[0].Line != 8 || res.Matches[0].Column != 14 {
			t.Fatalf("matches %+v", res.Matches)
		}
	})
}

// TestStoredPreviewsBoundedByBytes (issue 8: unbounded memory): stored
// previews are bounded by their total size as well as by count; the oldest
// go first, and a preview larger than the whole budget is refused with a
// clear error, leaving the stored ones alone.
func TestStoredPreviewsBoundedByBytes(t *testing.T) {
	v := newEnv(t, map[string]string{"s/a.txt": "one\ntwo\n"})
	v.open("s/a.txt")
	previewOf := func(size int) (edit.Result, error) {
		cs := preview.Changeset{Files: []preview.FileChange{fileChange("s/a.txt", te(0, 0, 0, 3, strings.Repeat("x", size)))}}
		return v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
	}
	res, err := previewOf(10_000)
	if err != nil {
		t.Fatal(err)
	}
	one := v.e.StoredBytes()
	if one < 10_000 {
		t.Fatalf("a preview of 10,000 new bytes counts %d bytes", one)
	}
	if err := v.e.Discard(res.ChangesetID); err != nil {
		t.Fatal(err)
	}
	v.e.MaxStoredBytes = 2*one + one/2
	var ids []string
	for range 3 {
		res, err := previewOf(10_000)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ChangesetID)
	}
	if got := v.e.StoredBytes(); got > v.e.MaxStoredBytes {
		t.Errorf("%d bytes stored, budget %d", got, v.e.MaxStoredBytes)
	}
	_, err = v.e.ApplyStored(v.ctx, ids[0], false)
	wantCode(t, err, apierr.ResourceNotFound)

	_, err = previewOf(3 * one)
	e := wantCode(t, err, apierr.InvalidParameter)
	if !strings.Contains(e.Message, "too large") || !strings.Contains(e.Message, fmt.Sprint(v.e.MaxStoredBytes)) {
		t.Errorf("message %q does not say the preview is too large for the budget", e.Message)
	}
	for _, id := range ids[1:] {
		if err := v.e.Discard(id); err != nil {
			t.Errorf("%s was evicted by a refused preview: %v", id, err)
		}
	}
	if got := v.buffer("s/a.txt"); got.Text != "one\ntwo\n" || got.Modified {
		t.Errorf("buffer %+v after previews only", got)
	}
}
