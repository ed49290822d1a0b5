package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/tools"
)

// runCall runs one tool and prints its structured result as JSON: the
// result itself on success (exit 0), {"error": {...}} on failure (exit 1).
func runCall(ctx context.Context, g globalFlags, args []string, logger *log.Logger, stdout, stderr io.Writer) int {
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
	env, closeEnv, err := connect(ctx, g, logger)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 1
	}
	defer closeEnv()
	res, err := callTool(ctx, env, args[0], raw)
	if err != nil {
		fmt.Fprintln(stderr, "nvbridge:", err)
		return 2
	}
	return printResult(stdout, res)
}

func callTool(ctx context.Context, env *tools.Env, name string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	tool, ok := tools.Find(env, name)
	if !ok {
		return nil, fmt.Errorf("no tool named %q (nvbridge tools lists them)", name)
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
