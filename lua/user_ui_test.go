package lua_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	gonvim "github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// uiClient is a UI attached to the user's Neovim (nvim_ui_attach), as a
// terminal or GUI front end is: Neovim shows windows, floats and messages
// to it and takes its keys (nvim_input) as the user's typing.
type uiClient struct {
	t      *testing.T
	v      *gonvim.Nvim
	chan_  int
	events chan []string // test_event notifications Neovim sends this UI
}

// attachUI connects to the Neovim at addr and attaches as a 120x40 UI.
func attachUI(t *testing.T, addr string) *uiClient {
	t.Helper()
	v, err := gonvim.Dial(addr, gonvim.DialLogf(t.Logf))
	if err != nil {
		t.Fatal(err)
	}
	ui := &uiClient{t: t, v: v, events: make(chan []string, 64)}
	t.Cleanup(func() { v.Close() })
	// The screen updates are read and dropped: this UI checks what the
	// user would see through the API.
	if err := v.RegisterHandler("redraw", func(...any) {}); err != nil {
		t.Fatal(err)
	}
	if err := v.RegisterHandler("test_event", func(args ...any) {
		ev := make([]string, len(args))
		for i, a := range args {
			ev[i] = fmt.Sprint(a)
		}
		ui.events <- ev
	}); err != nil {
		t.Fatal(err)
	}
	if err := v.AttachUI(120, 40, map[string]any{"ext_linegrid": true, "rgb": true}); err != nil {
		t.Fatal(err)
	}
	info, err := v.APIInfo()
	if err != nil {
		t.Fatal(err)
	}
	ui.chan_ = int(info[0].(int64))
	return ui
}

// typeKeys types keys as the user would (nvim_input), then waits until
// Neovim has taken them: a request is answered only once the typeahead
// was processed and Neovim waits for more.
func (ui *uiClient) typeKeys(keys string) {
	ui.t.Helper()
	if _, err := ui.v.Input(keys); err != nil {
		ui.t.Fatalf("input %q: %v", keys, err)
	}
	var one int
	if err := ui.v.Eval("1", &one); err != nil {
		ui.t.Fatalf("after input %q: %v", keys, err)
	}
}

// lua runs test Lua through the UI's connection.
func (ui *uiClient) lua(code string, result any, args ...any) {
	ui.t.Helper()
	if err := ui.v.ExecLua(code, result, args...); err != nil {
		ui.t.Fatalf("lua: %v", err)
	}
}

// await waits for the test event named name.
func (ui *uiClient) await(name string) []string {
	ui.t.Helper()
	ctx := testenv.Context(ui.t)
	for {
		select {
		case ev := <-ui.events:
			if len(ev) > 0 && ev[0] == name {
				return ev
			}
		case <-ctx.Done():
			ui.t.Fatalf("no %s event", name)
		}
	}
}

// screenState is what the user sees of nvbridge: the windows (floats among
// them), the current window and buffer, the mode.
type screenState struct {
	Wins     int    `msgpack:"wins"`
	Floats   int    `msgpack:"floats"`
	Mode     string `msgpack:"mode"`
	Win      int    `msgpack:"win"`
	Buf      string `msgpack:"buf"`
	Pending  int    `msgpack:"pending"`
	Nvbridge int    `msgpack:"nvbridge"` // windows showing an nvbridge:// buffer
	Line     string `msgpack:"line"`
	UIs      int    `msgpack:"uis"`
}

const readScreen = `
local api = vim.api
local s = { wins = 0, floats = 0, nvbridge = 0, mode = api.nvim_get_mode().mode, win = api.nvim_get_current_win() }
for _, w in ipairs(api.nvim_list_wins()) do
  s.wins = s.wins + 1
  if api.nvim_win_get_config(w).relative ~= '' then s.floats = s.floats + 1 end
  if api.nvim_buf_get_name(api.nvim_win_get_buf(w)):find('nvbridge://', 1, true) then s.nvbridge = s.nvbridge + 1 end
end
s.buf = api.nvim_buf_get_name(0)
s.line = api.nvim_get_current_line()
s.pending = require('nvbridge.review').pending()
s.uis = #api.nvim_list_uis()
return s`

func (ui *uiClient) screen() screenState {
	ui.t.Helper()
	var s screenState
	ui.lua(readScreen, &s)
	return s
}

// agentCall runs a tool call in the background (it waits for the user):
// its outcome arrives on the returned channel.
type callOutcome struct {
	out map[string]any
	err *apierr.Error
}

func (u *userNvim) callAsync(name, args string) <-chan callOutcome {
	ch := make(chan callOutcome, 1)
	go func() {
		out, err := u.call(name, args)
		ch <- callOutcome{out, err}
	}()
	return ch
}

func awaitCall(t *testing.T, ch <-chan callOutcome) callOutcome {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-testenv.Context(t).Done():
		t.Fatal("the agent's call did not end")
	}
	return callOutcome{}
}

// approvalEvents makes Neovim tell the UI when an approval starts (the
// test's way to wait for it, never a sleep).
const approvalEvents = `require('nvbridge').setup({ approve = 'writes' })
vim.api.nvim_create_autocmd('User', {
  pattern = 'NvbridgeApprove',
  callback = function(ev)
    if _G.ui_chan then vim.rpcnotify(_G.ui_chan, 'test_event', 'approve', ev.data.kind, ev.data.key, tostring(ev.data.hunks)) end
  end,
})
`

// TestReviewNeverStealsKeys: with a UI attached, a change waiting for
// approval opens nothing and takes no key: what the user types in insert
// mode and in normal mode ("a hello", which answered the old float) lands
// in their buffer, and the change keeps waiting. When they ask
// (:NvbridgeReview) the review opens on the diff; ga accepts the first of
// its two hunks, gr rejects the second, gs sends: the agent is told which
// hunk was applied (hunks, applied_diff), and only that hunk is applied,
// through the changeset path (one undo step).
func TestReviewNeverStealsKeys(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	root := writeFiles(t, map[string]string{"a.txt": "one\n", "b.txt": b.String()})
	u := startUser(t, root, approvalEvents)
	ui := attachUI(t, u.addr)
	ui.lua(`_G.ui_chan = ...`, nil, ui.chan_)
	ui.typeKeys(":edit a.txt<CR>")
	userWin := ui.screen().Win

	// The user is typing (insert mode) when the agent asks.
	ui.typeKeys("A")
	call := u.callAsync("edit_buffer", `{"file":"b.txt","preview":false,"edits":[`+
		`{"line_start":2,"line_end":2,"new_text":"line two"},{"line_start":17,"line_end":17,"new_text":"line seventeen"}]}`)
	ev := ui.await("approve")
	if ev[1] != "change" || ev[3] != "2" {
		t.Fatalf("approval event %v: want a change of 2 hunks", ev)
	}
	s := ui.screen()
	if s.UIs != 1 || s.Floats != 0 || s.Nvbridge != 0 || s.Win != userWin || s.Mode != "i" || s.Pending != 1 {
		t.Fatalf("while the change waits: %+v (the user's window %d, in insert mode, nothing opened)", s, userWin)
	}
	ui.typeKeys("typed while pending<Esc>")
	// Normal mode: "a hello" appends in the user's buffer.
	ui.typeKeys("a hello<Esc>")
	s = ui.screen()
	if s.Line != "onetyped while pending hello" || s.Win != userWin || s.Floats != 0 || s.Pending != 1 || s.Mode != "n" {
		t.Fatalf("after typing: %+v; the keys must reach the user's buffer and the change keep waiting", s)
	}
	if got := u.bufText("b.txt"); got != "" && !strings.HasPrefix(got, "line 1\nline 2\n") {
		t.Fatalf("b.txt changed before the user answered: %q", got)
	}
	var status string
	ui.lua(`return require('nvbridge').statusline()`, &status)
	if status != "nvbridge: 1 to review" {
		t.Errorf("statusline component %q", status)
	}
	var lines []string
	ui.lua(`return require('nvbridge').status_lines()`, &lines)
	if !slices.Contains(lines, "waiting for your approval: edit_buffer wants to change 1 file(s), 2 hunks (:NvbridgeReview)") {
		t.Errorf(":NvbridgeStatus does not name the waiting change:\n%s", strings.Join(lines, "\n"))
	}

	// The user reviews: the float opens on the first hunk.
	ui.typeKeys(":NvbridgeReview<CR>")
	s = ui.screen()
	if s.Floats != 1 || !strings.HasPrefix(s.Buf, "nvbridge://review/") || !strings.HasPrefix(s.Line, "@@ ") {
		t.Fatalf("the review: %+v", s)
	}
	ui.typeKeys("ga")
	var decisions map[string]bool
	ui.lua(`local out = {}
for i, d in pairs(require('nvbridge.review').list()[1].decisions) do out[tostring(i)] = d end
return out`, &decisions)
	if len(decisions) != 1 || decisions["1"] != true {
		t.Fatalf("after ga: decisions %v", decisions)
	}
	if line := ui.screen().Line; !strings.HasPrefix(line, "@@ -14") {
		t.Fatalf("after ga the cursor is on %q, not on the second hunk", line)
	}
	ui.typeKeys("gr")
	ui.typeKeys("gs")
	r := awaitCall(t, call)
	if r.err != nil {
		t.Fatalf("edit_buffer: %s: %s", r.err.Code, r.err.Message)
	}
	hunks, _ := json.Marshal(r.out["hunks"])
	if string(hunks) != `[{"accepted":true,"file":"b.txt","header":"@@ -1,5 +1,5 @@","index":1},{"accepted":false,"file":"b.txt","header":"@@ -14,7 +14,7 @@","index":2}]` {
		t.Errorf("hunks %s", hunks)
	}
	applied, _ := r.out["applied_diff"].(string)
	if !strings.Contains(applied, "+line two") || strings.Contains(applied, "seventeen") || !strings.Contains(r.out["diff"].(string), "+line seventeen") {
		t.Errorf("applied_diff %q (diff %q)", applied, r.out["diff"])
	}
	if got := u.bufText("b.txt"); !strings.Contains(got, "line two\n") || strings.Contains(got, "seventeen") || !strings.Contains(got, "line 17\n") {
		t.Fatalf("b.txt after the review: %q", got)
	}
	s = ui.screen()
	if s.Win != userWin || s.Floats != 0 || s.Nvbridge != 0 || s.Pending != 0 || s.Line != "onetyped while pending hello" {
		t.Fatalf("after the review: %+v", s)
	}
	// One undo step takes the accepted hunk back.
	ui.lua(`vim.api.nvim_buf_call(vim.fn.bufnr(...), function() vim.cmd('silent undo') end)`, nil, u.abs("b.txt"))
	if got := u.bufText("b.txt"); !strings.HasPrefix(got, "line 1\nline 2\n") {
		t.Fatalf("after one undo: %q", got)
	}
}

// TestLiveSelection: in visual mode get_editor_context reports the
// selection being made (not the previous one), and range: "selection"
// after the user moved to another buffer still finds the selection they
// made (in its own file).
func TestLiveSelection(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "a1\na2\na3\na4\na5\n", "b.txt": "b1\nb2\n"})
	u := startUser(t, root, approveNothing)
	ui := attachUI(t, u.addr)
	ui.typeKeys(":edit a.txt<CR>")
	// An earlier selection: line 1.
	ui.typeKeys("V<Esc>")
	// Now selecting lines 2-4, still in visual mode.
	ui.typeKeys("jVjj")
	if s := ui.screen(); s.Mode != "V" {
		t.Fatalf("mode %q, want V", s.Mode)
	}
	ctx := u.mustCall("get_editor_context", `{}`)
	sel, _ := ctx["selection"].(map[string]any)
	if sel == nil || sel["start_line"] != float64(2) || sel["end_line"] != float64(4) || sel["live"] != true || sel["file"] != "a.txt" {
		t.Fatalf("selection in visual mode: %v", ctx["selection"])
	}
	out := u.mustCall("read_file", `{"range":"selection"}`)
	if text := fmt.Sprint(out["lines"]); !strings.Contains(text, "a2") || !strings.Contains(text, "a4") || strings.Contains(text, "a5") {
		t.Errorf("read_file over the live selection: %v", out)
	}
	// The user leaves visual mode and goes to another buffer.
	ui.typeKeys("<Esc>:edit b.txt<CR>")
	out = u.mustCall("read_file", `{"range":"selection"}`)
	if out["file"] != "a.txt" || !strings.Contains(fmt.Sprint(out["lines"]), "a3") {
		t.Errorf("read_file over the last selection from b.txt: %v", out)
	}
	ctx = u.mustCall("get_editor_context", `{}`)
	if sel, _ := ctx["selection"].(map[string]any); ctx["file"] != "b.txt" || sel == nil || sel["file"] != "a.txt" || sel["live"] != false {
		t.Errorf("editor context from b.txt: %v", ctx)
	}
	// A character-wise selection over emoji: columns count characters, the
	// end exclusive (the second 😀 is in it).
	ui.typeKeys(":edit e.txt<CR>ia😀b😀c<Esc>0lvll")
	ctx = u.mustCall("get_editor_context", `{}`)
	if sel, _ := ctx["selection"].(map[string]any); sel == nil || sel["file"] != "e.txt" || sel["live"] != true ||
		sel["start_line"] != float64(1) || sel["start_column"] != float64(1) || sel["end_line"] != float64(1) || sel["end_column"] != float64(4) {
		t.Errorf("charwise selection over emoji: %v", ctx["selection"])
	}
	ui.typeKeys("<Esc>")
}

// TestStopThenQuit: after an agent session (a change applied and saved,
// another left waiting in an open review, the log and the debug panel
// open, a stdio agent's nvbridge attached) :NvbridgeStop closes every
// window of nvbridge's and the stdio agent exits 0; :qa then quits Neovim
// without an error, the user having nothing unsaved.
func TestStopThenQuit(t *testing.T) {
	bin := nvbridgeBinary(t)
	root := writeFiles(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"})
	u := startUser(t, root, approvalEvents)
	ui := attachUI(t, u.addr)
	ui.lua(`_G.ui_chan = ...`, nil, ui.chan_)
	ui.typeKeys(":edit a.txt<CR>")

	// A stdio agent: nvbridge attached as an MCP client starts it.
	agent := startStdioAgent(t, bin, u.addr, root)
	ui.lua(`assert(vim.wait(30000, function() return #require('nvbridge.agents').agents() >= 2 end), 'the stdio agent did not register')`, nil)

	// A change to b.txt (not shown), accepted, then saved.
	call := u.callAsync("edit_buffer", `{"file":"b.txt","preview":false,"edits":[{"line_start":1,"line_end":1,"new_text":"TWO"}]}`)
	ui.await("approve")
	ui.typeKeys(":NvbridgeApprove accept<CR>")
	if r := awaitCall(t, call); r.err != nil {
		t.Fatalf("edit_buffer: %s", r.err.Message)
	}
	call = u.callAsync("save_buffer", `{"file":"b.txt"}`)
	if ev := ui.await("approve"); ev[1] != "save" {
		t.Fatalf("save approval %v", ev)
	}
	ui.typeKeys(":NvbridgeApprove accept<CR>")
	if r := awaitCall(t, call); r.err != nil {
		t.Fatalf("save_buffer: %s", r.err.Message)
	}
	var listed bool
	ui.lua(`return vim.bo[vim.fn.bufnr(...)].buflisted`, &listed, u.abs("b.txt"))
	if listed {
		t.Error("b.txt, saved, is still listed")
	}
	// Left open: a change waiting in its review, the log, the debug panel.
	waiting := u.callAsync("edit_buffer", `{"file":"b.txt","preview":false,"edits":[{"line_start":1,"line_end":1,"new_text":"2"}]}`)
	ui.await("approve")
	ui.typeKeys(":NvbridgeReview split<CR>")
	ui.typeKeys(":NvbridgeLog<CR>")
	ui.typeKeys(":NvbridgeDebug<CR>")
	if s := ui.screen(); s.Nvbridge < 3 {
		t.Fatalf("before the stop: %+v (review, log and debug panel shown)", s)
	}
	ui.typeKeys(":NvbridgeStop<CR>")
	if r := awaitCall(t, waiting); r.err == nil || r.err.Code != apierr.Rejected {
		t.Errorf("the waiting change after the stop: %+v", r)
	}
	s := ui.screen()
	if s.Nvbridge != 0 || s.Wins != 1 || s.Pending != 0 {
		t.Fatalf("after :NvbridgeStop: %+v", s)
	}
	if code := agent.wait(t); code != 0 {
		t.Errorf("the stdio agent exited %d after :NvbridgeStop, want 0", code)
	}
	// :qa quits. The request that follows is answered only once the keys
	// were taken: by a Neovim that is exiting (v:exiting is its exit
	// code), or not at all (the connection ends); had :qa failed (E37,
	// E162), v:exiting would be null and v:errmsg would say why. The
	// second <CR> ends the hit-enter prompt such a failure shows (no
	// request is answered while it waits); after a quit it is never read.
	if _, err := ui.v.Input(":qa<CR><CR>"); err != nil {
		t.Fatal(err)
	}
	var exiting any
	if err := ui.v.Eval("v:exiting", &exiting); err == nil && exiting != int64(0) {
		var errmsg, ls string
		_ = ui.v.Eval("v:errmsg", &errmsg)
		_ = ui.v.Eval(`execute('ls!')`, &ls)
		t.Fatalf(":qa did not quit (v:exiting %v): %q\n%s", exiting, errmsg, ls)
	}
}

// stdioAgent is an nvbridge process an MCP client started over stdio.
type stdioAgent struct {
	done chan int
}

func (a *stdioAgent) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-a.done:
		return code
	case <-testenv.Context(t).Done():
		t.Fatal("the stdio agent did not exit")
	}
	return -1
}

// startStdioAgent starts nvbridge as an MCP client does for a stdio server,
// attached to the Neovim at addr (its stdin stays open: the client is
// there).
func startStdioAgent(t *testing.T, bin, addr, root string) *stdioAgent {
	t.Helper()
	cmd := exec.Command(bin, "--nvim", addr, "--root", root, "mcp")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &stdioAgent{done: make(chan int, 1)}
	go func() {
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			code = -1
		}
		a.done <- code
	}()
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("the stdio agent's stderr:\n%s", stderr.String())
		}
	})
	return a
}

// TestTabReviewHunksAndEdits: in the tab layout (vimdiff: the file now on
// the left, the proposal on the right) the user rejects the second hunk
// with gr (its proposed lines go back to the current text on the right),
// edits the first hunk's line, and sends with :w. The agent is told which
// hunk was accepted and gets the user's edit (user_diff); the buffer gets
// the edited first hunk and not the second, in one undo step.
func TestTabReviewHunksAndEdits(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	root := writeFiles(t, map[string]string{"a.txt": "one\n", "b.txt": b.String()})
	u := startUser(t, root, approvalEvents)
	ui := attachUI(t, u.addr)
	ui.lua(`_G.ui_chan = ...`, nil, ui.chan_)
	ui.typeKeys(":edit a.txt<CR>")
	call := u.callAsync("edit_buffer", `{"file":"b.txt","preview":false,"edits":[`+
		`{"line_start":2,"line_end":2,"new_text":"line two"},{"line_start":17,"line_end":17,"new_text":"line seventeen"}]}`)
	ui.await("approve")
	ui.typeKeys(":NvbridgeReview tab<CR>")
	s := ui.screen()
	if !strings.HasPrefix(s.Buf, "nvbridge://") {
		t.Fatalf("the review tabs: %+v", s)
	}
	// To the proposal's window (the right one), on line 17: reject.
	ui.typeKeys("<C-w>l17Ggr")
	if s := ui.screen(); !strings.Contains(s.Buf, "nvbridge://proposed/") || s.Line != "line 17" {
		t.Fatalf("after gr on the second hunk the proposal shows %q in %s, want the current text back", s.Line, s.Buf)
	}
	// Edit the first hunk's line, then send.
	ui.typeKeys("2GA (mine)<Esc>:w<CR>")
	r := awaitCall(t, call)
	if r.err != nil {
		t.Fatalf("edit_buffer: %s: %s", r.err.Code, r.err.Message)
	}
	hunks, _ := json.Marshal(r.out["hunks"])
	if !strings.Contains(string(hunks), `"accepted":true,"file":"b.txt","header":"@@ -1,5 +1,5 @@","index":1`) ||
		!strings.Contains(string(hunks), `"accepted":false,"file":"b.txt","header":"@@ -14,7 +14,7 @@","index":2`) {
		t.Errorf("hunks %s", hunks)
	}
	if ud, _ := r.out["user_diff"].(string); r.out["user_edited"] != true || !strings.Contains(ud, "+line two (mine)") || strings.Contains(ud, "seventeen") {
		t.Errorf("user_edited %v, user_diff %q", r.out["user_edited"], r.out["user_diff"])
	}
	got := u.bufText("b.txt")
	if !strings.Contains(got, "\nline two (mine)\n") || strings.Contains(got, "seventeen") || !strings.Contains(got, "\nline 17\n") {
		t.Fatalf("b.txt after the review: %q", got)
	}
	if s := ui.screen(); s.Nvbridge != 0 || s.Pending != 0 || !strings.HasSuffix(s.Buf, "a.txt") {
		t.Errorf("after the review: %+v", s)
	}
	ui.lua(`vim.api.nvim_buf_call(vim.fn.bufnr(...), function() vim.cmd('silent undo') end)`, nil, u.abs("b.txt"))
	if got := u.bufText("b.txt"); !strings.HasPrefix(got, "line 1\nline 2\n") {
		t.Fatalf("after one undo: %q", got)
	}
}
