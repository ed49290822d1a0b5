package lua_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

// userNvim is a user's Neovim (headless, listening, the plugin on its
// runtimepath, their own init) with nvbridge attached and a real MCP client
// talking to it.
type userNvim struct {
	t    *testing.T
	root string
	addr string
	s    *nvim.Session
	env  *tools.Env
	c    *client.Client
}

// startUser starts the user's Neovim in root with init (Lua run after the
// plugin loads), attaches nvbridge as a stdio agent would, and connects an
// MCP client to it.
func startUser(t *testing.T, root, init string, extra ...string) *userNvim {
	t.Helper()
	return startUserWith(t, root, init, nil, extra...)
}

// startUserWith is startUser; before, when set, gets the session before
// the MCP server is made (to handle the test's own notifications).
func startUserWith(t *testing.T, root, init string, before func(s interface{ Handle(string, any) error }), extra ...string) *userNvim {
	t.Helper()
	testenv.Require(t, "nvim")
	repo := testenv.RepoRoot(t)
	initPath := filepath.Join(t.TempDir(), "init.lua")
	if err := os.WriteFile(initPath, []byte(init), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--cmd", "set rtp^=" + repo, "-c", "runtime plugin/nvbridge.lua", "-c", "luafile " + initPath}, extra...)
	addr := testenv.Listening(t, root, args...)
	s, lc := testenv.Attached(t, addr, root)
	// The files here have no language server: do not wait for one to
	// attach (the user's config starts none).
	lc.AttachGrace = 0
	if before != nil {
		before(s)
	}
	env := tools.NewEnv(s, lc, t.Logf)
	ctx := testenv.Context(t)
	if err := tools.AnnounceAgent(ctx, env, "stdio"); err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClient(tools.NewServer(env, "test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "nvbridge-user-test", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return &userNvim{t: t, root: root, addr: addr, s: s, env: env, c: c}
}

// call calls a tool over MCP; it returns the structured content, or the
// structured error.
func (u *userNvim) call(name, args string) (map[string]any, *apierr.Error) {
	u.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := u.c.CallTool(testenv.Context(u.t), req)
	if err != nil {
		u.t.Fatalf("%s: protocol error: %v", name, err)
	}
	body, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		var e struct{ Error *apierr.Error }
		if json.Unmarshal(body, &e) != nil || e.Error == nil || e.Error.Code == "" || e.Error.Remediation == "" {
			u.t.Fatalf("%s: isError without a complete structured error: %s", name, body)
		}
		return nil, e.Error
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		u.t.Fatalf("%s: %s", name, body)
	}
	return out, nil
}

func (u *userNvim) mustCall(name, args string) map[string]any {
	u.t.Helper()
	out, e := u.call(name, args)
	if e != nil {
		u.t.Fatalf("%s %s: %s: %s", name, args, e.Code, e.Message)
	}
	return out
}

func (u *userNvim) wantError(name, args string, code apierr.Code, fragments ...string) *apierr.Error {
	u.t.Helper()
	out, e := u.call(name, args)
	if e == nil {
		u.t.Fatalf("%s succeeded (%v), want %s", name, out, code)
	}
	if e.Code != code {
		u.t.Fatalf("%s: %s (%s), want %s", name, e.Code, e.Message, code)
	}
	for _, f := range fragments {
		if !strings.Contains(e.Message, f) {
			u.t.Errorf("%s: message %q lacks %q", name, e.Message, f)
		}
	}
	return e
}

// lua runs fixed test Lua in the user's Neovim with data arguments.
func (u *userNvim) lua(code string, result any, args ...any) {
	u.t.Helper()
	if err := u.s.ExecLua(testenv.Context(u.t), code, result, args...); err != nil {
		u.t.Fatalf("lua: %v", err)
	}
}

func (u *userNvim) abs(rel string) string { return filepath.Join(u.root, rel) }

func (u *userNvim) disk(rel string) string {
	u.t.Helper()
	b, err := os.ReadFile(u.abs(rel))
	if err != nil {
		u.t.Fatal(err)
	}
	return string(b)
}

// bufText is the text of rel's buffer (lines joined with \n), "" when not
// loaded.
func (u *userNvim) bufText(rel string) string {
	u.t.Helper()
	var text string
	u.lua(`local b = vim.fn.bufnr(...)
if b < 0 or not vim.api.nvim_buf_is_loaded(b) then return '' end
return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')`, &text, u.abs(rel))
	return text
}

// writeFiles makes a workspace of files (relative path -> content).
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// approveNothing is an init that turns approval off (tests of other parts).
const approveNothing = `require('nvbridge').setup({ approve = 'never' })
`

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
