package tools_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// userGopls is the client name the user's config gives gopls in attached
// mode (testenv.UserLSPConfig).
const userGopls = "user-gopls"

// sessionMode is one way nvbridge reaches Neovim. Tests that run a table in
// every mode share the session setup through it.
type sessionMode struct {
	name string
	// server is the name of the gopls client the tools must use.
	server string
	// open starts (or attaches to) Neovim rooted at root and returns the
	// tools' environment; everything is closed at cleanup.
	open func(t *testing.T, root string) *tools.Env
	// after, when set, checks the session once the tools have run.
	after func(t *testing.T, env *tools.Env)
}

// sessionModes are embedded (nvbridge starts a headless Neovim and its own
// gopls) and attached (the test starts a Neovim listening on a socket whose
// own config starts gopls as userGopls; nvbridge connects to the socket and
// must use that client, never start one).
var sessionModes = []sessionMode{
	{
		name:   "embedded",
		server: "gopls",
		open: func(t *testing.T, root string) *tools.Env {
			s, client := testenv.Embedded(t, root)
			env := tools.NewEnv(s, client, t.Logf)
			t.Cleanup(env.Close) // debug sessions, before Neovim closes
			return env
		},
	},
	{
		name:   "attached",
		server: userGopls,
		open: func(t *testing.T, root string) *tools.Env {
			addr := testenv.Listening(t, root, testenv.UserLSPConfig(t, userGopls)...)
			s, client := testenv.Attached(t, addr, root)
			if s.Embedded() {
				t.Fatal("an attached session reports Embedded")
			}
			env := tools.NewEnv(s, client, t.Logf)
			t.Cleanup(env.Close)
			return env
		},
		after: func(t *testing.T, env *tools.Env) {
			var names []string
			const code = "local out = {}; for _, c in ipairs(vim.lsp.get_clients()) do table.insert(out, c.name) end; return out"
			if err := env.Session.ExecLua(testenv.Context(t), code, &names); err != nil {
				t.Fatal(err)
			}
			if len(names) != 1 || names[0] != userGopls {
				t.Fatalf("clients in the user's Neovim = %v, want only %s (nvbridge must start none)", names, userGopls)
			}
		},
	},
}

// mcpClient serves every tool of env through an MCP server and returns an
// initialized in-process client: calls go over the protocol (JSON-RPC
// messages, schemas, structured content), not straight to the handlers.
func mcpClient(t testing.TB, env *tools.Env) *client.Client {
	t.Helper()
	ctx := testenv.Context(t)
	c, err := client.NewInProcessClient(tools.NewServer(env, "test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "nvbridge-test", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

// mcpCall calls a tool with raw JSON arguments over the protocol.
func mcpCall(t *testing.T, c *client.Client, name, args string) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := c.CallTool(testenv.Context(t), req)
	if err != nil {
		t.Fatalf("%s %s: protocol error: %v", name, args, err)
	}
	return res
}

// callOK calls a tool that must succeed: a tool error fails the test with
// its code and message.
func callOK(t *testing.T, c *client.Client, name, args string) *mcp.CallToolResult {
	t.Helper()
	res := mcpCall(t, c, name, args)
	if e := toolError(t, res); e != nil {
		t.Fatalf("%s %s: %s: %s", name, args, e.Code, e.Message)
	}
	return res
}

// okContent is the structured content of callOK's result.
func okContent(t *testing.T, c *client.Client, name, args string) map[string]any {
	t.Helper()
	return content(t, callOK(t, c, name, args))
}

// content returns the structured content as decoded JSON.
func content(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("structuredContent is not a JSON object: %s", body)
	}
	return out
}

// toolError returns the structured error of a failed call (nil when the call
// succeeded), checking that isError and the error body agree.
func toolError(t *testing.T, res *mcp.CallToolResult) *apierr.Error {
	t.Helper()
	body, _ := json.Marshal(res.StructuredContent)
	var e struct {
		Error *apierr.Error `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	if !res.IsError {
		if e.Error != nil {
			t.Fatalf("isError=false but an error body: %s", body)
		}
		return nil
	}
	if e.Error == nil || e.Error.Code == "" || e.Error.Message == "" || e.Error.Remediation == "" {
		t.Fatalf("isError without a complete structured error (code, message, remediation): %s", body)
	}
	return e.Error
}

// wantError fails unless res is a tool error with code whose message
// contains every fragment.
func wantError(t *testing.T, res *mcp.CallToolResult, code apierr.Code, fragments ...string) {
	t.Helper()
	e := toolError(t, res)
	if e == nil {
		t.Fatalf("succeeded, want %s: %v", code, res.StructuredContent)
	}
	if e.Code != code {
		t.Fatalf("code %s (%s), want %s", e.Code, e.Message, code)
	}
	for _, f := range fragments {
		if !strings.Contains(e.Message, f) {
			t.Errorf("message %q lacks %q", e.Message, f)
		}
	}
}

// at walks decoded JSON by a dotted path ("locations.0.file").
func at(v any, path string) (any, bool) {
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[key]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// mustAt is at for a path that must be there.
func mustAt(t *testing.T, v any, path string) any {
	t.Helper()
	got, ok := at(v, path)
	if !ok {
		t.Fatalf("no %s in %v", path, v)
	}
	return got
}
