package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestOneShotEditsOverHTTP: 8 agents, each its own MCP session over
// streamable HTTP, make 200 one-shot inserts (edit_buffer, preview false)
// each at their own line of one shared file, at the same time: every
// insert lands once; none is refused.
func TestOneShotEditsOverHTTP(t *testing.T) {
	testenv.Require(t, "nvim")
	const agents, each = 8, 200
	root := t.TempDir()
	var base strings.Builder
	for i := 0; i < agents; i++ {
		fmt.Fprintf(&base, "base %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(root, "shared.txt"), []byte(base.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, url := serveHTTPProc(t, root, "--no-auth")
	ctx := testenv.Context(t)
	sessions := make([]*client.Client, agents)
	for a := range sessions {
		c, err := client.NewStreamableHttpClient(url)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		init := mcp.InitializeRequest{}
		init.Params.ClientInfo = mcp.Implementation{Name: fmt.Sprintf("agent-%d", a), Version: "0"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatal(err)
		}
		sessions[a] = c
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var refused []string
	for a, c := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < each; k++ {
				req := mcp.CallToolRequest{}
				req.Params.Name = "edit_buffer"
				req.Params.Arguments = map[string]any{"file": "shared.txt", "preview": false,
					"edits": []map[string]any{{"line_start": a + 1, "line_end": a, "new_text": fmt.Sprintf("agent %d edit %d", a, k)}}}
				res, err := c.CallTool(ctx, req)
				if err != nil || res.IsError {
					mu.Lock()
					refused = append(refused, fmt.Sprintf("agent %d edit %d: %v %+v", a, k, err, res))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(refused) > 0 {
		t.Errorf("%d of %d edits refused, e.g. %s", len(refused), agents*each, refused[0])
	}
	// The text as Neovim holds it (the edits are unsaved).
	req := mcp.CallToolRequest{}
	req.Params.Name = "read_file"
	req.Params.Arguments = map[string]any{"file": "shared.txt"}
	res, err := sessions[0].CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("read_file: %v %+v", err, res)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text += tc.Text
		}
	}
	seen := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "agent "); i >= 0 {
			seen[line[i:]]++
		}
	}
	for a := 0; a < agents; a++ {
		for k := 0; k < each; k++ {
			if n := seen[fmt.Sprintf("agent %d edit %d", a, k)]; n != 1 {
				t.Errorf("agent %d edit %d appears %d times", a, k, n)
			}
		}
	}
}
