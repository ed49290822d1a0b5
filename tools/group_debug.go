package tools

import (
	"time"

	"github.com/nvbridge/nvbridge/apierr"
)

// debugTools debug a program or a test through a debug adapter (dap):
// Otter's debugging tool names.
func debugTools(env *Env) []Tool {
	return []Tool{
		startDebugSessionTool(env), setBreakpointsTool(env), controlExecutionTool(env),
		inspectStateTool(env), getDebugSessionInfoTool(env), stopDebugSessionTool(env),
	}
}

// debugSessionArg addresses a debug session.
type debugSessionArg struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the debug session (default: the only one; get_debug_session_info lists them)"`
}

// breakpointArg is one breakpoint to set.
type breakpointArg struct {
	Line         int    `json:"line" jsonschema:"1-based line"`
	Condition    string `json:"condition,omitempty" jsonschema:"stop only when this expression (in the program's language) is true, e.g. i == 1"`
	HitCondition string `json:"hit_condition,omitempty" jsonschema:"stop only on these hits, e.g. 3 (dlv: a number or an operator and a number; debugpy: a number)"`
	LogMessage   string `json:"log_message,omitempty" jsonschema:"a log point: print this message instead of stopping; {expr} is replaced by its value"`
}

// debugWait turns timeout_ms into the bound of a wait for a stop.
func debugWait(ms *int, def time.Duration) (time.Duration, error) {
	if ms == nil {
		return def, nil
	}
	if *ms < 1 || *ms > 600000 {
		return 0, apierr.Errorf(apierr.InvalidParameter, "pass timeout_ms from 1 to 600000", "timeout_ms %d is out of range", *ms)
	}
	return time.Duration(*ms) * time.Millisecond, nil
}
