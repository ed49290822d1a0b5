package dap_test

import (
	"strings"
	"syscall"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestPythonProgram debugs testdata/samples/debug/python/inventory.py with
// real debugpy, as a numbered script.
func TestPythonProgram(t *testing.T) {
	testenv.Require(t, "debugpy-adapter")
	m, root := newManager(t, "python")
	ctx := testenv.Context(t)
	const file = "inventory.py"
	line := func(marker string) int { return lineOf(t, root, file, marker) }

	// 1. Start with a plain breakpoint on the call of restock, a
	// conditional one in the loop, a log point on the return and one on a
	// comment line; the first stop is where debugpy moved the last one.
	start, err := m.Start(ctx, dap.StartRequest{Program: file, Wait: wait(), By: "agent",
		Breakpoints: map[string][]dap.BreakpointSpec{file: {
			{Line: line("call")},
			{Line: line("loop"), Condition: "item.name == 'pad'"},
			{Line: line("return"), LogMessage: "restocked to {total}"},
			{Line: line("nocode")},
		}}})
	fatal(t, err)
	if start.Language != "python" || start.Adapter != "debugpy" {
		t.Fatalf("start: %+v", start)
	}
	bps := start.Breakpoints[0].Breakpoints
	for i := 0; i < 3; i++ {
		if !bps[i].Verified || bps[i].ActualLine != 0 {
			t.Errorf("breakpoint on line %d: %+v, want verified where asked", bps[i].Line, bps[i])
		}
	}
	// debugpy (1.6) never leaves a breakpoint unverified: one on a line
	// without code is moved to a line with code (here the end of the list
	// expression above the comment), and reported as moved.
	moved := bps[3].ActualLine
	if moved == 0 || moved == line("nocode") {
		t.Fatalf("breakpoint on a comment line: %+v, want it reported moved (actual_line)", bps[3])
	}
	wantStop(t, start.Report, "breakpoint", file, moved)
	r, err := m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "breakpoint", file, line("call"))

	// 2. Step into restock: its first line.
	r, err = m.Control(ctx, "", "step_into", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("loop")-2)
	if r.Location.Function != "restock" {
		t.Errorf("stepped into %q, want restock", r.Location.Function)
	}

	// 3. Continue: the conditional breakpoint stops on the second item only.
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "breakpoint", file, line("loop"))
	in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "item.name", Depth: 3})
	fatal(t, err)
	if in.Evaluated.Result != "'pad'" {
		t.Fatalf("item.name = %q, want 'pad' (the condition)", in.Evaluated.Result)
	}

	// 4. The list and the dataclass, expanded: items[0] is pen, qty 5
	// (3 restocked by 2), tags [office, blue].
	var locals []dap.Variable
	for _, sc := range in.Scopes {
		if sc.Expanded {
			locals = append(locals, sc.Variables...)
		}
	}
	items, ok := findVar(locals, "items")
	if !ok {
		t.Fatalf("no items among the locals: %+v", locals)
	}
	if v, ok := findVar(items.Children, "0", "qty"); !ok || v.Value != "5" {
		t.Errorf("items[0].qty = %+v, want 5 (children %+v)", v, items.Children)
	}
	in, err = m.Inspect(ctx, "", dap.InspectRequest{Expression: "items[0]", Depth: 2})
	fatal(t, err)
	if tags, ok := findVar(in.Evaluated.Children, "tags"); !ok || len(tags.Children) < 2 || tags.Children[1].Value != "'blue'" {
		t.Errorf("items[0].tags expanded = %+v, want ['office', 'blue']", tags)
	}
	if owner, ok := findVar(in.Evaluated.Children, "owner"); !ok || !strings.Contains(owner.Value, "Ada") {
		t.Errorf("items[0].owner = %+v, want Ada", owner)
	}
	if len(in.Stack) < 2 || in.Stack[1].Function != "main" {
		t.Errorf("stack = %+v, want restock called from main", in.Stack)
	}

	// 5. Step over: the next line of the loop.
	r, err = m.Control(ctx, "", "step_over", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("loop")+1)

	// 6. Replace the breakpoints: the log point and one in double. Continue:
	// the log prints (no stop) and double stops.
	set, err := m.SetBreakpoints(ctx, "", file, []dap.BreakpointSpec{
		{Line: line("return"), LogMessage: "restocked to {total}"},
		{Line: line("double")},
	})
	fatal(t, err)
	if len(set.Breakpoints) != 2 || !set.Breakpoints[1].Verified {
		t.Fatalf("set_breakpoints: %+v", set)
	}
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "breakpoint", file, line("double"))
	if out := outputText(r.Output, ""); !strings.Contains(out, "restocked to 17") {
		t.Errorf("the log point's message is not in the output: %q", out)
	}

	// 7. Step out: back in main, on the line that called double.
	r, err = m.Control(ctx, "", "step_out", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("after"))

	// 8. Continue: sys.exit(3) raises SystemExit, an uncaught exception
	// with a non-zero code, where debugpy stops (the uncaught filter).
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "exception", file, line("exit"))
	if !strings.Contains(r.Text+" "+r.Description, "SystemExit") {
		t.Errorf("text %q, description %q: neither names SystemExit", r.Text, r.Description)
	}
	output := r.Output
	// 9. Continue to the end: exit code 3, stdout and stderr collected.
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	if !r.Complete || r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 3 {
		t.Fatalf("end: complete=%v state=%s exit=%v", r.Complete, r.State, r.ExitCode)
	}
	output = append(output, r.Output...)
	if out := outputText(output, "stdout"); !strings.Contains(out, "total 17 double 34") {
		t.Errorf("stdout %q lacks the program's line", out)
	}
	if out := outputText(output, "stderr"); !strings.Contains(out, "inventory: done") {
		t.Errorf("stderr %q lacks the program's line", out)
	}
	_, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	if apierr.CodeOf(err) != apierr.PreconditionFailed {
		t.Fatalf("control after the end: %v", err)
	}
	testenv.Verified(t, "python", "debugpy", testenv.AdapterVersion(t, "debugpy"), testenv.DebugTool)
}

// TestPythonTest debugs one pytest test (pytest -k) with real debugpy.
func TestPythonTest(t *testing.T) {
	testenv.Require(t, "debugpy-adapter")
	m, root := newManager(t, "python")
	ctx := testenv.Context(t)
	const file = "test_inventory.py"
	// 1. Start test_restock with a breakpoint on the call of restock; the
	// user's PYTHONPATH does not hide debugpy from the debuggee.
	bp := lineOf(t, root, file, "test")
	start, err := m.Start(ctx, dap.StartRequest{Test: "test_restock", Program: file, Wait: wait(),
		Env:         map[string]string{"PYTHONPATH": root},
		Breakpoints: map[string][]dap.BreakpointSpec{file: {{Line: bp}}}})
	fatal(t, err)
	wantStop(t, start.Report, "breakpoint", file, bp)
	// 2. Step over the call; got is 11.
	r, err := m.Control(ctx, "", "step_over", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, bp+1)
	in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "got"})
	fatal(t, err)
	if in.Evaluated.Result != "11" {
		t.Fatalf("got = %q, want 11", in.Evaluated.Result)
	}
	// 3. Step out of the test: justMyCode keeps it out of pytest's and
	// pluggy's frames, so the test runs to its end; the test passes (one
	// selected), exit code 0.
	r, err = m.Control(ctx, "", "step_out", 0, wait(), "agent")
	fatal(t, err)
	if r.State == dap.StateStopped {
		t.Fatalf("step out of the test stopped in %s:%d (%s), want no stop outside the user's code", r.Location.File, r.Location.Line, r.Location.Function)
	}
	if r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("end: state=%s exit=%v output=%q", r.State, r.ExitCode, outputText(r.Output, ""))
	}
	if out := outputText(r.Output, ""); !strings.Contains(out, "1 passed, 1 deselected") {
		t.Errorf("output %q lacks pytest's summary", out)
	}
}

// TestPythonAdapterKilled kills debugpy's adapter while the program is
// stopped: the next control reports it, and the program is gone.
func TestPythonAdapterKilled(t *testing.T) {
	testenv.Require(t, "debugpy-adapter")
	m, root := newManager(t, "python")
	ctx := testenv.Context(t)
	bp := lineOf(t, root, "inventory.py", "loop")
	start, err := m.Start(ctx, dap.StartRequest{Program: "inventory.py", Wait: wait(),
		Breakpoints: map[string][]dap.BreakpointSpec{"inventory.py": {{Line: bp}}}})
	fatal(t, err)
	wantStop(t, start.Report, "breakpoint", "inventory.py", bp)
	info := sessionInfo(t, m)
	if len(info.ProgramPIDs) == 0 {
		t.Fatalf("no program pid: %+v", info)
	}
	if err := syscall.Kill(info.AdapterPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, err = m.Control(ctx, "", "step_over", 0, wait(), "agent")
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "debugpy exited unexpectedly (signal: killed)") {
		t.Fatalf("control after the kill: %v", err)
	}
	for _, pid := range info.ProgramPIDs {
		if pidAlive(pid) {
			t.Errorf("program process %d is still alive", pid)
		}
	}
}

// TestPythonUncaughtException: an uncaught TypeError stops the program where
// it is raised; continuing ends it with exit code 1.
func TestPythonUncaughtException(t *testing.T) {
	testenv.Require(t, "debugpy-adapter")
	m, root := newManager(t, "python")
	ctx := testenv.Context(t)
	start, err := m.Start(ctx, dap.StartRequest{Program: "inventory.py", Args: []string{"crash"}, Wait: wait()})
	fatal(t, err)
	wantStop(t, start.Report, "exception", "inventory.py", lineOf(t, root, "inventory.py", "for"))
	if !strings.Contains(start.Description, "NoneType") {
		t.Errorf("description %q does not name the error", start.Description)
	}
	r, err := m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	if r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 1 {
		t.Fatalf("after the exception: state=%s exit=%v output=%q", r.State, r.ExitCode, outputText(r.Output, ""))
	}
	if out := outputText(r.Output, "stderr"); !strings.Contains(out, "TypeError") {
		t.Errorf("stderr %q lacks the traceback", out)
	}
}
