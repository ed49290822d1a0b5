package tools_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestGetStatusIndexing over the protocol, with a real gopls held in its
// workspace load: get_status says indexing while gopls reports its
// "Setting up workspace" work, then ready once the load ends. gopls loads
// with `go list`; a `go` first on PATH holds every `go list` on a FIFO
// until the test opens it for writing, so the load lasts exactly as long
// as the test needs (an event, no timing).
func TestGetStatusIndexing(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// `go list` waits for the gate while it is a FIFO; once released (the
	// FIFO renamed away) every go command runs at once.
	wrapper := "#!/bin/sh\ncase \" $* \" in\n*\" list \"*) if [ -p \"$NVBRIDGE_TEST_GATE\" ]; then cat \"$NVBRIDGE_TEST_GATE\" >/dev/null 2>&1; fi ;;\nesac\nexec " + realGo + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("NVBRIDGE_TEST_GATE", gate)
	released := false
	release := func() {
		if released {
			return
		}
		released = true
		open := gate + ".open"
		if err := os.Rename(gate, open); err != nil {
			t.Fatal(err)
		}
		// Opening for writing wakes a reader blocked on the FIFO; closing
		// gives it end of file.
		f, err := os.OpenFile(open, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	t.Cleanup(release) // never leave gopls hanging

	c, log := progressSession(t)
	goplsState := func() string {
		t.Helper()
		res := mcpCall(t, c, "get_status", `{}`)
		b, _ := json.Marshal(res.StructuredContent)
		var st statusAnswer
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		for _, sv := range st.Servers {
			if sv.Name == "gopls" {
				return sv.State
			}
		}
		return "absent"
	}

	// The first call opens a Go file (gopls starts) and waits for gopls
	// to finish loading, relaying its progress.
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := c.CallTool(testenv.Context(t), tokenRequest("get_hover_info", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`, "first"))
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(err.Error())}}
		}
		done <- res
	}()
	log.await(t, "first", "waiting for gopls: Setting up workspace")
	if got := goplsState(); got != "indexing" {
		t.Fatalf("gopls state while its workspace load is held: %q, want indexing", got)
	}

	release()
	if res := <-done; res.IsError {
		t.Fatalf("hover after the load: %v", res.Content)
	}
	if got := goplsState(); got != "ready" {
		t.Fatalf("gopls state after its load: %q, want ready", got)
	}
}
