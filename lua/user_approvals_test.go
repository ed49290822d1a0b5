package lua_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// approvalLog is a user who approves with approve = 'writes' and the
// format-on-save of formatOnSave: every request is recorded as the User
// NvbridgeApprove event shows it (kind, tool, diff) and answered with
// _G.answer once the request is in place (scheduled).
const approvalLog = `require('nvbridge').setup({ approve = 'writes' })
_G.asked, _G.answer = {}, 'accept'
vim.api.nvim_create_autocmd('User', {
  pattern = 'NvbridgeApprove',
  callback = function(ev)
    table.insert(_G.asked, { kind = ev.data.kind, tool = ev.data.tool, diff = ev.data.diff, files = ev.data.files })
    local key = ev.data.key
    vim.schedule(function()
      require('nvbridge.review').answer(_G.answer, _G.answer == 'reject' and 'not now' or nil, key)
    end)
  end,
})
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

// asked is one approval request as the user saw it.
type asked struct {
	Kind  string   `msgpack:"kind"`
	Tool  string   `msgpack:"tool"`
	Diff  string   `msgpack:"diff"`
	Files []string `msgpack:"files"`
}

func (u *userNvim) asked() []asked {
	u.t.Helper()
	var out []asked
	u.lua(`return _G.asked`, &out)
	return out
}

// lastAsked is the newest request, which must be the n-th (1-based).
func (u *userNvim) lastAsked(n int) asked {
	u.t.Helper()
	a := u.asked()
	if len(a) != n {
		u.t.Fatalf("%d approval request(s), want %d: %+v", len(a), n, a)
	}
	return a[n-1]
}

// TestEveryWriteShowsItsDiff: with approve = 'writes' every request shows
// what it does. A save shows the buffer against the disk after the user's
// format-on-save (run for the preview and undone: the buffer is unchanged
// until the save), an undo what it takes back, a discard what the buffer
// loses. nvbridge never saves the user's unsaved edits: a save of a buffer
// holding them is refused without asking. Requests bound to fail (an
// apply after the user edited the file, a discard of the user's edits
// without force) are refused without asking.
func TestEveryWriteShowsItsDiff(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "b1\nb2\n", "c.txt": "c1\nc2\n", "d.txt": "d1\nd2\n"})
	u := startUser(t, root, approvalLog)

	// A change, then its save: the diff is disk -> what will be written,
	// the formatter's work included.
	u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":2,"line_end":2,"new_text":"TWO   "}],"preview":false}`)
	if a := u.lastAsked(1); a.Kind != "change" || a.Tool != "edit_buffer" || !strings.Contains(a.Diff, "+TWO   ") {
		t.Fatalf("the change's request: %+v", a)
	}
	u.mustCall("save_buffer", `{"file":"a.txt"}`)
	a := u.lastAsked(2)
	if a.Kind != "save" || a.Tool != "save_buffer" || len(a.Files) != 1 || a.Files[0] != "a.txt" {
		t.Fatalf("the save's request: %+v", a)
	}
	if !strings.Contains(a.Diff, "-two\n") || !strings.Contains(a.Diff, "+TWO\n") || strings.Contains(a.Diff, "TWO   ") {
		t.Errorf("the save's diff is not disk -> formatted buffer:\n%s", a.Diff)
	}
	if got := u.disk("a.txt"); got != "one\nTWO\n" {
		t.Errorf("a.txt on disk %q", got)
	}

	// Undo of a file's last change shows what it takes back; so does undo
	// of a whole changeset.
	u.mustCall("edit_buffer", `{"file":"b.txt","edits":[{"line_start":1,"line_end":1,"new_text":"B1"}],"preview":false}`)
	u.mustCall("undo", `{"file":"b.txt"}`)
	if a := u.lastAsked(4); a.Kind != "undo" || a.Tool != "undo" || !strings.Contains(a.Diff, "-B1\n") || !strings.Contains(a.Diff, "+b1\n") {
		t.Errorf("the undo's request: %+v", a)
	}
	if got := u.bufText("b.txt"); got != "b1\nb2" {
		t.Errorf("b.txt after the undo: %q", got)
	}
	out := u.mustCall("edit_buffer", `{"file":"c.txt","edits":[{"line_start":2,"line_end":2,"new_text":"C2"}],"preview":false}`)
	u.mustCall("undo", fmt.Sprintf(`{"changeset_id":%q}`, out["applied_changeset_id"]))
	if a := u.lastAsked(6); a.Kind != "undo" || !strings.Contains(a.Diff, "-C2\n") || !strings.Contains(a.Diff, "+c2\n") {
		t.Errorf("the changeset undo's request: %+v", a)
	}

	// A rejected save writes nothing.
	u.mustCall("edit_buffer", `{"file":"d.txt","edits":[{"line_start":1,"line_end":1,"new_text":"D1"}],"preview":false}`)
	u.lua(`_G.answer = 'reject'`, nil)
	u.wantError("save_buffer", `{"file":"d.txt"}`, apierr.Rejected, "not now")
	if a := u.lastAsked(8); a.Kind != "save" || !strings.Contains(a.Diff, "+D1") {
		t.Errorf("the rejected save's request: %+v", a)
	}
	if got := u.disk("d.txt"); got != "d1\nd2\n" {
		t.Errorf("d.txt on disk after a rejected save: %q", got)
	}
	u.lua(`_G.answer = 'accept'`, nil)

	// The user types in d.txt, which holds nvbridge's unsaved change too:
	// nvbridge does not save their half-typed edit, and does not ask.
	u.lua(`vim.cmd.edit(...); vim.api.nvim_buf_set_lines(0, 1, 2, true, { 'half typ' })`, nil, u.abs("d.txt"))
	u.wantError("save_buffer", `{"file":"d.txt"}`, apierr.PreconditionFailed, "d.txt", "the user made")
	if got := u.disk("d.txt"); got != "d1\nd2\n" {
		t.Errorf("d.txt on disk after the refused save: %q", got)
	}
	// Discarding the user's edits without force: refused, not asked.
	u.wantError("discard_buffer", `{"file":"d.txt"}`, apierr.Conflict, "d.txt")
	// A change previewed, then the user edits its file: the apply is
	// refused without asking.
	pv := u.mustCall("edit_buffer", `{"file":"b.txt","edits":[{"line_start":2,"line_end":2,"new_text":"B2"}]}`)
	u.lua(`vim.cmd.edit(...); vim.api.nvim_buf_set_lines(0, 0, 1, true, { 'user b1' })`, nil, u.abs("b.txt"))
	u.wantError("apply_changeset", fmt.Sprintf(`{"changeset_id":%q}`, pv["changeset_id"]), apierr.Conflict, "b.txt")
	if n := len(u.asked()); n != 8 {
		t.Errorf("%d requests: the refused save, discard and apply asked the user (%+v)", n, u.asked()[8:])
	}

	// A forced discard of the user's edits asks, showing what is lost.
	u.mustCall("discard_buffer", `{"file":"d.txt","force":true}`)
	if a := u.lastAsked(9); a.Kind != "discard" || !strings.Contains(a.Diff, "-half typ\n") || !strings.Contains(a.Diff, "+d2\n") {
		t.Errorf("the discard's request: %+v", a)
	}
	if got := u.bufText("d.txt"); got != "d1\nd2" {
		t.Errorf("d.txt after the discard: %q", got)
	}
}

// TestDebugSessionAsks: start_debug_session runs a program, which the user
// approves first, shown its command line: rejected, nothing runs (the
// program would have written a file) and no session starts; accepted, it
// runs under the debugger.
func TestDebugSessionAsks(t *testing.T) {
	testenv.Require(t, "nvim", "debugpy-adapter")
	root := writeFiles(t, map[string]string{"prog.py": "open('ran.txt', 'w').write('yes')\nprint('done')\n"})
	u := startUser(t, root, approvalLog)

	u.lua(`_G.answer = 'reject'`, nil)
	u.wantError("start_debug_session", `{"program":"prog.py","args":["--flag","two words"]}`, apierr.Rejected, "not now")
	a := u.lastAsked(1)
	if a.Kind != "run" || a.Tool != "start_debug_session" || !strings.Contains(a.Diff, "$ ./prog.py --flag 'two words'\n") || !strings.Contains(a.Diff, "debugpy") {
		t.Fatalf("the debug session's request: %+v", a)
	}
	if _, err := os.Stat(filepath.Join(root, "ran.txt")); err == nil {
		t.Fatal("the program ran although the user rejected it")
	}
	if got := u.mustCall("get_debug_session_info", `{}`); got["count"] != float64(0) {
		t.Fatalf("a session after the rejection: %v", got)
	}

	u.lua(`_G.answer = 'accept'`, nil)
	out := u.mustCall("start_debug_session", `{"program":"prog.py"}`)
	if a := u.lastAsked(2); a.Kind != "run" || !strings.Contains(a.Diff, "$ ./prog.py\n") {
		t.Errorf("the second request: %+v", a)
	}
	data, err := os.ReadFile(filepath.Join(root, "ran.txt"))
	if err != nil || string(data) != "yes" {
		t.Errorf("the accepted program did not run: %q, %v (%v)", data, err, out)
	}
}

// TestRevertAll: revert_all_changes undoes every changeset not followed by
// a user edit, newest first, after the user approved what it takes back
// (dry_run only says it, asking nobody); a changeset the user edited after
// is left with the reason. The buffers nvbridge loaded for the changes are
// out of sight again once undone (not listed), the one the user opened
// stays. :NvbridgeChanges lists a change's lines top down.
func TestRevertAll(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "a1\na2\na3\n", "b.txt": "b1\n", "c.txt": "c1\n"})
	u := startUser(t, root, approvalLog)
	ids := map[string]string{}
	for _, f := range []string{"a", "b", "c"} {
		edits := fmt.Sprintf(`[{"line_start":1,"line_end":1,"new_text":"%s1!"}]`, f)
		if f == "a" {
			edits = `[{"line_start":1,"line_end":1,"new_text":"A1"},{"line_start":3,"line_end":3,"new_text":"A3"}]`
		}
		out := u.mustCall("edit_buffer", fmt.Sprintf(`{"file":"%s.txt","edits":%s,"preview":false}`, f, edits))
		ids[f] = out["applied_changeset_id"].(string)
	}
	var lnums []int
	u.lua(`vim.cmd('NvbridgeChanges')
local out = {}
for _, it in ipairs(vim.fn.getqflist()) do
  if vim.fn.bufname(it.bufnr):match('a.txt$') then table.insert(out, it.lnum) end
end
vim.cmd('cclose')
return out`, &lnums)
	if len(lnums) != 2 || lnums[0] != 1 || lnums[1] != 3 {
		t.Errorf(":NvbridgeChanges lists a.txt's lines %v, want [1 3]", lnums)
	}
	// The user types in c.txt after the agent's change.
	u.lua(`vim.cmd.edit(...); vim.api.nvim_buf_set_lines(0, 0, 0, true, { 'mine' })`, nil, u.abs("c.txt"))

	dry := u.mustCall("revert_all_changes", `{"dry_run":true}`)
	if fmt.Sprint(dry["undone"]) != fmt.Sprintf("[%s %s]", ids["b"], ids["a"]) || dry["dry_run"] != true {
		t.Fatalf("dry run: %v", dry)
	}
	if n := len(u.asked()); n != 3 {
		t.Fatalf("the dry run asked the user (%d requests)", n)
	}
	if u.bufText("a.txt") != "A1\na2\nA3" {
		t.Fatalf("the dry run changed a.txt: %q", u.bufText("a.txt"))
	}

	out := u.mustCall("revert_all_changes", `{}`)
	if fmt.Sprint(out["undone"]) != fmt.Sprintf("[%s %s]", ids["b"], ids["a"]) {
		t.Errorf("undone %v", out["undone"])
	}
	skipped, _ := out["skipped"].([]any)
	if len(skipped) != 1 || !strings.Contains(fmt.Sprint(skipped[0]), ids["c"]) || !strings.Contains(fmt.Sprint(skipped[0]), "c.txt was edited after it") {
		t.Errorf("skipped %v", out["skipped"])
	}
	a := u.lastAsked(4)
	for _, want := range []string{"-A1\n", "+a1\n", "-A3\n", "+a3\n", "-b1!\n", "+b1\n"} {
		if !strings.Contains(a.Diff, want) {
			t.Errorf("the revert's request lacks %q: %+v", want, a)
		}
	}
	if a.Kind != "undo" || strings.Contains(a.Diff, "c1") {
		t.Errorf("the revert's request: %+v", a)
	}
	if a, b, c := u.bufText("a.txt"), u.bufText("b.txt"), u.bufText("c.txt"); a != "a1\na2\na3" && a != "" || b != "b1" && b != "" || c != "mine\nc1!" {
		t.Errorf("after the revert: a=%q b=%q c=%q", a, b, c)
	}
	var listed []bool
	u.lua(`local out = {}
for _, f in ipairs({ ... }) do
  local b = vim.fn.bufnr(f)
  table.insert(out, b > 0 and vim.bo[b].buflisted or false)
end
return out`, &listed, u.abs("a.txt"), u.abs("b.txt"), u.abs("c.txt"))
	if len(listed) != 3 || listed[0] || listed[1] || !listed[2] {
		t.Errorf("listed a, b, c = %v: want only c.txt (the user's)", listed)
	}
	// Nothing left to revert.
	var msg string
	u.lua(`local r = require('nvbridge').revert_all(); return ('%d %d'):format(#r.undone, #r.skipped)`, &msg)
	if msg != "0 1" {
		t.Errorf(":NvbridgeRevertAll after the revert: %s undone, skipped", msg)
	}
}
