package dap_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestRustProgram debugs testdata/samples/debug/rust/inventory.rs, built
// with rustc -g, with real lldb-dap (lang/lldb.go, lang/rust.go).
func TestRustProgram(t *testing.T) {
	testenv.Require(t, "lldb-dap", "rustc")
	m, root := newManager(t, "rust")
	ctx := testenv.Context(t)
	const file = "inventory.rs"
	line := func(marker string) int { return lineOf(t, root, file, marker) }
	build := exec.Command("rustc", "-g", "-C", "opt-level=0", "-o", "inventory", file)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, out)
	}

	// 1. Start with a breakpoint in restock's loop.
	start, err := m.Start(ctx, dap.StartRequest{Program: "inventory", Language: "rust", Wait: wait(), By: "agent",
		Breakpoints: map[string][]dap.BreakpointSpec{file: {{Line: line("loop")}}}})
	fatal(t, err)
	if start.Language != "rust" || start.Adapter != "lldb-dap" {
		t.Fatalf("start: %+v", start)
	}
	wantStop(t, start.Report, "breakpoint", file, line("loop"))

	// 2. The locals and the stack: restock called from main.
	in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "add", Depth: 2})
	fatal(t, err)
	if in.Evaluated.Result != "2" {
		t.Errorf("add = %q, want 2", in.Evaluated.Result)
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
	// lldb names Rust frames by their mangled path ("inventory::restock::h3172...").
	if len(in.Stack) < 2 || !strings.HasPrefix(in.Stack[0].Function, "inventory::restock") || !strings.HasPrefix(in.Stack[1].Function, "inventory::main") {
		t.Errorf("stack = %+v, want restock called from main", in.Stack)
	}

	// 3. Step over: the next line of the loop.
	r, err := m.Control(ctx, "", "step_over", 0, wait(), "agent")
	fatal(t, err)
	wantStop(t, r, "step", file, line("loop")+1)

	// 4. Breakpoints replaced by one in twice: x is 14.
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

	// 5. Continue to the end: exit code 3 and the program's output.
	r, err = m.Control(ctx, "", "continue", 0, wait(), "agent")
	fatal(t, err)
	if !r.Complete || r.State != dap.StateTerminated || r.ExitCode == nil || *r.ExitCode != 3 {
		t.Fatalf("end: complete=%v state=%s exit=%v output=%q", r.Complete, r.State, r.ExitCode, outputText(r.Output, ""))
	}
	if out := outputText(r.Output, ""); !strings.Contains(out, "total 14 double 28 first pen") || !strings.Contains(out, "inventory: done") {
		t.Errorf("output %q lacks the program's lines", out)
	}
	testenv.Verified(t, "rust", "lldb-dap", testenv.AdapterVersion(t, "lldb-dap"), testenv.DebugTool)
}
