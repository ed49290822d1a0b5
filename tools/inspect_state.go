package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/dap"
)

type inspectStateArgs struct {
	debugSessionArg
	ThreadID   int    `json:"thread_id,omitempty" jsonschema:"the thread (default: the one that stopped)"`
	Frame      int    `json:"frame,omitempty" jsonschema:"stack frame index, 0 = innermost (default 0)"`
	Expression string `json:"expression,omitempty" jsonschema:"an expression to evaluate in that frame, e.g. items[0].Name"`
	Depth      int    `json:"depth,omitempty" jsonschema:"levels of fields/elements expanded below each variable, 1-4 (default 1)"`
}

type inspectionResult struct{ dap.Inspection }

func (r inspectionResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "session %s, thread %d, frame %d", r.SessionID, r.ThreadID, r.Frame)
	if r.Location != nil {
		fmt.Fprintf(&b, " at %s:%d in %s", r.Location.File, r.Location.Line, r.Location.Function)
	}
	b.WriteString("\nstack:")
	for _, f := range r.Stack {
		fmt.Fprintf(&b, "\n  #%d %s %s:%d", f.Index, f.Function, f.File, f.Line)
	}
	for _, sc := range r.Scopes {
		fmt.Fprintf(&b, "\n%s:", sc.Name)
		if !sc.Expanded {
			b.WriteString(" (not expanded)")
		}
		writeVariables(&b, sc.Variables, sc.More, 1)
	}
	if e := r.Evaluated; e != nil {
		fmt.Fprintf(&b, "\n%s = %s", e.Expression, e.Result)
		if e.Type != "" {
			fmt.Fprintf(&b, " (%s)", e.Type)
		}
		writeVariables(&b, e.Children, e.More, 1)
	}
	if !r.Complete {
		b.WriteString("\n(incomplete: a bound on depth, children or variables left some out)")
	}
	return b.String()
}

func writeVariables(b *strings.Builder, vars []dap.Variable, more, level int) {
	indent := strings.Repeat("  ", level)
	for _, v := range vars {
		fmt.Fprintf(b, "\n%s%s = %s", indent, v.Name, v.Value)
		if v.Type != "" {
			fmt.Fprintf(b, " (%s)", v.Type)
		}
		writeVariables(b, v.Children, v.More, level+1)
	}
	if more > 0 {
		fmt.Fprintf(b, "\n%s… %d more", indent, more)
	}
}

func inspectStateTool(env *Env) Tool {
	return newTool("inspect_state", "Inspect program state",
		"Read the state of a stopped program: its threads, the stack of the stopped thread, the scopes of a frame (locals, arguments) with variables expanded to depth levels (structs' fields, slices'/lists' elements), and optionally an expression evaluated in that frame. Bounded: 25 children per variable, 400 variables, 300 characters per value; complete=false and a variable's more say what was left out. The program must be stopped (PRECONDITION_FAILED otherwise).",
		readOnly,
		func(ctx context.Context, in inspectStateArgs) (inspectionResult, error) {
			r, err := env.DAP.Inspect(ctx, in.SessionID, dap.InspectRequest{ThreadID: in.ThreadID, Frame: in.Frame, Expression: in.Expression, Depth: in.Depth})
			return inspectionResult{r}, err
		})
}
