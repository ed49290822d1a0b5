package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/dap"
)

type stopDebugSessionArgs struct {
	debugSessionArg
}

type stopDebugResult struct{ dap.StopResult }

func (r stopDebugResult) Summary() string {
	s := fmt.Sprintf("debug session %s stopped (%s)", r.SessionID, r.State)
	if r.ExitCode != nil {
		s += fmt.Sprintf(", exit code %d", *r.ExitCode)
	}
	return s + outputText(r.Output, r.OutputDropped)
}

func stopDebugSessionTool(env *Env) Tool {
	return newTool("stop_debug_session", "Stop debugging",
		"End a debug session: the program is terminated, the debug adapter and every process it started are ended, its marks in Neovim are cleared and the session is forgotten. Returns the exit code when known and the output not yet reported.",
		hints{destructive: true},
		func(ctx context.Context, in stopDebugSessionArgs) (stopDebugResult, error) {
			r, err := env.DAP.Stop(ctx, in.SessionID)
			return stopDebugResult{r}, err
		})
}
