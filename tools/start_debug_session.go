package tools

import (
	"context"
	"time"

	"github.com/nvbridge/nvbridge/dap"
)

type startDebugSessionArgs struct {
	Program     string            `json:"program,omitempty" jsonschema:"the file or package folder to debug, relative to the workspace root (e.g. \".\" or \"cmd/app\" for Go, \"app.py\" for Python, the executable built with -g for C, C++ and Rust, with language); with test: the test's package folder (Go) or test file or folder (Python)"`
	Test        string            `json:"test,omitempty" jsonschema:"debug this test instead of the program: go test -run NAME (Go, a plain name is anchored), pytest -k NAME (Python)"`
	Language    string            `json:"language,omitempty" jsonschema:"go, python, c (also C++) or rust (default: from the program's extension or its folder's files; name it for an executable)"`
	Args        []string          `json:"args,omitempty" jsonschema:"command-line arguments of the program (or extra go test / pytest arguments)"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"environment variables added for the program"`
	Cwd         string            `json:"cwd,omitempty" jsonschema:"working directory of the program, relative to the workspace root (default: the root; for a test, its folder)"`
	StopOnEntry bool              `json:"stop_on_entry,omitempty" jsonschema:"stop at the program's entry before running"`
	Breakpoints []startBreakpoint `json:"breakpoints,omitempty" jsonschema:"breakpoints set before the program runs"`
	TimeoutMs   *int              `json:"timeout_ms,omitempty" jsonschema:"how long to wait for the first stop or the program's end, in milliseconds (default 60000; dlv builds the program first); when it is hit, complete is false and the program keeps running"`
}

type startBreakpoint struct {
	File string `json:"file" jsonschema:"source file, relative to the workspace root"`
	breakpointArg
}

type startDebugResult struct{ dap.StartResult }

func (r startDebugResult) Summary() string {
	s := "debug session " + r.SessionID + " (" + r.Adapter + ", " + r.Language + ")\n"
	for _, f := range r.Breakpoints {
		s += breakpointLines(f)
	}
	return s + reportText(r.Report)
}

func startDebugSessionTool(env *Env) Tool {
	return newTool("start_debug_session", "Start debugging",
		"Debug a program or one test with the language's debug adapter (dlv for Go, debugpy for Python, lldb-dap for C, C++ and Rust), setting breakpoints first, and wait (bounded by timeout_ms) for the first stop or the program's end. Returns the session_id, each breakpoint as verified or not (with the adapter's reason), and where the program stopped and why (file, line, function, the source lines around it, the innermost frames), or its exit code; the program's output so far comes with it. complete=false means the bound was hit and the program is still running. Several sessions may run at once; the others tools address one by session_id (default: the only one). What the debugger does is shown in Neovim (breakpoint signs, the stopped line; :NvbridgeDebug lets the user take over).",
		mutating,
		func(ctx context.Context, in startDebugSessionArgs) (startDebugResult, error) {
			wait, err := debugWait(in.TimeoutMs, 60*time.Second)
			if err != nil {
				return startDebugResult{}, err
			}
			bps := map[string][]dap.BreakpointSpec{}
			for _, b := range in.Breakpoints {
				bps[b.File] = append(bps[b.File], b.spec())
			}
			r, err := env.DAP.Start(ctx, dap.StartRequest{
				Program: in.Program, Test: in.Test, Language: in.Language, Args: in.Args, Env: in.Env, Cwd: in.Cwd,
				StopOnEntry: in.StopOnEntry, Breakpoints: bps, Wait: wait, By: "agent", Confirm: env.confirmRun,
			})
			return startDebugResult{r}, err
		})
}

func (b breakpointArg) spec() dap.BreakpointSpec {
	return dap.BreakpointSpec{Line: b.Line, Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage}
}
