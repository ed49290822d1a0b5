package lua_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// The user's format-on-save: a BufWritePre autocmd that strips trailing
// whitespace (as many init.lua files have).
const formatOnSave = approveNothing + `
vim.api.nvim_create_autocmd('BufWritePre', {
  callback = function(ev)
    local lines = vim.api.nvim_buf_get_lines(ev.buf, 0, -1, false)
    for i, l in ipairs(lines) do
      lines[i] = l:gsub('%s+$', '')
    end
    vim.api.nvim_buf_set_lines(ev.buf, 0, -1, false, lines)
  end,
})
`

// TestFormatOnSave: save runs the user's BufWritePre formatter (their
// setup) and, when it changed what was written, the answer carries a
// second diff from the applied text to the disk; noautocmd: true writes
// exactly what was applied.
func TestFormatOnSave(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "one\ntwo\n"})
	u := startUser(t, root, formatOnSave)

	out := u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":2,"line_end":2,"new_text":"TWO   "}],"preview":false,"save":true}`)
	if got := u.disk("a.txt"); got != "one\nTWO\n" {
		t.Fatalf("disk = %q: the user's formatter did not run", got)
	}
	diff, _ := out["diff"].(string)
	written, _ := out["written_diff"].(string)
	if !strings.Contains(diff, "+TWO   ") {
		t.Errorf("diff %q does not show what was applied", diff)
	}
	if !strings.Contains(written, "-TWO   ") || !strings.Contains(written, "+TWO\n") {
		t.Errorf("written_diff %q does not show what the formatter changed", written)
	}
	files, _ := out["files"].([]any)
	if len(files) != 1 || !strings.Contains(files[0].(map[string]any)["note"].(string), "written_diff") {
		t.Errorf("the file's note does not point at written_diff: %v", out["files"])
	}

	out = u.mustCall("edit_buffer", `{"file":"b.txt","edits":[{"line_start":2,"line_end":2,"new_text":"TWO   "}],"preview":false,"save":true,"noautocmd":true}`)
	if got := u.disk("b.txt"); got != "one\nTWO   \n" {
		t.Fatalf("disk = %q: noautocmd ran the user's formatter", got)
	}
	if w, ok := out["written_diff"]; ok {
		t.Errorf("written_diff %v with noautocmd", w)
	}

	// save_buffer reports the formatter's change too.
	u.mustCall("edit_buffer", `{"file":"b.txt","edits":[{"line_start":1,"line_end":1,"new_text":"ONE  "}],"preview":false}`)
	out = u.mustCall("save_buffer", `{"file":"b.txt"}`)
	if got := u.disk("b.txt"); got != "ONE\nTWO\n" {
		t.Fatalf("disk = %q after save_buffer", got)
	}
	if w, _ := out["written_diff"].(string); !strings.Contains(w, "-ONE  ") {
		t.Errorf("save_buffer written_diff = %q", w)
	}
}

// TestHalfSaveRefused: a changeset over two files, one holding the user's
// unsaved edit, with save: true saves none of them and says why; nothing
// changes in the buffers either.
func TestHalfSaveRefused(t *testing.T) {
	root := writeFiles(t, map[string]string{"x.txt": "x1\nx2\n", "y.txt": "y1\ny2\n"})
	u := startUser(t, root, approveNothing)
	u.lua(`vim.cmd.edit(...); vim.api.nvim_buf_set_lines(0, 0, 1, true, { 'user typed' })`, nil, u.abs("y.txt"))
	patch := "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n-x1\n+X1\n x2\n--- a/y.txt\n+++ b/y.txt\n@@ -1,2 +1,2 @@\n user typed\n-y2\n+Y2\n"
	args := `{"patch":` + jsonString(patch) + `,"preview":false,"save":true}`
	u.wantError("apply_patch", args, apierr.PreconditionFailed, "y.txt", "unsaved changes")
	if got := u.disk("x.txt"); got != "x1\nx2\n" {
		t.Errorf("x.txt on disk = %q: half of the changeset was saved", got)
	}
	if got := u.bufText("x.txt"); got != "" && got != "x1\nx2" {
		t.Errorf("x.txt buffer = %q: changed by a refused changeset", got)
	}
	if got := u.bufText("y.txt"); got != "user typed\ny2" {
		t.Errorf("y.txt buffer = %q", got)
	}
}

// TestLeftoverBuffers: files nvbridge loads only to read are not listed,
// at most max_loaded of them stay loaded, and :qa is not stopped by them.
func TestLeftoverBuffers(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 8; i++ {
		files[string(rune('a'+i))+".txt"] = "content\n"
	}
	root := writeFiles(t, files)
	u := startUser(t, root, approveNothing+"vim.g.nvbridge_max_loaded = 3\n")
	// The user's own buffer, listed, is never touched.
	u.lua(`vim.cmd.edit(...)`, nil, u.abs("a.txt"))
	for i := 0; i < 8; i++ {
		u.mustCall("get_buffer_info", `{"file":"`+string(rune('a'+i))+`.txt","include_content":false}`)
	}
	var st struct {
		Listed []string `msgpack:"listed"`
		Ours   int      `msgpack:"ours"`
	}
	u.lua(`local listed, ours = {}, 0
for _, b in ipairs(vim.api.nvim_list_bufs()) do
  if vim.bo[b].buflisted then table.insert(listed, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':t')) end
  if vim.api.nvim_buf_is_loaded(b) and vim.b[b].nvbridge_loaded then ours = ours + 1 end
end
return { listed = listed, ours = ours }`, &st)
	if strings.Join(st.Listed, ",") != "a.txt" {
		t.Errorf("listed buffers %v, want only the user's a.txt", st.Listed)
	}
	if st.Ours > 3 {
		t.Errorf("%d read-only buffers still loaded, want at most max_loaded = 3", st.Ours)
	}
	// :qa quits: nothing nvbridge left blocks it (E37/E162).
	_ = u.s.ExecLua(testenv.Context(t), `vim.cmd('qa')`, nil)
	select {
	case <-u.s.Done():
	case <-testenv.Context(t).Done():
		t.Fatal(":qa did not quit Neovim")
	}
}

// TestUndoKeepsView: the undo tool (one file, and a whole changeset) takes
// back the change but leaves the user's cursor and view where they were.
func TestUndoKeepsView(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 80; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	root := writeFiles(t, map[string]string{"long.txt": b.String(), "other.txt": "o\n"})
	u := startUser(t, root, approveNothing)
	u.lua(`vim.cmd.edit(...); vim.fn.winrestview({ lnum = 45, col = 5, topline = 34 })`, nil, u.abs("long.txt"))
	view := func() [3]int {
		var v [3]int
		u.lua(`local v = vim.fn.winsaveview(); return { v.lnum, v.col, v.topline }`, &v)
		return v
	}
	before := view()
	if before != [3]int{45, 5, 34} {
		t.Fatalf("view %v, want 45,5 topline 34", before)
	}
	u.mustCall("edit_buffer", `{"file":"long.txt","edits":[{"line_start":12,"line_end":12,"new_text":"changed"}],"preview":false}`)
	u.mustCall("undo", `{"file":"long.txt"}`)
	if got := view(); got != before {
		t.Errorf("after undo the view is %v, was %v", got, before)
	}
	if got := u.bufText("long.txt"); strings.Contains(got, "changed") {
		t.Fatal("undo did not undo")
	}

	// A changeset over two buffers, undone as one.
	patch := "--- a/long.txt\n+++ b/long.txt\n@@ -3,1 +3,1 @@\n-" + strings.Split(b.String(), "\n")[2] + "\n+third\n--- a/other.txt\n+++ b/other.txt\n@@ -1,1 +1,1 @@\n-o\n+O\n"
	out := u.mustCall("apply_patch", `{"patch":`+jsonString(patch)+`,"preview":false}`)
	id, _ := out["applied_changeset_id"].(string)
	if id == "" {
		t.Fatalf("no applied_changeset_id: %v", out)
	}
	res := u.mustCall("undo", `{"changeset_id":"`+id+`"}`)
	if cs, _ := res["changeset"].(map[string]any); cs == nil || len(cs["files"].([]any)) != 2 {
		t.Errorf("undo changeset answer %v", res)
	}
	if got := u.bufText("other.txt"); got != "o" {
		t.Errorf("other.txt = %q after undoing the changeset", got)
	}
	if got := u.bufText("long.txt"); strings.Contains(got, "third") {
		t.Errorf("long.txt still has the changeset's edit")
	}
	if got := view(); got != before {
		t.Errorf("after undoing the changeset the view is %v, was %v", got, before)
	}
	u.wantError("undo", `{"changeset_id":"`+id+`"}`, apierr.ResourceNotFound)
}

// TestNoAutoread: a buffer the user shows with 'noautoread' whose file
// changed on disk is not reloaded under them; the agent is told, the user
// is told.
func TestNoAutoread(t *testing.T) {
	root := writeFiles(t, map[string]string{"shown.txt": "old\n", "other.txt": "x\n"})
	u := startUser(t, root, approveNothing+"vim.o.autoread = false\n")
	u.lua(`vim.cmd.edit(...)
_G.notes = {}
vim.notify = function(msg) table.insert(_G.notes, msg) end`, nil, u.abs("shown.txt"))
	writeFile(t, u.abs("shown.txt"), "new from disk\n")
	// A read-only call about another file: shown.txt stays as it was.
	u.mustCall("get_buffer_info", `{"file":"other.txt","include_content":false}`)
	if got := u.bufText("shown.txt"); got != "old" {
		t.Fatalf("shown.txt was reloaded under the user: %q", got)
	}
	u.wantError("get_buffer_info", `{"file":"shown.txt","include_content":true}`, apierr.PreconditionFailed, "noautoread")
	if got := u.bufText("shown.txt"); got != "old" {
		t.Fatalf("shown.txt was reloaded under the user: %q", got)
	}
	var notes []string
	u.lua(`return _G.notes`, &notes) // scheduled before this call: already run
	if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "shown.txt") {
		t.Errorf("the user was not told: %v", notes)
	}
}
