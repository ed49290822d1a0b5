package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// faultFiles is how many files the fault tests' change saves.
const faultFiles = 50

// fiftyFileModule writes a Go module with faultFiles files and returns its
// root and the patch that changes one line in each.
func fiftyFileModule(t *testing.T) (root, patch string) {
	t.Helper()
	root = t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/faults\n\ngo 1.21\n")
	var b strings.Builder
	for i := 0; i < faultFiles; i++ {
		name := fmt.Sprintf("p/f%02d.go", i)
		write(name, fmt.Sprintf("package p\n\n// F%02d returns its number.\nfunc F%02d() int { return %d }\n", i, i, i))
		fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -4 +4 @@\n-func F%02d() int { return %d }\n+func F%02d() int { return %d }\n", name, name, i, i, i, 1000+i)
	}
	return root, b.String()
}

// diskState counts the files holding the old and the new text, and lists
// what a commit may have left behind.
func diskState(t *testing.T, root string) (old, new int, leftovers []string) {
	t.Helper()
	for i := 0; i < faultFiles; i++ {
		b, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("p/f%02d.go", i)))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.Contains(string(b), fmt.Sprintf("return %d }", i)):
			old++
		case strings.Contains(string(b), fmt.Sprintf("return %d }", 1000+i)):
			new++
		default:
			t.Errorf("f%02d.go holds neither text: %q", i, b)
		}
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".nvbridge-") {
			leftovers = append(leftovers, p)
		}
		return nil
	})
	return old, new, leftovers
}

// TestApplyKilledMidway: kill -9 of nvbridge, of Neovim or of the language
// server at moments spread over the write window of a 50-file change with
// save, then (nvbridge killed) a restart: every file is old, or every file
// is new, and what nvbridge says (the answer, or get_status after the
// restart) is what is on disk. nvbridge stops at the moment (a test hook
// on the commit's steps, NVBRIDGE_TEST_PAUSE_AT), the test kills, then
// lets it go on.
func TestApplyKilledMidway(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	trials := []struct{ kill, at string }{
		{"nvbridge", "temp:0"}, {"nvbridge", "temp:25"}, {"nvbridge", "journal:0"},
		{"nvbridge", "rename:0"}, {"nvbridge", "rename:25"}, {"nvbridge", "rename:49"}, {"nvbridge", "done:0"},
		{"nvim", "temp:25"}, {"nvim", "rename:25"},
		{"gopls", "rename:25"},
		{"sigterm", "temp:25"}, {"sigterm", "rename:25"},
	}
	for _, tr := range trials {
		t.Run(tr.kill+"@"+tr.at, func(t *testing.T) {
			root, patch := fiftyFileModule(t)
			p := start(t, []string{testPauseEnv + "=" + tr.at}, "--root", root, "mcp")
			p.initialize()
			stateHome := os.Getenv("XDG_STATE_HOME") // start isolated it; a restart must share it
			p.send(map[string]any{"id": 2, "method": "tools/call", "params": map[string]any{
				"name": "apply_patch", "arguments": map[string]any{"patch": patch, "save": true, "preview": false},
			}})
			p.waitStderr("nvbridge-test: paused at " + tr.at)

			// The commit records its new contents durably before "commit".
			wantNew := strings.HasPrefix(tr.at, "rename:") || tr.at == "done:0" || tr.kill != "nvbridge"
			switch tr.kill {
			case "nvbridge":
				if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				p.wait()
				q := start(t, []string{"XDG_STATE_HOME=" + stateHome}, "--root", root, "mcp")
				q.initialize()
				res := q.call(2, "tools/call", map[string]any{"name": "get_status", "arguments": map[string]any{}})
				checkRecovery(t, res, wantNew)
			case "sigterm":
				// A polite stop: the apply in flight finishes and answers
				// what it did, then nvbridge exits.
				if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
					t.Fatal(err)
				}
				msg := awaitAnswer(t, p, 2, "the apply's answer after SIGTERM")
				checkApplyAnswer(t, "gopls", msg)
				// The call ran with its context alive: its diagnostics
				// delta is whole, not cut short by the stop.
				if b, _ := json.Marshal(msg["result"]); !strings.Contains(string(b), `"complete":true`) {
					t.Errorf("the delta after SIGTERM is not complete: %s", b)
				}
				if code := p.wait(); code != 0 {
					t.Errorf("exit code %d after SIGTERM, want 0", code)
				}
			default:
				victim := 0
				for _, d := range descendants(t, p.cmd.Process.Pid) {
					if strings.Contains(d.cmdline, tr.kill) && !strings.Contains(d.cmdline, "nvbridge") {
						victim = d.pid
						break
					}
				}
				if victim == 0 {
					t.Fatalf("no %s process under nvbridge", tr.kill)
				}
				if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
					t.Fatal(err)
				}
				msg := awaitAnswer(t, p, 2, "the apply's answer after "+tr.kill+" was killed")
				checkApplyAnswer(t, tr.kill, msg)
			}
			old, new, leftovers := diskState(t, root)
			if wantNew && new != faultFiles || !wantNew && old != faultFiles {
				t.Errorf("on disk: %d old, %d new; want all %s", old, new, map[bool]string{true: "new", false: "old"}[wantNew])
			}
			if len(leftovers) > 0 {
				t.Errorf("left behind: %v", leftovers)
			}
		})
	}
}

// checkApplyAnswer: the answer says what reached the disk: with the
// language server killed (or nvbridge asked to stop) the change is
// applied; with Neovim killed the
// change reached the disk (every file) and the answer says so, file by
// file.
func checkApplyAnswer(t *testing.T, killed string, msg map[string]any) {
	t.Helper()
	res, _ := msg["result"].(map[string]any)
	b, _ := json.Marshal(res["structuredContent"])
	switch killed {
	case "gopls":
		if res["isError"] == true || !strings.Contains(string(b), `"applied":true`) {
			t.Errorf("answer after the language server was killed: %s", b)
		}
	case "nvim":
		var body struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
				Details struct {
					Files []struct {
						Path string `json:"path"`
						Disk string `json:"disk"`
					} `json:"files"`
				} `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal(b, &body); err != nil || body.Error.Code != "PARTIAL_RESULT" {
			t.Fatalf("answer after Neovim was killed: %s", b)
		}
		if len(body.Error.Details.Files) != faultFiles {
			t.Fatalf("the answer names %d files, want %d: %s", len(body.Error.Details.Files), faultFiles, b)
		}
		for _, f := range body.Error.Details.Files {
			if f.Disk != "new" {
				t.Errorf("the answer says %s is %s on disk", f.Path, f.Disk)
			}
		}
	}
}

// checkRecovery: get_status after the restart says the interrupted change
// was completed (wantNew) or rolled back, every file in that state.
func checkRecovery(t *testing.T, res map[string]any, wantNew bool) {
	t.Helper()
	b, _ := json.Marshal(res["structuredContent"])
	var st struct {
		Recovered []struct {
			Outcome string `json:"outcome"`
			Files   []struct {
				Path string `json:"path"`
				Disk string `json:"disk"`
			} `json:"files"`
		} `json:"recovered_changes"`
	}
	if err := json.Unmarshal(b, &st); err != nil || len(st.Recovered) != 1 {
		t.Fatalf("get_status after the restart: %s", b)
	}
	rec := st.Recovered[0]
	want, disk := "rolled back", "old"
	if wantNew {
		want, disk = "completed", "new"
	}
	if rec.Outcome != want || len(rec.Files) != faultFiles {
		t.Fatalf("recovered %q with %d files, want %q with %d: %s", rec.Outcome, len(rec.Files), want, faultFiles, b)
	}
	for _, f := range rec.Files {
		if f.Disk != disk {
			t.Errorf("get_status says %s is %s", f.Path, f.Disk)
		}
	}
}

// TestSaveUnderFileSizeLimit: nvbridge runs under a file-size limit
// (prlimit --fsize); a change saving a small file and one larger than the
// limit is refused whole: the large file keeps every byte of its old text
// (a write cut at the limit used to leave its first 20,000 bytes), the
// small one too, and the answer says why.
func TestSaveUnderFileSizeLimit(t *testing.T) {
	testenv.Require(t, "nvim", "prlimit")
	root := t.TempDir()
	big := strings.Repeat("an old line of a large file\n", 1800) // 50,400 bytes
	for name, content := range map[string]string{"big.txt": big, "small.txt": "small\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := startUnder(t, nil, []string{"prlimit", "--fsize=20000", "--"}, "--root", root, "mcp")
	p.initialize()
	patch := "--- a/small.txt\n+++ b/small.txt\n@@ -1 +1 @@\n-small\n+SMALL\n" +
		"--- a/big.txt\n+++ b/big.txt\n@@ -1 +1 @@\n-an old line of a large file\n+a new first line\n"
	res := p.call(2, "tools/call", map[string]any{"name": "apply_patch", "arguments": map[string]any{"patch": patch, "save": true, "preview": false}})
	b, _ := json.Marshal(res["structuredContent"])
	if res["isError"] != true || !strings.Contains(string(b), "OPERATION_FAILED") || !strings.Contains(string(b), "size limit") || !strings.Contains(string(b), "nothing was changed") {
		t.Errorf("answer: %s", b)
	}
	for name, want := range map[string]string{"big.txt": big, "small.txt": "small\n"} {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: %d bytes (%v), want its %d old bytes", name, len(got), err, len(want))
		}
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 2 {
		t.Errorf("the root holds %d entries, want the 2 files", len(entries))
	}
}
