package dap_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestCProgram debugs testdata/samples/debug/c/inventory.c, built with
// cc -g, with real lldb-dap (lang/lldb.go), as a numbered script:
// breakpoint, stop, step, stack, locals, evaluate, program output, end.
func TestCProgram(t *testing.T) {
	testenv.Require(t, "lldb-dap", "cc")
	m, root := newManager(t, "c")
	ctx := testenv.Context(t)
	const file = "inventory.c"
	line := func(marker string) int { return lineOf(t, root, file, marker) }
	build := exec.Command("cc", "-g", "-O0", "-o", "inventory", file)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}

	// 1. Start the executable (its language named: it has no extension)
	// with breakpoints on the call of restock and in its loop.
	start, err := m.Start(ctx, dap.StartRequest{Program: "inventory", Language: "c", Wait: wait(), By: "agent",
		Breakpoints: map[string][]dap.BreakpointSpec{file: {{Line: line("call")}, {Line: line("loop")}}}})
	fatal(t, err)
	if start.Language != "c" || start.Adapter != "lldb-dap" {
		t.Fatalf("start: %+v", start)
	}
	for _, bp := range start.Breakpoints[0].Breakpoints {
		if !bp.Verified {
			t.Errorf("breakpoint on line %d not verified: %+v", bp.Line, bp)
		}
	}
	wantStop(t, start.Report, "breakpoint", file, line("call"))

	// 2. Step into restock: its first line.
	r, err := m.Control(ctx, "", "step_into", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("loop")-2)
	if r.Location.Function != "restock" {
		t.Errorf("stepped into %q, want restock", r.Location.Function)
	}

	// 3. Continue to the loop's breakpoint: the locals, an expression, the
	// stack (restock called from main).
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "breakpoint", file, line("loop"))
	in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "items[i].qty + add", Depth: 2})
	fatal(t, err)
	if in.Evaluated.Result != "5" {
		t.Errorf("items[i].qty + add = %q, want 5 (pen: 3 + 2)", in.Evaluated.Result)
	}
	var locals []dap.Variable
	for _, sc := range in.Scopes {
		if sc.Expanded {
			locals = append(locals, sc.Variables...)
		}
	}
	if v, ok := findVar(locals, "total"); !ok || v.Value != "0" {
		t.Errorf("total = %+v, want 0 (locals %+v)", v, locals)
	}
	if v, ok := findVar(locals, "add"); !ok || v.Value != "2" {
		t.Errorf("add = %+v, want 2 (locals %+v)", v, locals)
	}
	if len(in.Stack) < 2 || in.Stack[0].Function != "restock" || in.Stack[1].Function != "main" {
		t.Errorf("stack = %+v, want restock called from main", in.Stack)
	}

	// 4. Step over: the next line of the loop.
	r, err = m.Control(ctx, "", "step_over", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("loop")+1)

	// 5. Replace the breakpoints with one in twice; continue: it stops
	// there, with total 14 passed in.
	_, err = m.SetBreakpoints(ctx, "", file, []dap.BreakpointSpec{{Line: line("double")}})
	fatal(t, err)
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "breakpoint", file, line("double"))
	in, err = m.Inspect(ctx, "", dap.InspectRequest{Expression: "x"})
	fatal(t, err)
	if in.Evaluated.Result != "14" {
		t.Errorf("x = %q, want 14", in.Evaluated.Result)
	}

	// 6. Step out: back in main, on the line that called twice.
	r, err = m.Control(ctx, "", "step_out", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("after"))

	// 7. Continue to the end: exit code 3, stdout and stderr collected.
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	if !r.Complete || r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 3 {
		t.Fatalf("end: complete=%v state=%s exit=%v output=%q", r.Complete, r.State, r.ExitCode, outputText(r.Output, ""))
	}
	if out := outputText(r.Output, ""); !strings.Contains(out, "total 14 double 28") || !strings.Contains(out, "inventory: done") {
		t.Errorf("output %q lacks the program's lines", out)
	}
	testenv.Verified(t, "c", "lldb-dap", testenv.AdapterVersion(t, "lldb-dap"), testenv.DebugTool)
}
