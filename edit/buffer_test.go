package edit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/preview"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestMarksCursorExtmarks: a window's cursor, marks and extmarks outside
// the edited ranges stay on their text.
func TestMarksCursorExtmarks(t *testing.T) {
	v := newEnv(t, map[string]string{"k/marks.txt": numbered(12)})
	b := v.open("k/marks.txt")
	var ns int
	v.lua(`local b = ...
vim.api.nvim_set_current_buf(b)
vim.api.nvim_win_set_cursor(0, { 8, 3 })        -- "line 8", col 3
vim.api.nvim_buf_set_mark(b, 'a', 10, 2, {})   -- "line 10"
local ns = vim.api.nvim_create_namespace('nvbridge_test')
vim.api.nvim_buf_set_extmark(b, ns, 11, 4, {})  -- "line 12", 0-based row 11
vim.api.nvim_buf_set_extmark(b, ns, 0, 1, {})   -- "line 1", before every edit
return ns`, &ns, b)
	cs := preview.Changeset{Files: []preview.FileChange{fileChange("k/marks.txt",
		te(2, 0, 2, 0, "inserted a\ninserted b\n"), // before line 3
		te(4, 0, 4, 6, "LINE 5"),                   // same length, same line
		te(5, 0, 6, 0, ""),                         // delete line 6
	)}}
	if _, err := v.e.Submit(v.ctx, cs, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Cursor   []int   `msgpack:"cursor"`
		Mark     []int   `msgpack:"mark"`
		Extmarks [][]int `msgpack:"extmarks"`
		Lines    []string
	}
	v.lua(`local b, ns = ...
local marks = {}
for _, m in ipairs(vim.api.nvim_buf_get_extmarks(b, ns, 0, -1, {})) do table.insert(marks, { m[2], m[3] }) end
return { cursor = vim.api.nvim_win_get_cursor(0), mark = vim.api.nvim_buf_get_mark(b, 'a'), extmarks = marks }`, &got, b, ns)
	// +2 lines inserted, -1 deleted before them: every position moves down by one.
	if fmt.Sprint(got.Cursor) != "[9 3]" || fmt.Sprint(got.Mark) != "[11 2]" || fmt.Sprint(got.Extmarks) != "[[0 1] [12 4]]" {
		t.Fatalf("cursor %v (want [9 3]), mark %v (want [11 2]), extmarks %v (want [[0 1] [12 4]])", got.Cursor, got.Mark, got.Extmarks)
	}
}

// TestUndoTool: undo takes back nvbridge's changes, newest first, and
// refuses once the user edited after one.
func TestUndoTool(t *testing.T) {
	v := newEnv(t, map[string]string{"un/a.txt": "a\nb\nc\n", "un/eol.txt": "x\ny\n"})
	v.open("un/a.txt")
	apply := func(line int, text string) {
		t.Helper()
		if _, err := v.e.EditLines(v.ctx, "un/a.txt", []edit.LineEdit{{LineStart: line, LineEnd: line, NewText: text}}, edit.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	apply(1, "A")
	apply(3, "C")
	if u, err := v.e.Undo(v.ctx, "un/a.txt"); err != nil || u.Remaining != 1 {
		t.Fatalf("undo: %+v, %v", u, err)
	}
	if got := v.buffer("un/a.txt").Text; got != "A\nb\nc\n" {
		t.Fatalf("after one undo: %q", got)
	}
	u, err := v.e.Undo(v.ctx, "un/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.buffer("un/a.txt"); got.Text != "a\nb\nc\n" || got.Modified || u.IsModified {
		t.Fatalf("after two undos: %+v / %+v", got, u)
	}
	_, err = v.e.Undo(v.ctx, "un/a.txt")
	wantCode(t, err, apierr.PreconditionFailed)

	apply(2, "B")
	v.userEdit("un/a.txt", 0, "user")
	_, err = v.e.Undo(v.ctx, "un/a.txt")
	wantCode(t, err, apierr.Conflict)
	if got := v.buffer("un/a.txt").Text; got != "user\nB\nc\n" {
		t.Fatalf("a refused undo changed the buffer: %q", got)
	}
	_, err = v.e.Undo(v.ctx, "un/never-opened.txt")
	wantCode(t, err, apierr.PreconditionFailed)

	// 'eol' is not part of Neovim's undo; nvbridge's undo restores it.
	if _, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
		fileChange("un/eol.txt", te(1, 1, 2, 0, "")),
	}}, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := v.buffer("un/eol.txt").Text; got != "x\ny" {
		t.Fatalf("final newline not removed: %q", got)
	}
	if _, err := v.e.Undo(v.ctx, "un/eol.txt"); err != nil {
		t.Fatal(err)
	}
	if got := v.buffer("un/eol.txt"); got.Text != "x\ny\n" || got.Modified {
		t.Fatalf("after undo: %+v", got)
	}
}

// TestBufferTools: get_buffer_diff, save_buffer (with its disk conflict) and
// discard_buffer.
func TestBufferTools(t *testing.T) {
	v := newEnv(t, map[string]string{"bt/f.txt": numbered(20), "bt/g.txt": "g\n"})
	d, err := v.e.Diff(v.ctx, "bt/f.txt")
	if err != nil || d.HasChanges || d.Diff != "" || d.IsOpen {
		t.Fatalf("diff of an unopened file: %+v, %v", d, err)
	}
	v.open("bt/f.txt")
	if d, err = v.e.Diff(v.ctx, "bt/f.txt"); err != nil || d.HasChanges || !d.IsOpen {
		t.Fatalf("diff of an unmodified buffer: %+v, %v", d, err)
	}
	v.userEdit("bt/f.txt", 9, "changed ten")
	if _, err := v.e.EditLines(v.ctx, "bt/f.txt", []edit.LineEdit{{LineStart: 21, LineEnd: 20, NewText: "line 21"}}, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	d, err = v.e.Diff(v.ctx, "bt/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "buffer_diff", "get_buffer_diff: two unsaved changes (one by the user, one by nvbridge) against the disk", d.Diff)
	gitApplyCheck(t, v.root, "buffer_diff")

	t.Run("save refuses when the disk changed", func(t *testing.T) {
		v.write("bt/f.txt", numbered(20)+"written by someone else\n")
		_, err := v.e.Save(v.ctx, "bt/f.txt", false)
		wantCode(t, err, apierr.Conflict)
		if got := v.disk("bt/f.txt"); !strings.HasSuffix(got, "someone else\n") {
			t.Fatal("the refused save wrote the file")
		}
		s, err := v.e.Save(v.ctx, "bt/f.txt", true)
		if err != nil || !s.Saved || s.IsModified {
			t.Fatalf("forced save: %+v, %v", s, err)
		}
		if got := v.disk("bt/f.txt"); !strings.Contains(got, "changed ten\n") || !strings.HasSuffix(got, "line 21\n") {
			t.Fatalf("disk after forced save: %q", got)
		}
		if s, err := v.e.Save(v.ctx, "bt/f.txt", false); err != nil || s.Saved {
			t.Fatalf("saving an unmodified buffer: %+v, %v", s, err)
		}
	})
	t.Run("discard", func(t *testing.T) {
		// nvbridge's own unsaved change is discarded without force.
		if _, err := v.e.EditLines(v.ctx, "bt/g.txt", []edit.LineEdit{{LineStart: 1, LineEnd: 1, NewText: "G"}}, edit.Options{}); err != nil {
			t.Fatal(err)
		}
		if r, err := v.e.DiscardBuffer(v.ctx, "bt/g.txt", false); err != nil || !r.Discarded {
			t.Fatalf("discard of nvbridge's change: %+v, %v", r, err)
		}
		// The user's own edits are refused without force (issue 8).
		v.userEdit("bt/g.txt", 0, "scratch")
		_, err := v.e.DiscardBuffer(v.ctx, "bt/g.txt", false)
		wantCode(t, err, apierr.Conflict)
		if got := v.buffer("bt/g.txt"); got.Text != "scratch\n" || !got.Modified {
			t.Fatalf("the refused discard changed the buffer: %+v", got)
		}
		r, err := v.e.DiscardBuffer(v.ctx, "bt/g.txt", true)
		if err != nil || !r.Discarded || r.IsModified {
			t.Fatalf("discard: %+v, %v", r, err)
		}
		if got := v.buffer("bt/g.txt"); got.Text != "g\n" || got.Modified {
			t.Fatalf("after discard: %+v", got)
		}
		if d, err := v.e.Diff(v.ctx, "bt/g.txt"); err != nil || d.HasChanges {
			t.Fatalf("diff after discard: %+v, %v", d, err)
		}
	})
}

// TestTextCache: the session reuses the text it read (or nvbridge wrote)
// for a large buffer while changedtick, 'fileformat', 'eol' and 'bomb' say
// the bytes are the same; any of them moving makes it read again.
func TestTextCache(t *testing.T) {
	v := newEnv(t, map[string]string{"tc/big.txt": numbered(20000)}) // well over the cache's 64 KiB floor
	v.open("tc/big.txt")
	step := func(line int, text string, opts edit.Options) edit.Result {
		t.Helper()
		res, err := v.e.EditLines(v.ctx, "tc/big.txt", []edit.LineEdit{{LineStart: line, LineEnd: line, NewText: text}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	step(2, "two", edit.Options{}) // read, then remembered as written
	if d := step(3, "three", edit.Options{Preview: true}).Diff; !strings.Contains(d, "\n two\n-line 3\n+three\n") {
		t.Fatalf("the preview does not see the applied edit:\n%s", d)
	}
	v.userEdit("tc/big.txt", 3, "user")
	if d := step(3, "three", edit.Options{Preview: true}).Diff; !strings.Contains(d, "-line 3\n+three\n user\n") {
		t.Fatalf("the preview does not see the user's edit:\n%s", d)
	}
	v.lua(`vim.bo[vim.fn.bufnr(...)].fileformat = 'dos'`, nil, v.abs("tc/big.txt"))
	if d := step(3, "three", edit.Options{Preview: true}).Diff; !strings.Contains(d, "-line 3\r\n+three\r\n") {
		t.Fatalf("the preview does not see fileformat=dos:\n%s", d)
	}
	v.lua(`vim.bo[vim.fn.bufnr(...)].eol = false`, nil, v.abs("tc/big.txt"))
	if d := step(20000, "last", edit.Options{Preview: true}).Diff; !strings.Contains(d, "+last\n\\ No newline at end of file\n") {
		t.Fatalf("the preview does not see eol=false:\n%s", d)
	}
}
