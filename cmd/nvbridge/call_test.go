package main

import (
	"encoding/json"
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
