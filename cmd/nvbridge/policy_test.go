package main

import (
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
		args := append(append([]string{"--root", root}, flags...), "call", "read_file", `{"file":"`+file+`"}`)
		code := run(args, &stdout, &stderr)
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
