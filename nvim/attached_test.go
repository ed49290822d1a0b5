package nvim_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

// callTool runs a tool's handler as the MCP server does and returns its
// structured content decoded from JSON, plus the error (nil on success).
func callTool(t *testing.T, env *tools.Env, name, args string) (map[string]any, *apierr.Error) {
	t.Helper()
	tool, ok := tools.Find(env, name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := tool.Handler(testenv.Context(t), req)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		var e struct{ Error apierr.Error }
		if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == "" {
			t.Fatalf("%s: isError without a structured error: %s", name, body)
		}
		return nil, &e.Error
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: %s: %v", name, body, err)
	}
	return out, nil
}

func mustCall(t *testing.T, env *tools.Env, name, args string) map[string]any {
	t.Helper()
	out, e := callTool(t, env, name, args)
	if e != nil {
		t.Fatalf("%s %s: %s: %s", name, args, e.Code, e.Message)
	}
	return out
}

// TestAttached attaches to a Neovim started with --listen whose own config
// starts gopls (client "user-gopls"), and runs real tools there: nvbridge
// must use the user's client, never start its own. Killing that Neovim
// makes the next call fail with a clear error.
func TestAttached(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	addr := testenv.Listening(t, root, testenv.UserLSPConfig(t, "user-gopls")...)
	s, client := testenv.Attached(t, addr, root)
	if s.Embedded() {
		t.Fatal("an attached session reports Embedded")
	}
	env := tools.NewEnv(s, client, t.Logf)

	t.Run("get_buffer_info uses the user's client", func(t *testing.T) {
		out := mustCall(t, env, "get_buffer_info", `{"file":"main.go","include_content":false}`)
		servers, _ := out["language_servers"].([]any)
		if len(servers) != 1 || servers[0].(map[string]any)["name"] != "user-gopls" {
			t.Fatalf("language_servers = %v, want only user-gopls", out["language_servers"])
		}
		if out["language"] != "go" {
			t.Fatalf("language = %v", out["language"])
		}
	})

	t.Run("read_file", func(t *testing.T) {
		out := mustCall(t, env, "read_file", `{"file":"main.go","start_line":27,"end_line":27}`)
		lines, _ := out["lines"].([]any)
		if len(lines) != 1 || !strings.Contains(lines[0].(map[string]any)["text"].(string), "orders.Process") {
			t.Fatalf("read_file main.go:27 = %v", out["lines"])
		}
	})

	t.Run("find_definition", func(t *testing.T) {
		out := mustCall(t, env, "find_definition", `{"file":"main.go","line":27,"symbol":"Process"}`)
		if out["server"] != "user-gopls" {
			t.Fatalf("server = %v, want user-gopls", out["server"])
		}
		locs, _ := out["locations"].([]any)
		if len(locs) != 1 {
			t.Fatalf("locations = %v", out["locations"])
		}
		l := locs[0].(map[string]any)
		if l["file"] != "orders/orders.go" || l["line"] != 33.0 || l["column"] != 5.0 {
			t.Fatalf("definition = %v, want orders/orders.go:33:5", l)
		}
	})

	t.Run("find_references", func(t *testing.T) {
		out := mustCall(t, env, "find_references", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`)
		body, _ := json.Marshal(out)
		// 5 references including the declaration (README landmarks).
		for _, want := range []string{`"main.go"`, `"orders/batch.go"`, `"orders/orders_test.go"`} {
			if !strings.Contains(string(body), want) {
				t.Fatalf("references lack %s: %s", want, body)
			}
		}
	})

	t.Run("nvbridge started no server of its own", func(t *testing.T) {
		var names []string
		const code = "local out = {}; for _, c in ipairs(vim.lsp.get_clients()) do table.insert(out, c.name) end; return out"
		if err := s.ExecLua(testenv.Context(t), code, &names); err != nil {
			t.Fatal(err)
		}
		if len(names) != 1 || names[0] != "user-gopls" {
			t.Fatalf("clients in the user's Neovim = %v, want [user-gopls]", names)
		}
	})

	t.Run("conflict on a buffer the user opened", func(t *testing.T) {
		// The user opens and edits wallet.go in their Neovim (nvbridge never
		// saw it), then the file changes on disk: Neovim's own timestamp
		// check finds the conflict.
		path := filepath.Join(root, "payment/wallet.go")
		const edit = "local path = ...; vim.cmd.edit(vim.fn.fnameescape(path)); vim.api.nvim_buf_set_lines(0, 0, 0, false, {'// user edit'})"
		if err := s.ExecLua(testenv.Context(t), edit, nil, path); err != nil {
			t.Fatal(err)
		}
		insertAtTop(t, path, 1)
		_, e := callTool(t, env, "read_file", `{"file":"payment/wallet.go","start_line":1,"end_line":2}`)
		if e == nil || e.Code != apierr.Conflict {
			t.Fatalf("read_file after both changed: %v, want CONFLICT", e)
		}
		if got := bufferLines(t, s, path)[0]; got != "// user edit" {
			t.Fatalf("the user's edit is gone: first line %q", got)
		}
	})

	t.Run("Neovim dies", func(t *testing.T) {
		var pid int
		if err := s.ExecLua(testenv.Context(t), "return vim.fn.getpid()", &pid); err != nil {
			t.Fatal(err)
		}
		proc, err := os.FindProcess(pid)
		if err != nil {
			t.Fatal(err)
		}
		if err := proc.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// The very next call: no waiting for the session to notice.
		_, e := callTool(t, env, "get_buffer_info", `{"file":"main.go","include_content":false}`)
		if e == nil || e.Code != apierr.OperationFailed || !strings.Contains(e.Message, "connection to Neovim is closed") {
			t.Fatalf("call after Neovim died: %+v, want OPERATION_FAILED naming the closed connection", e)
		}
		<-s.Done()
		_, e = callTool(t, env, "read_file", `{"file":"main.go"}`)
		if e == nil || e.Code != apierr.OperationFailed || !strings.Contains(e.Message, "connection to Neovim is closed") {
			t.Fatalf("second call after Neovim died: %+v", e)
		}
	})
}

// TestAttachWrongAddress: a wrong address is a clear error, not a hang.
func TestAttachWrongAddress(t *testing.T) {
	root := t.TempDir()
	r, err := workspaceRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{filepath.Join(root, "no-such.sock"), "127.0.0.1:1"} {
		_, err := nvim.Open(context.Background(), nvim.Options{Addr: addr, Root: r})
		if apierr.CodeOf(err) != apierr.ResourceNotFound || !strings.Contains(err.Error(), addr) {
			t.Errorf("attach to %s: %v, want RESOURCE_NOT_FOUND naming the address", addr, err)
		}
	}
}
