package dap_test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/workspace"
)

// TestGoProgram debugs testdata/samples/debug/go/main.go with real dlv, as
// a numbered script.
func TestGoProgram(t *testing.T) {
	testenv.Require(t, "dlv", "go")
	m, root := newManager(t, "go")
	ctx := testenv.Context(t)
	const file = "main.go"
	line := func(marker string) int { return lineOf(t, root, file, marker) }

	// 1. Start with four breakpoints: a plain one on the call of restock,
	// a conditional one in the loop (i == 1), a log point on the return and
	// one on a comment line (no code: unverified, with dlv's reason).
	start, err := m.Start(ctx, dap.StartRequest{Program: ".", Wait: wait(), By: "agent",
		Breakpoints: map[string][]dap.BreakpointSpec{file: {
			{Line: line("call")},
			{Line: line("loop"), Condition: "i == 1"},
			{Line: line("return"), LogMessage: "restocked to {total}"},
			{Line: line("nocode")},
		}}})
	fatal(t, err)
	if start.Language != "go" || start.Adapter != "dlv" || start.SessionID == "" {
		t.Fatalf("start: %+v", start)
	}
	bps := start.Breakpoints[0].Breakpoints
	for i, want := range []bool{true, true, true, false} {
		if bps[i].Verified != want {
			t.Errorf("breakpoint on line %d: verified=%v, want %v (%s)", bps[i].Line, bps[i].Verified, want, bps[i].Message)
		}
	}
	if bps[3].Message == "" {
		t.Errorf("the breakpoint on a comment line is unverified without a reason")
	}
	wantStop(t, start.Report, "breakpoint", file, line("call"))

	// 2. Step into restock: dlv stops on its func line.
	r, err := m.Control(ctx, "", "step_into", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("loop")-3) // the func line
	if !strings.Contains(r.Location.Function, "restock") {
		t.Errorf("stepped into %q, want restock", r.Location.Function)
	}

	// 3. Continue: the conditional breakpoint stops only when i == 1.
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "breakpoint", file, line("loop"))
	in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "i", Depth: 3})
	fatal(t, err)
	if in.Evaluated == nil || in.Evaluated.Result != "1" {
		t.Fatalf("i = %+v, want 1 (the condition i == 1)", in.Evaluated)
	}

	// 4. The struct and the slice, expanded: items[0] is {pen, 5, [office
	// blue], &{Ada}} (3 restocked by 2), items[1] is pad.
	var locals []dap.Variable
	for _, sc := range in.Scopes {
		if sc.Expanded {
			locals = append(locals, sc.Variables...)
		}
	}
	items, ok := findVar(locals, "items")
	if !ok || len(items.Children) != 3 {
		t.Fatalf("items not expanded to its 3 elements: %+v", items)
	}
	if v, ok := findVar(items.Children, "[0]", "Name"); !ok || v.Value != `"pen"` {
		t.Errorf("items[0].Name = %+v, want \"pen\"", v)
	}
	if v, ok := findVar(items.Children, "[0]", "Qty"); !ok || v.Value != "5" {
		t.Errorf("items[0].Qty = %+v, want 5", v)
	}
	if v, ok := findVar(items.Children, "[0]", "Tags"); !ok || len(v.Children) != 0 && !v.Expandable && v.Value == "" {
		t.Errorf("items[0].Tags = %+v", v)
	}
	in, err = m.Inspect(ctx, "", dap.InspectRequest{Expression: "items[0]", Depth: 2})
	fatal(t, err)
	if tags, ok := findVar(in.Evaluated.Children, "Tags"); !ok || len(tags.Children) != 2 || tags.Children[1].Value != `"blue"` {
		t.Errorf("items[0].Tags expanded = %+v, want [office blue]", tags)
	}
	if owner, ok := findVar(in.Evaluated.Children, "Owner"); !ok || !strings.Contains(owner.Value, "Ada") && len(owner.Children) == 0 {
		t.Errorf("items[0].Owner = %+v, want Ada", owner)
	}
	if len(in.Stack) < 2 || !strings.Contains(in.Stack[1].Function, "main.main") {
		t.Errorf("stack = %+v, want restock called from main.main", in.Stack)
	}

	// 5. Step over: the next line of the loop.
	r, err = m.Control(ctx, "", "step_over", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("loop")+1)

	// 6. Clear the loop's breakpoint, add one in double; continue: the log
	// point prints (no stop) and double stops.
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
	if !strings.Contains(r.Location.Function, "main.main") {
		t.Errorf("stepped out to %q, want main.main", r.Location.Function)
	}

	// 8. Continue to the end: exit code 3, stdout and stderr collected.
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	if !r.Complete || r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 3 {
		t.Fatalf("end: complete=%v state=%s exit=%v", r.Complete, r.State, r.ExitCode)
	}
	if out := outputText(r.Output, "stdout"); !strings.Contains(out, "total 17 double 34") {
		t.Errorf("stdout %q lacks the program's line", out)
	}
	if out := outputText(r.Output, "stderr"); !strings.Contains(out, "inventory: done") {
		t.Errorf("stderr %q lacks the program's line", out)
	}

	// 9. The session has ended: a control is refused, stop forgets it.
	_, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	if apierr.CodeOf(err) != apierr.PreconditionFailed || !strings.Contains(err.Error(), "exited with code 3") {
		t.Fatalf("control after the end: %v", err)
	}
	_, err = m.Stop(ctx, "")
	fatal(t, err)
	if _, err := m.Get(""); apierr.CodeOf(err) != apierr.ResourceNotFound {
		t.Fatalf("after stop: %v", err)
	}
	testenv.Verified(t, "go", "dlv", testenv.AdapterVersion(t, "dlv"), testenv.DebugTool)
}

// TestGoTest debugs one Go test (go test -run) with real dlv.
func TestGoTest(t *testing.T) {
	testenv.Require(t, "dlv", "go")
	m, root := newManager(t, "go")
	ctx := testenv.Context(t)
	const file = "inventory_test.go"
	// 1. Start TestRestock with a breakpoint on the call of restock.
	bp := lineOf(t, root, file, "test")
	start, err := m.Start(ctx, dap.StartRequest{Test: "TestRestock", Program: ".", Wait: wait(),
		Breakpoints: map[string][]dap.BreakpointSpec{file: {{Line: bp}}}})
	fatal(t, err)
	wantStop(t, start.Report, "breakpoint", file, bp)
	if !strings.Contains(start.Location.Function, "TestRestock") {
		t.Errorf("stopped in %q", start.Location.Function)
	}
	// 2. Step over the call; got is 11.
	r, err := m.Control(ctx, "", "step_over", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, bp+1)
	in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "got"})
	fatal(t, err)
	if in.Evaluated.Result != "11" {
		t.Fatalf("got = %q, want 11", in.Evaluated.Result)
	}
	// 3. Continue: the test passes, exit code 0.
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	if r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("end: state=%s exit=%v output=%q", r.State, r.ExitCode, outputText(r.Output, ""))
	}
	if out := outputText(r.Output, ""); !strings.Contains(out, "PASS") {
		t.Errorf("output %q lacks PASS", out)
	}
}

// TestGoAdapterKilled kills dlv while the program is stopped: the next
// control reports the crash (no hang), and the debuggee is gone.
func TestGoAdapterKilled(t *testing.T) {
	testenv.Require(t, "dlv", "go")
	m, root := newManager(t, "go")
	ctx := testenv.Context(t)
	// 1. Stop at a breakpoint.
	bp := lineOf(t, root, "main.go", "call")
	start, err := m.Start(ctx, dap.StartRequest{Program: ".", Wait: wait(),
		Breakpoints: map[string][]dap.BreakpointSpec{"main.go": {{Line: bp}}}})
	fatal(t, err)
	wantStop(t, start.Report, "breakpoint", "main.go", bp)
	info := sessionInfo(t, m)
	if info.AdapterPID == 0 || len(info.ProgramPIDs) == 0 {
		t.Fatalf("info lacks the adapter's or the program's pid: %+v", info)
	}
	// 2. Kill the adapter.
	if err := syscall.Kill(info.AdapterPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// 3. The next control fails with the crash, clearly.
	_, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "dlv exited unexpectedly (signal: killed)") {
		t.Fatalf("control after the kill: %v", err)
	}
	// 4. The session is failed, the program is gone.
	info = sessionInfo(t, m)
	if info.State != dap.StateFailed || info.Error == nil {
		t.Errorf("state %s, error %v", info.State, info.Error)
	}
	for _, pid := range info.ProgramPIDs {
		t.Errorf("program process %d is still alive", pid)
	}
}

// TestGoCloseEndsEverything: closing the manager (nvbridge exiting) ends
// the adapter and the stopped program.
func TestGoCloseEndsEverything(t *testing.T) {
	testenv.Require(t, "dlv", "go")
	m, root := newManager(t, "go")
	ctx := testenv.Context(t)
	bp := lineOf(t, root, "main.go", "loop")
	start, err := m.Start(ctx, dap.StartRequest{Program: ".", Wait: wait(),
		Breakpoints: map[string][]dap.BreakpointSpec{"main.go": {{Line: bp}}}})
	fatal(t, err)
	wantStop(t, start.Report, "breakpoint", "main.go", bp)
	info := sessionInfo(t, m)
	pids := append([]int{info.AdapterPID}, info.ProgramPIDs...)
	if len(pids) < 2 {
		t.Fatalf("pids: %v", pids)
	}
	m.Close()
	for _, pid := range pids {
		if pidAlive(pid) {
			t.Errorf("process %d survived Close", pid)
		}
	}
}

// TestGoBoundAndPause: a wait that hits its bound says so (complete=false,
// running), pause stops the program, and two sessions at once are
// addressed by id.
func TestGoBoundAndPause(t *testing.T) {
	testenv.Require(t, "dlv", "go")
	m, root := newManager(t, "go")
	ctx := testenv.Context(t)
	// 1. A program that sleeps for an hour, waited on for half a second:
	// not a stop, not an end, but complete=false.
	first, err := m.Start(ctx, dap.StartRequest{Program: ".", Args: []string{"wait"}, Wait: 500 * time.Millisecond})
	fatal(t, err)
	if first.Complete || first.State != dap.StateRunning || first.Note == "" {
		t.Fatalf("start: complete=%v state=%s note=%q, want an incomplete wait on a running program", first.Complete, first.State, first.Note)
	}
	// 2. Inspecting a running program is refused.
	if _, err := m.Inspect(ctx, first.SessionID, dap.InspectRequest{}); apierr.CodeOf(err) != apierr.PreconditionFailed {
		t.Fatalf("inspect while running: %v", err)
	}
	// 3. A second session, stopped at a breakpoint.
	bp := lineOf(t, root, "main.go", "call")
	second, err := m.Start(ctx, dap.StartRequest{Program: ".", Wait: wait(),
		Breakpoints: map[string][]dap.BreakpointSpec{"main.go": {{Line: bp}}}})
	fatal(t, err)
	wantStop(t, second.Report, "breakpoint", "main.go", bp)
	// 4. Without session_id, a control is ambiguous.
	if _, err := m.Control(ctx, "", "continue", 0, wait(), "agent"); apierr.CodeOf(err) != apierr.Ambiguous {
		t.Fatalf("control without session_id: %v", err)
	}
	// 5. Pause the first one: it stops (reason pause).
	r, err := m.Control(ctx, first.SessionID, "pause", 0, wait(), "agent")
	fatal(t, err)
	if !r.Complete || r.State != dap.StateStopped || r.Reason != "pause" {
		t.Fatalf("pause: complete=%v state=%s reason=%q", r.Complete, r.State, r.Reason)
	}
	// 6. The second one is still where it was.
	infos, err := m.Infos(ctx, second.SessionID)
	fatal(t, err)
	if infos[0].State != dap.StateStopped || infos[0].Location == nil || infos[0].Location.Line != bp {
		t.Fatalf("second session: %+v", infos[0])
	}
	// 7. Stop the first; the second is now the default.
	_, err = m.Stop(ctx, first.SessionID)
	fatal(t, err)
	r, err = m.Control(ctx, "", "step_over", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", "main.go", bp+1)
}

// TestGoBuildError: a program that does not compile is a clear error (the
// compiler's message), and nothing is left running.
func TestGoBuildError(t *testing.T) {
	testenv.Require(t, "dlv", "go")
	testenv.Isolate(t)
	root := testenv.CopySample(t, "gobroken")
	r, err := workspace.New(root)
	fatal(t, err)
	m := dap.NewManager(r, nil, t.Logf)
	t.Cleanup(m.Close)
	_, err = m.Start(testenv.Context(t), dap.StartRequest{Program: ".", Wait: wait()})
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "launch failed") || !strings.Contains(err.Error(), "broken.go") {
		t.Fatalf("start on a broken program: %v", err)
	}
	if infos, _ := m.Infos(testenv.Context(t), ""); len(infos) != 0 {
		t.Fatalf("a failed start left a session: %+v", infos)
	}
}

// TestGoPanic: a nil pointer dereference stops the program where it
// happens (dlv's panic stop), and continuing ends it with Go's exit code 2.
func TestGoPanic(t *testing.T) {
	testenv.Require(t, "dlv", "go")
	m, root := newManager(t, "go")
	ctx := testenv.Context(t)
	start, err := m.Start(ctx, dap.StartRequest{Program: ".", Args: []string{"crash"}, Wait: wait()})
	fatal(t, err)
	if start.State != dap.StateStopped || start.Reason != "exception" {
		t.Fatalf("crash: state=%s reason=%q description=%q", start.State, start.Reason, start.Description)
	}
	if !strings.Contains(start.Description, "nil pointer") && !strings.Contains(start.Description, "panic") {
		t.Errorf("description %q does not name the panic", start.Description)
	}
	in, err := m.Inspect(ctx, "", dap.InspectRequest{})
	fatal(t, err)
	found := false
	for _, f := range in.Stack {
		if f.File == "main.go" && f.Line == lineOf(t, root, "main.go", "panic") {
			found = true
		}
	}
	if !found {
		t.Errorf("the stack does not hold the panicking line: %+v", in.Stack)
	}
	r, err := m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	if r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 2 {
		t.Fatalf("after the panic: state=%s exit=%v output=%q", r.State, r.ExitCode, outputText(r.Output, ""))
	}
}

// TestGoHitCondition: a breakpoint with hit_condition "== 3" stops on its
// third hit only (the loop's third item).
func TestGoHitCondition(t *testing.T) {
	testenv.Require(t, "dlv", "go")
	m, root := newManager(t, "go")
	ctx := testenv.Context(t)
	bp := lineOf(t, root, "main.go", "loop")
	start, err := m.Start(ctx, dap.StartRequest{Program: ".", Wait: wait(),
		Breakpoints: map[string][]dap.BreakpointSpec{"main.go": {{Line: bp, HitCondition: "== 3"}}}})
	fatal(t, err)
	wantStop(t, start.Report, "breakpoint", "main.go", bp)
	in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "i"})
	fatal(t, err)
	if in.Evaluated.Result != "2" {
		t.Fatalf("i = %q on the third hit, want 2", in.Evaluated.Result)
	}
}
