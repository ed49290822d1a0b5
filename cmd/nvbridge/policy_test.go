package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestPolicyFlags: --allow-sensitive opens a file the default deny list
// covers, --deny closes another; the refusal says how to allow the file.
func TestPolicyFlags(t *testing.T) {
	testenv.Require(t, "nvim")
	testenv.Isolate(t)
	root := t.TempDir()
	for name, content := range map[string]string{".env.example": "EXAMPLE=1\n", "notes.txt": "notes\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	call := func(flags []string, file string) (int, string) {
		var stdout, stderr strings.Builder
		global := append([]string{"--root", root}, flags...)
		// Each set of flags has a daemon of its own: stopped at the end,
		// not left to its idle timeout.
		t.Cleanup(func() { run(append(global, "daemon", "stop"), io.Discard, io.Discard) })
		code := run(append(global, "call", "read_file", `{"file":"`+file+`"}`), &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	if code, out := call(nil, ".env.example"); code != 1 || !strings.Contains(out, "PRECONDITION_FAILED") || !strings.Contains(out, `--allow-sensitive \".env*\"`) {
		t.Errorf("denied by default: %d\n%s", code, out)
	}
	if code, out := call([]string{"--allow-sensitive", ".env.example"}, ".env.example"); code != 0 || !strings.Contains(out, "EXAMPLE=1") {
		t.Errorf("allowed: %d\n%s", code, out)
	}
	if code, out := call([]string{"--deny", "*.txt"}, "notes.txt"); code != 1 || !strings.Contains(out, "PRECONDITION_FAILED") {
		t.Errorf("--deny: %d\n%s", code, out)
	}
	if code, out := call([]string{"--deny", "[bad"}, "notes.txt"); code == 0 || !strings.Contains(out, "bad pattern") {
		t.Errorf("a bad pattern: %d\n%s", code, out)
	}
}

// TestProjectFileOnlyTightens: a committed .nvbridge.json that allows .env
// and keys opens nothing (reads and edits are refused, pointing to the
// user's config file and the flag), nvbridge still starts, and get_status
// and the log say what was ignored; the same patterns in the user's own
// config file open them; the project's deny still holds either way.
func TestProjectFileOnlyTightens(t *testing.T) {
	root := t.TempDir()
	logFile := filepath.Join(t.TempDir(), "nvbridge.log")
	c := newCLI(t, "--root", root, "--log", logFile)
	// testenv.Isolate (in newCLI) points $XDG_CONFIG_HOME at a temp dir.
	userFile := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "nvbridge", "config.json")
	for name, content := range map[string]string{
		".env":             "TOKEN=secret\n",
		"id_rsa":           "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		"certs/server.pem": "-----BEGIN CERTIFICATE-----\n",
		"notes.txt":        "notes\n",
		".nvbridge.json":   `{"deny": ["notes.txt"], "allow": [".env", "id_rsa", "*.pem"], "allow_hardlinks": true}`,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	editEnv := `{"file":".env","edits":[{"line_start":1,"line_end":1,"new_text":"TOKEN=changed"}],"preview":false,"save":true}`
	refused := func(out map[string]any, file string) {
		t.Helper()
		e, _ := out["error"].(map[string]any)
		msg, _ := e["message"].(string)
		how, _ := e["remediation"].(string)
		if errorCode(out) != "PRECONDITION_FAILED" || !strings.Contains(msg, file) {
			t.Errorf("%s: %v, want PRECONDITION_FAILED naming it", file, out)
		}
		if file != "notes.txt" && (!strings.Contains(how, "--allow-sensitive") || !strings.Contains(how, userFile) ||
			strings.Contains(how, `"allow" in .nvbridge.json`)) {
			t.Errorf("%s: the remediation does not point to the flag and %s: %q", file, userFile, how)
		}
	}

	for _, f := range []string{".env", "id_rsa", "certs/server.pem", "notes.txt"} {
		refused(c.call(1, "read_file", `{"file":"`+f+`"}`), f)
	}
	refused(c.call(1, "edit_buffer", editEnv), ".env")
	if got, _ := os.ReadFile(filepath.Join(root, ".env")); string(got) != "TOKEN=secret\n" {
		t.Errorf(".env = %q after a refused edit", got)
	}
	st := c.call(0, "get_status", `{}`)
	var warned bool
	issues, _ := st["issues"].([]any)
	for _, i := range issues {
		issue, _ := i.(map[string]any)
		reason, _ := issue["reason"].(string)
		how, _ := issue["remediation"].(string)
		if issue["component"] == "policy" && strings.Contains(reason, `".env", "id_rsa", "*.pem"`) &&
			strings.Contains(reason, "allow_hardlinks") && strings.Contains(how, userFile) && strings.Contains(how, "--allow-sensitive") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("get_status has no policy warning naming the ignored keys and how to allow them: %v", st["issues"])
	}
	if log, _ := os.ReadFile(logFile); !strings.Contains(string(log), `policy: .nvbridge.json at the workspace root has "allow": [".env", "id_rsa", "*.pem"]`) {
		t.Errorf("the log does not warn about the ignored keys:\n%s", log)
	}

	// The user's own config file: a new policy, so a new daemon (its
	// identity covers the file); the first one is stopped here because the
	// cleanup only finds the last.
	if st, ok := c.status(); ok {
		procs := append(descendants(t, st.PID), c.daemonProcess(st.PID))
		c.run("daemon", "stop")
		waitGone(t, procs)
	}
	if err := os.MkdirAll(filepath.Dir(userFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(userFile, []byte(`{"allow": [".env", "*.pem"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := c.call(0, "read_file", `{"file":".env"}`); !strings.Contains(jsonText(t, out), "TOKEN=secret") {
		t.Errorf("read_file .env with the user config's allow: %v", out)
	}
	if out := c.call(0, "read_file", `{"file":"certs/server.pem"}`); !strings.Contains(jsonText(t, out), "BEGIN CERTIFICATE") {
		t.Errorf("read_file certs/server.pem with the user config's allow: %v", out)
	}
	c.call(0, "edit_buffer", editEnv)
	if got, _ := os.ReadFile(filepath.Join(root, ".env")); string(got) != "TOKEN=changed\n" {
		t.Errorf(".env = %q after an allowed edit", got)
	}
	refused(c.call(1, "read_file", `{"file":"id_rsa"}`), "id_rsa")
	refused(c.call(1, "read_file", `{"file":"notes.txt"}`), "notes.txt")
}
