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
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

// NpmDirEnv overrides where the tests find the npm packages of
// scripts/npm (default: the repository's .deps/npm, installed by make deps).
const NpmDirEnv = "NVBRIDGE_NPM_DIR"

// sdkResult is what testdata/mcp_sdk_client.mjs prints.
type sdkResult struct {
	SDK        string `json:"sdk"`
	WrongToken string `json:"wrong_token"`
	Server     struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Tools              []string  `json:"tools"`
	ReadLines          []string  `json:"read_lines"`
	Preview            sdkCall   `json:"preview"`
	LinesAfterPreview  []string  `json:"lines_after_preview"`
	Apply              sdkCall   `json:"apply"`
	LinesAfterApply    []string  `json:"lines_after_apply"`
	Undo               sdkCall   `json:"undo"`
	LinesAfterUndo     []string  `json:"lines_after_undo"`
	Direct             sdkCall   `json:"direct"`
	Conflict           sdkCall   `json:"conflict"`
	LinesAfterConflict []string  `json:"lines_after_conflict"`
	SymbolsWhileHung   sdkCall   `json:"symbols_while_hung"`
	Cancelled          cancelled `json:"cancelled"`
	ServerLog          sdkCall   `json:"server_log"`
	AfterCancel        sdkCall   `json:"after_cancel"`
}

type sdkCall struct {
	IsError    bool           `json:"is_error"`
	Structured map[string]any `json:"structured"`
	Text       string         `json:"text"`
}

type cancelled struct {
	Answered *sdkCall `json:"answered"`
	Rejected string   `json:"rejected"`
}

// TestMCPTypeScriptSDK: the official MCP TypeScript SDK client (npm
// @modelcontextprotocol/sdk, pinned in scripts/npm) drives nvbridge over
// stdio (spawning `nvbridge mcp`) and over streamable HTTP with the token:
// initialize, list tools, read, preview, apply, undo, a CONFLICT and a
// cancellation that reaches the language server as $/cancelRequest.
func TestMCPTypeScriptSDK(t *testing.T) {
	testenv.Require(t, "nvim", "node")
	npmDir := os.Getenv(NpmDirEnv)
	if npmDir == "" {
		npmDir = filepath.Join(testenv.RepoRoot(t), ".deps", "npm")
	}
	if _, err := os.Stat(filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the MCP TypeScript SDK is not installed in %s: run `make deps` (%v)", npmDir, err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcp_sdk_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	servers := cancelFakeServers(t)
	extra := nvim.ExtraServersEnv + "=" + string(servers)
	// Only the client's cancellation may end the hung request.
	timeout := (2 * testenv.Timeout()).String()

	workspace := func(t *testing.T) string {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\nsecond line\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return root
	}
	node := func(t *testing.T, args ...string) sdkResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*testenv.Timeout())
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
		cmd.Env = append(os.Environ(), NpmDirEnv+"="+npmDir, "NVIM=", extra)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("node %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
		}
		var res sdkResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("the client's output is not JSON (%v):\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
		}
		if t.Failed() {
			t.Logf("client stderr:\n%s", stderr.String())
		}
		return res
	}

	t.Run("stdio", func(t *testing.T) {
		testenv.Isolate(t)
		root := workspace(t)
		res := node(t, "stdio", binary(t), "--root", root, "mcp", "--timeout", timeout)
		checkSDKRun(t, res)
	})

	t.Run("http", func(t *testing.T) {
		root := workspace(t)
		token := "sdk-e2e-" + randomToken()
		p := start(t, []string{extra}, "--root", root, "--timeout", timeout, "mcp", "--http", "127.0.0.1:0", "--token", token)
		stderr := p.waitStderr("serving MCP on ")
		url := regexp.MustCompile(`serving MCP on (http://\S+/mcp)`).FindStringSubmatch(stderr)
		if url == nil {
			t.Fatalf("no URL in stderr:\n%s", stderr)
		}
		res := node(t, "http", url[1], token)
		if !strings.HasPrefix(res.WrongToken, "401: ") {
			t.Errorf("a wrong token: %q, want a refusal with 401", res.WrongToken)
		}
		if strings.Contains(p.stderr.String(), token) {
			t.Error("the token was printed although it was given")
		}
		checkSDKRun(t, res)
		if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit %d after SIGINT", code)
		}
	})
}

func checkSDKRun(t *testing.T, res sdkResult) {
	t.Helper()
	if !strings.HasPrefix(res.SDK, "1.") || res.Server.Name != "nvbridge" {
		t.Errorf("sdk %q, server %+v", res.SDK, res.Server)
	}
	var want []string
	for _, tool := range tools.All(nil) {
		want = append(want, tool.Tool.Name)
	}
	got := slices.Clone(res.Tools)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("tools/list: %v\nwant %v", got, want)
	}
	original := []string{"hello world", "second line"}
	if !slices.Equal(res.ReadLines, original) {
		t.Errorf("read_file: %v", res.ReadLines)
	}
	id, _ := res.Preview.Structured["changeset_id"].(string)
	if res.Preview.IsError || id == "" || !strings.Contains(res.Preview.Text, "+hello there") {
		t.Errorf("preview: %+v", res.Preview)
	}
	if !slices.Equal(res.LinesAfterPreview, original) {
		t.Errorf("a preview changed the buffer: %v", res.LinesAfterPreview)
	}
	if res.Apply.IsError || !slices.Equal(res.LinesAfterApply, []string{"hello there", "second line"}) {
		t.Errorf("apply: %+v; lines %v", res.Apply, res.LinesAfterApply)
	}
	if res.Undo.IsError || !slices.Equal(res.LinesAfterUndo, original) {
		t.Errorf("undo: %+v; lines %v", res.Undo, res.LinesAfterUndo)
	}
	if res.Direct.IsError {
		t.Errorf("edit_buffer preview=false: %+v", res.Direct)
	}
	errObj, _ := res.Conflict.Structured["error"].(map[string]any)
	if !res.Conflict.IsError || errObj["code"] != "CONFLICT" {
		t.Errorf("apply of a stale preview: %+v, want CONFLICT", res.Conflict)
	}
	if !slices.Equal(res.LinesAfterConflict, []string{"hello world", "moved on"}) {
		t.Errorf("a refused apply changed the buffer: %v", res.LinesAfterConflict)
	}
	if res.SymbolsWhileHung.IsError {
		t.Errorf("get_symbols while a call hung: %+v", res.SymbolsWhileHung)
	}
	if res.Cancelled.Answered != nil && !res.Cancelled.Answered.IsError || !strings.Contains(res.Cancelled.Rejected, "changed their mind") {
		t.Errorf("the aborted call: %+v, want the SDK to reject it with the abort reason", res.Cancelled)
	}
	log, _ := res.ServerLog.Structured["contents"].(string)
	refs := regexp.MustCompile(`(?m)^textDocument/references id=(\d+)$`).FindAllStringSubmatch(log, -1)
	cancels := regexp.MustCompile(`(?m)^\$/cancelRequest id=(\d+)$`).FindAllStringSubmatch(log, -1)
	if len(refs) != 1 || len(cancels) != 1 || cancels[0][1] != refs[0][1] {
		t.Errorf("the language server should receive $/cancelRequest for the references request; its log:\n%s", log)
	}
	if res.AfterCancel.IsError || res.AfterCancel.Structured["file"] != "notes.txt" {
		t.Errorf("get_buffer_info after the cancellation: %+v", res.AfterCancel)
	}
}
