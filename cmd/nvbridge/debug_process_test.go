package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestDebugSessionEndsWithNvbridge: a debug session (dlv and the program it
// stopped at a breakpoint) does not outlive nvbridge, whether its stdin
// closes or it gets SIGTERM.
func TestDebugSessionEndsWithNvbridge(t *testing.T) {
	testenv.Require(t, "nvim", "dlv", "go")
	root := testenv.CopySample(t, filepath.Join("debug", "go"))
	session := func(t *testing.T) (*proc, []process) {
		p := start(t, nil, "--root", root, "mcp")
		p.initialize()
		res := p.call(2, "tools/call", map[string]any{
			"name": "start_debug_session",
			"arguments": map[string]any{"program": ".", "breakpoints": []any{
				map[string]any{"file": "main.go", "line": debugLine(t, root)},
			}},
		})
		if res["isError"] == true {
			t.Fatalf("start_debug_session: %v", res)
		}
		procs := descendants(t, p.cmd.Process.Pid)
		if !hasProcess(procs, "dlv dap") || !hasProcess(procs, "__debug_bin") {
			t.Fatalf("expected dlv and the debugged program below nvbridge, got %+v", procs)
		}
		return p, procs
	}
	t.Run("stdin closed", func(t *testing.T) {
		p, procs := session(t)
		p.stdin.Close()
		if code := p.wait(); code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
		waitGone(t, procs)
		p.checkStdout()
	})
	t.Run("SIGTERM", func(t *testing.T) {
		p, procs := session(t)
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
		waitGone(t, procs)
	})
}

// debugLine is the line of main.go's restock call (its bp:call marker).
func debugLine(t *testing.T, root string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "bp:call") {
			return i + 1
		}
	}
	t.Fatal("no bp:call in main.go")
	return 0
}
