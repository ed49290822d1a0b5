package dap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	godap "github.com/google/go-dap"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/internal/tailbuf"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/workspace"
)

// State is where a debug session is.
type State string

const (
	StateStarting   State = "starting"
	StateRunning    State = "running"
	StateStopped    State = "stopped"
	StateTerminated State = "terminated" // the program ended or the session was stopped
	StateFailed     State = "failed"     // the adapter crashed or the launch failed
)

func (st State) ended() bool { return st == StateTerminated || st == StateFailed }

// Action is the last execution control, and who asked for it.
type Action struct {
	Action string `json:"action"`
	// By is "agent" (a tool) or "user" (:NvbridgeDebug in Neovim).
	By string `json:"by"`
}

// Session is one debug adapter and the program it debugs.
type Session struct {
	ID       string
	adapter  *Adapter
	root     workspace.Root
	spec     LaunchSpec
	program  string // as the caller named it, for results
	logf     func(string, ...any)
	onChange func()

	cmd      *exec.Cmd
	netConn  net.Conn
	conn     *conn
	stdout   *tailbuf.Buffer
	stderr   *tailbuf.Buffer
	tmp      string
	caps     godap.Capabilities
	exited   chan struct{} // closed when the adapter process has exited
	waitErr  error
	finished chan struct{} // closed when shutdown has completed

	initialized chan struct{}
	initOnce    sync.Once

	mu        sync.Mutex
	state     State
	changed   chan struct{}
	stops     int
	stop      *godap.StoppedEventBody
	threadID  int
	exitCode  *int
	endErr    *apierr.Error
	ending    bool // nvbridge ends it (stop, terminated): not a crash
	shutdown  bool
	out       outputLog
	bps       map[string][]Breakpoint // by absolute path
	procs     map[int]procStat
	debuggee  int
	lastDone  *Action
	stopCache *stopView // the display's view of the current stop
}

// Breakpoint is one breakpoint as the adapter reported it.
type Breakpoint struct {
	// Line is the line asked for; ActualLine where the adapter put it
	// (when it moved it).
	Line         int    `json:"line"`
	ActualLine   int    `json:"actual_line,omitempty"`
	Verified     bool   `json:"verified"`
	Message      string `json:"message,omitempty"`
	Condition    string `json:"condition,omitempty"`
	HitCondition string `json:"hit_condition,omitempty"`
	LogMessage   string `json:"log_message,omitempty"`
	ID           int    `json:"id,omitempty"`
}

// BreakpointSpec is a breakpoint to set.
type BreakpointSpec struct {
	Line         int
	Condition    string
	HitCondition string
	LogMessage   string
}

func newSession(id string, a *Adapter, root workspace.Root, spec LaunchSpec, program string, logf func(string, ...any), onChange func()) *Session {
	return &Session{
		ID: id, adapter: a, root: root, spec: spec, program: program, logf: logf, onChange: onChange,
		stdout: tailbuf.New(8192), stderr: tailbuf.New(8192),
		exited: make(chan struct{}), finished: make(chan struct{}), initialized: make(chan struct{}),
		state: StateStarting, changed: make(chan struct{}), bps: map[string][]Breakpoint{}, procs: map[int]procStat{},
		out: outputLog{max: 64 << 10}, // per report; older output is dropped and counted
	}
}

// spawn starts the adapter and connects to it.
func (s *Session) spawn(ctx context.Context) error {
	var argv []string
	for _, c := range s.adapter.Commands {
		if p, err := exec.LookPath(c[0]); err == nil {
			argv = c
			s.spec.Adapter = append([]string{p}, c[1:]...)
			break
		}
	}
	if argv == nil {
		return apierr.Errorf(apierr.PreconditionFailed, s.adapter.Install,
			"the %s debug adapter (%s) is not installed", s.adapter.Language, s.adapter.Name)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.root.Dir()
	// A process group of its own: ending the session ends the adapter and
	// whatever it started in that group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = s.stderr
	// The debuggee may inherit the adapter's stdout/stderr: do not wait for
	// it to close them after the adapter exits.
	cmd.WaitDelay = time.Second
	var r io.Reader
	var w io.WriteCloser
	addr := make(chan string, 1)
	switch s.adapter.Transport {
	case Stdio:
		var err error
		if w, err = cmd.StdinPipe(); err != nil {
			return err
		}
		if r, err = cmd.StdoutPipe(); err != nil {
			return err
		}
	case TCP:
		cmd.Stdout = &addrWatcher{tail: s.stdout, re: s.adapter.AddrPattern, found: addr}
	}
	if err := cmd.Start(); err != nil {
		return apierr.Errorf(apierr.PreconditionFailed, s.adapter.Install, "cannot start %s: %v", argv[0], err)
	}
	s.cmd = cmd
	safego.Go("waiting for the debug adapter", func() {
		defer close(s.exited)
		s.waitErr = cmd.Wait()
	}, nil)
	if s.adapter.Transport == TCP {
		var a string
		select {
		case a = <-addr:
		case <-s.exited:
			return s.startFailed("exited before listening")
		case <-ctx.Done():
			return apierr.Errorf(apierr.Timeout, "retry with a larger timeout_ms", "%s did not start listening in time", s.adapter.Name)
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", a)
		if err != nil {
			return apierr.Errorf(apierr.OperationFailed, "retry; check that loopback connections are allowed", "cannot connect to %s at %s: %v", s.adapter.Name, a, err)
		}
		s.netConn = c
		r, w = c, c
		// The connection outlives nothing: when the adapter exits, close it
		// so the read loop ends even if a child holds the socket.
		safego.Go("closing the debug adapter's connection", func() {
			<-s.exited
			c.Close()
		}, nil)
	}
	s.conn = newConn(r, w, s.onEvent, s.logf)
	conn := s.conn
	safego.Go("the debug adapter's read loop", func() { conn.serve(s.onConnEnd) }, nil)
	return nil
}

func (s *Session) startFailed(what string) error {
	<-s.exited
	msg := fmt.Sprintf("the debug adapter %s %s (%v)", s.adapter.Name, what, s.waitErr)
	if tail := strings.TrimSpace(s.stderr.String() + "\n" + s.stdout.String()); tail != "" {
		msg += "; it said: " + tail
	}
	return apierr.New(apierr.OperationFailed, msg, s.adapter.Install)
}

// launch runs the DAP start-up: initialize, launch, the initial
// breakpoints and configurationDone, as the protocol orders them.
func (s *Session) launch(ctx context.Context, initial map[string][]BreakpointSpec) (map[string][]Breakpoint, error) {
	resp, err := s.conn.request(ctx, &godap.InitializeRequest{
		Request: godap.Request{Command: "initialize"},
		Arguments: godap.InitializeRequestArguments{
			ClientID: "nvbridge", ClientName: "nvbridge", AdapterID: s.adapter.Name,
			LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path", SupportsVariableType: true,
		},
	})
	if err != nil {
		return nil, err
	}
	if ir, ok := resp.(*godap.InitializeResponse); ok {
		s.mu.Lock()
		s.caps = ir.Body
		s.mu.Unlock()
	}
	args, err := jsonRaw(s.adapter.Launch(s.spec))
	if err != nil {
		return nil, err
	}
	// The launch response may come before or after initialized (debugpy
	// answers it only after configurationDone): send it concurrently.
	launched := make(chan error, 1)
	safego.Go("the DAP launch request", func() {
		_, err := s.conn.request(ctx, &godap.LaunchRequest{Request: godap.Request{Command: "launch"}, Arguments: args})
		launched <- err
	}, func(err error) { launched <- err })
	var launchErr error
	launchDone := false
	select {
	case <-s.initialized:
	case launchErr = <-launched:
		launchDone = true
		if launchErr != nil {
			return nil, launchErr
		}
		select {
		case <-s.initialized:
		case <-ctx.Done():
			return nil, apierr.Errorf(apierr.Timeout, "retry with a larger timeout_ms", "%s did not send initialized in time", s.adapter.Name)
		}
	case <-ctx.Done():
		return nil, apierr.Errorf(apierr.Timeout, "retry with a larger timeout_ms (dlv builds the program first)", "%s did not initialize in time", s.adapter.Name)
	}
	set := map[string][]Breakpoint{}
	for file, specs := range initial {
		got, err := s.setBreakpoints(ctx, file, specs)
		if err != nil {
			return nil, err
		}
		set[file] = got
	}
	if len(s.adapter.ExceptionFilters) > 0 {
		if _, err := s.conn.request(ctx, &godap.SetExceptionBreakpointsRequest{
			Request:   godap.Request{Command: "setExceptionBreakpoints"},
			Arguments: godap.SetExceptionBreakpointsArguments{Filters: s.adapter.ExceptionFilters},
		}); err != nil {
			return nil, err
		}
	}
	if caps := s.capabilities(); caps.SupportsConfigurationDoneRequest {
		if _, err := s.conn.request(ctx, &godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}); err != nil {
			return nil, err
		}
	}
	if !launchDone {
		select {
		case launchErr = <-launched:
		case <-ctx.Done():
			return nil, apierr.Errorf(apierr.Timeout, "retry with a larger timeout_ms", "%s did not answer launch in time", s.adapter.Name)
		}
		if launchErr != nil {
			return nil, launchErr
		}
	}
	s.mu.Lock()
	if s.state == StateStarting {
		s.state = StateRunning
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.recordProcs()
	return set, nil
}

func (s *Session) capabilities() godap.Capabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// onEvent handles one event on the read loop: it only records state.
func (s *Session) onEvent(ev godap.EventMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e := ev.(type) {
	case *godap.InitializedEvent:
		s.initOnce.Do(func() { close(s.initialized) })
	case *godap.StoppedEvent:
		if s.state.ended() {
			return
		}
		body := e.Body
		s.state, s.stop = StateStopped, &body
		s.stops++
		s.stopCache = nil
		if body.ThreadId != 0 {
			s.threadID = body.ThreadId
		}
		safego.Go("recording the debuggee's processes", s.recordProcs, nil)
	case *godap.ContinuedEvent:
		if s.state == StateStopped {
			s.state = StateRunning
		}
	case *godap.ExitedEvent:
		code := e.Body.ExitCode
		s.exitCode = &code
	case *godap.TerminatedEvent:
		if !s.state.ended() {
			s.state = StateTerminated
			s.ending = true
			safego.Go("ending a terminated debug session", func() { s.end(3 * time.Second) }, nil)
		}
	case *godap.OutputEvent:
		if e.Body.Category == "telemetry" {
			return
		}
		s.out.add(e.Body.Category, e.Body.Output)
		// dlv reports the exit status only as console output.
		if m := exitLine.FindStringSubmatch(e.Body.Output); m != nil && s.exitCode == nil {
			if code, err := strconv.Atoi(m[1]); err == nil {
				s.exitCode = &code
			}
		}
	case *godap.BreakpointEvent:
		b := e.Body.Breakpoint
		for file, list := range s.bps {
			for i := range list {
				if b.Id != 0 && list[i].ID == b.Id {
					list[i].Verified, list[i].Message = b.Verified, b.Message
					if b.Line != 0 && b.Line != list[i].Line {
						list[i].ActualLine = b.Line
					}
					s.bps[file] = list
				}
			}
		}
	case *godap.ProcessEvent:
		if e.Body.SystemProcessId > 0 {
			s.debuggee = e.Body.SystemProcessId
			if st, ok := readStat(e.Body.SystemProcessId); ok {
				s.procs[st.pid] = st
			}
		}
	default:
		return
	}
	s.notifyLocked()
}

var exitLine = regexp.MustCompile(`Process \d+ has exited with status (-?\d+)`)

// notifyLocked wakes every waiter and the display.
func (s *Session) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
	if s.onChange != nil {
		s.onChange()
	}
}

// recordProcs remembers the adapter's descendants (the debuggee among
// them) so they can be ended even after the adapter is gone.
func (s *Session) recordProcs() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	found := descendants(s.cmd.Process.Pid)
	s.mu.Lock()
	for _, st := range found {
		s.procs[st.pid] = st
	}
	s.mu.Unlock()
}

// onConnEnd runs when the adapter's stream ends; unless nvbridge was ending
// the session, the adapter crashed or quit: the session fails with a clear
// error and everything it started is ended.
func (s *Session) onConnEnd(readErr error) error {
	s.mu.Lock()
	ending := s.ending
	s.mu.Unlock()
	if ending {
		return apierr.New(apierr.PreconditionFailed, "the debug session has ended", "start a new one with start_debug_session")
	}
	var failed *apierr.Error
	panicked := errors.As(readErr, &failed) // the read loop recovered a panic
	if !panicked {
		select {
		case <-s.exited:
		case <-time.After(3 * time.Second):
		}
	}
	why := "closed its connection"
	if panicked {
		why = "sent a message nvbridge failed on (" + failed.Message + ")"
	} else {
		select {
		case <-s.exited:
			if s.waitErr != nil {
				why = "exited unexpectedly (" + s.waitErr.Error() + ")"
			} else {
				why = "exited unexpectedly (exit status 0)"
			}
		default:
			if readErr != nil && !errors.Is(readErr, io.EOF) {
				why += " (" + readErr.Error() + ")"
			}
		}
	}
	msg := fmt.Sprintf("the debug adapter %s %s; the debug session %s has ended and its program was stopped", s.adapter.Name, why, s.ID)
	if tail := strings.TrimSpace(s.stderr.String()); tail != "" {
		msg += "; the adapter's last words: " + lastLines(tail, 5)
	}
	err := apierr.New(apierr.OperationFailed, msg, "start a new debug session with start_debug_session")
	s.mu.Lock()
	s.ending = true
	s.mu.Unlock()
	// The program is ended before anyone is told the session failed:
	// whoever sees the error may check that nothing is left.
	s.cleanup()
	s.mu.Lock()
	s.endErr = err
	s.state = StateFailed
	s.notifyLocked()
	s.mu.Unlock()
	return err
}

// end stops the session: disconnect (terminating the debuggee), wait for
// the adapter to exit, then end what survives. Safe to call more than once
// and concurrently; every call returns when the session is over.
func (s *Session) end(bound time.Duration) {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		<-s.finished
		return
	}
	s.shutdown, s.ending = true, true
	failed := s.state == StateFailed
	s.mu.Unlock()
	defer close(s.finished)
	if s.cmd == nil {
		return
	}
	s.recordProcs()
	if !failed && s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		_, _ = s.conn.request(ctx, &godap.DisconnectRequest{
			Request:   godap.Request{Command: "disconnect"},
			Arguments: &godap.DisconnectArguments{TerminateDebuggee: true},
		})
		cancel()
		select {
		case <-s.exited:
		case <-time.After(bound):
		}
	}
	s.cleanup()
	s.mu.Lock()
	if !s.state.ended() {
		s.state = StateTerminated
	}
	s.notifyLocked()
	s.mu.Unlock()
}

// cleanup ends the adapter's process group and every recorded descendant.
func (s *Session) cleanup() {
	if s.cmd != nil && s.cmd.Process != nil {
		nvim.EndProcessGroup(s.cmd.Process.Pid, 500*time.Millisecond)
	}
	s.mu.Lock()
	procs := make([]procStat, 0, len(s.procs))
	for _, st := range s.procs {
		procs = append(procs, st)
	}
	s.mu.Unlock()
	endProcesses(procs, 3*time.Second)
	if s.netConn != nil {
		s.netConn.Close()
	}
	if s.cmd != nil {
		select {
		case <-s.exited:
		case <-time.After(2 * time.Second):
		}
	}
	if s.tmp != "" {
		_ = os.RemoveAll(s.tmp)
	}
}

// setBreakpoints replaces the breakpoints of one file (absolute path).
func (s *Session) setBreakpoints(ctx context.Context, file string, specs []BreakpointSpec) ([]Breakpoint, error) {
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	src := make([]godap.SourceBreakpoint, len(specs))
	for i, b := range specs {
		if b.Line < 1 {
			return nil, apierr.Errorf(apierr.InvalidParameter, "lines are 1-based", "breakpoint line %d is not a line", b.Line)
		}
		if b.Condition != "" && !caps.SupportsConditionalBreakpoints {
			return nil, apierr.Errorf(apierr.Unsupported, "drop the condition", "%s does not support conditional breakpoints", s.adapter.Name)
		}
		if b.HitCondition != "" && !caps.SupportsHitConditionalBreakpoints {
			return nil, apierr.Errorf(apierr.Unsupported, "drop hit_condition", "%s does not support hit conditions", s.adapter.Name)
		}
		if b.LogMessage != "" && !caps.SupportsLogPoints {
			return nil, apierr.Errorf(apierr.Unsupported, "drop log_message", "%s does not support log points", s.adapter.Name)
		}
		src[i] = godap.SourceBreakpoint{Line: b.Line, Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage}
	}
	resp, err := s.conn.request(ctx, &godap.SetBreakpointsRequest{
		Request:   godap.Request{Command: "setBreakpoints"},
		Arguments: godap.SetBreakpointsArguments{Source: godap.Source{Path: file}, Breakpoints: src},
	})
	if err != nil {
		return nil, err
	}
	body := resp.(*godap.SetBreakpointsResponse).Body
	out := make([]Breakpoint, len(specs))
	for i, b := range specs {
		out[i] = Breakpoint{Line: b.Line, Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage}
		if i < len(body.Breakpoints) {
			got := body.Breakpoints[i]
			out[i].ID, out[i].Verified, out[i].Message = got.Id, got.Verified, got.Message
			if got.Line != 0 && got.Line != b.Line {
				out[i].ActualLine = got.Line
			}
		} else {
			out[i].Message = "the adapter did not report this breakpoint"
		}
	}
	s.mu.Lock()
	if len(out) == 0 {
		delete(s.bps, file)
	} else {
		s.bps[file] = out
	}
	s.notifyLocked()
	s.mu.Unlock()
	return append([]Breakpoint(nil), out...), nil
}

// waitStop waits for a stop after the after-th one, or for the session's
// end; it first checks whether that already happened, then waits on the
// adapter's events. Hitting the bound returns complete=false.
func (s *Session) waitStop(ctx context.Context, after int, bound time.Duration) (bool, error) {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if s.stops > after || s.state.ended() {
			s.mu.Unlock()
			return true, nil
		}
		ch := s.changed
		state := s.state
		s.mu.Unlock()
		progress.Report(ctx, 0, 0, fmt.Sprintf("waiting for the program to stop (%s; bounded by %s)", state, bound))
		select {
		case <-ch:
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, apierr.FromContext(ctx, "the wait for the program to stop", "call get_debug_session_info to see where the program is")
		}
	}
}

// jsonRaw marshals a launch configuration.
func jsonRaw(v any) ([]byte, error) { return marshal(v) }

// addrWatcher is the adapter's stdout: it keeps a tail and reports the
// first listen address it prints.
type addrWatcher struct {
	mu    sync.Mutex
	tail  *tailbuf.Buffer
	re    *regexp.Regexp
	found chan string
	sent  bool
	line  []byte
}

func (a *addrWatcher) Write(p []byte) (int, error) {
	a.tail.Write(p)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sent {
		return len(p), nil
	}
	a.line = append(a.line, p...)
	if m := a.re.FindSubmatch(a.line); m != nil {
		a.sent = true
		a.found <- string(m[1])
		a.line = nil
	}
	if len(a.line) > 4096 {
		a.line = a.line[len(a.line)-4096:]
	}
	return len(p), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
