package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestCallModes: `call --read-only` and `call --mode` refuse what an MCP
// session started with them refuses, with the same structured error, in
// the daemon and with --no-daemon; one warm daemon serves a read-only call
// and a writing one, each with its own flags.
func TestCallModes(t *testing.T) {
	testenv.Require(t, "gopls", "go")
	root := testenv.CopySample(t, "go")
	c := newCLI(t, "--root", root)
	mainGo := filepath.Join(root, "main.go")
	before, err := os.ReadFile(mainGo)
	if err != nil {
		t.Fatal(err)
	}
	const edit = `{"file":"main.go","edits":[{"line_start":1,"line_end":0,"new_text":"// changed\n"}],"preview":false,"save":true}`
	for _, where := range [][]string{nil, {"--no-daemon"}} {
		refused := c.call(1, "edit_buffer", edit, append([]string{"--read-only"}, where...)...)
		e, _ := refused["error"].(map[string]any)
		if e["code"] != "PRECONDITION_FAILED" || !strings.Contains(e["message"].(string), "read-only") || e["remediation"] == "" {
			t.Errorf("%v --read-only edit_buffer: %v", where, refused)
		}
		if after, _ := os.ReadFile(mainGo); string(after) != string(before) {
			t.Fatalf("%v: a refused edit changed main.go", where)
		}
		hidden := c.call(1, "rename_symbol", `{"file":"orders/orders.go","line":33,"symbol":"Process","new_name":"Run"}`,
			append([]string{"--mode", "explore"}, where...)...)
		if e, _ := hidden["error"].(map[string]any); e["code"] != "PRECONDITION_FAILED" || !strings.Contains(e["message"].(string), "mode explore") {
			t.Errorf("%v --mode explore rename_symbol: %v", where, hidden)
		}
		// Reading still works read-only.
		if info := c.call(0, "get_buffer_info", `{"file":"main.go","include_content":false}`, append([]string{"--read-only"}, where...)...); info["file"] != "main.go" {
			t.Errorf("%v --read-only get_buffer_info: %v", where, info)
		}
		if _, stderr, code := c.run(append(append([]string{"call", "--mode", "bogus"}, where...), "get_buffer_info", `{"file":"main.go"}`)...); code != 2 || !strings.Contains(stderr, "unknown mode") {
			t.Errorf("%v --mode bogus: exit %d, stderr %q", where, code, stderr)
		}
	}
	// The daemon that refused the read-only edit applies a writable one.
	c.call(0, "edit_buffer", edit)
	if after, _ := os.ReadFile(mainGo); !strings.HasPrefix(string(after), "// changed\n") {
		t.Fatalf("the writable call did not edit main.go:\n%s", after)
	}
}
