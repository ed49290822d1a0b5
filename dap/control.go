package dap

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	godap "github.com/google/go-dap"

	"github.com/nvbridge/nvbridge/apierr"
)

// Report says where a session is after a start or an execution control:
// where and why the program stopped (with the source around it), or that it
// ended (with its exit code), and the output since the agent's previous
// report (a step the person gives in Neovim leaves the output for the agent).
type Report struct {
	SessionID string `json:"session_id"`
	// Complete is false when the bound was hit before the program stopped
	// or ended: it is still running.
	Complete    bool   `json:"complete"`
	State       State  `json:"state"`
	Reason      string `json:"reason,omitempty"`
	Description string `json:"description,omitempty"`
	// Text is the adapter's short text of the stop (e.g. an exception's
	// type).
	Text     string    `json:"text,omitempty"`
	ThreadID int       `json:"thread_id,omitempty"`
	Location *Location `json:"location,omitempty"`
	// Stack is the stopped thread's innermost frames (at most 5).
	Stack           []Frame       `json:"stack,omitempty"`
	Output          []OutputChunk `json:"output"`
	OutputDropped   int           `json:"output_dropped_bytes,omitempty"`
	ExitCode        *int          `json:"exit_code,omitempty"`
	Note            string        `json:"note,omitempty"`
	LastAction      *Action       `json:"last_action,omitempty"`
	HitBreakpointID []int         `json:"hit_breakpoint_ids,omitempty"`
}

// Location is a place in the source.
type Location struct {
	// File is relative to the workspace root when inside it, else absolute.
	File     string       `json:"file"`
	Line     int          `json:"line"`
	Column   int          `json:"column,omitempty"`
	Function string       `json:"function,omitempty"`
	Outside  bool         `json:"outside_workspace,omitempty"`
	Source   []SourceLine `json:"source,omitempty"`
	abs      string
}

// SourceLine is one numbered source line; Current marks the stopped line.
type SourceLine struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty"`
}

// Frame is one stack frame.
type Frame struct {
	Index    int    `json:"index"`
	ID       int    `json:"id"`
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	abs      string
}

// Actions are the execution controls.
var Actions = []string{"continue", "step_over", "step_into", "step_out", "pause"}

// Control runs one execution control and waits (bounded by wait) for the
// next stop or the program's end. "continue" while the program runs only
// waits. by is "agent" or "user".
func (s *Session) Control(ctx context.Context, action string, threadID int, wait time.Duration, by string) (Report, error) {
	s.mu.Lock()
	state, stops, endErr := s.state, s.stops, s.endErr
	if threadID == 0 {
		threadID = s.threadID
	}
	s.mu.Unlock()
	if endErr != nil {
		return Report{}, endErr
	}
	if state.ended() {
		return Report{}, s.endedError()
	}
	if state == StateStarting {
		return Report{}, apierr.New(apierr.PreconditionFailed, "the session is still starting", "retry in a moment")
	}
	if threadID == 0 {
		t, err := s.firstThread(ctx)
		if err != nil {
			return Report{}, err
		}
		threadID = t
	}
	var req godap.RequestMessage
	switch action {
	case "continue":
		if state == StateRunning {
			req = nil // already running: just wait for the next stop
		} else {
			req = &godap.ContinueRequest{Request: godap.Request{Command: "continue"}, Arguments: godap.ContinueArguments{ThreadId: threadID}}
		}
	case "step_over", "step_into", "step_out":
		if state != StateStopped {
			return Report{}, apierr.Errorf(apierr.PreconditionFailed, "pause it first (control_execution pause), or wait with continue",
				"cannot %s: the program is running", action)
		}
		switch action {
		case "step_over":
			req = &godap.NextRequest{Request: godap.Request{Command: "next"}, Arguments: godap.NextArguments{ThreadId: threadID}}
		case "step_into":
			req = &godap.StepInRequest{Request: godap.Request{Command: "stepIn"}, Arguments: godap.StepInArguments{ThreadId: threadID}}
		default:
			req = &godap.StepOutRequest{Request: godap.Request{Command: "stepOut"}, Arguments: godap.StepOutArguments{ThreadId: threadID}}
		}
	case "pause":
		if state == StateStopped {
			r, err := s.report(ctx, true, by)
			r.Note = "the program was already stopped"
			return r, err
		}
		req = &godap.PauseRequest{Request: godap.Request{Command: "pause"}, Arguments: godap.PauseArguments{ThreadId: threadID}}
	default:
		return Report{}, apierr.Errorf(apierr.InvalidParameter, "use one of continue, step_over, step_into, step_out, pause", "unknown action %q", action)
	}
	s.mu.Lock()
	s.lastDone = &Action{Action: action, By: by}
	if req != nil && action != "pause" {
		s.state = StateRunning
		s.stopCache = nil
	}
	s.notifyLocked()
	s.mu.Unlock()
	if req != nil {
		if _, err := s.conn.request(ctx, req); err != nil {
			s.mu.Lock()
			if s.state == StateRunning && s.stops == stops {
				s.state = state // refused: still where it was
			}
			s.mu.Unlock()
			return Report{}, err
		}
	}
	complete, err := s.waitStop(ctx, stops, wait)
	if err != nil {
		return Report{}, err
	}
	r, err := s.report(ctx, complete, by)
	if err == nil && !complete {
		r.Note = fmt.Sprintf("still running after %s: call control_execution again (continue waits, pause stops it)", wait)
	}
	return r, err
}

func (s *Session) endedError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.endErr != nil {
		return s.endErr
	}
	msg := "the debug session " + s.ID + " has ended"
	if s.exitCode != nil {
		msg += fmt.Sprintf(" (the program exited with code %d)", *s.exitCode)
	}
	return apierr.New(apierr.PreconditionFailed, msg, "start a new one with start_debug_session; stop_debug_session forgets this one")
}

func (s *Session) firstThread(ctx context.Context) (int, error) {
	resp, err := s.conn.request(ctx, &godap.ThreadsRequest{Request: godap.Request{Command: "threads"}})
	if err != nil {
		return 0, err
	}
	threads := resp.(*godap.ThreadsResponse).Body.Threads
	if len(threads) == 0 {
		return 0, apierr.New(apierr.PreconditionFailed, "the program has no threads", "wait for it to start")
	}
	return threads[0].Id, nil
}

// report describes the session now. A crashed session is an error. The
// output collected so far goes to the agent's report only: the person's
// (by "user") is shown in Neovim, which has no place for it, and would
// otherwise take it from the agent.
func (s *Session) report(ctx context.Context, complete bool, by string) (Report, error) {
	takeOutput := func() ([]OutputChunk, int) {
		if by == "user" {
			return []OutputChunk{}, 0
		}
		return s.out.take()
	}
	s.mu.Lock()
	r := Report{SessionID: s.ID, Complete: complete, State: s.state, LastAction: s.lastDone}
	if s.endErr != nil {
		err := s.endErr
		out, dropped := takeOutput()
		s.mu.Unlock()
		return Report{}, err.WithDetails(map[string]any{"output": out, "output_dropped_bytes": dropped})
	}
	if s.state == StateStopped && s.stop != nil {
		r.Reason, r.Description, r.Text, r.ThreadID, r.HitBreakpointID = s.stop.Reason, s.stop.Description, s.stop.Text, s.threadID, s.stop.HitBreakpointIds
	}
	stopped := s.state == StateStopped
	threadID := s.threadID
	s.mu.Unlock()
	if stopped {
		frames, err := s.stackTrace(ctx, threadID, 5)
		if err != nil {
			return Report{}, err
		}
		r.Stack = frames
		if len(frames) > 0 {
			r.Location = s.locate(frames[0], 3)
		}
	}
	s.mu.Lock()
	if s.state.ended() {
		// Output events precede terminated; the exit code came with them.
		r.State = s.state
		r.ExitCode = s.exitCode
	}
	r.Output, r.OutputDropped = takeOutput()
	s.mu.Unlock()
	return r, nil
}

// stackTrace returns the innermost levels frames of a thread.
func (s *Session) stackTrace(ctx context.Context, threadID, levels int) ([]Frame, error) {
	resp, err := s.conn.request(ctx, &godap.StackTraceRequest{
		Request:   godap.Request{Command: "stackTrace"},
		Arguments: godap.StackTraceArguments{ThreadId: threadID, Levels: levels},
	})
	if err != nil {
		return nil, err
	}
	var out []Frame
	for i, f := range resp.(*godap.StackTraceResponse).Body.StackFrames {
		fr := Frame{Index: i, ID: f.Id, Function: f.Name, Line: f.Line}
		if f.Source != nil && f.Source.Path != "" {
			fr.abs = f.Source.Path
			fr.File = s.rel(f.Source.Path)
		}
		out = append(out, fr)
	}
	return out, nil
}

func (s *Session) rel(abs string) string {
	if s.root.Contains(abs) {
		return s.root.Rel(abs)
	}
	return filepath.ToSlash(abs)
}

// locate is a frame's place with context lines of source around it.
func (s *Session) locate(f Frame, context int) *Location {
	loc := &Location{File: f.File, Line: f.Line, Function: f.Function, abs: f.abs}
	if f.abs == "" {
		return loc
	}
	loc.Outside = !s.root.Contains(f.abs)
	loc.Source = sourceAround(f.abs, f.Line, context)
	return loc
}

// sourceAround reads lines line-context..line+context of a file.
func sourceAround(path string, line, context int) []SourceLine {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []SourceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n < line-context {
			continue
		}
		if n > line+context {
			break
		}
		out = append(out, SourceLine{Line: n, Text: sc.Text(), Current: n == line})
	}
	return out
}
