package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestHelp: every command has help on stdout with exit 0, and asking for it
// runs nothing (demo --help is not the demo, tools --help not the catalog).
func TestHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "usage: nvbridge [global flags] COMMAND"},
		{[]string{"-h"}, "usage: nvbridge [global flags] COMMAND"},
		{[]string{"help"}, "usage: nvbridge [global flags] COMMAND"},
		{[]string{"help", "call"}, "usage: nvbridge [global flags] call"},
		{[]string{"call", "--help"}, "usage: nvbridge [global flags] call"},
		{[]string{"call", "find_definition", "--help"}, "usage: nvbridge [global flags] call"},
		{[]string{"mcp", "--help"}, "usage: nvbridge [global flags] mcp"},
		{[]string{"tools", "--help"}, "usage: nvbridge tools"},
		{[]string{"demo", "--help"}, "usage: nvbridge [global flags] demo"},
		{[]string{"daemon", "--help"}, "usage: nvbridge [global flags] daemon status|stop"},
		{[]string{"help", "version"}, "usage: nvbridge version"},
	} {
		var stdout, stderr strings.Builder
		code := run(c.args, &stdout, &stderr)
		if code != 0 || !strings.HasPrefix(stdout.String(), c.want) || stderr.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0 and %q", c.args, code, stdout.String(), stderr.String(), c.want)
		}
		if strings.Contains(stdout.String(), "$ nvbridge call") || strings.Contains(stdout.String(), `"inputSchema"`) {
			t.Errorf("%v ran the command instead of printing help:\n%s", c.args, stdout.String())
		}
	}
	// Flags every command accepts, global ones included, are listed.
	var stdout, stderr strings.Builder
	run([]string{"call", "--help"}, &stdout, &stderr)
	for _, flag := range []string{"-root", "-nvim", "-no-daemon", "-idle-timeout", "Exit codes:"} {
		if !strings.Contains(stdout.String(), flag) {
			t.Errorf("call --help lacks %s:\n%s", flag, stdout.String())
		}
	}
	// A bad flag or command is a usage error (exit 2), on stderr.
	for _, args := range [][]string{{"--no-such-flag"}, {"mcp", "--no-such-flag"}, {"no-such-command"}, {}} {
		stdout.Reset()
		stderr.Reset()
		if code := run(args, &stdout, &stderr); code != 2 || stdout.Len() != 0 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and a message on stderr", args, code, stdout.String(), stderr.String())
		}
	}
}

// TestVersionFindsCheckoutDeps: a binary built in a checkout (next to
// .deps, as `go build -o nvbridge ./cmd/nvbridge` leaves it) uses the
// checkout's private Neovim and servers even when PATH has none, and
// `version` (or --version) says so.
func TestVersionFindsCheckoutDeps(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	checkout := t.TempDir()
	if err := os.Symlink(filepath.Join(testenv.RepoRoot(t), ".deps"), filepath.Join(checkout, ".deps")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(checkout, "nvbridge")
	data, err := os.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"version", "--version"} {
		cmd := exec.Command(bin, arg)
		cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin", DepsEnv+"=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		want := []string{
			"nvbridge dev (",
			"private deps: " + filepath.Join(checkout, ".deps", "bin") + " (next to the binary",
			"nvim: " + filepath.Join(checkout, ".deps", "bin", "nvim") + " (NVIM v0.",
			"gopls: " + filepath.Join(checkout, ".deps", "bin", "gopls"),
			"tree-sitter parsers: " + filepath.Join(checkout, ".deps", "parser"),
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s output lacks %q:\n%s", arg, w, out)
			}
		}
	}
	// $NVBRIDGE_DEPS=off: only PATH counts.
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin", DepsEnv+"=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "private deps: none ($"+DepsEnv+"=off)") || strings.Contains(string(out), checkout) {
		t.Errorf("with %s=off:\n%s", DepsEnv, out)
	}
}

// TestGlobalFlagsAfterCommand: `nvbridge mcp --root X` works as
// `nvbridge --root X mcp` (it used to fail: flag provided but not defined).
func TestGlobalFlagsAfterCommand(t *testing.T) {
	testenv.Require(t, "nvim")
	root := testenv.CopySample(t, "go")
	p := start(t, nil, "mcp", "--root", root, "--timeout", "40s")
	p.initialize()
	res := p.call(2, "tools/call", map[string]any{"name": "read_file", "arguments": map[string]any{"file": "orders/orders.go", "start_line": 33, "end_line": 33}})
	if res["isError"] == true || !strings.Contains(jsonText(t, res), "func Process(") {
		t.Fatalf("read_file in --root given after mcp: %v", res)
	}
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestAttachedRootDefaultsToNeovimCwd: attached with no --root, the
// workspace is Neovim's working directory, not nvbridge's.
func TestAttachedRootDefaultsToNeovimCwd(t *testing.T) {
	testenv.Require(t, "nvim")
	root := testenv.CopySample(t, "go")
	addr := testenv.Listening(t, root) // Neovim's cwd is root
	var stdout, stderr strings.Builder
	code := run([]string{"--nvim", addr, "call", "--no-daemon", "read_file", `{"file":"orders/orders.go","start_line":33,"end_line":33}`}, &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), "func Process(") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
}

// jsonText is a tool result as JSON text, for substring checks.
func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// `nvbridge tools` lists web_search only when a provider is configured, and
// refuses a provider configuration that cannot work.
func TestToolsListsWebSearchWhenConfigured(t *testing.T) {
	t.Setenv("NVBRIDGE_SEARXNG_URL", "")
	t.Setenv("BRAVE_API_KEY", "")
	for _, c := range []struct {
		args   []string
		code   int
		listed bool
	}{
		{[]string{"tools"}, 0, false},
		{[]string{"tools", "--searxng-url", "http://127.0.0.1:8888"}, 0, true},
		{[]string{"--search-provider", "brave", "tools"}, 2, false}, // no key
		{[]string{"tools", "--searxng-url", "ftp://example.com"}, 2, false},
	} {
		var stdout, stderr strings.Builder
		code := run(c.args, &stdout, &stderr)
		listed := strings.Contains(stdout.String(), `"name": "web_search"`)
		if code != c.code || listed != c.listed {
			t.Errorf("%v: exit %d, web_search listed %v (stderr %q); want exit %d, listed %v", c.args, code, listed, stderr.String(), c.code, c.listed)
		}
	}
	t.Setenv("BRAVE_API_KEY", "k")
	var stdout, stderr strings.Builder
	if code := run([]string{"tools"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), `"name": "web_search"`) {
		t.Errorf("with $BRAVE_API_KEY: exit %d, web_search not listed (stderr %q)", code, stderr.String())
	}
}
