package main

import (
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

var servingRE = regexp.MustCompile(`serving MCP on (http://[^ ]+/mcp)`)

// serveHTTPProc starts `nvbridge mcp --http 127.0.0.1:0 extra...` and returns
// the process and the URL it prints once ready.
func serveHTTPProc(t *testing.T, root string, extra ...string) (*proc, string) {
	t.Helper()
	// No inherited token: the test decides.
	p := start(t, []string{"NVBRIDGE_TOKEN="}, append([]string{"--root", root, "mcp", "--http", "127.0.0.1:0"}, extra...)...)
	m := servingRE.FindStringSubmatch(p.waitStderr("serving MCP on"))
	if m == nil {
		t.Fatalf("no address in stderr:\n%s", p.stderr.String())
	}
	return p, m[1]
}

// mcpSession initializes an MCP client at url with headers and calls a real
// tool; it returns the tool call's error (nil on success).
func mcpSession(t *testing.T, url string, headers map[string]string) error {
	t.Helper()
	ctx := testenv.Context(t)
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "nvbridge-test", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	if len(tools.Tools) == 0 {
		t.Fatal("no tools over HTTP")
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "get_buffer_info"
	req.Params.Arguments = map[string]any{"file": "main.go", "include_content": false}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return err
	}
	if res.IsError {
		t.Fatalf("get_buffer_info over HTTP: %+v", res.Content)
	}
	return nil
}

// status POSTs an initialize request with the given Authorization header.
func status(t *testing.T, url, auth string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	req, err := http.NewRequestWithContext(testenv.Context(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestHTTP serves streamable HTTP on loopback port 0: a bearer token (random,
// printed to stderr) is required; --no-auth works on loopback only; a
// non-loopback address is refused before anything starts.
func TestHTTP(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")

	t.Run("token required", func(t *testing.T) {
		p, url := serveHTTPProc(t, root)
		m := regexp.MustCompile(`HTTP bearer token: ([0-9a-f]+)`).FindStringSubmatch(p.stderr.String())
		if m == nil {
			t.Fatalf("no token printed:\n%s", p.stderr.String())
		}
		token := m[1]
		if got := status(t, url, ""); got != http.StatusUnauthorized {
			t.Errorf("without a token: HTTP %d, want 401", got)
		}
		if got := status(t, url, "Bearer wrong"); got != http.StatusUnauthorized {
			t.Errorf("with a wrong token: HTTP %d, want 401", got)
		}
		if got := status(t, url, "Bearer "+token); got != http.StatusOK {
			t.Errorf("with the token: HTTP %d, want 200", got)
		}
		// Off the endpoint: answered at once (GET / used to hang).
		base := strings.TrimSuffix(url, "/mcp")
		for _, path := range []string{"/", "/foo"} {
			if resp := request(t, http.MethodGet, base+path, "Bearer "+token, "", nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s with the token: HTTP %d, want 404", path, resp.StatusCode)
			}
		}
		if err := mcpSession(t, url, nil); err == nil {
			t.Error("an MCP client without the token was served")
		}
		if err := mcpSession(t, url, map[string]string{"Authorization": "Bearer " + token}); err != nil {
			t.Fatalf("MCP client with the token: %v", err)
		}
		procs := descendants(t, p.cmd.Process.Pid)
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit code %d after SIGTERM", code)
		}
		waitGone(t, procs)
	})

	t.Run("explicit token and --no-auth", func(t *testing.T) {
		p, url := serveHTTPProc(t, root, "--token", "s3cret")
		if strings.Contains(p.stderr.String(), "s3cret") {
			t.Error("a token given by the user is echoed to stderr")
		}
		if got := status(t, url, "Bearer s3cret"); got != http.StatusOK {
			t.Errorf("with --token: HTTP %d, want 200", got)
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.wait()

		p, url = serveHTTPProc(t, root, "--no-auth")
		if err := mcpSession(t, url, nil); err != nil {
			t.Fatalf("--no-auth on loopback: %v", err)
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.wait()
	})

	t.Run("non-loopback refused", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--http", "0.0.0.0:0"}, "not a loopback address"},
			{[]string{"--http", "[::]:0"}, "not a loopback address"},
			{[]string{"--http", "0.0.0.0:0", "--allow-remote", "--no-auth"}, "--no-auth is only allowed on a loopback address"},
			{[]string{"--http", "no-port"}, "--http"},
		} {
			var stdout, stderr strings.Builder
			// No --nvim and no Neovim on PATH needed: the address is
			// checked before Neovim starts.
			code := run(append([]string{"--root", root, "--nvim-cmd", "/nonexistent/nvim", "mcp"}, c.args...), &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
			}
		}
	})
}
