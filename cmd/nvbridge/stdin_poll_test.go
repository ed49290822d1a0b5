package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestStdinPipeReadThroughPoller: served over a pipe, nvbridge reads its
// stdin in non-blocking mode (through the runtime's poller, polledStdin),
// answers as before, and puts the pipe's blocking mode back when it
// exits. The test keeps the pipe's read end, the same open file as the
// server's stdin, to see its mode.
func TestStdinPipeReadThroughPoller(t *testing.T) {
	testenv.Require(t, "nvim")
	testenv.Isolate(t)
	root := testenv.CopySample(t, "go")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	cmd := exec.Command(binary(t), "mcp", "--root", root, "--timeout", "40s")
	cmd.Env = append(os.Environ(), "NVIM=")
	cmd.Stdin = r // exec hands the descriptor in blocking mode
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	nonblocking := func() bool {
		var flags int
		var ferr error
		rc, err := r.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
			t.Fatal(err, ferr)
		}
		return flags&unix.O_NONBLOCK != 0
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	ask := func(id int, method string, params any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := w.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
		for lines.Scan() {
			if strings.Contains(lines.Text(), fmt.Sprintf(`"id":%d,`, id)) {
				return lines.Text()
			}
		}
		t.Fatalf("no answer to %s: %v", method, lines.Err())
		return ""
	}
	ask(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "nvbridge-test", "version": "0"}})
	if !nonblocking() {
		t.Errorf("serving over a pipe, stdin is in blocking mode (read by a thread in read(2), not the poller)")
	}
	got := ask(2, "tools/call", map[string]any{"name": "read_file", "arguments": map[string]any{"file": "orders/orders.go", "start_line": 33, "end_line": 33}})
	if !strings.Contains(got, "func Process(") {
		t.Fatalf("read_file over the polled pipe: %s", got)
	}
	w.Close()
	done := make(chan error, 1)
	go func() {
		for lines.Scan() {
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(testenv.Timeout()):
		t.Fatal("nvbridge did not exit at the end of its input")
	}
	if nonblocking() {
		t.Errorf("after nvbridge exited, the pipe it read is left in non-blocking mode")
	}
}
