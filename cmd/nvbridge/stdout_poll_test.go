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

// TestStdoutPipeWrittenThroughPoller: served over a pipe, nvbridge writes
// its stdout in non-blocking mode (raw writes, the poller waiting when the
// pipe is full: polledStdout), answers whole, an answer larger than the
// pipe holds included, and puts the pipe's blocking mode back when it
// exits. The test keeps the pipe's write end, the same open file as the
// server's stdout, to see its mode.
func TestStdoutPipeWrittenThroughPoller(t *testing.T) {
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
	cmd.Stdout = w // exec hands the descriptor in blocking mode
	stdin, err := cmd.StdinPipe()
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
		rc, err := w.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
			t.Fatal(err, ferr)
		}
		return flags&unix.O_NONBLOCK != 0
	}
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(id int, method string, params any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id int) string {
		for lines.Scan() {
			if strings.Contains(lines.Text(), fmt.Sprintf(`"id":%d,`, id)) {
				return lines.Text()
			}
		}
		t.Fatalf("no answer %d: %v", id, lines.Err())
		return ""
	}
	send(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "nvbridge-test", "version": "0"}})
	answer(1)
	if !nonblocking() {
		t.Errorf("serving over a pipe, stdout is in blocking mode (written by a thread in write(2), not raw)")
	}
	// The tool list is larger than a pipe holds (64 KiB): not read for a
	// moment, the pipe fills and the write waits in the poller for room.
	send(2, "tools/list", map[string]any{})
	time.Sleep(300 * time.Millisecond)
	list := answer(2)
	if len(list) <= 64<<10 {
		t.Fatalf("the tool list is %d bytes: no larger than a pipe holds, it tests no wait", len(list))
	}
	var decoded struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(list), &decoded); err != nil || len(decoded.Result.Tools) == 0 {
		t.Fatalf("the tool list did not arrive whole (%d bytes): %v", len(list), err)
	}
	send(3, "tools/call", map[string]any{"name": "read_file", "arguments": map[string]any{"file": "orders/orders.go", "start_line": 33, "end_line": 33}})
	if got := answer(3); !strings.Contains(got, "func Process(") {
		t.Fatalf("read_file over the polled pipe: %s", got)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(testenv.Timeout()):
		t.Fatal("nvbridge did not exit at the end of its input")
	}
	if nonblocking() {
		t.Errorf("after nvbridge exited, the pipe it wrote is left in non-blocking mode")
	}
}
