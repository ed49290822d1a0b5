package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"golang.org/x/sys/unix"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// beMainEnv makes this test binary run as nvbridge: a daemon that run()
// (called in-process by a test) starts re-executes os.Executable.
const beMainEnv = "NVBRIDGE_TEST_BE_MAIN"

func TestMain(m *testing.M) {
	fakelsp.MaybeServe() // this test binary doubles as a scripted fake server
	if os.Getenv(beMainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Setenv(beMainEnv, "1")
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds nvbridge once per test run and returns its path.
func binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "nvbridge-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "nvbridge")
		cmd := exec.Command("go", "build", "-o", binPath, ".")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// proc is a running nvbridge whose stdout lines and stderr are recorded.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *syncBuffer
	// stdout lines arrive in stdout; outNote is signalled on each, drained
	// is closed at EOF; next is the first line call has not looked at.
	outNote chan struct{}
	drained chan struct{}
	next    int
	exited  chan struct{}
	err     error // cmd.Wait's error, once exited is closed

	mu     sync.Mutex
	stdout []string
}

type syncBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	note chan struct{} // signalled on every write
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	select {
	case b.note <- struct{}{}:
	default:
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start runs the built binary with args (PATH already holds .deps/bin).
func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startUnder(t, env, nil, args...)
}

// startUnder is start with the binary run by a wrapper command (e.g.
// prlimit with its options).
func startUnder(t *testing.T, env []string, wrapper []string, args ...string) *proc {
	t.Helper()
	testenv.Isolate(t)
	argv := append(append(append([]string{}, wrapper...), binary(t)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	// No inherited $NVIM (tests run inside a Neovim terminal would attach
	// to it); env may set it.
	cmd.Env = append(append(os.Environ(), "NVIM="), env...)
	p := &proc{t: t, cmd: cmd, stderr: &syncBuffer{note: make(chan struct{}, 1)}, exited: make(chan struct{}),
		outNote: make(chan struct{}, 1), drained: make(chan struct{})}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.stdout = append(p.stdout, sc.Text())
			p.mu.Unlock()
			select {
			case p.outNote <- struct{}{}:
			default:
			}
		}
		close(p.drained)
	}()
	go func() {
		// Wait only after stdout is drained (exec's rule for StdoutPipe).
		<-p.drained
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("nvbridge stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

// send writes one JSON-RPC message (a line) to stdin.
func (p *proc) send(msg map[string]any) {
	p.t.Helper()
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// call sends a request and waits for the response with its id.
func (p *proc) call(id int, method string, params any) map[string]any {
	p.t.Helper()
	p.send(map[string]any{"id": id, "method": method, "params": params})
	deadline := time.After(testenv.Timeout())
	for {
		p.mu.Lock()
		fresh := p.stdout[p.next:]
		p.next = len(p.stdout)
		p.mu.Unlock()
		for _, line := range fresh {
			var msg map[string]any
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				continue // checked by checkStdout
			}
			if got, ok := msg["id"].(float64); ok && int(got) == id {
				if e, ok := msg["error"]; ok {
					p.t.Fatalf("%s: JSON-RPC error %v", method, e)
				}
				res, _ := msg["result"].(map[string]any)
				return res
			}
		}
		select {
		case <-p.outNote:
		case <-p.drained:
			p.mu.Lock()
			more := p.next < len(p.stdout)
			p.mu.Unlock()
			if !more {
				p.t.Fatalf("nvbridge closed stdout before answering %s; stderr:\n%s", method, p.stderr.String())
			}
		case <-deadline:
			p.t.Fatalf("no answer to %s", method)
		}
	}
}

// initialize performs the MCP handshake.
func (p *proc) initialize() {
	p.t.Helper()
	res := p.call(1, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "nvbridge-test", "version": "0"},
	})
	if res["serverInfo"] == nil {
		p.t.Fatalf("initialize result: %v", res)
	}
	p.send(map[string]any{"method": "notifications/initialized"})
}

// wait waits for the process to exit and returns its exit code.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(testenv.Timeout()):
		p.t.Fatalf("nvbridge did not exit; stderr:\n%s", p.stderr.String())
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		return exit.ExitCode()
	}
	if p.err != nil {
		p.t.Fatal(p.err)
	}
	return 0
}

// waitStderr waits until stderr contains want and returns stderr.
func (p *proc) waitStderr(want string) string {
	p.t.Helper()
	deadline := time.After(testenv.Timeout())
	for {
		if s := p.stderr.String(); strings.Contains(s, want) {
			return s
		}
		select {
		case <-p.stderr.note:
		case <-p.exited:
			if s := p.stderr.String(); strings.Contains(s, want) {
				return s
			}
			p.t.Fatalf("nvbridge exited before printing %q; stderr:\n%s", want, p.stderr.String())
		case <-deadline:
			p.t.Fatalf("nvbridge did not print %q; stderr:\n%s", want, p.stderr.String())
		}
	}
}

// checkStdout fails unless every stdout line is a JSON-RPC 2.0 message.
func (p *proc) checkStdout() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.stdout) == 0 {
		p.t.Fatal("nothing on stdout")
	}
	for i, line := range p.stdout {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
			p.t.Errorf("stdout line %d is not a JSON-RPC message: %q", i+1, line)
		}
	}
}

// process is one process of a tree, identified by pid and start time (so a
// reused pid is not mistaken for it).
type process struct {
	pid     int
	start   uint64
	cmdline string
}

// descendants lists the processes below pid (children, grandchildren, ...).
func descendants(t testing.TB, pid int) []process {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	children := map[int][]process{}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, start, ok := statOf(child)
		if !ok {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		children[ppid] = append(children[ppid], process{pid: child, start: start,
			cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))})
	}
	var out []process
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c.pid)
		}
	}
	walk(pid)
	return out
}

// statOf reads a process's parent and start time from /proc/PID/stat.
func statOf(pid int) (ppid int, start uint64, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:]) // f[0] = state (field 3), f[1] = ppid, f[19] = starttime (field 22)
	if len(f) < 20 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	start, _ = strconv.ParseUint(f[19], 10, 64)
	return ppid, start, true
}

// waitGone waits (on pidfds: an event, not a poll) until every process has
// exited; a zombie counts as exited. It fails naming the survivors.
func waitGone(t testing.TB, procs []process) {
	t.Helper()
	deadline := time.Now().Add(testenv.Timeout())
	for _, p := range procs {
		fd, err := unix.PidfdOpen(p.pid, 0)
		if err != nil {
			if errors.Is(err, syscall.ESRCH) {
				continue // already gone
			}
			t.Fatalf("pidfd_open %d: %v", p.pid, err)
		}
		if _, start, ok := statOf(p.pid); !ok || start != p.start {
			unix.Close(fd)
			continue // gone, and the pid was reused
		}
		var n int
		for {
			left := int(time.Until(deadline) / time.Millisecond)
			n, err = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, max(left, 1))
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		unix.Close(fd)
		if err != nil {
			t.Fatalf("poll pidfd %d: %v", p.pid, err)
		}
		if n == 0 {
			t.Errorf("process %d (%s) outlived nvbridge", p.pid, p.cmdline)
		}
	}
}

// hasProcess reports whether one of procs' command lines contains name.
func hasProcess(procs []process, name string) bool {
	for _, p := range procs {
		if strings.Contains(p.cmdline, name) {
			return true
		}
	}
	return false
}

// cancelFakeServers is the scripted fake server of the cancellation tests,
// as the JSON of nvim.ExtraServersEnv. It serves text files: references
// hang, documentSymbol is held until the references request has arrived,
// and hover until a $/cancelRequest has (it then answers with its log; it
// offers no definition, which hover would ask for too).
func cancelFakeServers(t *testing.T) []byte {
	t.Helper()
	spec, err := fakelsp.Spec("fakelsp", []string{"text"}, fakelsp.Script{Methods: map[string]string{
		protocol.MethodTextDocumentReferences:     fakelsp.Hang,
		protocol.MethodTextDocumentDocumentSymbol: fakelsp.AwaitPrefix + protocol.MethodTextDocumentReferences,
		protocol.MethodTextDocumentHover:          fakelsp.AwaitPrefix + protocol.MethodCancelRequest + ":" + fakelsp.Log,
	}})
	if err != nil {
		t.Fatal(err)
	}
	servers, err := json.Marshal([]nvim.ServerSpec{spec})
	if err != nil {
		t.Fatal(err)
	}
	return servers
}
