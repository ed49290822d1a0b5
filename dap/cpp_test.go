package dap_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestCppProgram debugs testdata/samples/debug/cpp/shapes.cpp, built with
// c++ -g, with real lldb-dap: C++ is the C language's (clangd's filetypes,
// the same adapter), a method's frame and its object's members.
func TestCppProgram(t *testing.T) {
	testenv.Require(t, "lldb-dap", "c++")
	m, root := newManager(t, "cpp")
	ctx := testenv.Context(t)
	const file = "shapes.cpp"
	line := func(marker string) int { return lineOf(t, root, file, marker) }
	build := exec.Command("c++", "-g", "-O0", "-o", "shapes", file)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("c++: %v\n%s", err, out)
	}

	// 1. Stop in Rect::area, called by total from main.
	start, err := m.Start(ctx, dap.StartRequest{Program: "shapes", Language: "c", Wait: wait(), By: "agent",
		Breakpoints: map[string][]dap.BreakpointSpec{file: {{Line: line("area")}}}})
	fatal(t, err)
	if start.Adapter != "lldb-dap" {
		t.Fatalf("start: %+v", start)
	}
	wantStop(t, start.Report, "breakpoint", file, line("area"))

	// 2. The object's members through this, and the stack.
	in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "w_ * h_", Depth: 2})
	fatal(t, err)
	if in.Evaluated.Result != "6" {
		t.Errorf("w_ * h_ = %q, want 6", in.Evaluated.Result)
	}
	if len(in.Stack) < 3 || !strings.HasPrefix(in.Stack[0].Function, "Rect::area") ||
		!strings.HasPrefix(in.Stack[1].Function, "total") || !strings.HasPrefix(in.Stack[2].Function, "main") {
		t.Errorf("stack = %+v, want Rect::area called by total from main", in.Stack)
	}

	// 3. Step over, then continue: the second rectangle stops there again.
	r, err := m.Control(ctx, "", "step_over", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("area")+1)
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "breakpoint", file, line("area"))
	in, err = m.Inspect(ctx, "", dap.InspectRequest{Expression: "w_"})
	fatal(t, err)
	if in.Evaluated.Result != "1" {
		t.Errorf("w_ = %q, want 1 (the second rectangle)", in.Evaluated.Result)
	}

	// 4. Breakpoints cleared; the program ends with its output.
	_, err = m.SetBreakpoints(ctx, "", file, nil)
	fatal(t, err)
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	if !r.Complete || r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("end: complete=%v state=%s exit=%v output=%q", r.Complete, r.State, r.ExitCode, outputText(r.Output, ""))
	}
	if out := outputText(r.Output, ""); !strings.Contains(out, "total 10") {
		t.Errorf("output %q lacks the program's line", out)
	}
	testenv.Verified(t, "cpp", "lldb-dap", testenv.AdapterVersion(t, "lldb-dap"), testenv.DebugTool)
}
