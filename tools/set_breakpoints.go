package tools

import (
	"context"

	"github.com/nvbridge/nvbridge/dap"
)

type setBreakpointsArgs struct {
	debugSessionArg
	File        string          `json:"file" jsonschema:"source file, relative to the workspace root"`
	Breakpoints []breakpointArg `json:"breakpoints" jsonschema:"the file's breakpoints: they replace the ones set before in this file (an empty list clears them)"`
}

type setBreakpointsResult struct{ dap.BreakpointsResult }

func (r setBreakpointsResult) Summary() string { return breakpointLines(r.FileBreakpoints) }

func setBreakpointsTool(env *Env) Tool {
	return newTool("set_breakpoints", "Set breakpoints",
		"Set a file's breakpoints in a debug session (replacing that file's earlier ones; an empty list clears them): plain, conditional (condition), hit-counted (hit_condition) or log points (log_message, printed to the output instead of stopping). Each is reported as verified or not, with the adapter's reason (e.g. no code on that line) and the line it moved to, if any.",
		mutating,
		func(ctx context.Context, in setBreakpointsArgs) (setBreakpointsResult, error) {
			specs := make([]dap.BreakpointSpec, len(in.Breakpoints))
			for i, b := range in.Breakpoints {
				specs[i] = b.spec()
			}
			r, err := env.DAP.SetBreakpoints(ctx, in.SessionID, in.File, specs)
			return setBreakpointsResult{r}, err
		})
}
