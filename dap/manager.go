// Package dap debugs programs through debug adapters (DAP): dlv for Go,
// debugpy for Python. A Manager holds the sessions, addressed by id; each
// Session owns one adapter process (in a process group of its own) and the
// program it debugs, records the adapter's events (stops, output, exit) and
// answers the tools' requests. Waits for a stop are driven by the adapter's
// stopped/terminated events, bounded, and report complete=false when the
// bound is hit. What a session does is shown in Neovim (display.go).
package dap

import (
	"context"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/workspace"
)

// launchTimeout bounds starting an adapter and launching the program.
const launchTimeout = 5 * time.Minute

// Manager holds the debug sessions of one nvbridge.
type Manager struct {
	root    workspace.Root
	logf    func(string, ...any)
	display *Display

	mu       sync.Mutex
	sessions map[string]*Session
	next     int
	closed   bool
}

// NewManager returns a manager for the workspace root; display may be nil
// (no Neovim to show sessions in).
func NewManager(root workspace.Root, display *Display, logf func(string, ...any)) *Manager {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	m := &Manager{root: root, logf: logf, display: display, sessions: map[string]*Session{}}
	if display != nil {
		display.attach(m)
	}
	return m
}

// StartRequest is what start_debug_session asks for. Paths are relative to
// the workspace root (or absolute inside it).
type StartRequest struct {
	// Program is the file or package folder to run; with Test, the package
	// folder (Go) or test file/folder (Python).
	Program     string
	Test        string
	Language    string
	Args        []string
	Env         map[string]string
	Cwd         string
	StopOnEntry bool
	// Breakpoints by file, set before the program runs.
	Breakpoints map[string][]BreakpointSpec
	// Wait bounds the wait for the first stop (or the end).
	Wait time.Duration
	By   string
	// Confirm, when set, is asked before anything starts, with what would
	// run (confirm.go); an error (the user's REJECTED) starts nothing.
	Confirm func(context.Context, Run) error
}

// StartResult is the new session and where it first stopped.
type StartResult struct {
	Report
	Language    string            `json:"language"`
	Adapter     string            `json:"adapter"`
	Breakpoints []FileBreakpoints `json:"breakpoints,omitempty"`
	// Launch is the launch request's arguments nvbridge sent.
	Launch map[string]any `json:"launch"`
}

// FileBreakpoints are the breakpoints of one file.
type FileBreakpoints struct {
	File        string       `json:"file"`
	Breakpoints []Breakpoint `json:"breakpoints"`
}

// Start launches a program or a test under its language's adapter, sets
// the initial breakpoints and waits (bounded) for the first stop or the end.
func (m *Manager) Start(ctx context.Context, req StartRequest) (StartResult, error) {
	if req.Program == "" && req.Test == "" {
		return StartResult{}, apierr.New(apierr.InvalidParameter, "neither program nor test is given",
			`pass program (a file or package folder, e.g. "main.go" or "./cmd/app") or test (a test name, with program naming its package or file)`)
	}
	spec := LaunchSpec{Test: req.Test, Args: req.Args, Env: req.Env, StopOnEntry: req.StopOnEntry}
	target := req.Program
	if target == "" {
		target = "."
	}
	abs, err := m.root.Resolve(target)
	if err != nil {
		return StartResult{}, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return StartResult{}, apierr.Errorf(apierr.ResourceNotFound, "check the path (relative to the workspace root)", "%s does not exist", target)
	}
	spec.Program, spec.ProgramDir = abs, info.IsDir()
	language := req.Language
	if language == "" {
		language = languageOf(abs, info.IsDir())
	}
	adapter := adapterFor(language)
	if adapter == nil {
		if language == "" {
			return StartResult{}, apierr.Errorf(apierr.InvalidParameter, "pass language (one of "+strings.Join(Languages(), ", ")+")",
				"cannot tell the language of %s", target)
		}
		return StartResult{}, apierr.Errorf(apierr.Unsupported, "debugging is available for "+languagesText(" and "),
			"no debug adapter for %s", language)
	}
	if adapter.TestFromCwd && req.Program == "" {
		spec.Program = "" // pytest collects from the working directory
	}
	if req.Cwd != "" {
		if spec.Cwd, err = m.root.Resolve(req.Cwd); err != nil {
			return StartResult{}, err
		}
	} else if req.Test != "" {
		spec.Cwd = lang.DirOf(abs, info.IsDir())
	} else {
		spec.Cwd = m.root.Dir()
	}
	initial := map[string][]BreakpointSpec{}
	for file, bps := range req.Breakpoints {
		p, err := m.resolveFile(file)
		if err != nil {
			return StartResult{}, err
		}
		initial[p] = append(initial[p], bps...)
	}
	if req.Confirm != nil {
		if err := req.Confirm(ctx, describeRun(m.root, adapter, spec)); err != nil {
			return StartResult{}, err
		}
	}
	if spec.TempDir, err = os.MkdirTemp("", "nvbridge-dap-"); err != nil {
		return StartResult{}, err
	}

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		os.RemoveAll(spec.TempDir)
		return StartResult{}, apierr.New(apierr.PreconditionFailed, "nvbridge is shutting down", "")
	}
	m.next++
	id := strconv.Itoa(m.next)
	s := newSession(id, adapter, m.root, spec, target, m.logf, m.changed)
	s.tmp = spec.TempDir
	if req.Test != "" {
		s.program = req.Test
	}
	m.sessions[id] = s
	m.mu.Unlock()

	fail := func(err error) (StartResult, error) {
		s.end(2 * time.Second)
		m.mu.Lock()
		delete(m.sessions, id)
		m.mu.Unlock()
		m.changed()
		return StartResult{}, err
	}
	// Starting is bounded even when the caller's context is not (dlv builds
	// the program during launch: minutes for a large one).
	launchCtx, cancel := context.WithTimeout(ctx, launchTimeout)
	defer cancel()
	if err := s.spawn(launchCtx); err != nil {
		return fail(err)
	}
	set, err := s.launch(launchCtx, initial)
	if err != nil {
		s.mu.Lock()
		if s.endErr != nil {
			err = s.endErr
		}
		s.mu.Unlock()
		e := *apierr.As(err)
		// dlv reports a build error's text as console output.
		s.mu.Lock()
		out, _ := s.out.take()
		s.mu.Unlock()
		var said strings.Builder
		for _, c := range out {
			said.WriteString(c.Text)
		}
		if text := strings.TrimSpace(said.String()); text != "" {
			e.Message += "\n" + lastLines(text, 20)
		}
		return fail(e.WithDetails(map[string]any{"adapter_output": lastLines(s.stderr.String()+s.stdout.String(), 20)}))
	}
	s.mu.Lock()
	s.lastDone = &Action{Action: "start", By: req.By}
	s.mu.Unlock()
	res := StartResult{Language: adapter.Language, Adapter: adapter.Name, Launch: adapter.Launch(spec)}
	for file, bps := range set {
		res.Breakpoints = append(res.Breakpoints, FileBreakpoints{File: m.root.Rel(file), Breakpoints: bps})
	}
	sort.Slice(res.Breakpoints, func(i, j int) bool { return res.Breakpoints[i].File < res.Breakpoints[j].File })
	complete, err := s.waitStop(ctx, 0, req.Wait)
	if err != nil {
		return StartResult{}, err
	}
	r, err := s.report(ctx, complete, "agent")
	if err != nil {
		return StartResult{}, err
	}
	if !complete {
		r.Note = "the program is running (no stop yet): control_execution continue waits for the next stop, pause stops it"
	}
	res.Report = r
	m.refresh(ctx)
	return res, nil
}

// resolveFile confines a breakpoint's file to the workspace; it must exist.
func (m *Manager) resolveFile(file string) (string, error) {
	p, err := m.root.Resolve(file)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(p)
	if err != nil || info.IsDir() {
		return "", apierr.Errorf(apierr.ResourceNotFound, "pass a source file relative to the workspace root", "%s is not a file", file)
	}
	return p, nil
}

// Get returns a session by id; "" means the only one.
func (m *Manager) Get(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id != "" {
		s := m.sessions[id]
		if s == nil {
			return nil, apierr.Errorf(apierr.ResourceNotFound, "get_debug_session_info lists the sessions", "no debug session %q", id).
				WithDetails(map[string]any{"sessions": m.idsLocked()})
		}
		return s, nil
	}
	switch len(m.sessions) {
	case 0:
		return nil, apierr.New(apierr.ResourceNotFound, "there is no debug session", "start one with start_debug_session")
	case 1:
		for _, s := range m.sessions {
			return s, nil
		}
	}
	return nil, apierr.New(apierr.Ambiguous, "there are several debug sessions", "pass session_id (get_debug_session_info lists them)").
		WithDetails(map[string]any{"sessions": m.idsLocked()})
}

func (m *Manager) idsLocked() []string {
	ids := make([]string, 0, len(m.sessions))
	for id := range m.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return lessID(ids[i], ids[j]) })
	return ids
}

func lessID(a, b string) bool {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	return x < y
}

// BreakpointsResult is one file's breakpoints in a session.
type BreakpointsResult struct {
	SessionID string `json:"session_id"`
	FileBreakpoints
}

// SetBreakpoints replaces one file's breakpoints in a session.
func (m *Manager) SetBreakpoints(ctx context.Context, id, file string, specs []BreakpointSpec) (BreakpointsResult, error) {
	s, err := m.Get(id)
	if err != nil {
		return BreakpointsResult{}, err
	}
	p, err := m.resolveFile(file)
	if err != nil {
		return BreakpointsResult{}, err
	}
	s.mu.Lock()
	state, endErr := s.state, s.endErr
	s.mu.Unlock()
	if endErr != nil {
		return BreakpointsResult{}, endErr
	}
	if state.ended() {
		return BreakpointsResult{}, s.endedError()
	}
	bps, err := s.setBreakpoints(ctx, p, specs)
	if err != nil {
		return BreakpointsResult{}, err
	}
	m.refresh(ctx)
	return BreakpointsResult{SessionID: s.ID, FileBreakpoints: FileBreakpoints{File: m.root.Rel(p), Breakpoints: bps}}, nil
}

// Control runs an execution control in a session.
func (m *Manager) Control(ctx context.Context, id, action string, threadID int, wait time.Duration, by string) (Report, error) {
	s, err := m.Get(id)
	if err != nil {
		return Report{}, err
	}
	r, err := s.Control(ctx, action, threadID, wait, by)
	m.refresh(ctx)
	return r, err
}

// Inspect reads a stopped session's state.
func (m *Manager) Inspect(ctx context.Context, id string, req InspectRequest) (Inspection, error) {
	s, err := m.Get(id)
	if err != nil {
		return Inspection{}, err
	}
	return s.Inspect(ctx, req)
}

// Info describes a session.
type Info struct {
	SessionID   string            `json:"session_id"`
	Language    string            `json:"language"`
	Adapter     string            `json:"adapter"`
	Program     string            `json:"program"`
	State       State             `json:"state"`
	Reason      string            `json:"reason,omitempty"`
	Location    *Location         `json:"location,omitempty"`
	Breakpoints []FileBreakpoints `json:"breakpoints"`
	ExitCode    *int              `json:"exit_code,omitempty"`
	Error       *apierr.Error     `json:"error,omitempty"`
	LastAction  *Action           `json:"last_action,omitempty"`
	AdapterPID  int               `json:"adapter_pid,omitempty"`
	// ProgramPIDs are the processes the adapter started (the debuggee).
	ProgramPIDs   []int    `json:"program_pids,omitempty"`
	PendingOutput int      `json:"pending_output_bytes"`
	Capabilities  []string `json:"capabilities"`
}

// Infos describes the sessions (one when id is set).
func (m *Manager) Infos(ctx context.Context, id string) ([]Info, error) {
	var list []*Session
	if id != "" {
		s, err := m.Get(id)
		if err != nil {
			return nil, err
		}
		list = []*Session{s}
	} else {
		m.mu.Lock()
		for _, sid := range m.idsLocked() {
			list = append(list, m.sessions[sid])
		}
		m.mu.Unlock()
	}
	out := make([]Info, 0, len(list))
	for _, s := range list {
		out = append(out, s.info(ctx))
	}
	return out, nil
}

func (s *Session) info(ctx context.Context) Info {
	s.mu.Lock()
	in := Info{
		SessionID: s.ID, Language: s.adapter.Language, Adapter: s.adapter.Name, Program: s.program,
		State: s.state, ExitCode: s.exitCode, Error: s.endErr, LastAction: s.lastDone,
		PendingOutput: s.out.size, Breakpoints: []FileBreakpoints{}, Capabilities: s.capabilityNames(),
	}
	if s.cmd != nil && s.cmd.Process != nil {
		in.AdapterPID = s.cmd.Process.Pid
	}
	for _, st := range s.procs {
		if alive(st) {
			in.ProgramPIDs = append(in.ProgramPIDs, st.pid)
		}
	}
	sort.Ints(in.ProgramPIDs)
	var files []string
	for f := range s.bps {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		in.Breakpoints = append(in.Breakpoints, FileBreakpoints{File: s.rel(f), Breakpoints: append([]Breakpoint(nil), s.bps[f]...)})
	}
	stopped, threadID := s.state == StateStopped, s.threadID
	if stopped && s.stop != nil {
		in.Reason = s.stop.Reason
	}
	s.mu.Unlock()
	if stopped {
		if frames, err := s.stackTrace(ctx, threadID, 1); err == nil && len(frames) > 0 {
			in.Location = s.locate(frames[0], 0)
		}
	}
	return in
}

func (s *Session) capabilityNames() []string {
	c := s.caps
	out := []string{}
	for _, x := range []struct {
		ok   bool
		name string
	}{
		{c.SupportsConditionalBreakpoints, "conditional_breakpoints"},
		{c.SupportsHitConditionalBreakpoints, "hit_conditions"},
		{c.SupportsLogPoints, "log_points"},
		{c.SupportsFunctionBreakpoints, "function_breakpoints"},
		{c.SupportsSetVariable, "set_variable"},
	} {
		if x.ok {
			out = append(out, x.name)
		}
	}
	return out
}

// StopResult is what a stopped session leaves behind.
type StopResult struct {
	SessionID     string        `json:"session_id"`
	State         State         `json:"state"`
	ExitCode      *int          `json:"exit_code,omitempty"`
	Output        []OutputChunk `json:"output"`
	OutputDropped int           `json:"output_dropped_bytes,omitempty"`
	Error         *apierr.Error `json:"error,omitempty"`
	// Remaining counts the processes of the session still alive afterwards
	// (0 unless something refused to die).
	Remaining int `json:"remaining_processes"`
}

// Stop ends a session (terminating its program) and forgets it.
func (m *Manager) Stop(ctx context.Context, id string) (StopResult, error) {
	s, err := m.Get(id)
	if err != nil {
		return StopResult{}, err
	}
	s.end(3 * time.Second)
	m.mu.Lock()
	delete(m.sessions, s.ID)
	m.mu.Unlock()
	s.mu.Lock()
	r := StopResult{SessionID: s.ID, State: s.state, ExitCode: s.exitCode, Error: s.endErr}
	r.Output, r.OutputDropped = s.out.take()
	for _, st := range s.procs {
		if alive(st) {
			r.Remaining++
		}
	}
	s.mu.Unlock()
	m.refresh(ctx)
	return r, nil
}

// Close ends every session (nvbridge is exiting): no adapter or program
// outlives it.
func (m *Manager) Close() {
	m.forgetWatchers()
	m.mu.Lock()
	m.closed = true
	list := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		list = append(list, s)
	}
	m.sessions = map[string]*Session{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Add(1)
		safego.Go("ending a debug session", func() {
			defer wg.Done()
			s.end(2 * time.Second)
		}, nil)
	}
	wg.Wait()
	if m.display != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		m.display.clear(ctx)
		cancel()
	}
}

// changed is called (under a session's lock) whenever a session changes.
func (m *Manager) changed() {
	if m.display != nil {
		m.display.poke()
	}
	m.notifyWatchers()
}

// refresh brings Neovim's display up to date before a tool returns.
func (m *Manager) refresh(ctx context.Context) {
	if m.display != nil {
		// A busy Neovim (the user's, in a prompt) must not hold the tool.
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		m.display.sync(ctx)
	}
}

// sessionList returns the sessions in id order.
func (m *Manager) sessionList() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Session, 0, len(m.sessions))
	for _, id := range m.idsLocked() {
		out = append(out, m.sessions[id])
	}
	return out
}

// Await waits until cond holds for a session's info: it checks first, then
// again after each change of the session (an adapter event, a control),
// bounded by ctx. It is how a caller waits for what someone else does, e.g.
// a control given from Neovim (:NvbridgeDebug).
func (m *Manager) Await(ctx context.Context, id string, cond func(Info) bool) (Info, error) {
	s, err := m.Get(id)
	if err != nil {
		return Info{}, err
	}
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		info := s.info(ctx)
		if cond(info) {
			return info, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return info, apierr.New(apierr.Timeout, "the awaited session state did not come", "check get_debug_session_info")
		}
	}
}
