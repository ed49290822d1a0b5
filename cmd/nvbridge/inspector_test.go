package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// TestMCPInspectorCLI: the MCP Inspector's CLI mode (npm
// @modelcontextprotocol/inspector, headless: one method per run) against
// nvbridge over stdio (it spawns `nvbridge mcp`) and over streamable HTTP
// with the token: list tools, read, preview, apply, undo, a CONFLICT, a
// wrong token refused. (The CLI mode cannot abort a call: cancellation is
// covered by TestMCPTypeScriptSDK.) Over HTTP the runs share one nvbridge,
// so a changeset previewed by one run is applied by the next.
func TestMCPInspectorCLI(t *testing.T) {
	testenv.Require(t, "nvim", "node")
	testenv.Isolate(t)
	npmDir := os.Getenv(NpmDirEnv)
	if npmDir == "" {
		npmDir = filepath.Join(testenv.RepoRoot(t), ".deps", "npm")
	}
	inspector := filepath.Join(npmDir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(inspector); err != nil {
		t.Fatalf("the MCP Inspector is not installed in %s: run `make deps` (%v)", npmDir, err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	catalog := filepath.Join(t.TempDir(), "mcp.json")

	// inspect runs the Inspector CLI with target and method args; it returns
	// the decoded JSON answer, or fails the test unless wantOK is false.
	inspect := func(t *testing.T, wantOK bool, target []string, args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*testenv.Timeout())
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, append(append([]string{"--cli"}, target...), args...)...)
		cmd.Env = append(os.Environ(), "NVIM=", "MCP_CATALOG_PATH="+catalog)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var out map[string]any
		if err != nil && wantOK && json.Unmarshal(stdout.Bytes(), &out) == nil && out["isError"] == true {
			return out // a tool's error result: the Inspector exits non-zero
		}
		if !wantOK {
			if err == nil {
				t.Fatalf("inspector %v succeeded, want a failure:\n%s", args, stdout.String())
			}
			return map[string]any{"stderr": stderr.String() + stdout.String()}
		}
		if err != nil {
			t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
		}
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("inspector %v: not JSON (%v):\n%s", args, err, stdout.String())
		}
		return out
	}
	call := func(t *testing.T, target []string, tool string, args ...string) (map[string]any, bool) {
		t.Helper()
		cli := []string{"--method", "tools/call", "--tool-name", tool}
		for _, a := range args {
			cli = append(cli, "--tool-arg", a)
		}
		out := inspect(t, true, target, cli...)
		structured, _ := out["structuredContent"].(map[string]any)
		return structured, out["isError"] == true
	}
	lines := func(t *testing.T, target []string) []string {
		t.Helper()
		res, isErr := call(t, target, "read_file", "file=notes.txt")
		if isErr {
			t.Fatalf("read_file: %v", res)
		}
		var out []string
		list, _ := res["lines"].([]any)
		for _, l := range list {
			m, _ := l.(map[string]any)
			text, _ := m["text"].(string)
			out = append(out, text)
		}
		return out
	}
	var want []string
	for _, tool := range tools.All(nil) {
		want = append(want, tool.Tool.Name)
	}
	slices.Sort(want)
	toolNames := func(out map[string]any) []string {
		var names []string
		list, _ := out["tools"].([]any)
		for _, tl := range list {
			m, _ := tl.(map[string]any)
			name, _ := m["name"].(string)
			names = append(names, name)
		}
		slices.Sort(names)
		return names
	}

	t.Run("stdio", func(t *testing.T) {
		target := []string{binary(t), "--root", root, "mcp"}
		if got := toolNames(inspect(t, true, target, "--method", "tools/list")); !slices.Equal(got, want) {
			t.Errorf("tools/list: %v\nwant %v", got, want)
		}
		if got := lines(t, target); !slices.Equal(got, []string{"hello world", "second line"}) {
			t.Errorf("read_file: %v", got)
		}
	})

	t.Run("http", func(t *testing.T) {
		token := "inspector-" + randomToken()
		p := start(t, nil, "--root", root, "mcp", "--http", "127.0.0.1:0", "--token", token)
		m := regexp.MustCompile(`serving MCP on (http://\S+/mcp)`).FindStringSubmatch(p.waitStderr("serving MCP on "))
		if m == nil {
			t.Fatalf("no URL in stderr:\n%s", p.stderr.String())
		}
		target := []string{m[1], "--transport", "http", "--header", "Authorization: Bearer " + token}

		refused := inspect(t, false, []string{m[1], "--transport", "http", "--header", "Authorization: Bearer wrong"}, "--method", "tools/list")
		// Refused with 401, the Inspector turns to OAuth, which needs a TTY.
		if s, _ := refused["stderr"].(string); !strings.Contains(s, "auth_required") {
			t.Errorf("a wrong token: %s", s)
		}
		if got := toolNames(inspect(t, true, target, "--method", "tools/list")); !slices.Equal(got, want) {
			t.Errorf("tools/list: %v\nwant %v", got, want)
		}
		original := []string{"hello world", "second line"}
		if got := lines(t, target); !slices.Equal(got, original) {
			t.Fatalf("read_file: %v", got)
		}
		preview, isErr := call(t, target, "edit_buffer", "file=notes.txt", `edits=[{"line_start":1,"line_end":1,"new_text":"hello there"}]`)
		id, _ := preview["changeset_id"].(string)
		if isErr || id == "" {
			t.Fatalf("preview: %v", preview)
		}
		if got := lines(t, target); !slices.Equal(got, original) {
			t.Errorf("a preview changed the buffer: %v", got)
		}
		if res, isErr := call(t, target, "apply_changeset", "changeset_id="+id); isErr {
			t.Fatalf("apply_changeset: %v", res)
		}
		if got := lines(t, target); !slices.Equal(got, []string{"hello there", "second line"}) {
			t.Errorf("after apply: %v", got)
		}
		if res, isErr := call(t, target, "undo", "file=notes.txt"); isErr {
			t.Fatalf("undo: %v", res)
		}
		if got := lines(t, target); !slices.Equal(got, original) {
			t.Errorf("after undo: %v", got)
		}
		stale, _ := call(t, target, "edit_buffer", "file=notes.txt", `edits=[{"line_start":2,"line_end":2,"new_text":"from the preview"}]`)
		if res, isErr := call(t, target, "edit_buffer", "file=notes.txt", "preview=false", `edits=[{"line_start":2,"line_end":2,"new_text":"moved on"}]`); isErr {
			t.Fatalf("edit_buffer preview=false: %v", res)
		}
		conflict, isErr := call(t, target, "apply_changeset", "changeset_id="+stale["changeset_id"].(string))
		e, _ := conflict["error"].(map[string]any)
		if !isErr || e["code"] != "CONFLICT" {
			t.Errorf("apply of a stale preview: %v, want CONFLICT", conflict)
		}
		if got := lines(t, target); !slices.Equal(got, []string{"hello world", "moved on"}) {
			t.Errorf("a refused apply changed the buffer: %v", got)
		}
		if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit %d after SIGINT", code)
		}
	})
}
