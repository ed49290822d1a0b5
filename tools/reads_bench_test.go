package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// BenchmarkReadTools measures warm read tools end to end through an
// in-process MCP session (the protocol's messages, dispatch, structured
// content), the Go side's work with Neovim's and gopls's: the benchmark of
// what nvbridge adds to a read (goal 3 of issue 30), with -cpuprofile.
func BenchmarkReadTools(b *testing.B) {
	testenv.Require(b, "nvim", "gopls", "go")
	s, lspClient := testenv.Embedded(b, testenv.CopySample(b, "go"))
	_ = s
	env := tools.NewEnv(s, lspClient, b.Logf)
	b.Cleanup(env.Close)
	c := mcpClient(b, env)
	ctx := testenv.Context(b)
	for _, call := range []struct{ name, tool, args string }{
		{"find_definition", "find_definition", `{"file":"main.go","line":27,"symbol":"Process"}`},
		{"find_references", "find_references", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`},
		{"hover", "get_hover_info", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`},
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name = call.tool
		req.Params.Arguments = json.RawMessage(call.args)
		run := func() {
			res, err := c.CallTool(ctx, req)
			if err != nil || res.IsError {
				b.Fatalf("%s: %v %+v", call.tool, err, res)
			}
		}
		run()
		b.Run(call.name, func(b *testing.B) {
			for b.Loop() {
				run()
			}
		})
	}
}
