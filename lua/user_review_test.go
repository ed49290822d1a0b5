package lua_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

// reviewApprovals makes the user (the test) answer each approval by
// reviewing it: "edit" opens the review tabs, the user changes the first
// proposed line to _G.user_line (and, with _G.touch_real set to a path,
// types into that file's real buffer meanwhile), then accepts. What the
// user saw is kept in _G.reviews.
const reviewApprovals = approveNothing + `
require('nvbridge').setup({ approve = 'writes' })
_G.reviews = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'NvbridgeApprove',
  callback = function()
    vim.schedule(function()
      local api = vim.api
      local u = require('nvbridge.review')
      local r = { tabs_before = #api.nvim_list_tabpages(), win_before = api.nvim_get_current_win() }
      if _G.tab_view then
        -- approve_view = 'tab': :NvbridgeReview opens the tabs.
        vim.cmd('NvbridgeReview')
        r.opened = false
        for _, b in ipairs(api.nvim_list_bufs()) do
          r.opened = r.opened or vim.b[b].nvbridge_review ~= nil
        end
      else
        r.opened = u.answer('edit')
      end
      r.tabs_during = #api.nvim_list_tabpages()
      for _, b in ipairs(api.nvim_list_bufs()) do
        if vim.b[b].nvbridge_review then
          r.proposed = api.nvim_buf_get_lines(b, 0, -1, false)
          r.diff_on = vim.wo[vim.fn.bufwinid(b)].diff
          r.name = api.nvim_buf_get_name(b)
          api.nvim_buf_set_lines(b, 0, 1, false, { _G.user_line })
        end
      end
      if _G.touch_real then
        api.nvim_buf_set_lines(vim.fn.bufnr(_G.touch_real), 1, 2, false, { 'typed by the user meanwhile' })
      end
      u.answer('accept')
      r.tabs_after = #api.nvim_list_tabpages()
      r.win_after = api.nvim_get_current_win()
      r.leftover = 0
      for _, b in ipairs(api.nvim_list_bufs()) do
        if api.nvim_buf_get_name(b):find('nvbridge://', 1, true) then
          r.leftover = r.leftover + 1
        end
      end
      table.insert(_G.reviews, r)
    end)
  end,
})
`

// TestApprovalEditThenAccept: the user reviews a change in diff tabs (the
// current text beside the proposed one), edits the proposal and accepts:
// their text is applied (one undo step), the agent's answer says so with
// the diff from its proposal to the user's text, and the review leaves no
// tab, window or buffer behind. A buffer the user types into during the
// review is not overwritten: CONFLICT, nothing applied.
func TestApprovalEditThenAccept(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "alpha\nbeta\n"})
	u := startUser(t, root, reviewApprovals)
	u.lua(`vim.cmd.edit(...); vim.api.nvim_win_set_cursor(0, {2, 1})`, nil, u.abs("a.txt"))
	var userWin int
	u.lua(`return vim.api.nvim_get_current_win()`, &userWin)

	t.Run("edited then accepted", func(t *testing.T) {
		u.lua(`_G.user_line, _G.touch_real = 'One, said the user', nil`, nil)
		out := u.mustCall("edit_buffer", `{"file":"a.txt","edits":[{"line_start":1,"line_end":1,"new_text":"ONE"}],"preview":false}`)
		if got := u.bufText("a.txt"); got != "One, said the user\ntwo" {
			t.Fatalf("buffer %q, want the user's text", got)
		}
		if out["user_edited"] != true || !strings.Contains(out["user_diff"].(string), "-ONE") ||
			!strings.Contains(out["user_diff"].(string), "+One, said the user") || !strings.Contains(out["diff"].(string), "+ONE") {
			t.Fatalf("answer = %v", out)
		}
		var r struct {
			Opened                            bool     `msgpack:"opened"`
			TabsBefore, TabsDuring, TabsAfter int      `msgpack:",omitempty"`
			WinBefore                         int      `msgpack:"win_before"`
			WinAfter                          int      `msgpack:"win_after"`
			Proposed                          []string `msgpack:"proposed"`
			DiffOn                            bool     `msgpack:"diff_on"`
			Name                              string   `msgpack:"name"`
			Leftover                          int      `msgpack:"leftover"`
		}
		u.lua(`local r = _G.reviews[#_G.reviews]
r.TabsBefore, r.TabsDuring, r.TabsAfter = r.tabs_before, r.tabs_during, r.tabs_after
return r`, &r)
		if !r.Opened || r.TabsDuring != r.TabsBefore+1 || strings.Join(r.Proposed, "\n") != "ONE\ntwo" || !r.DiffOn ||
			!strings.HasSuffix(r.Name, "nvbridge://proposed/a.txt") {
			t.Fatalf("review = %+v", r)
		}
		if r.TabsAfter != r.TabsBefore || r.WinAfter != userWin || r.Leftover != 0 {
			t.Fatalf("after the review: %+v (the user's window was %d)", r, userWin)
		}
		var cursor []int
		u.lua(`return vim.api.nvim_win_get_cursor(0)`, &cursor)
		if len(cursor) != 2 || cursor[0] != 2 {
			t.Errorf("cursor %v after the review, want line 2 as the user left it", cursor)
		}
		// One undo step takes the user's accepted text back.
		u.lua(`vim.cmd('silent undo')`, nil)
		if got := u.bufText("a.txt"); got != "one\ntwo" {
			t.Fatalf("after one undo: %q", got)
		}
	})

	t.Run("the buffer changed during the review", func(t *testing.T) {
		u.lua(`_G.user_line, _G.touch_real = 'One more time', ...`, nil, u.abs("a.txt"))
		u.wantError("edit_buffer", `{"file":"a.txt","edits":[{"line_start":1,"line_end":1,"new_text":"ONE"}],"preview":false}`,
			apierr.Conflict, "changed while the user reviewed")
		if got := u.bufText("a.txt"); got != "one\ntyped by the user meanwhile" {
			t.Fatalf("buffer %q: the user's typing must stay, nothing applied", got)
		}
	})

	t.Run("a stored preview is reviewed too", func(t *testing.T) {
		u.lua(`_G.user_line, _G.touch_real = 'ALPHA (user)', nil`, nil)
		prev := u.mustCall("edit_buffer", `{"file":"b.txt","edits":[{"line_start":1,"line_end":1,"new_text":"ALPHA"}]}`)
		out := u.mustCall("apply_changeset", `{"changeset_id":"`+prev["changeset_id"].(string)+`"}`)
		if got := u.bufText("b.txt"); got != "ALPHA (user)\nbeta" || out["user_edited"] != true {
			t.Fatalf("buffer %q, answer %v", got, out)
		}
	})

	t.Run("approve_view tab: NvbridgeReview opens the tabs", func(t *testing.T) {
		u.lua(`_G.user_line, _G.touch_real, _G.tab_view = 'beta (tab)', nil, true
require('nvbridge').setup({ approve = 'writes', approve_view = 'tab' })`, nil)
		out := u.mustCall("edit_buffer", `{"file":"b.txt","edits":[{"line_start":1,"line_end":1,"new_text":"x"}],"preview":false}`)
		var r map[string]any
		u.lua(`return _G.reviews[#_G.reviews]`, &r)
		if got := u.bufText("b.txt"); got != "beta (tab)\nbeta" || out["user_edited"] != true || r["opened"] != true {
			t.Fatalf("buffer %q, answer %v, review %v", got, out, r)
		}
	})
}

// TestAgentGoneCleanup: an agent whose channel closes without a word (a
// killed nvbridge) leaves nothing behind: its approval's review tabs close,
// it is no longer pending, and :NvbridgeStatus no longer lists it.
func TestAgentGoneCleanup(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\n"})
	u := startUser(t, root, approveNothing+"require('nvbridge').setup({ approve = 'writes', approve_view = 'tab' })\n")
	var r map[string]any
	u.lua(`local api, agents, review = vim.api, require('nvbridge.agents'), require('nvbridge.review')
local tabs = #api.nvim_list_tabpages()
-- A second agent: a child process's channel, registered as nvbridge does.
local chan = vim.fn.jobstart({ 'cat' })
agents.register(chan, 'stdio')
review.approve(chan, 1, { tool = 'edit_buffer', diff = '', files = { ... },
  proposed = { { path = ..., rel = 'a.txt', text = 'ONE\n' } } })
local opened = review.open()
local during = { tabs = #api.nvim_list_tabpages(), pending = review.pending(), agents = #agents.agents() }
vim.fn.jobstop(chan)
-- The channel ends on the event loop: wait for that (bounded), not for time.
local closed = vim.wait(10000, function() return api.nvim_get_chan_info(chan).id == nil end)
local leftover = 0
local left = agents.agents() -- sweeps
for _, b in ipairs(api.nvim_list_bufs()) do
  if api.nvim_buf_get_name(b):find('nvbridge://', 1, true) then leftover = leftover + 1 end
end
return { tabs_before = tabs, tabs_during = during.tabs, pending_during = during.pending, agents_during = during.agents,
  tabs_after = #api.nvim_list_tabpages(), pending_after = review.pending(), agents_after = #left, leftover = leftover, closed = closed,
  opened = opened }`, &r, u.abs("a.txt"))
	if r["opened"] != true || r["tabs_during"] != r["tabs_before"].(int64)+1 || r["pending_during"] != int64(1) || r["agents_during"] != int64(2) {
		t.Fatalf("while the second agent waited: %v", r)
	}
	if r["closed"] != true {
		t.Fatalf("the second agent's channel did not close: %v", r)
	}
	if r["tabs_after"] != r["tabs_before"] || r["pending_after"] != int64(0) || r["agents_after"] != int64(1) || r["leftover"] != int64(0) {
		t.Fatalf("after it disconnected: %v", r)
	}
	if got := u.bufText("a.txt"); got != "" && got != "one" {
		t.Fatalf("a.txt = %q", got)
	}
}
