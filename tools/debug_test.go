package tools_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// markerLine returns the 1-based line of file holding "bp:MARKER".
func markerLine(t *testing.T, root, file, marker string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text()+" ", "bp:"+marker+" ") {
			return n
		}
	}
	t.Fatalf("no bp:%s in %s", marker, file)
	return 0
}

// debugSample serves the tools over MCP on a Neovim rooted at a copy of
// testdata/samples/debug/<lang>.
func debugSample(t *testing.T, lang string) (root string, env *tools.Env, c *client.Client) {
	t.Helper()
	root = testenv.CopySample(t, filepath.Join("debug", lang))
	s, nc := testenv.Embedded(t, root)
	env = tools.NewEnv(s, nc, t.Logf)
	t.Cleanup(env.Close)
	return root, env, mcpClient(t, env)
}

// debugMark is one extmark of nvbridge's debug namespace in a buffer.
type debugMark struct {
	Line    int    `msgpack:"line"`
	Sign    string `msgpack:"sign"`
	Stopped bool   `msgpack:"stopped"`
}

func debugMarks(t *testing.T, env *tools.Env, file string) []debugMark {
	t.Helper()
	var marks []debugMark
	if err := env.Session.DebugMarks(testenv.Context(t), &marks, file); err != nil {
		t.Fatal(err)
	}
	return marks
}

func marksText(marks []debugMark) string {
	var parts []string
	for _, m := range marks {
		s := fmt.Sprintf("%d:%s", m.Line, m.Sign)
		if m.Stopped {
			s += "(stopped)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// TestDebugOverMCP debugs testdata/samples/debug/go with real dlv through
// the MCP client, as a numbered script, and checks what a person watching
// Neovim sees: breakpoint signs and the stopped line, the :NvbridgeDebug
// panel, a step given there (the agent sees it next), and everything
// cleared at the end.
func TestDebugOverMCP(t *testing.T) {
	testenv.Require(t, "nvim", "dlv", "go")
	root, env, c := debugSample(t, "go")
	line := func(marker string) int { return markerLine(t, root, "main.go", marker) }
	want := func(got map[string]any, path string, value any) {
		t.Helper()
		v, ok := at(got, path)
		if !ok || fmt.Sprint(v) != fmt.Sprint(value) {
			t.Errorf("%s = %v, want %v", path, v, value)
		}
	}

	// 1. The person has main.go open.
	okContent(t, c, "get_buffer_info", `{"file":"main.go","include_content":false}`)
	mainAbs := filepath.Join(root, "main.go")

	// 2. Start with a conditional breakpoint (i == 1) and one on a comment.
	got := okContent(t, c, "start_debug_session", fmt.Sprintf(`{"program":".","breakpoints":[
		{"file":"main.go","line":%d,"condition":"i == 1"},{"file":"main.go","line":%d}]}`, line("loop"), line("nocode")))
	want(got, "state", "stopped")
	want(got, "reason", "breakpoint")
	want(got, "location.line", line("loop"))
	want(got, "breakpoints.0.breakpoints.1.verified", false)
	if msg, _ := at(got, "breakpoints.0.breakpoints.1.message"); msg == "" || msg == nil {
		t.Errorf("unverified breakpoint without the adapter's reason: %v", got["breakpoints"])
	}
	id, _ := got["session_id"].(string)

	// 3. Neovim shows both breakpoints (◆ conditional, ○ unverified) and the
	// stopped line.
	marks := marksText(debugMarks(t, env, mainAbs))
	for _, m := range []string{fmt.Sprintf("%d:◆", line("loop")), fmt.Sprintf("%d:○", line("nocode")), fmt.Sprintf("%d:→(stopped)", line("loop"))} {
		if !strings.Contains(marks, m) {
			t.Errorf("marks %q lack %q", marks, m)
		}
	}

	// 4. Inspect: i is 1, items expanded (a slice of structs).
	got = okContent(t, c, "inspect_state", `{"expression":"items[0]","depth":2}`)
	if tags, _ := at(got, "evaluated.children.2.children.1.value"); tags != `"blue"` {
		t.Errorf("items[0].Tags[1] = %v, want \"blue\"", tags)
	}
	got = okContent(t, c, "inspect_state", `{"expression":"i"}`)
	want(got, "evaluated.result", "1")

	// 5. Replace the breakpoints: a log point on the return, a plain one in
	// double; continue: the log prints, double stops.
	got = okContent(t, c, "set_breakpoints", fmt.Sprintf(`{"file":"main.go","breakpoints":[{"line":%d,"log_message":"restocked to {total}"},{"line":%d}]}`, line("return"), line("double")))
	want(got, "breakpoints.0.verified", true)
	want(got, "breakpoints.1.verified", true)
	got = okContent(t, c, "control_execution", `{"action":"continue"}`)
	want(got, "location.line", line("double"))
	if out := fmt.Sprint(got["output"]); !strings.Contains(out, "restocked to 17") {
		t.Errorf("output %s lacks the log point's message", out)
	}
	marks = marksText(debugMarks(t, env, mainAbs))
	if !strings.Contains(marks, fmt.Sprintf("%d:▶", line("return"))) || strings.Contains(marks, fmt.Sprintf("%d:◆", line("loop"))) {
		t.Errorf("marks after set_breakpoints: %q", marks)
	}

	// 6. Step out to main.
	got = okContent(t, c, "control_execution", `{"action":"step_out"}`)
	want(got, "location.line", line("after"))
	want(got, "reason", "step")

	// 7. The person opens :NvbridgeDebug: where it stopped, the stack, the locals.
	var panel []string
	if err := env.Session.ExecLua(testenv.Context(t), "vim.cmd('NvbridgeDebug'); return require('nvbridge.debug_ui').panel()", &panel); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(panel, "\n")
	for _, frag := range []string{fmt.Sprintf("main.go:%d in main.main", line("after")), "Stack:", "Locals:", "total = 17"} {
		if !strings.Contains(text, frag) {
			t.Errorf("panel lacks %q:\n%s", frag, text)
		}
	}

	// 8. ... and presses n (step over) in it; the agent sees that step next.
	if err := env.Session.ExecLua(testenv.Context(t), "vim.api.nvim_feedkeys('n', 'x', false)", nil); err != nil {
		t.Fatal(err)
	}
	info, err := env.DAP.Await(testenv.Context(t), id, func(i dap.Info) bool {
		return i.LastAction != nil && i.LastAction.By == "user" && i.State == dap.StateStopped
	})
	if err != nil {
		t.Fatal(err)
	}
	if info.LastAction.Action != "step_over" {
		t.Errorf("last action %+v, want step_over by the user", info.LastAction)
	}
	got = okContent(t, c, "get_debug_session_info", `{}`)
	want(got, "sessions.0.last_action.by", "user")
	want(got, "sessions.0.location.line", line("after")+1)

	// 8b. The person steps over the Println too: what the program prints
	// during a step of theirs is still the agent's to read.
	if err := env.Session.ExecLua(testenv.Context(t), "vim.api.nvim_feedkeys('n', 'x', false)", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DAP.Await(testenv.Context(t), id, func(i dap.Info) bool {
		return i.State == dap.StateStopped && i.Location != nil && i.Location.Line == line("after")+2
	}); err != nil {
		t.Fatal(err)
	}

	// 9. Continue to the end: exit code 3 and the program's output, the
	// line printed during the person's step included.
	got = okContent(t, c, "control_execution", `{"action":"continue"}`)
	want(got, "state", "terminated")
	want(got, "exit_code", 3)
	if out := fmt.Sprint(got["output"]); !strings.Contains(out, "total 17 double 34") || !strings.Contains(out, "inventory: done") {
		t.Errorf("output %s lacks the program's stdout or stderr", out)
	}
	res := mcpCall(t, c, "inspect_state", `{}`)
	wantError(t, res, apierr.PreconditionFailed, "has ended")

	// 10. Stop: the marks are gone.
	got = okContent(t, c, "stop_debug_session", `{}`)
	want(got, "remaining_processes", 0)
	if marks := debugMarks(t, env, mainAbs); len(marks) != 0 {
		t.Errorf("marks left after the session: %s", marksText(marks))
	}
	var left []int
	if err := env.Session.ExecLua(testenv.Context(t), "return {vim.fn.exists('#nvbridge_dap'), vim.fn.exists(':NvbridgeDebug')}", &left); err != nil {
		t.Fatal(err)
	}
	if len(left) != 2 || left[0] != 0 || left[1] != 0 {
		t.Errorf("after the last session: augroup nvbridge_dap exists=%d, :NvbridgeDebug exists=%d; want neither", left[0], left[1])
	}
	res = mcpCall(t, c, "control_execution", `{"action":"continue"}`)
	wantError(t, res, apierr.ResourceNotFound, "no debug session")
}

// TestDebugErrorsOverMCP: bad debugging input is a structured error and
// starts nothing.
func TestDebugErrorsOverMCP(t *testing.T) {
	testenv.Require(t, "nvim", "dlv", "go")
	_, _, c := debugSample(t, "go")
	for _, tc := range []struct {
		name, tool, args string
		code             apierr.Code
		fragment         string
	}{
		{"nothing to run", "start_debug_session", `{}`, apierr.InvalidParameter, "neither program nor test"},
		{"outside the root", "start_debug_session", `{"program":"../x.go"}`, apierr.InvalidParameter, "outside the workspace root"},
		{"breakpoint outside the root", "start_debug_session", `{"program":".","breakpoints":[{"file":"/etc/passwd","line":1}]}`, apierr.InvalidParameter, "outside the workspace root"},
		{"missing program", "start_debug_session", `{"program":"nope.go"}`, apierr.ResourceNotFound, "nope.go"},
		{"unknown language", "start_debug_session", `{"program":"go.mod"}`, apierr.InvalidParameter, "cannot tell the language"},
		{"unsupported language", "start_debug_session", `{"program":".","language":"cobol"}`, apierr.Unsupported, "cobol"},
		{"bad timeout", "start_debug_session", `{"program":".","timeout_ms":0}`, apierr.InvalidParameter, "timeout_ms"},
		{"no session", "control_execution", `{"action":"continue"}`, apierr.ResourceNotFound, "no debug session"},
		{"no session to inspect", "inspect_state", `{}`, apierr.ResourceNotFound, "no debug session"},
		{"unknown session", "stop_debug_session", `{"session_id":"42"}`, apierr.ResourceNotFound, "42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, mcpCall(t, c, tc.tool, tc.args), tc.code, tc.fragment)
		})
	}
	got := content(t, mcpCall(t, c, "get_debug_session_info", `{}`))
	if got["count"] != float64(0) {
		t.Errorf("sessions left after bad input: %v", got)
	}
}

// TestDebugPythonOverMCP: the same tools drive debugpy on the Python sample
// (the adapter is chosen by the program's language).
func TestDebugPythonOverMCP(t *testing.T) {
	testenv.Require(t, "nvim", "debugpy-adapter")
	root, _, c := debugSample(t, "python")
	line := func(marker string) int { return markerLine(t, root, "inventory.py", marker) }
	// 1. Stop in double.
	got := okContent(t, c, "start_debug_session", fmt.Sprintf(`{"program":"inventory.py","breakpoints":[{"file":"inventory.py","line":%d}]}`, line("double")))
	if got["adapter"] != "debugpy" || got["state"] != "stopped" {
		t.Fatalf("start: %v", got)
	}
	if l, _ := at(got, "location.line"); fmt.Sprint(l) != fmt.Sprint(line("double")) {
		t.Fatalf("stopped at line %v, want %d", l, line("double"))
	}
	// 2. x is 17 (the restocked total).
	got = okContent(t, c, "inspect_state", `{"expression":"x * 2"}`)
	if r, _ := at(got, "evaluated.result"); r != "34" {
		t.Errorf("x * 2 = %v, want 34", r)
	}
	// 3. Step out to main, then stop the session.
	got = okContent(t, c, "control_execution", `{"action":"step_out"}`)
	if l, _ := at(got, "location.line"); fmt.Sprint(l) != fmt.Sprint(line("after")) {
		t.Errorf("step_out stopped at %v, want %d", l, line("after"))
	}
	got = okContent(t, c, "stop_debug_session", `{}`)
	if got["remaining_processes"] != float64(0) {
		t.Errorf("stop: %v", got)
	}
}
