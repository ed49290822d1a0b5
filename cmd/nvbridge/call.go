package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/tools"
)

const callUsage = `usage: nvbridge [global flags] call [--no-daemon] [--idle-timeout 5m] [--mode M] [--read-only] TOOL ['{json args}']

Runs one tool and prints its structured result as JSON on stdout (nvbridge
tools lists the tools and their arguments). By default the call goes to a
warm nvbridge daemon for the same workspace, Neovim and flags, started on
demand and stopped after --idle-timeout without calls: a changeset_id from
one call can be applied by the next, and a warm call takes milliseconds.
--mode and --read-only refuse tools as an MCP session started with them
does (a script that must not change anything passes --read-only).

Exit codes:
  0    the tool succeeded; stdout: its result
  1    the tool failed, or the arguments are not JSON; stdout:
       {"error": {"code", "message", "remediation"}}
       (or nvbridge could not start: a message on stderr, nothing on stdout)
  2    usage: bad flags, no such tool, no tool name
  130  interrupted (SIGINT/SIGTERM); the tool's request is cancelled
`

// runCall runs one tool and prints its structured result as JSON: the
// result itself on success (exit 0), {"error": {...}} on failure (exit 1).
func runCall(ctx context.Context, g globalFlags, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	g.register(fs)
	noDaemon := fs.Bool("no-daemon", false, "run in this process: start Neovim and the servers, call, stop them (no daemon)")
	idle := fs.Duration("idle-timeout", defaultIdleTimeout, "a daemon this call starts exits after this long without calls")
	mode := fs.String("mode", tools.ModeAll, "refuse tools this mode does not show: explore (read-only), edit, debug, all")
	readOnly := fs.Bool("read-only", false, "refuse every tool that changes buffers or files")
	args, code, ok := parseFlags(fs, args, callUsage, stdout, stderr)
	if !ok {
		return code
	}
	modes, err := tools.NewModes(*mode, *readOnly)
	if err != nil {
		fmt.Fprintf(stderr, "nvbridge: --mode: %v\n", apierr.As(err).Message)
		return 2
	}
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintln(stderr, "usage: nvbridge call TOOL ['{json args}']")
		return 2
	}
	raw := json.RawMessage("{}")
	if len(args) == 2 {
		raw = json.RawMessage(args[1])
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			// Answered like a tool's own failure: JSON with a code.
			return printResult(stdout, errorResult(apierr.Errorf(apierr.InvalidParameter,
				`pass the arguments as one JSON object, quoted for the shell: nvbridge call TOOL '{"file": "main.go", "line": 3}'`,
				"the arguments are not valid JSON: %v", err)))
		}
	}
	if !*noDaemon {
		return callDaemon(ctx, g, *idle, daemonRequest{Op: "call", Tool: args[0], Arguments: raw, Mode: *mode, ReadOnly: *readOnly}, stdout, stderr)
	}
	logger, closeLog, err := openLog(g.logFile, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 1
	}
	defer closeLog()
	env, closeEnv, err := connect(ctx, g, logger)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return exitCode(err)
	}
	defer closeEnv()
	env.Modes = modes
	res, err := callTool(ctx, env, args[0], raw)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 2
	}
	if ctx.Err() != nil {
		return 130 // interrupted: the result is the cancellation's
	}
	return printResult(stdout, res)
}

func callTool(ctx context.Context, env *tools.Env, name string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	tool, ok := tools.Find(env, name)
	if !ok {
		return nil, fmt.Errorf("no tool named %q (nvbridge tools lists them)", name)
	}
	if err := env.Modes.Refusal(env, tool); err != nil {
		return errorResult(apierr.As(err)), nil
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = raw
	return tool.Handler(ctx, req)
}

func printResult(stdout io.Writer, res *mcp.CallToolResult) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res.StructuredContent); err != nil {
		return 1
	}
	if res.IsError {
		return 1
	}
	return 0
}

// errorResult is a failure found before any tool runs, shaped as a tool's.
func errorResult(err *apierr.Error) *mcp.CallToolResult {
	return &mcp.CallToolResult{StructuredContent: tools.ErrorBody{Error: err}, IsError: true}
}

// structuredJSON is a result's structured content as compact JSON, encoded
// as printResult encodes it (no HTML escaping).
func structuredJSON(res *mcp.CallToolResult) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res.StructuredContent); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}
