package tools_test

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestDebugCOverMCP: start_debug_session stops at a breakpoint in a C
// program built with cc -g (lldb-dap), inspect_state reads it, and
// stop_debug_session leaves no process behind.
func TestDebugCOverMCP(t *testing.T) {
	testenv.Require(t, "nvim", "lldb-dap", "cc")
	root, _, c := debugSample(t, "c")
	build := exec.Command("cc", "-g", "-O0", "-o", "inventory", "inventory.c")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	line := func(marker string) int { return markerLine(t, root, "inventory.c", marker) }
	// 1. Stop in twice.
	got := okContent(t, c, "start_debug_session", fmt.Sprintf(`{"program":"inventory","language":"c","breakpoints":[{"file":"inventory.c","line":%d}]}`, line("double")))
	if got["adapter"] != "lldb-dap" || got["state"] != "stopped" {
		t.Fatalf("start: %v", got)
	}
	if l, _ := at(got, "location.line"); fmt.Sprint(l) != fmt.Sprint(line("double")) {
		t.Fatalf("stopped at line %v, want %d", l, line("double"))
	}
	// 2. x is 14 (the restocked total).
	got = okContent(t, c, "inspect_state", `{"expression":"x * 2"}`)
	if r, _ := at(got, "evaluated.result"); r != "28" {
		t.Errorf("x * 2 = %v, want 28", r)
	}
	// 3. Stop the session: nothing is left running.
	got = okContent(t, c, "stop_debug_session", `{}`)
	if got["remaining_processes"] != float64(0) {
		t.Errorf("stop: %v", got)
	}
}
