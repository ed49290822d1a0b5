package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// TestCancelOverStdio: an MCP client's notifications/cancelled reaches the
// language server. The built binary serves MCP on stdio with the scripted
// fake server (from $NVBRIDGE_EXTRA_SERVERS) for text files; find_references
// hangs there; the client cancels the call; the fake must receive
// $/cancelRequest for exactly the hung LSP request, and nvbridge must go on
// answering.
//
// The test waits on events inside the fake, never polls: the fake holds
// documentSymbol until the references request has reached it, and hover
// until a $/cancelRequest has, then answers hover with every message it
// received (its log).
func TestCancelOverStdio(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	body := cancelFakeServers(t)
	// A per-request timeout beyond the test's: only the client's
	// cancellation can cancel the hung request while the test waits.
	timeout := (2 * testenv.Timeout()).String()
	p := start(t, []string{nvim.ExtraServersEnv + "=" + string(body)}, "--root", root, "--timeout", timeout, "mcp")
	p.initialize()

	id := 1 // initialize's
	// call sends a tools/call and waits for its answer; what says what the
	// test is waiting for, should the answer never come.
	call := func(name string, args map[string]any, what string) map[string]any {
		t.Helper()
		id++
		p.send(map[string]any{"id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		msg := awaitAnswer(t, p, id, what)
		res, _ := msg["result"].(map[string]any)
		if res == nil || res["isError"] == true {
			t.Fatalf("%s: %v", name, msg)
		}
		return res
	}

	// The call that hangs at the fake; its answer is not awaited.
	id++
	hung := id
	p.send(map[string]any{"id": hung, "method": "tools/call", "params": map[string]any{
		"name": "find_references", "arguments": map[string]any{"file": "notes.txt", "line": 1, "symbol": "hello"},
	}})
	call("get_symbols", map[string]any{"file": "notes.txt"}, "the references request to reach the fake (it holds documentSymbol until then)")
	if msg := answered(p, hung); msg != nil {
		t.Fatalf("the hung call was answered before it was cancelled: %v", msg)
	}

	p.send(map[string]any{"method": "notifications/cancelled", "params": map[string]any{
		"requestId": hung, "reason": "the user changed their mind",
	}})
	res := call("get_hover_info", map[string]any{"file": "notes.txt", "line": 2, "symbol": "second"},
		"$/cancelRequest to reach the fake (it holds hover until then)")
	var hover struct {
		Contents string `json:"contents"`
	}
	structured, _ := json.Marshal(res["structuredContent"])
	if err := json.Unmarshal(structured, &hover); err != nil {
		t.Fatal(err)
	}
	log := hover.Contents
	m := regexp.MustCompile(`(?m)^textDocument/references id=(\d+)$`).FindAllStringSubmatch(log, -1)
	if len(m) != 1 {
		t.Fatalf("the fake received %d references requests, want 1; its log:\n%s", len(m), log)
	}
	cancels := regexp.MustCompile(`(?m)^\$/cancelRequest id=(\d+)$`).FindAllStringSubmatch(log, -1)
	if len(cancels) != 1 || cancels[0][1] != m[0][1] {
		t.Fatalf("the fake received $/cancelRequest for %v, want exactly the references request %s; its log:\n%s", cancels, m[0][1], log)
	}

	// Still serving, through Neovim and through the fake.
	info := call("get_buffer_info", map[string]any{"file": "notes.txt", "include_content": false}, "get_buffer_info after the cancellation")
	if b, _ := json.Marshal(info["structuredContent"]); !strings.Contains(string(b), `"name":"fakelsp"`) {
		t.Fatalf("get_buffer_info after the cancellation: %s", b)
	}
	call("get_symbols", map[string]any{"file": "notes.txt"}, "documentSymbol after the cancellation")

	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code %d after stdin closed, want 0", code)
	}
	// MCP says a cancelled request gets no answer (mcp-go's would be
	// dropped by the transport's answerFilter); every answer is written
	// once nvbridge has exited.
	if msg := answered(p, hung); msg != nil {
		t.Errorf("the cancelled call was answered: %v", msg)
	}
	p.checkStdout()
}

// answered returns nvbridge's response to request id among the stdout lines
// so far (nil when there is none).
func answered(p *proc, id int) map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, line := range p.stdout {
		var msg map[string]any
		if json.Unmarshal([]byte(line), &msg) != nil {
			continue
		}
		if got, ok := msg["id"].(float64); ok && int(got) == id && msg["method"] == nil {
			return msg
		}
	}
	return nil
}

// awaitAnswer waits for nvbridge's response to request id (scanning every
// stdout line, so it may be mixed with proc.call); what names the awaited
// event in the failure.
func awaitAnswer(t *testing.T, p *proc, id int, what string) map[string]any {
	t.Helper()
	deadline := time.After(testenv.Timeout())
	for {
		if msg := answered(p, id); msg != nil {
			return msg
		}
		select {
		case <-p.outNote:
		case <-p.drained:
			if msg := answered(p, id); msg != nil {
				return msg
			}
			t.Fatalf("nvbridge closed stdout while waiting for %s", what)
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
