package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestLogTrace: with --log, the log file gets every RPC and LSP exchange
// (the session's trace) as it happens; without it nothing of the trace
// reaches stderr.
func TestLogTrace(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	testenv.Isolate(t)
	root := testenv.CopySample(t, "go")
	t.Setenv("NVIM", "") // embedded, even when the tests run inside Neovim
	logFile := filepath.Join(t.TempDir(), "nvbridge.log")
	// --no-daemon: this process's session writes the log (a daemon would
	// write it too, but outlive the test).
	args := []string{"--root", root, "call", "--no-daemon", "get_hover_info", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`}
	var stdout, stderr strings.Builder
	if code := run(append([]string{"--log", logFile}, args...), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "func Process") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, want := range []string{
		"read.read(",             // the buffer opened, gopls waited for ...
		"(open, request, lines)", // ... and the hover request, in one call
		"lsp   #",

		"textDocument/hover",
		"Process validates o", // ... and gopls's answer
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}

	stdout.Reset()
	stderr.Reset()
	if code := run(args, &stdout, &stderr); code != 0 || strings.Contains(stderr.String(), "trace ") {
		t.Fatalf("without --log: exit %d, stderr:\n%s", code, stderr.String())
	}
}
