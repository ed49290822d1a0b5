package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallInvalidJSON (issue 8): `nvbridge call` with arguments that are not
// JSON answers like every other failure: {"error": {code, message,
// remediation}} on stdout, exit 1; it starts no Neovim (none is needed here).
func TestCallInvalidJSON(t *testing.T) {
	for _, args := range []string{`{"file":`, `not json`, `{"file":"a.go"} trailing`} {
		var stdout, stderr strings.Builder
		code := run([]string{"--root", t.TempDir(), "--nvim-cmd", "/nonexistent/nvim", "call", "read_file", args}, &stdout, &stderr)
		var body struct {
			Error struct {
				Code        string `json:"code"`
				Message     string `json:"message"`
				Remediation string `json:"remediation"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(stdout.String()), &body); err != nil {
			t.Fatalf("%q: stdout is not JSON (%v): %q; stderr %q", args, err, stdout.String(), stderr.String())
		}
		if code != 1 || body.Error.Code != "INVALID_PARAMETER" || !strings.Contains(body.Error.Message, "not valid JSON") || body.Error.Remediation == "" {
			t.Errorf("%q: exit %d, error %+v", args, code, body.Error)
		}
	}
}

// TestCallChangeLimits: --max-edits and --max-diff-bytes reach the
// changeset engine, in the daemon (started with them, and told apart from
// a daemon without them) and with --no-daemon: past them a change is
// refused with INVALID_PARAMETER, saying the count or the size, the file
// unchanged; applying without a preview gets past the diff bound.
func TestCallChangeLimits(t *testing.T) {
	root := t.TempDir()
	const text = "x x x\n"
	file := filepath.Join(root, "f.txt")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	const replace = `{"file":"f.txt","old":"x","new":"y"}`
	wantRefused := func(got map[string]any, fragment string) {
		t.Helper()
		e, _ := got["error"].(map[string]any)
		if e["code"] != "INVALID_PARAMETER" || !strings.Contains(fmt.Sprint(e["message"]), fragment) || e["remediation"] == "" {
			t.Errorf("want INVALID_PARAMETER saying %q: %v", fragment, got)
		}
	}
	few := []string{"--root", root, "--max-edits", "2"}
	c := newCLI(t, few...)
	for _, mode := range [][]string{nil, {"--no-daemon"}} {
		wantRefused(c.call(1, "replace_in_buffer", replace, mode...), `"x" occurs 3 times in f.txt; one change makes at most 2 edits`)
	}
	// That daemon still runs; other bounds are another daemon's.
	c.global = []string{"--root", root, "--max-diff-bytes", "50"}
	for _, mode := range [][]string{nil, {"--no-daemon"}} {
		wantRefused(c.call(1, "replace_in_buffer", replace, mode...), "over the 50 bytes a preview may keep")
	}
	applied := c.call(0, "replace_in_buffer", `{"file":"f.txt","old":"x","new":"y","preview":false}`)
	if applied["matches_replaced"] != float64(3) {
		t.Fatalf("applied without a preview: %v", applied)
	}
	c.call(0, "save_buffer", `{"file":"f.txt"}`)
	if b, _ := os.ReadFile(file); string(b) != "y y y\n" {
		t.Fatalf("f.txt holds %q", b)
	}
	c.run("daemon", "stop")
	c.global = few // the first daemon, stopped at cleanup
}
