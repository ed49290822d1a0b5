package tools_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// BenchmarkResourceUpdated measures how long a subscriber waits for
// notifications/resources/updated after a buffer changes: from the start
// of the nvim_buf_set_lines call (a user's keystroke, a plugin) to the
// notification reaching the MCP client (in-process, protocol 2025-11-25).
// Reported as p50 and p99 (the bound is 100 ms).
func BenchmarkResourceUpdated(b *testing.B) {
	root := testenv.CopySample(b, "go")
	s, lspClient := testenv.Embedded(b, root)
	env := tools.NewEnv(s, lspClient, b.Logf)
	b.Cleanup(env.Close)
	c := mcpLegacyClient(b, env)
	got := make(chan time.Time, 1024)
	const uri = "nvbridge://buffer/main.go"
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationResourceUpdated && n.Params.AdditionalFields["uri"] == uri {
			got <- time.Now()
		}
	})
	ctx := testenv.Context(b)
	path := filepath.Join(root, "main.go")
	if err := env.Session.ExecLua(ctx, `local b = vim.fn.bufadd(...); vim.fn.bufload(b)`, nil, path); err != nil {
		b.Fatal(err)
	}
	req := mcp.SubscribeRequest{}
	req.Params.URI = uri
	//lint:ignore SA1019 resources/subscribe is what clients of protocol 2025-11-25 send
	if err := c.Subscribe(ctx, req); err != nil {
		b.Fatal(err)
	}
	const setLine = `local path, text = ...; vim.api.nvim_buf_set_lines(vim.fn.bufnr(path), 0, 1, true, { text })`
	var waits []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// A notification of an earlier change (the load) is not this one's.
		for len(got) > 0 {
			<-got
		}
		start := time.Now()
		if err := env.Session.ExecLua(ctx, setLine, nil, path, "// change "+string(rune('a'+i%26))); err != nil {
			b.Fatal(err)
		}
		select {
		case at := <-got:
			waits = append(waits, at.Sub(start))
		case <-ctx.Done():
			b.Fatal("no notifications/resources/updated")
		}
	}
	b.StopTimer()
	slices.Sort(waits)
	if len(waits) > 0 {
		b.ReportMetric(float64(waits[len(waits)/2])/1e6, "p50-ms")
		b.ReportMetric(float64(waits[(len(waits)*99)/100])/1e6, "p99-ms")
		b.ReportMetric(float64(waits[len(waits)-1])/1e6, "max-ms")
	}
}
