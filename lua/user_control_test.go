package lua_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gonvim "github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// answerApprovals makes the user (the test) answer every approval request
// with _G.decision ("accept", "reject" with _G.note, or "none": leave it
// waiting), from the User NvbridgeApprove event; each request's data is
// kept in _G.asked.
const answerApprovals = `
_G.asked = {}
_G.decision = 'accept'
vim.api.nvim_create_autocmd('User', {
  pattern = 'NvbridgeApprove',
  callback = function(ev)
    table.insert(_G.asked, ev.data)
    if _G.decision ~= 'none' then
      vim.schedule(function() require('nvbridge').approve(_G.decision, _G.note) end)
    end
  end,
})
`

// TestApproval: with approve = "writes" (the default when attached), every
// change waits for the user, who sees the diff: accepted it applies,
// rejected nothing changes and the agent gets REJECTED with the note, left
// unanswered it times out (TIMEOUT, nothing changed). Previews are not
// asked about; preview: false and apply_changeset both are, and run_tests.
func TestApproval(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\ntwo\n", "test_a.py": "def test_one():\n    assert True\n"})
	u := startUser(t, root, answerApprovals)
	asked := func() int {
		var n int
		u.lua(`return #_G.asked`, &n)
		return n
	}
	editArgs := `{"file":"a.txt","edits":[{"line_start":1,"line_end":1,"new_text":"ONE"}],"preview":false}`

	t.Run("a preview is not asked about", func(t *testing.T) {
		u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":1,"line_end":1,"new_text":"ONE"}]}`)
		if n := asked(); n != 0 {
			t.Fatalf("%d approvals for a preview", n)
		}
	})
	t.Run("reject", func(t *testing.T) {
		u.lua(`_G.decision, _G.note = 'reject', 'use the constant instead'`, nil)
		u.wantError("edit_buffer", editArgs, apierr.Rejected, "rejected", "use the constant instead")
		if got := u.bufText("a.txt"); got != "" && got != "one\ntwo" {
			t.Fatalf("buffer %q after a rejection", got)
		}
		var diff string
		u.lua(`return _G.asked[#_G.asked].diff`, &diff)
		if !strings.Contains(diff, "-one") || !strings.Contains(diff, "+ONE") {
			t.Errorf("the user was shown %q, not the change's diff", diff)
		}
	})
	t.Run("accept", func(t *testing.T) {
		u.lua(`_G.decision = 'accept'`, nil)
		u.mustCall("edit_buffer", editArgs)
		if got := u.bufText("a.txt"); got != "ONE\ntwo" {
			t.Fatalf("buffer %q after acceptance", got)
		}
	})
	t.Run("apply_changeset is asked", func(t *testing.T) {
		before := asked()
		out := u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":2,"line_end":2,"new_text":"TWO"}]}`)
		u.lua(`_G.decision, _G.note = 'reject', nil`, nil)
		u.wantError("apply_changeset", `{"changeset_id":"`+out["changeset_id"].(string)+`"}`, apierr.Rejected)
		if asked() != before+1 {
			t.Fatal("apply_changeset was not asked about")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		u.lua(`_G.decision = 'none'; require('nvbridge').setup({ approve_timeout_ms = 200 })`, nil)
		u.wantError("edit_buffer", `{"file":"a.txt","edits":[{"line_start":2,"line_end":2,"new_text":"late"}],"preview":false}`, apierr.Timeout, "did not answer")
		if got := u.bufText("a.txt"); got != "ONE\ntwo" {
			t.Fatalf("buffer %q after a timed out approval", got)
		}
		var pending int
		u.lua(`return require('nvbridge.review').pending()`, &pending)
		if pending != 0 {
			t.Errorf("%d approvals still pending after the timeout", pending)
		}
	})
	t.Run("save_buffer is asked", func(t *testing.T) {
		u.lua(`_G.decision = 'reject'; require('nvbridge').setup({ approve_timeout_ms = 300000 })`, nil)
		u.wantError("save_buffer", `{"file":"a.txt"}`, apierr.Rejected)
		if got := u.disk("a.txt"); got != "one\ntwo\n" {
			t.Fatalf("saved although rejected: %q", got)
		}
	})
	t.Run("run_tests is asked", func(t *testing.T) {
		// Running tests runs the project's code: asked like a write, the
		// runner's command line shown; a file with no tests is refused
		// before anyone is asked.
		u.lua(`_G.decision = 'reject'`, nil)
		n := asked()
		u.wantError("run_tests", `{"file":"a.txt"}`, apierr.Unsupported)
		if asked() != n {
			t.Fatalf("run_tests on a file with no tests was asked about")
		}
		u.wantError("run_tests", `{"file":"test_a.py"}`, apierr.Rejected)
		var diff, kind string
		u.lua(`return _G.asked[#_G.asked].diff`, &diff)
		u.lua(`return _G.asked[#_G.asked].kind`, &kind)
		if asked() != n+1 || kind != "run" || !strings.Contains(diff, "pytest") || !strings.Contains(diff, "test_a.py") {
			t.Fatalf("run_tests was not asked about with its command line (%d approvals, last %s %q)", asked()-n, kind, diff)
		}
	})
	t.Run("never", func(t *testing.T) {
		u.lua(`_G.decision = 'reject'; require('nvbridge').setup({ approve = 'never' })`, nil)
		n := asked()
		u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":2,"line_end":2,"new_text":"2"}],"preview":false}`)
		if asked() != n {
			t.Fatal("asked although approve = never")
		}
	})
}

// TestEventsHooksPause: every call runs User NvbridgeToolPre/Post with the
// tool, its arguments and a result summary; a before_tool hook refuses a
// call with its reason (REJECTED, nothing changed); the pause refuses
// writing tools but not reading ones; the status lists the stdio agent
// with its last calls.
func TestEventsHooksPause(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\ntwo\n"})
	u := startUser(t, root, approveNothing+`
_G.events = {}
vim.api.nvim_create_autocmd('User', {
  pattern = { 'NvbridgeToolPre', 'NvbridgeToolPost' },
  callback = function(ev) table.insert(_G.events, { event = ev.match, data = ev.data }) end,
})
require('nvbridge').on('before_tool', function(call)
  if call.tool == 'edit_buffer' and call.arguments.file == 'a.txt' and call.writes then
    return false, 'a.txt is frozen'
  end
end)
`)
	u.mustCall("get_buffer_info", `{"file":"a.txt","include_content":false}`)
	var events []struct {
		Event string         `json:"event"`
		Data  map[string]any `json:"data"`
	}
	var raw string
	u.lua(`return vim.json.encode(_G.events)`, &raw)
	if err := json.Unmarshal([]byte(raw), &events); err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || events[0].Event != "NvbridgeToolPre" || events[1].Event != "NvbridgeToolPost" {
		t.Fatalf("events %s", raw)
	}
	if events[0].Data["tool"] != "get_buffer_info" || events[0].Data["arguments"].(map[string]any)["file"] != "a.txt" {
		t.Errorf("ToolPre data %v", events[0].Data)
	}
	if events[1].Data["ok"] != true || !strings.Contains(events[1].Data["summary"].(string), "a.txt") {
		t.Errorf("ToolPost data %v", events[1].Data)
	}

	// The hook refuses a write to a.txt, not its preview.
	u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":1,"line_end":1,"new_text":"X"}]}`)
	u.wantError("edit_buffer", `{"file":"a.txt","edits":[{"line_start":1,"line_end":1,"new_text":"X"}],"preview":false}`, apierr.Rejected, "a.txt is frozen")
	if got := u.bufText("a.txt"); got != "one\ntwo" {
		t.Fatalf("buffer %q after the hook refused", got)
	}
	u.lua(`vim.cmd('NvbridgePause')`, nil)
	u.wantError("save_buffer", `{"file":"a.txt"}`, apierr.PreconditionFailed, "paused by the user")
	u.mustCall("get_buffer_info", `{"file":"a.txt","include_content":false}`)
	u.lua(`vim.cmd('NvbridgeResume')`, nil)
	u.mustCall("save_buffer", `{"file":"a.txt"}`)

	var status []string
	u.lua(`return require('nvbridge').status_lines()`, &status)
	text := strings.Join(status, "\n")
	if !strings.Contains(text, "stdio") || !strings.Contains(text, "save_buffer ok") || !strings.Contains(text, "edit_buffer error") {
		t.Errorf("status does not list the stdio agent and its last calls:\n%s", text)
	}
	var logLines []string
	u.lua(`local b = require('nvbridge').log(); return vim.api.nvim_buf_get_lines(b, 0, -1, false)`, &logLines)
	if !strings.Contains(strings.Join(logLines, "\n"), "paused by the user") {
		t.Errorf(":NvbridgeLog lacks the pause:\n%s", strings.Join(logLines, "\n"))
	}
}

// TestChangesQuickfix: :NvbridgeChanges lists what agents changed this
// session; :NvbridgeUndo takes the last changeset back in every buffer.
func TestChangesQuickfix(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "1\n2\n3\n", "b.txt": "x\n"})
	u := startUser(t, root, approveNothing)
	// The user shows a.txt; highlights stay long enough to be seen here.
	u.lua(`vim.cmd.edit(...); require('nvbridge.changes').highlight_ms = 600000`, nil, u.abs("a.txt"))
	patch := "--- a/a.txt\n+++ b/a.txt\n@@ -2,1 +2,1 @@\n-2\n+two\n--- a/b.txt\n+++ b/b.txt\n@@ -1,1 +1,1 @@\n-x\n+X\n"
	u.mustCall("apply_patch", `{"patch":`+jsonString(patch)+`,"preview":false}`)
	var marks [][]int
	u.lua(`local ns = require('nvbridge.changes').ns
local out = {}
for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, {})) do table.insert(out, { m[2], m[3] }) end
return out`, &marks)
	if len(marks) == 0 || marks[0][0] != 1 {
		t.Errorf("the changed line 2 of a.txt is not highlighted: extmarks %v", marks)
	}
	var items []struct {
		Lnum int    `msgpack:"lnum"`
		Text string `msgpack:"text"`
		File string `msgpack:"file"`
	}
	u.lua(`vim.cmd('NvbridgeChanges')
local out = {}
for _, it in ipairs(vim.fn.getqflist()) do
  table.insert(out, { lnum = it.lnum, text = it.text, file = vim.fn.fnamemodify(vim.fn.bufname(it.bufnr), ':t') })
end
return out`, &items)
	if len(items) != 2 || items[0].File != "a.txt" || items[0].Lnum != 2 || !strings.Contains(items[0].Text, "two") || items[1].File != "b.txt" {
		t.Fatalf("quickfix %+v", items)
	}
	// Changed buffers left unsaved are listed: the user sees them.
	var listed bool
	u.lua(`return vim.bo[vim.fn.bufnr(...)].buflisted`, &listed, u.abs("b.txt"))
	if !listed {
		t.Error("b.txt, changed and unsaved, is not listed")
	}
	u.lua(`vim.cmd('NvbridgeUndo')`, nil)
	if a, b := u.bufText("a.txt"), u.bufText("b.txt"); a != "1\n2\n3" || b != "x" {
		t.Fatalf(":NvbridgeUndo left a=%q b=%q", a, b)
	}
}

// TestChangesQuickfixSameLine: edits on one line and on others are listed
// each at its place, top down, with the line as the whole change left it
// (apply knows the lines it made; a multi-line change is read back); the
// list keeps its last items.
func TestChangesQuickfixSameLine(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "x x\nkeep\nx end\n", "b.txt": "one\ntwo\n"})
	u := startUser(t, root, approveNothing)
	u.mustCall("replace_in_buffer", `{"file":"a.txt","old":"x","new":"yy","preview":false}`)
	u.mustCall("edit_buffer", `{"file":"b.txt","edits":[{"line_start":1,"line_end":1,"new_text":"uno\ndos"}],"preview":false}`)
	var items []struct {
		Lnum int    `msgpack:"lnum"`
		Col  int    `msgpack:"col"`
		Text string `msgpack:"text"`
		File string `msgpack:"file"`
	}
	type item struct {
		file      string
		lnum, col int
		text      string
	}
	check := func(want []item) {
		t.Helper()
		u.lua(`require('nvbridge').changes()
local out = {}
for _, it in ipairs(vim.fn.getqflist()) do
  table.insert(out, { lnum = it.lnum, col = it.col, text = it.text, file = vim.fn.fnamemodify(vim.fn.bufname(it.bufnr), ':t') })
end
return out`, &items)
		if len(items) != len(want) {
			t.Fatalf("quickfix %+v, want %v", items, want)
		}
		for i, w := range want {
			it := items[i]
			// Each item's text is the changeset's id, then the line.
			if it.File != w.file || it.Lnum != w.lnum || it.Col != w.col || !strings.HasSuffix(it.Text, ": "+w.text) {
				t.Errorf("item %d: %+v, want %+v", i, it, w)
			}
		}
	}
	check([]item{{"a.txt", 1, 1, "yy yy"}, {"a.txt", 1, 3, "yy yy"}, {"a.txt", 3, 1, "yy end"}, {"b.txt", 1, 1, "uno"}})
	// The list keeps its last items (changes_max), oldest dropped first.
	u.lua(`require('nvbridge.changes').changes_max = 3`, nil)
	u.mustCall("edit_buffer", `{"file":"b.txt","edits":[{"line_start":3,"line_end":3,"new_text":"tres"}],"preview":false}`)
	check([]item{{"a.txt", 3, 1, "yy end"}, {"b.txt", 1, 1, "uno"}, {"b.txt", 3, 1, "tres"}})
}

// TestStopRemovesEverything: nvbridge never replaces the user's
// publishDiagnostics handler, and :NvbridgeStop disconnects every agent
// and removes its autocmds: no User NvbridgeDiagnostics fires afterwards.
func TestStopRemovesEverything(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	u := startUser(t, root, approveNothing+`
_G.handler_before = vim.lsp.handlers['textDocument/publishDiagnostics']
_G.fired = 0
vim.api.nvim_create_autocmd('User', { pattern = 'NvbridgeDiagnostics', callback = function() _G.fired = _G.fired + 1 end })
_G.notes = {}
vim.notify = function(msg) table.insert(_G.notes, msg) end
`)
	// The user's Neovim's inotify descriptors (its own file watchers may
	// hold some): a request on a.txt then one on b.txt, and b.txt's file
	// is watched for the requests on a.txt (watch.lua) through one more.
	var pid int
	u.lua(`return vim.fn.getpid()`, &pid)
	inotifyFds := func() int {
		t.Helper()
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && target == "anon_inode:inotify" {
				n++
			}
		}
		return n
	}
	before := inotifyFds()
	for _, f := range []string{"a.txt", "b.txt", "a.txt"} {
		u.mustCall("get_buffer_info", `{"file":"`+f+`","include_content":false}`)
	}
	var covered bool
	u.lua(`return require('nvbridge.watch').covered((...))`, &covered, u.abs("b.txt"))
	if n := inotifyFds(); !covered || n != before+1 {
		t.Fatalf("b.txt covered %v, inotify descriptors %d with nvbridge, %d before: want covered through one more", covered, n, before)
	}
	var same bool
	u.lua(`return vim.lsp.handlers['textDocument/publishDiagnostics'] == _G.handler_before`, &same)
	if !same {
		t.Fatal("nvbridge replaced the publishDiagnostics handler")
	}
	var n int
	u.lua(`return #vim.api.nvim_get_autocmds({ group = 'nvbridge' })`, &n)
	if n == 0 {
		t.Fatal("no nvbridge autocmds while attached")
	}
	// A second client checks the state after the stop (the agent's own
	// channel is closed by it).
	ctx := testenv.Context(t)
	_ = u.s.ExecLua(ctx, `vim.schedule(function() vim.cmd('NvbridgeStop') end)`, nil)
	select {
	case <-u.s.Done():
	case <-ctx.Done():
		t.Fatal(":NvbridgeStop did not disconnect the agent")
	}
	probe, err := gonvim.Dial(u.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	var st struct {
		Group  bool     `msgpack:"group"`
		Fired  int      `msgpack:"fired"`
		Same   bool     `msgpack:"same"`
		Notes  []string `msgpack:"notes"`
		Agents int      `msgpack:"agents"`
		Loaded int      `msgpack:"loaded"`
	}
	if err := probe.ExecLua(`
local group = pcall(vim.api.nvim_get_autocmds, { group = 'nvbridge' })
local b = vim.api.nvim_create_buf(false, true)
local ns = vim.api.nvim_create_namespace('vim.lsp.fake.99')
_G.fired = 0
vim.diagnostic.set(ns, b, { { lnum = 0, col = 0, message = 'm' } })
local loaded = 0
for _, bb in ipairs(vim.api.nvim_list_bufs()) do
  if vim.b[bb].nvbridge_loaded and vim.api.nvim_buf_is_loaded(bb) then loaded = loaded + 1 end
end
return { group = group, fired = _G.fired, same = vim.lsp.handlers['textDocument/publishDiagnostics'] == _G.handler_before,
  notes = _G.notes, agents = #require('nvbridge.agents').agents(), loaded = loaded }`, &st); err != nil {
		t.Fatal(err)
	}
	if st.Group {
		t.Error("the nvbridge augroup is still there after :NvbridgeStop")
	}
	if st.Fired != 0 {
		t.Errorf("User NvbridgeDiagnostics fired %d times after the stop", st.Fired)
	}
	if !st.Same || st.Agents != 0 || st.Loaded != 0 {
		t.Errorf("after the stop: handler kept=%v agents=%d read-only buffers=%d", st.Same, st.Agents, st.Loaded)
	}
	if text := strings.Join(st.Notes, "\n"); !strings.Contains(text, "disconnected 1 agent") {
		t.Errorf(":NvbridgeStop said %q", text)
	}
	if n := inotifyFds(); n != before {
		t.Errorf("%d inotify descriptors after the stop, %d before nvbridge's requests: the watch was left open", n, before)
	}
}

// TestHighlightDuration: highlight_ms sets how long changed ranges stay
// lit; 0 lights nothing.
func TestHighlightDuration(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "1\n2\n3\n"})
	u := startUser(t, root, `require('nvbridge').setup({ approve = 'never', highlight_ms = 0 })`)
	u.lua(`vim.cmd.edit(...)`, nil, u.abs("a.txt"))
	marks := func() int {
		var n int
		u.lua(`return #vim.api.nvim_buf_get_extmarks(0, require('nvbridge.changes').ns, 0, -1, {})`, &n)
		return n
	}
	u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":2,"line_end":2,"new_text":"two"}],"preview":false}`)
	if n := marks(); n != 0 {
		t.Errorf("highlight_ms = 0: %d highlight(s)", n)
	}
	u.lua(`require('nvbridge').setup({ approve = 'never', highlight_ms = 600000 })`, nil)
	u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":3,"line_end":3,"new_text":"three"}],"preview":false}`)
	if n := marks(); n != 1 {
		t.Errorf("highlight_ms = 600000: %d highlight(s), want the changed line", n)
	}
}
