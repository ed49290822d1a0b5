package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/dap"
)

type getDebugSessionInfoArgs struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"one session (default: every session)"`
}

type debugInfoResult struct {
	Sessions []dap.Info `json:"sessions"`
	Count    int        `json:"count"`
}

func (r debugInfoResult) Summary() string {
	if r.Count == 0 {
		return "no debug session"
	}
	var b strings.Builder
	for i, s := range r.Sessions {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "session %s: %s %s (%s), %s", s.SessionID, s.Language, s.Program, s.Adapter, s.State)
		if s.Location != nil {
			fmt.Fprintf(&b, " (%s) at %s:%d in %s", s.Reason, s.Location.File, s.Location.Line, s.Location.Function)
		}
		if s.ExitCode != nil {
			fmt.Fprintf(&b, ", exit code %d", *s.ExitCode)
		}
		if s.Error != nil {
			fmt.Fprintf(&b, "\n  error: %s", s.Error.Message)
		}
		if s.LastAction != nil {
			fmt.Fprintf(&b, "\n  last action: %s by the %s", s.LastAction.Action, s.LastAction.By)
		}
		for _, f := range s.Breakpoints {
			b.WriteString("\n" + strings.TrimRight(breakpointLines(f), "\n"))
		}
	}
	return b.String()
}

func getDebugSessionInfoTool(env *Env) Tool {
	return newTool("get_debug_session_info", "Debug sessions",
		"Describe the debug sessions (or one): language, adapter, program or test, state (starting, running, stopped, terminated, failed), where a stopped program is, every breakpoint with its verification, the exit code, the error that ended a failed session, the last execution control and who gave it (the agent, or the user from :NvbridgeDebug in Neovim), and the adapter's and program's process ids.",
		readOnly,
		func(ctx context.Context, in getDebugSessionInfoArgs) (debugInfoResult, error) {
			list, err := env.DAP.Infos(ctx, in.SessionID)
			return debugInfoResult{Sessions: list, Count: len(list)}, err
		})
}
