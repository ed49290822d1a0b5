package dap

import (
	"context"

	godap "github.com/google/go-dap"

	"github.com/nvbridge/nvbridge/apierr"
)

// Bounds on what inspect_state returns.
const (
	maxDepth       = 4
	maxChildren    = 25  // children listed per variable
	maxNodes       = 400 // variables listed in one inspection
	maxValueLength = 300 // characters of one value
	maxStackFrames = 30
)

// InspectRequest selects what to inspect.
type InspectRequest struct {
	ThreadID int
	// Frame is an index into the stack (0 = innermost).
	Frame int
	// Expression, when set, is evaluated in that frame.
	Expression string
	// Depth is how many levels below each variable are expanded (default 1).
	Depth int
}

// Inspection is the state of a stopped program.
type Inspection struct {
	SessionID string      `json:"session_id"`
	State     State       `json:"state"`
	ThreadID  int         `json:"thread_id"`
	Threads   []Thread    `json:"threads"`
	Stack     []Frame     `json:"stack"`
	Frame     int         `json:"frame"`
	Location  *Location   `json:"location,omitempty"`
	Scopes    []ScopeView `json:"scopes"`
	Evaluated *Evaluation `json:"evaluated,omitempty"`
	// Complete is false when a bound (depth, children, total variables)
	// cut the listing; "more" on a variable counts what was left out.
	Complete bool `json:"complete"`
}

// Thread is one thread of the program.
type Thread struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// ScopeView is one scope (locals, arguments...) of the frame.
type ScopeView struct {
	Name      string     `json:"name"`
	Expanded  bool       `json:"expanded"`
	Variables []Variable `json:"variables,omitempty"`
	More      int        `json:"more,omitempty"`
}

// Variable is a variable (or a field, an element) with its children
// expanded to the requested depth.
type Variable struct {
	Name     string     `json:"name"`
	Value    string     `json:"value"`
	Type     string     `json:"type,omitempty"`
	Children []Variable `json:"children,omitempty"`
	// More counts children not listed (bound reached); Expandable says the
	// variable has children below the requested depth.
	More       int  `json:"more,omitempty"`
	Expandable bool `json:"expandable,omitempty"`
}

// Evaluation is an expression's value.
type Evaluation struct {
	Expression string     `json:"expression"`
	Result     string     `json:"result"`
	Type       string     `json:"type,omitempty"`
	Children   []Variable `json:"children,omitempty"`
	More       int        `json:"more,omitempty"`
	Expandable bool       `json:"expandable,omitempty"`
}

// Inspect reads threads, the stack, the selected frame's scopes (expanded)
// and evaluates an expression; the program must be stopped.
func (s *Session) Inspect(ctx context.Context, req InspectRequest) (Inspection, error) {
	s.mu.Lock()
	state, threadID, endErr := s.state, s.threadID, s.endErr
	s.mu.Unlock()
	if endErr != nil {
		return Inspection{}, endErr
	}
	if state.ended() {
		return Inspection{}, s.endedError()
	}
	if state != StateStopped {
		return Inspection{}, apierr.Errorf(apierr.PreconditionFailed, "stop it first: control_execution pause (or wait for a breakpoint with continue)",
			"the program is %s: its state can be inspected only while it is stopped", state)
	}
	if req.ThreadID != 0 {
		threadID = req.ThreadID
	}
	if req.Depth == 0 {
		req.Depth = 1
	}
	if req.Depth < 0 || req.Depth > maxDepth {
		return Inspection{}, apierr.Errorf(apierr.InvalidParameter, "pass a depth from 1 to 4", "depth %d is out of range", req.Depth)
	}
	in := Inspection{SessionID: s.ID, State: state, Complete: true, Frame: req.Frame, Scopes: []ScopeView{}}
	resp, err := s.conn.request(ctx, &godap.ThreadsRequest{Request: godap.Request{Command: "threads"}})
	if err != nil {
		return Inspection{}, err
	}
	for _, t := range resp.(*godap.ThreadsResponse).Body.Threads {
		in.Threads = append(in.Threads, Thread{ID: t.Id, Name: t.Name})
	}
	if threadID == 0 && len(in.Threads) > 0 {
		threadID = in.Threads[0].ID
	}
	in.ThreadID = threadID
	if in.Stack, err = s.stackTrace(ctx, threadID, maxStackFrames); err != nil {
		return Inspection{}, err
	}
	if req.Frame < 0 || req.Frame >= len(in.Stack) {
		return Inspection{}, apierr.Errorf(apierr.InvalidParameter, "pass a frame index listed in the stack (0 is the innermost)",
			"frame %d is not in the stack of thread %d (%d frames)", req.Frame, threadID, len(in.Stack))
	}
	frame := in.Stack[req.Frame]
	in.Location = s.locate(frame, 3)
	budget := &budget{left: maxNodes}
	sresp, err := s.conn.request(ctx, &godap.ScopesRequest{Request: godap.Request{Command: "scopes"}, Arguments: godap.ScopesArguments{FrameId: frame.ID}})
	if err != nil {
		return Inspection{}, err
	}
	for _, sc := range sresp.(*godap.ScopesResponse).Body.Scopes {
		view := ScopeView{Name: sc.Name}
		// Globals are large and expensive scopes slow: listed, not expanded.
		if !sc.Expensive && sc.Name != "Globals" && sc.VariablesReference > 0 {
			view.Expanded = true
			view.Variables, view.More, err = s.expand(ctx, sc.VariablesReference, req.Depth, budget)
			if err != nil {
				return Inspection{}, err
			}
		}
		in.Scopes = append(in.Scopes, view)
	}
	if req.Expression != "" {
		eresp, err := s.conn.request(ctx, &godap.EvaluateRequest{
			Request:   godap.Request{Command: "evaluate"},
			Arguments: godap.EvaluateArguments{Expression: req.Expression, FrameId: frame.ID, Context: s.adapter.EvaluateContext},
		})
		if err != nil {
			return Inspection{}, apierr.As(err).WithDetails(map[string]any{"expression": req.Expression})
		}
		body := eresp.(*godap.EvaluateResponse).Body
		ev := &Evaluation{Expression: req.Expression, Result: clip(body.Result), Type: body.Type}
		if body.VariablesReference > 0 {
			ev.Children, ev.More, err = s.expand(ctx, body.VariablesReference, req.Depth, budget)
			if err != nil {
				return Inspection{}, err
			}
		}
		in.Evaluated = ev
	}
	in.Complete = !budget.cut
	return in, nil
}

type budget struct {
	left int
	cut  bool
}

// expand lists the children of ref, recursing depth-1 more levels.
func (s *Session) expand(ctx context.Context, ref, depth int, b *budget) ([]Variable, int, error) {
	resp, err := s.conn.request(ctx, &godap.VariablesRequest{Request: godap.Request{Command: "variables"}, Arguments: godap.VariablesArguments{VariablesReference: ref}})
	if err != nil {
		return nil, 0, err
	}
	vars := resp.(*godap.VariablesResponse).Body.Variables
	// debugpy groups dunder members and methods under "special variables"
	// and "function variables": metadata, not the program's data.
	kept := vars[:0:0]
	for _, v := range vars {
		if v.Value == "" && v.VariablesReference > 0 && (v.Name == "special variables" || v.Name == "function variables" || v.Name == "class variables") {
			continue
		}
		kept = append(kept, v)
	}
	vars = kept
	var out []Variable
	more := 0
	for i, v := range vars {
		if i >= maxChildren || b.left <= 0 {
			more = len(vars) - i
			b.cut = true
			break
		}
		b.left--
		x := Variable{Name: v.Name, Value: clip(v.Value), Type: v.Type}
		if v.VariablesReference > 0 {
			if depth > 1 {
				x.Children, x.More, err = s.expand(ctx, v.VariablesReference, depth-1, b)
				if err != nil {
					return nil, 0, err
				}
			} else {
				x.Expandable = true
			}
		}
		out = append(out, x)
	}
	return out, more, nil
}

func clip(s string) string {
	r := []rune(s)
	if len(r) <= maxValueLength {
		return s
	}
	return string(r[:maxValueLength]) + "…"
}
