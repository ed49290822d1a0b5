package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// cli runs the built binary the way a script does, with the daemon's
// socket folder in $XDG_RUNTIME_DIR.
type cli struct {
	t       testing.TB
	runtime string   // $XDG_RUNTIME_DIR
	global  []string // global flags for every run
	env     []string // more environment for every run
}

// newCLI isolates the test and gives it a daemon folder of its own; at
// cleanup the daemon (if any) is stopped and must leave no process behind.
func newCLI(t testing.TB, global ...string) *cli {
	t.Helper()
	testenv.Require(t, "nvim")
	testenv.Isolate(t)
	// Short: a unix socket path has at most 108 bytes.
	rt, err := os.MkdirTemp("", "nvbrt-")
	if err != nil {
		t.Fatal(err)
	}
	c := &cli{t: t, runtime: rt, global: global}
	t.Cleanup(func() {
		if st, ok := c.status(); ok {
			procs := append(descendants(t, st.PID), c.daemonProcess(st.PID))
			c.run("daemon", "stop")
			waitGone(t, procs)
		}
		os.RemoveAll(rt)
	})
	return c
}

// run runs nvbridge with the global flags and args; it returns stdout,
// stderr and the exit code.
func (c *cli) run(args ...string) (string, string, int) {
	c.t.Helper()
	cmd, stdout, stderr := c.command(args...)
	code := c.exitCode(cmd.Run())
	return stdout.String(), stderr.String(), code
}

// command prepares nvbridge with the global flags and args.
func (c *cli) command(args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.Command(binary(c.t), append(append([]string{}, c.global...), args...)...)
	cmd.Env = append(append(os.Environ(), "NVIM=", "XDG_RUNTIME_DIR="+c.runtime), c.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// exitCode is the exit code behind cmd.Run's or cmd.Wait's error.
func (c *cli) exitCode(err error) int {
	c.t.Helper()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		c.t.Fatal(err)
	}
	return 0
}

// call runs `nvbridge call` and decodes its JSON output, failing the test
// unless the exit code is want.
func (c *cli) call(want int, tool, args string, flags ...string) map[string]any {
	c.t.Helper()
	stdout, stderr, code := c.run(append(append([]string{"call"}, flags...), tool, args)...)
	if code != want {
		c.t.Fatalf("call %s %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tool, args, code, want, stdout, stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		c.t.Fatalf("call %s: stdout is not a JSON object (%v):\n%s", tool, err, stdout)
	}
	return out
}

// status is `nvbridge daemon status`: ok is false when no daemon runs.
func (c *cli) status() (daemonStatus, bool) {
	c.t.Helper()
	stdout, stderr, code := c.run("daemon", "status")
	var st daemonStatus
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		c.t.Fatalf("daemon status: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if (code == 0) != st.Running {
		c.t.Fatalf("daemon status: exit %d but running=%v", code, st.Running)
	}
	return st, st.Running
}

func (c *cli) daemonProcess(pid int) process {
	_, start, ok := statOf(pid)
	if !ok {
		c.t.Fatalf("daemon %d is not running", pid)
	}
	return process{pid: pid, start: start, cmdline: "nvbridge daemon"}
}

// TestDaemonPreviewThenApply: a rename previewed by one `call` is applied
// by the next with its changeset_id (both served by one warm daemon); with
// --no-daemon each call is a process of its own, as before, so the id is
// unknown there. Stopping the daemon leaves no process behind.
func TestDaemonPreviewThenApply(t *testing.T) {
	testenv.Require(t, "gopls", "go")
	root := testenv.CopySample(t, "go")
	c := newCLI(t, "--root", root)

	preview := c.call(0, "rename_symbol", `{"file":"orders/orders.go","line":33,"symbol":"Process","new_name":"ProcessOrder"}`)
	id, _ := preview["changeset_id"].(string)
	if id == "" || !strings.Contains(jsonText(t, preview), "+func ProcessOrder(") {
		t.Fatalf("rename preview: %v", preview)
	}
	st, ok := c.status()
	if !ok || st.Root != root || st.Calls != 1 {
		t.Fatalf("status after one call: %+v", st)
	}
	if disk, _ := os.ReadFile(filepath.Join(root, "orders", "orders.go")); strings.Contains(string(disk), "ProcessOrder") {
		t.Fatal("the preview changed the file")
	}

	// --no-daemon: a fresh nvbridge does not know the id.
	stale := c.call(1, "apply_changeset", `{"changeset_id":"`+id+`"}`, "--no-daemon")
	if code := errorCode(stale); code != "RESOURCE_NOT_FOUND" {
		t.Errorf("--no-daemon apply_changeset: %v", stale)
	}

	c.call(0, "apply_changeset", `{"changeset_id":"`+id+`","save":true}`)
	disk, err := os.ReadFile(filepath.Join(root, "orders", "orders.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(disk), "func ProcessOrder(") {
		t.Fatalf("after apply_changeset with save, orders.go:\n%s", disk)
	}
	again, ok := c.status()
	if !ok || again.PID != st.PID || again.Calls != 2 {
		t.Fatalf("status after the apply: %+v (first: %+v)", again, st)
	}

	// Stop: the daemon, its Neovim and gopls end.
	procs := append(descendants(t, st.PID), c.daemonProcess(st.PID))
	if !hasProcess(procs, "nvim") || !hasProcess(procs, "gopls") {
		t.Fatalf("expected nvim and gopls below the daemon, got %+v", procs)
	}
	if _, stderr, code := c.run("daemon", "stop"); code != 0 {
		t.Fatalf("daemon stop: exit %d: %s", code, stderr)
	}
	waitGone(t, procs)
	if _, err := os.Stat(st.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after stop: %v", err)
	}
	if _, ok := c.status(); ok {
		t.Error("status says running after stop")
	}
}

// errorCode is the code of a failed call's {"error": {...}}.
func errorCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// TestDaemonIdleExit: a daemon exits by itself after its idle timeout,
// ending its Neovim, and removes its socket. The test waits on the
// processes' exit (pidfd), not on time.
func TestDaemonIdleExit(t *testing.T) {
	root := testenv.CopySample(t, "go")
	c := newCLI(t, "--root", root)
	out := c.call(0, "read_file", `{"file":"orders/orders.go","start_line":33,"end_line":33}`, "--idle-timeout", "1s")
	if !strings.Contains(jsonText(t, out), "func Process(") {
		t.Fatalf("read_file: %v", out)
	}
	st, ok := c.status()
	if !ok {
		// Already gone: the machine was slower than a second between the
		// two commands. Nothing left to wait for but the socket.
		t.Log("the daemon exited before status asked")
	} else {
		if st.IdleTimeout != "1s" {
			t.Errorf("idle timeout %q, want 1s", st.IdleTimeout)
		}
		waitGone(t, append(descendants(t, st.PID), c.daemonProcess(st.PID)))
		if _, err := os.Stat(st.Socket); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket left after the idle exit: %v", err)
		}
	}
	// The next call starts a new daemon.
	c.call(0, "read_file", `{"file":"orders/orders.go","start_line":33,"end_line":33}`)
	if st2, ok := c.status(); !ok || st2.PID == st.PID || st2.Calls != 1 {
		t.Fatalf("status after a call following the idle exit: %+v", st2)
	}
}

// TestDaemonRace: two calls that find no daemon at once start one daemon
// between them (the lock file); a stale socket (nobody listening) is
// replaced.
func TestDaemonRace(t *testing.T) {
	root := testenv.CopySample(t, "go")
	c := newCLI(t, "--root", root)

	// A stale socket where the daemon's will be.
	idle, _ := c.status()
	if idle.Socket == "" {
		t.Fatal("status does not name the socket")
	}
	if err := os.MkdirAll(filepath.Dir(idle.Socket), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: idle.Socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()

	var wg sync.WaitGroup
	outs := make([]string, 2)
	codes := make([]int, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], _, codes[i] = c.run("call", "read_file", `{"file":"main.go","start_line":1,"end_line":1}`)
		}()
	}
	wg.Wait()
	for i := range 2 {
		if codes[i] != 0 || !strings.Contains(outs[i], "order-processing app") {
			t.Errorf("call %d: exit %d\n%s", i, codes[i], outs[i])
		}
	}
	st, ok := c.status()
	if !ok || st.Calls != 2 {
		t.Fatalf("both calls should reach one daemon: %+v", st)
	}
}

// TestCallExitCodes pins `nvbridge call`'s documented contract (README):
// 0 and the result; 1 and {"error": {code, message, remediation}} for a
// failed tool or arguments that are not JSON; 2 and nothing on stdout for
// usage errors. Through the
// daemon and with --no-daemon alike.
func TestCallExitCodes(t *testing.T) {
	root := testenv.CopySample(t, "go")
	c := newCLI(t, "--root", root)
	for _, mode := range [][]string{nil, {"--no-daemon"}} {
		ok := c.call(0, "get_buffer_info", `{"file":"main.go","include_content":false}`, mode...)
		if ok["file"] != "main.go" {
			t.Errorf("%v get_buffer_info: %v", mode, ok)
		}
		failed := c.call(1, "read_file", `{"file":"no/such.go"}`, mode...)
		e, _ := failed["error"].(map[string]any)
		if e["code"] != "RESOURCE_NOT_FOUND" || e["message"] == "" || e["remediation"] == "" || len(failed) != 1 {
			t.Errorf("%v read_file of a missing file: %v", mode, failed)
		}
		bad := c.call(1, "read_file", "{not json", mode...)
		if errorCode(bad) != "INVALID_PARAMETER" {
			t.Errorf("%v arguments that are not JSON: %v", mode, bad)
		}
		for _, args := range [][]string{
			{"call", "no_such_tool", "{}"},
			{"call", "--no-such-flag", "read_file", "{}"},
			{"call"},
		} {
			args = append(args[:1:1], append(append([]string{}, mode...), args[1:]...)...)
			stdout, stderr, code := c.run(args...)
			if code != 2 || stderr == "" {
				t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, stderr)
			}
			if strings.Contains(stdout, `"result"`) {
				t.Errorf("%v: stdout %q", args, stdout)
			}
		}
	}
}

// BenchmarkCall: one `nvbridge call find_references` on the Go sample, cold
// (--no-daemon: Neovim and gopls start and stop each time) and warm (the
// daemon, started before the timer, answers). Run:
//
//	go test -run '^$' -bench BenchmarkCall -benchtime 5x ./cmd/nvbridge/
func BenchmarkCall(b *testing.B) {
	testenv.Require(b, "gopls", "go")
	const args = `{"file":"orders/orders.go","line":33,"symbol":"Process"}`
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			root := testenv.CopySample(b, "go")
			c := newCLI(b, "--root", root)
			flags := []string{"call"}
			if mode == "cold" {
				flags = append(flags, "--no-daemon")
			} else if _, stderr, code := c.run("call", "find_references", args); code != 0 {
				b.Fatalf("warm-up call: exit %d: %s", code, stderr)
			}
			b.ResetTimer()
			for range b.N {
				if stdout, stderr, code := c.run(append(flags, "find_references", args)...); code != 0 || !strings.Contains(stdout, `"main.go"`) {
					b.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
				}
			}
		})
	}
}

// TestCallInterrupted: SIGINT to a `call` whose tool hangs at the language
// server exits 130 with nothing on stdout, and the daemon cancels the LSP
// request ($/cancelRequest reaches the server) and goes on serving. The
// scripted fake serves notes.txt: references hang, documentSymbol is held
// until the references request arrived, hover until a $/cancelRequest did
// (it then answers with its log).
func TestCallInterrupted(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := cancelFakeServers(t)
	c := newCLI(t, "--root", root, "--timeout", (2 * testenv.Timeout()).String())
	c.env = []string{nvim.ExtraServersEnv + "=" + string(servers)}

	hung, stdout, stderr := c.command("call", "find_references", `{"file":"notes.txt","line":1,"symbol":"hello"}`)
	if err := hung.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- hung.Wait() }()
	t.Cleanup(func() {
		_ = hung.Process.Kill()
	})
	// Returns once the references request is at the server.
	c.call(0, "get_symbols", `{"file":"notes.txt"}`)
	if err := hung.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case err := <-exited:
		code = c.exitCode(err)
	case <-time.After(testenv.Timeout()):
		t.Fatal("the interrupted call did not exit")
	}
	if code != 130 || stdout.Len() != 0 {
		t.Fatalf("interrupted call: exit %d, stdout %q, stderr %q; want 130 and nothing", code, stdout.String(), stderr.String())
	}
	hover := c.call(0, "get_hover_info", `{"file":"notes.txt","line":1,"symbol":"world"}`)
	log, _ := hover["contents"].(string)
	refs := regexp.MustCompile(`(?m)^textDocument/references id=(\d+)$`).FindAllStringSubmatch(log, -1)
	cancels := regexp.MustCompile(`(?m)^\$/cancelRequest id=(\d+)$`).FindAllStringSubmatch(log, -1)
	if len(refs) != 1 || len(cancels) != 1 || cancels[0][1] != refs[0][1] {
		t.Fatalf("the server should receive $/cancelRequest for the references request; its log:\n%s", log)
	}
}
