package main

// The warm daemon `nvbridge call` reuses, in the way of gopls -remote=auto:
// one nvbridge per (workspace root, Neovim, flags, binary), listening on a
// unix socket in a folder only its user can enter, started detached by the
// first call that finds none, exiting after an idle timeout. Its protocol is
// one JSON line each way per connection, after a hello line from the
// daemon:
//
//	daemon → {"nvbridge": VERSION, "pid": PID}
//	client → {"op": "call", "tool": NAME, "arguments": {...}} | {"op": "status"} | {"op": "stop"}
//	daemon → {"result": STRUCTURED, "is_error": BOOL} | {"usage": MESSAGE} | {"status": {...}}
//
// A client closing its connection cancels its call.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/sys/unix"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/memtrim"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
	"github.com/nvbridge/nvbridge/workspace"
)

const defaultIdleTimeout = 5 * time.Minute

// startGrace is added to the idle timeout before the first connection.
const startGrace = 10 * time.Second

type daemonRequest struct {
	Op        string          `json:"op"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Mode and ReadOnly are the calling `nvbridge call`'s: one daemon
	// serves calls with different modes, each checked on its own.
	Mode     string `json:"mode,omitempty"`
	ReadOnly bool   `json:"read_only,omitempty"`
}

type daemonReply struct {
	Result  json.RawMessage `json:"result,omitempty"`
	IsError bool            `json:"is_error,omitempty"`
	Usage   string          `json:"usage,omitempty"`
	Status  *daemonStatus   `json:"status,omitempty"`
}

type daemonHello struct {
	Nvbridge string `json:"nvbridge"`
	PID      int    `json:"pid"`
}

// daemonStatus is what `nvbridge daemon status` prints.
type daemonStatus struct {
	Running     bool      `json:"running"`
	PID         int       `json:"pid"`
	Version     string    `json:"version"`
	Root        string    `json:"root"`
	Nvim        string    `json:"nvim"`
	Socket      string    `json:"socket"`
	IdleTimeout string    `json:"idle_timeout"`
	Started     time.Time `json:"started"`
	Calls       int64     `json:"calls"`
}

// daemonSpot is where the daemon for one set of flags lives.
type daemonSpot struct {
	sock, lock, log string
	root, addr      string
}

// locateDaemon resolves the workspace and Neovim (as connect would) and
// names the daemon's socket: a hash of everything that makes two daemons
// differ, in daemonDir.
func locateDaemon(ctx context.Context, g globalFlags) (daemonSpot, error) {
	rootDir, addr := g.target(ctx)
	policy := g.policyConfig()
	root, err := workspace.NewWith(rootDir, policy)
	if err != nil {
		return daemonSpot{}, fmt.Errorf("workspace root: %w", err)
	}
	// The policy on sensitive files is part of a daemon's identity: its
	// flags and the user's and project's files it read when it started.
	project, _ := os.ReadFile(filepath.Join(root.Dir(), workspace.ProjectFile))
	user, _ := os.ReadFile(policy.UserFile)
	if addr != "" && !strings.Contains(addr, ":") {
		if abs, err := filepath.Abs(addr); err == nil {
			addr = abs
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return daemonSpot{}, err
	}
	st, err := os.Stat(exe)
	if err != nil {
		return daemonSpot{}, err
	}
	identity, _ := json.Marshal([]string{
		exe, st.ModTime().String(), strconv.FormatInt(st.Size(), 10), version,
		root.Dir(), addr, g.nvimCmd, g.timeout.String(), g.logFile,
		os.Getenv(nvim.ExtraServersEnv), resolvedTools(g.nvimCmd),
		strings.Join(g.policy.Deny, "\x00"), strings.Join(g.policy.Allow, "\x00"),
		strconv.FormatBool(g.policy.AllowHardlinks), string(project), policy.UserFile, string(user),
		g.search.Provider, g.search.FromEnv().SearXNGURL, g.search.FromEnv().BraveKey,
		strconv.Itoa(g.maxEdits), strconv.Itoa(g.maxDiffBytes),
	})
	sum := sha256.Sum256(identity)
	dir, err := daemonDir()
	if err != nil {
		return daemonSpot{}, err
	}
	base := filepath.Join(dir, hex.EncodeToString(sum[:10]))
	spot := daemonSpot{sock: base + ".sock", lock: base + ".lock", log: base + ".log", root: root.Dir(), addr: addr}
	if len(spot.sock) > 100 {
		return daemonSpot{}, fmt.Errorf("the daemon socket path %s is too long for a unix socket: set $XDG_RUNTIME_DIR to a shorter folder, or pass --no-daemon", spot.sock)
	}
	return spot, nil
}

// daemonDir is $XDG_RUNTIME_DIR/nvbridge, else the user cache dir's
// nvbridge folder: mode 0700 and owned by this user, since anyone who can
// connect to a daemon can edit the workspace.
func daemonDir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		var err error
		if base, err = os.UserCacheDir(); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(base, "nvbridge")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || !ok || int(sys.Uid) != os.Getuid() {
		return "", fmt.Errorf("%s is not a folder owned by you: remove it, or pass --no-daemon", dir)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// peerUID is the user id of the process at the other end of conn.
func peerUID(conn *net.UnixConn) (uid, pid int, err error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, 0, err
	}
	if credErr != nil {
		return 0, 0, credErr
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// daemonConn is a client's connection to a daemon, after the hello.
type daemonConn struct {
	conn  *net.UnixConn
	r     *bufio.Reader
	hello daemonHello
}

// dial connects to a running daemon: the socket's peer must be this user,
// and must say hello (a daemon shutting down closes without one).
func (s daemonSpot) dial(ctx context.Context) (*daemonConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", s.sock)
	if err != nil {
		return nil, err
	}
	conn := c.(*net.UnixConn)
	if uid, _, err := peerUID(conn); err != nil || uid != os.Getuid() {
		conn.Close()
		return nil, fmt.Errorf("%s: the daemon is not running as this user", s.sock)
	}
	dc := &daemonConn{conn: conn, r: bufio.NewReader(conn)}
	// A live daemon says hello at once; the bound is a safety net.
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := dc.r.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &dc.hello)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("no hello from the daemon at %s: %w", s.sock, err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	return dc, nil
}

// connect dials the daemon, starting one when there is none (or the one
// there is shutting down).
func (s daemonSpot) connect(ctx context.Context, g globalFlags, idle time.Duration) (*daemonConn, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		c, err := s.dial(ctx)
		if err == nil {
			return c, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := s.start(ctx, g, idle); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

// start starts a daemon unless another call did meanwhile: under an
// exclusive lock on the lock file, it dials again, removes a stale socket,
// starts `nvbridge daemon serve` in a session of its own and waits for it
// to say it is ready (or why it is not) on a pipe.
func (s daemonSpot) start(ctx context.Context, g globalFlags, idle time.Duration) error {
	unlock, err := lockFile(ctx, s.lock)
	if err != nil {
		return err
	}
	defer unlock()
	if c, err := s.dial(ctx); err == nil {
		c.conn.Close()
		return nil
	}
	if err := os.Remove(s.sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	nvimCmd := g.nvimCmd
	if strings.ContainsRune(nvimCmd, os.PathSeparator) {
		nvimCmd, _ = filepath.Abs(nvimCmd)
	}
	args := []string{"--root", s.root, "--nvim", s.addr, "--nvim-cmd", nvimCmd, "--timeout", g.timeout.String()}
	for _, d := range g.policy.Deny {
		args = append(args, "--deny", d)
	}
	for _, a := range g.policy.Allow {
		args = append(args, "--allow-sensitive", a)
	}
	if g.policy.AllowHardlinks {
		args = append(args, "--allow-hardlinks")
	}
	args = append(args, "--max-edits", strconv.Itoa(g.maxEdits), "--max-diff-bytes", strconv.Itoa(g.maxDiffBytes))
	if g.logFile != "" {
		logFile, _ := filepath.Abs(g.logFile)
		args = append(args, "--log", logFile)
	}
	args = append(args, "daemon", "serve", "--socket", s.sock, "--idle-timeout", idle.String(), "--ready-fd", "3")
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	cmd := exec.Command(exe, args...)
	cmd.Dir = "/"
	cmd.Stderr = logf
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return fmt.Errorf("start the nvbridge daemon: %w", err)
	}
	// Reaped here while this process lives, else by init.
	safego.Go("reaping the daemon", func() { _ = cmd.Wait() }, nil)
	msg := make(chan string, 1)
	safego.Go("reading the daemon's start-up word", func() {
		b, _ := io.ReadAll(pr) // EOF: ready, failed or gone
		msg <- string(b)
	}, func(err error) { msg <- err.Error() })
	select {
	case m := <-msg:
		if m == "ok" {
			return nil
		}
		if m == "" {
			m = "it exited without saying why; its log: " + s.log
		}
		return errors.New(m)
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM)
		return ctx.Err()
	}
}

// lockFile takes an exclusive flock on path; unlock releases it.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	safego.Go("locking "+path, func() { done <- unix.Flock(int(f.Fd()), unix.LOCK_EX) }, func(err error) { done <- err })
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, err
		}
		return func() { f.Close() }, nil
	case <-ctx.Done():
		safego.Go("unlocking "+path, func() { <-done; f.Close() }, nil)
		return nil, ctx.Err()
	}
}

// request sends one request and reads the reply; cancelling ctx closes the
// connection (which cancels the call in the daemon).
func (c *daemonConn) request(ctx context.Context, req daemonRequest) (daemonReply, error) {
	stop := context.AfterFunc(ctx, func() { c.conn.Close() })
	defer stop()
	b, err := json.Marshal(req)
	if err != nil {
		return daemonReply{}, err
	}
	if _, err := c.conn.Write(append(b, '\n')); err != nil {
		return daemonReply{}, err
	}
	line, err := c.r.ReadBytes('\n')
	if ctx.Err() != nil {
		return daemonReply{}, ctx.Err()
	}
	if err != nil {
		return daemonReply{}, fmt.Errorf("the daemon closed the connection before answering (%v)", err)
	}
	var reply daemonReply
	if err := json.Unmarshal(line, &reply); err != nil {
		return daemonReply{}, fmt.Errorf("the daemon's answer: %w", err)
	}
	return reply, nil
}

// callDaemon runs `nvbridge call` through the daemon.
func callDaemon(ctx context.Context, g globalFlags, idle time.Duration, call daemonRequest, stdout, stderr io.Writer) int {
	spot, err := locateDaemon(ctx, g)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 1
	}
	c, err := spot.connect(ctx, g, idle)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return exitCode(err)
	}
	defer c.conn.Close()
	reply, err := c.request(ctx, call)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return exitCode(err)
	}
	if reply.Usage != "" {
		fmt.Fprintln(stderr, "nvbridge:", reply.Usage)
		return 2
	}
	if ctx.Err() != nil {
		return 130
	}
	var out bytes.Buffer
	if err := json.Indent(&out, reply.Result, "", "  "); err != nil {
		fmt.Fprintln(stderr, "nvbridge: the daemon's result:", err)
		return 1
	}
	out.WriteByte('\n')
	if _, err := stdout.Write(out.Bytes()); err != nil {
		return 1
	}
	if reply.IsError {
		return 1
	}
	return 0
}

const daemonUsage = `usage: nvbridge [global flags] daemon status|stop

The warm nvbridge that 'nvbridge call' starts on demand, one per workspace
root, Neovim and flags (give the same global flags as to call):
  status  print the daemon's pid, root, Neovim, socket and calls as JSON
          (exit 1 when none runs)
  stop    stop it (and its embedded Neovim and servers); exit 0 when none runs
The socket is in $XDG_RUNTIME_DIR/nvbridge (else the user cache folder),
mode 0700; the daemon's log is next to it.
`

// runDaemon is `nvbridge daemon status|stop` and the internal
// `nvbridge daemon serve` that call starts.
func runDaemon(ctx context.Context, g globalFlags, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	g.register(fs)
	sock := fs.String("socket", "", "(serve) the socket to listen on")
	idle := fs.Duration("idle-timeout", defaultIdleTimeout, "(serve) exit after this long without calls")
	readyFD := fs.Int("ready-fd", 0, "(serve) file descriptor to write \"ok\" (or why not) to once serving")
	rest, code, ok := parseFlags(fs, args, daemonUsage, stdout, stderr)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		fmt.Fprint(stderr, daemonUsage)
		return 2
	}
	switch rest[0] {
	case "serve":
		if *sock == "" {
			fmt.Fprintln(stderr, "nvbridge daemon serve: --socket is required")
			return 2
		}
		var ready *os.File
		if *readyFD > 0 {
			// Not inherited by Neovim and the servers: the caller reads
			// until every copy of the pipe's write end is closed.
			syscall.CloseOnExec(*readyFD)
			ready = os.NewFile(uintptr(*readyFD), "ready")
		}
		return serveDaemon(ctx, g, *sock, *idle, ready, stderr)
	case "status", "stop":
		spot, err := locateDaemon(ctx, g)
		if err != nil {
			fmt.Fprintln(stderr, "nvbridge:", err)
			return 1
		}
		c, err := spot.dial(ctx)
		if err != nil {
			if rest[0] == "stop" {
				fmt.Fprintln(stderr, "nvbridge: no daemon runs for", spot.root)
				return 0
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(map[string]any{"running": false, "root": spot.root, "socket": spot.sock})
			return 1
		}
		defer c.conn.Close()
		reply, err := c.request(ctx, daemonRequest{Op: rest[0]})
		if err != nil {
			fmt.Fprintln(stderr, "nvbridge:", err)
			return 1
		}
		if rest[0] == "status" {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(reply.Status)
		}
		return 0
	}
	fmt.Fprint(stderr, daemonUsage)
	return 2
}

// daemon is a running `nvbridge daemon serve`.
type daemon struct {
	env    *tools.Env
	status daemonStatus
	idle   time.Duration
	ctx    context.Context // cancelled when the daemon stops
	logger *log.Logger
	// call runs one tool (callTool; a test replaces it to make a request
	// panic in the daemon itself).
	call func(ctx context.Context, env *tools.Env, name string, raw json.RawMessage) (*mcp.CallToolResult, error)

	mu      sync.Mutex
	active  int
	closing bool
	timer   *time.Timer
	calls   int64
	quit    chan string // why it stops; buffered
	stopped chan struct{}
	conns   sync.WaitGroup // connections being served
}

func serveDaemon(ctx context.Context, g globalFlags, sock string, idle time.Duration, ready *os.File, stderr io.Writer) int {
	tell := func(msg string) {
		if ready != nil {
			_, _ = io.WriteString(ready, msg)
			ready.Close()
			ready = nil
		}
	}
	defer tell("the daemon stopped before it was ready")
	logger, closeLog, err := openLog(g.logFile, stderr)
	if err != nil {
		tell(err.Error())
		return 1
	}
	defer closeLog()
	unix.Umask(0o077) // the socket (and logs) for this user only
	env, closeSession, err := connect(ctx, g, logger)
	if err != nil {
		tell(err.Error())
		logger.Print(err)
		return 1
	}
	var closeOnce sync.Once
	closeEnv := func() { closeOnce.Do(closeSession) }
	defer closeEnv()
	// In the user's Neovim the daemon is an agent like the others
	// (:NvbridgeStatus names it; nothing in embedded mode).
	if err := tools.AnnounceAgent(ctx, env, "nvbridge call daemon"); err != nil {
		logger.Printf("announce to Neovim: %v", err)
	}
	_ = os.Remove(sock) // stale: the starting call holds the lock
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		tell(err.Error())
		logger.Print(err)
		return 1
	}
	defer ln.Close()
	if err := os.Chmod(sock, 0o600); err != nil {
		tell(err.Error())
		return 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	nvimAddr := g.addr
	if nvimAddr == "" {
		nvimAddr = "embedded"
	}
	d := &daemon{env: env, idle: idle, ctx: ctx, logger: logger, call: callTool, quit: make(chan string, 1), stopped: make(chan struct{}),
		status: daemonStatus{Running: true, PID: os.Getpid(), Version: version, Root: env.Session.Root().Dir(), Nvim: nvimAddr,
			Socket: sock, IdleTimeout: idle.String(), Started: time.Now()}}
	// The call that started the daemon connects right after "ready"; on a
	// busy machine that may take longer than a short idle timeout.
	d.timer = time.AfterFunc(idle+startGrace, d.idleFire)
	safego.Go("the daemon's accept loop", func() { d.accept(ln) }, func(err error) { d.stop(err.Error()) })
	logger.Printf("daemon %d serving %s on %s (idle timeout %s)", os.Getpid(), d.status.Root, sock, idle)
	tell("ok")
	var why string
	select {
	case why = <-d.quit:
	case <-env.Session.Done():
		why = "Neovim closed the connection"
	case <-ctx.Done():
		why = "signalled"
	}
	logger.Printf("daemon stopping: %s", why)
	d.mu.Lock()
	d.closing = true
	d.mu.Unlock()
	ln.Close() // no new calls; removes the socket
	cancel()   // in-flight calls end
	closeEnv()
	close(d.stopped)
	// Let the connections answer (the stop request's reply; cancelled
	// calls' errors) before the process exits; bounded, as a safety net.
	served := make(chan struct{})
	safego.Go("waiting for the daemon's connections", func() { d.conns.Wait(); close(served) }, nil)
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		logger.Printf("daemon: connections still open at exit")
	}
	return 0
}

func (d *daemon) idleFire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.active > 0 || d.closing {
		return
	}
	d.closing = true
	d.stop("idle for " + d.idle.String())
}

func (d *daemon) stop(why string) {
	select {
	case d.quit <- why:
	default:
	}
}

func (d *daemon) accept(ln *net.UnixListener) {
	for {
		conn, err := ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				d.logger.Printf("accept: %v", err)
				d.stop("accept: " + err.Error())
			}
			return
		}
		d.mu.Lock()
		if d.closing {
			d.mu.Unlock()
			conn.Close() // no hello: the client starts a new daemon
			continue
		}
		d.active++
		d.timer.Stop()
		d.conns.Add(1)
		d.mu.Unlock()
		safego.Go("a daemon connection", func() {
			defer d.conns.Done()
			defer d.leave()
			d.handle(conn)
		}, nil)
	}
}

func (d *daemon) leave() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.active--
	if d.active == 0 && !d.closing {
		d.timer.Reset(d.idle)
	}
}

// handle serves one connection: hello, one request, one reply. A panic
// while serving it is logged and answered with OPERATION_FAILED (unless the
// reply was already sent); the daemon keeps serving other connections.
func (d *daemon) handle(conn *net.UnixConn) {
	call := memtrim.Begin()
	defer call.End() // deferred first: runs once the connection is closed
	defer conn.Close()
	if uid, pid, err := peerUID(conn); err != nil || uid != os.Getuid() {
		d.logger.Printf("refused a connection from uid %d pid %d (%v)", uid, pid, err)
		return
	}
	replied := false
	write := func(v any) {
		if _, ok := v.(daemonReply); ok {
			replied = true
		}
		b, _ := json.Marshal(v)
		_, _ = conn.Write(append(b, '\n'))
	}
	defer func() {
		if p := recover(); p != nil {
			e := safego.Error("a daemon request", p)
			if replied {
				return
			}
			out, err := structuredJSON(errorResult(e))
			if err != nil {
				write(daemonReply{Usage: e.Error()})
				return
			}
			write(daemonReply{Result: out, IsError: true})
		}
	}()
	write(daemonHello{Nvbridge: version, PID: os.Getpid()})
	r := bufio.NewReader(conn)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return
	}
	var req daemonRequest
	if err := json.Unmarshal(line, &req); err != nil {
		write(daemonReply{Usage: "bad request: " + err.Error()})
		return
	}
	switch req.Op {
	case "status":
		d.mu.Lock()
		st := d.status
		st.Calls = d.calls
		d.mu.Unlock()
		write(daemonReply{Status: &st})
	case "stop":
		d.stop("stopped by nvbridge daemon stop")
		<-d.stopped // Neovim and its servers are gone
		write(daemonReply{})
	case "call":
		d.mu.Lock()
		d.calls++
		d.mu.Unlock()
		ctx, cancel := context.WithCancel(d.ctx)
		defer cancel()
		safego.Go("watching a daemon client", func() {
			_, _ = r.ReadByte() // EOF: the client went away
			cancel()
		}, nil)
		modes, err := tools.NewModes(req.Mode, req.ReadOnly)
		if err != nil {
			write(daemonReply{Usage: "--mode: " + apierr.As(err).Message})
			return
		}
		// The daemon's Env is shared by every call: each call's modes go
		// on a copy of it.
		env := *d.env
		env.Modes = modes
		res, err := d.call(ctx, &env, req.Tool, req.Arguments)
		if err != nil {
			write(daemonReply{Usage: err.Error()})
			return
		}
		out, err := structuredJSON(res)
		if err != nil {
			write(daemonReply{Usage: err.Error()})
			return
		}
		write(daemonReply{Result: out, IsError: res.IsError})
	default:
		write(daemonReply{Usage: fmt.Sprintf("unknown op %q", req.Op)})
	}
}

// resolvedTools names the programs a daemon runs as PATH finds them
// (Neovim, every language server, go for gopls): part of its identity in
// place of PATH itself, so a shell whose PATH differs only in what the
// daemon never runs (a virtualenv, a shell's own folders) reaches the same
// daemon (nvbridge daemon stop, status, call).
func resolvedTools(nvimCmd string) string {
	names := []string{"nvim", "go"}
	if nvimCmd != "" {
		names[0] = nvimCmd
	}
	for _, spec := range lang.ServerSpecs() {
		if len(spec.Cmd) > 0 {
			names = append(names, spec.Cmd[0])
		}
	}
	var out []string
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			p = "-"
		}
		out = append(out, n+"="+p)
	}
	return strings.Join(out, "\x00")
}
