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

// TestStdioPipesThroughPoller: served over pipes, nvbridge reads its stdin
// and writes its stdout in non-blocking mode (through the runtime's
// poller, raw read(2) and write(2): polledStdin, polledStdout), answers
// whole, an answer larger than a pipe holds included (its write waits in
// the poller for room), and puts both pipes' blocking mode back when it
// exits. The test keeps the server's ends of both pipes, the same open
// files as its stdin and stdout, to see their modes.
func TestStdioPipesThroughPoller(t *testing.T) {
	testenv.Require(t, "nvim")
	testenv.Isolate(t)
	root := testenv.CopySample(t, "go")
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	cmd := exec.Command(binary(t), "mcp", "--root", root, "--timeout", "40s")
	cmd.Env = append(os.Environ(), "NVIM=")
	// exec hands the descriptors in blocking mode.
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	nonblocking := func(f *os.File) bool {
		var flags int
		var ferr error
		rc, err := f.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
			t.Fatal(err, ferr)
		}
		return flags&unix.O_NONBLOCK != 0
	}
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(id int, method string, params any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(b, '\n')); err != nil {
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
	if !nonblocking(inR) {
		t.Errorf("serving over a pipe, stdin is in blocking mode (read by a thread in read(2), not the poller)")
	}
	if !nonblocking(outW) {
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
		t.Fatalf("read_file over the polled pipes: %s", got)
	}
	inW.Close()
	done := make(chan error, 1)
	// Not drained to its end: the test holds the write end of stdout
	// open (to see its mode after), so no end of it comes.
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(testenv.Timeout()):
		t.Fatal("nvbridge did not exit at the end of its input")
	}
	if nonblocking(inR) {
		t.Errorf("after nvbridge exited, the pipe it read is left in non-blocking mode")
	}
	if nonblocking(outW) {
		t.Errorf("after nvbridge exited, the pipe it wrote is left in non-blocking mode")
	}
}
