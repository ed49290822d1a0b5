package tools

import (
	"context"
	"time"

	"github.com/nvbridge/nvbridge/dap"
)

type controlExecutionArgs struct {
	debugSessionArg
	Action    string `json:"action" jsonschema:"continue, step_over, step_into, step_out or pause"`
	ThreadID  int    `json:"thread_id,omitempty" jsonschema:"the thread to step or continue (default: the one that stopped last)"`
	TimeoutMs *int   `json:"timeout_ms,omitempty" jsonschema:"how long to wait for the next stop or the program's end, in milliseconds (default 30000); when it is hit, complete is false and the program keeps running"`
}

type reportResult struct{ dap.Report }

func (r reportResult) Summary() string { return reportText(r.Report) }

func controlExecutionTool(env *Env) Tool {
	return newTool("control_execution", "Continue or step",
		"Continue, step over, step into, step out or pause the program of a debug session, then wait (bounded by timeout_ms) for the next stop or the program's end. Returns where and why it stopped (file, line, function, the source lines around it, the innermost frames), or the exit code when it ended, with the program's output since the last call. complete=false means the bound was hit: the program is still running (continue again to keep waiting, pause to stop it). When the debug adapter crashes, the call fails with OPERATION_FAILED and the session is over.",
		mutating,
		func(ctx context.Context, in controlExecutionArgs) (reportResult, error) {
			wait, err := debugWait(in.TimeoutMs, 30*time.Second)
			if err != nil {
				return reportResult{}, err
			}
			r, err := env.DAP.Control(ctx, in.SessionID, in.Action, in.ThreadID, wait, "agent")
			return reportResult{r}, err
		})
}
