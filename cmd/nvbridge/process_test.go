package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	gonvim "github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// TestStdioLifecycle runs the built binary as an MCP client would (stdio),
// calls a tool that starts gopls, then ends the session two ways (stdin
// closed, SIGTERM): nvbridge exits, and with it the embedded Neovim and the
// language servers (no orphans). Stdout carries nothing but JSON-RPC.
func TestStdioLifecycle(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")

	session := func(t *testing.T) (*proc, []process) {
		p := start(t, nil, "--root", root, "mcp")
		p.initialize()
		tools := p.call(2, "tools/list", map[string]any{})
		if list, _ := tools["tools"].([]any); len(list) == 0 {
			t.Fatalf("tools/list: %v", tools)
		}
		res := p.call(3, "tools/call", map[string]any{
			"name":      "find_definition",
			"arguments": map[string]any{"file": "main.go", "line": 27, "symbol": "Process"},
		})
		if res["isError"] == true {
			t.Fatalf("find_definition: %v", res)
		}
		procs := descendants(t, p.cmd.Process.Pid)
		if !hasProcess(procs, "nvim") || !hasProcess(procs, "gopls") {
			t.Fatalf("expected nvim and gopls below nvbridge, got %+v", procs)
		}
		return p, procs
	}

	t.Run("stdin closed", func(t *testing.T) {
		p, procs := session(t)
		p.stdin.Close()
		if code := p.wait(); code != 0 {
			t.Errorf("exit code %d after stdin closed, want 0", code)
		}
		waitGone(t, procs)
		p.checkStdout()
	})

	t.Run("SIGTERM", func(t *testing.T) {
		p, procs := session(t)
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit code %d after SIGTERM, want 0", code)
		}
		waitGone(t, procs)
		p.checkStdout()
	})

	t.Run("SIGKILL", func(t *testing.T) {
		// No cleanup can run: the embedded Neovim sees its stdin close and
		// quits, stopping its servers.
		p, procs := session(t)
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		p.wait()
		waitGone(t, procs)
	})
}

// TestAttachedNeovimQuits: nvbridge attached to a Neovim that goes away
// stops with an error instead of serving a dead session.
func TestAttachedNeovimQuits(t *testing.T) {
	testenv.Require(t, "nvim")
	root := testenv.CopySample(t, "go")
	addr := testenv.Listening(t, root)
	p := start(t, nil, "--root", root, "--nvim", addr, "mcp")
	p.initialize()
	res := p.call(2, "tools/call", map[string]any{"name": "get_buffer_info", "arguments": map[string]any{"file": "main.go", "include_content": false}})
	if res["isError"] == true {
		t.Fatalf("get_buffer_info: %v", res)
	}
	// The user quits their Neovim (:qa!).
	v, err := gonvim.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = v.Command("qa!") // the connection ends with Neovim
	v.Close()
	if code := p.wait(); code != 1 {
		t.Errorf("exit code %d after Neovim quit, want 1", code)
	}
	if !strings.Contains(p.stderr.String(), "Neovim closed the connection") {
		t.Errorf("stderr does not say why nvbridge stopped:\n%s", p.stderr.String())
	}
	p.checkStdout()
}

// TestWrongAddress: a wrong --nvim address is a clear error with exit code
// 1, in every mode, and nothing reaches stdout.
func TestWrongAddress(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", root) // call's daemon (which cannot start) keeps its files there
	sock := root + "/no-such.sock"
	for _, args := range [][]string{
		{"call", "get_buffer_info", `{"file":"main.go"}`},
		{"mcp"},
		{"mcp", "--http", "127.0.0.1:0"},
	} {
		var stdout, stderr strings.Builder
		code := run(append([]string{"--root", root, "--nvim", sock}, args...), &stdout, &stderr)
		if code != 1 {
			t.Errorf("%v: exit code %d, want 1", args, code)
		}
		if !strings.Contains(stderr.String(), "cannot connect to Neovim at "+sock) {
			t.Errorf("%v: stderr %q does not explain", args, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: stdout %q, want nothing", args, stdout.String())
		}
	}
}

// TestNVIMEnv: without --nvim, nvbridge attaches to $NVIM (set inside
// Neovim's :terminal) and uses the clients configured there.
func TestNVIMEnv(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	addr := testenv.Listening(t, root, testenv.UserLSPConfig(t, "user-gopls")...)
	t.Setenv("NVIM", addr)
	var stdout, stderr strings.Builder
	code := run([]string{"--root", root, "call", "--no-daemon", "find_definition", `{"file":"main.go","line":27,"symbol":"Process"}`}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
	}
	for _, want := range []string{`"server": "user-gopls"`, `"file": "orders/orders.go"`, `"line": 33`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, stdout.String())
		}
	}
}

// TestExtraServersEnv: $NVBRIDGE_EXTRA_SERVERS adds a server to the embedded
// Neovim (here the scripted fake, for plain text files) without Lua.
func TestExtraServersEnv(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := fakelsp.Spec("fakelsp", []string{"text"}, fakelsp.Script{Methods: map[string]string{
		"textDocument/hover": fakelsp.OK,
	}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal([]nvim.ServerSpec{spec})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(nvim.ExtraServersEnv, string(body))
	t.Setenv("NVIM", "") // embedded, even when the tests run inside Neovim
	var stdout, stderr strings.Builder
	code := run([]string{"--root", root, "call", "--no-daemon", "get_hover_info", `{"file":"notes.txt","line":1,"symbol":"hello"}`}, &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "fakelsp hover") || !strings.Contains(stdout.String(), `"server": "fakelsp"`) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}

	t.Setenv(nvim.ExtraServersEnv, `{"not":"a list"}`)
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"--root", root, "call", "--no-daemon", "get_buffer_info", `{"file":"notes.txt"}`}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), nvim.ExtraServersEnv) {
		t.Fatalf("a malformed $%s: exit %d, stderr %q", nvim.ExtraServersEnv, code, stderr.String())
	}
}
