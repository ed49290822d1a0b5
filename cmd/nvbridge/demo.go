package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/mark3labs/mcp-go/mcp"
)

// demoCalls is what `make demo` shows on the bundled Go sample: real tools
// against an embedded Neovim with real gopls.
var demoCalls = []struct{ tool, args string }{
	{"get_buffer_info", `{"file":"main.go","include_content":false}`},
	{"find_definition", `{"file":"main.go","line":27,"symbol":"Process"}`},
	{"find_references", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`},
	{"get_hover_info", `{"file":"main.go","line":27,"symbol":"Process"}`},
	{"read_file", `{"file":"orders/orders.go","start_line":30,"end_line":36}`},
	{"get_call_hierarchy", `{"file":"graph/walk.go","line":13,"symbol":"Visit","direction":"incoming","depth":3}`},
	// A preview: prints the unified diff and a changeset_id, changes nothing.
	{"rename_symbol", `{"file":"orders/orders.go","line":33,"symbol":"Process","new_name":"ProcessOrder"}`},
}

const demoUsage = `usage: nvbridge [global flags] demo

Runs a few real tools (definition, references, hover, a call hierarchy, a
rename preview that changes nothing) on the workspace; make demo runs it on
testdata/samples/go.
`

func runDemo(ctx context.Context, g globalFlags, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	g.register(fs)
	rest, code, ok := parseFlags(fs, args, demoUsage, stdout, stderr)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "nvbridge demo: unexpected argument %q\n", rest[0])
		return 2
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
		return 1
	}
	defer closeEnv()
	failed := 0
	for _, c := range demoCalls {
		fmt.Fprintf(stdout, "\n$ nvbridge call %s '%s'\n", c.tool, c.args)
		res, err := callTool(ctx, env, c.tool, json.RawMessage(c.args))
		if err != nil {
			fmt.Fprintln(stdout, "  (skipped:", err, ")")
			continue
		}
		for _, content := range res.Content {
			if t, ok := content.(mcp.TextContent); ok {
				fmt.Fprintln(stdout, t.Text)
			}
		}
		if res.IsError {
			failed++
		}
	}
	if failed > 0 {
		return 1
	}
	return 0
}
