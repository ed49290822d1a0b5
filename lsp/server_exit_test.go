package lsp_test

// A language server that dies mid-session (kill -9): calls on its buffers
// say so (PRECONDITION_FAILED naming the server and how it ended) instead
// of "install a language server" or an empty, "complete" answer; nvbridge
// restarts it (embedded mode) and the buffers get it back.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
)

// killGopls kills -9 the gopls that Neovim (process nvimPid) started and
// waits until the bridge has recorded its exit for bufnr; who names that
// gopls in the failure.
func killGopls(ctx context.Context, t *testing.T, s *nvim.Session, nvimPid, bufnr int, who string) {
	t.Helper()
	out, err := exec.Command("pgrep", "-P", strconv.Itoa(nvimPid), "-x", "gopls").Output()
	if err != nil {
		t.Fatalf("pgrep gopls under Neovim %d: %v", nvimPid, err)
	}
	pid, err := strconv.Atoi(strings.Fields(string(out))[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Neovim notices the exit on its event loop; wait (inside Neovim,
	// bounded) until the bridge has recorded it.
	var noticed bool
	const awaitDown = `local bufnr, ms = ...
return vim.wait(ms, function() return #require('nvbridge.observe').servers_down(bufnr) > 0 end, 20)`
	if err := s.ExecLua(ctx, awaitDown, &noticed, bufnr, int(testenv.Timeout().Milliseconds())); err != nil || !noticed {
		t.Fatalf("the exit of %s was not recorded: %v", who, err)
	}
}

func TestServerKilled(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go", "pgrep")
	s, client := testenv.Embedded(t, testenv.CopySample(t, "gobroken"))
	testenv.TraceLSP(t, s) // logged if the test fails
	ctx := testenv.Context(t)
	want := []string{
		`broken.go:6:17 error IncompatibleAssign cannot use "three" (untyped string constant) as int value in variable declaration`,
		`broken.go:7:1 error UnusedVar declared and not used: unused`,
	}
	check := func(t *testing.T) {
		t.Helper()
		r, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "broken.go", MinSeverity: "warning"})
		if err != nil {
			t.Fatal(err)
		}
		if got := diagLines(r.Diagnostics); !reflect.DeepEqual(got, want) || r.DiagnosticsComplete == nil || !*r.DiagnosticsComplete {
			t.Fatalf("diagnostics = %q (complete %v), want %q", got, r.DiagnosticsComplete, want)
		}
	}
	check(t)
	doc, err := client.Open(ctx, "broken.go")
	if err != nil {
		t.Fatal(err)
	}

	// Restarts held (a delay no test reaches) to see the answers while
	// the server is down; released below.
	if err := s.SetServerRestartDelay(ctx, 3600*1000); err != nil {
		t.Fatal(err)
	}
	killGopls(ctx, t, s, s.Pid(), doc.Buffer.Bufnr, "gopls")

	t.Run("down", func(t *testing.T) {
		_, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "broken.go"})
		e := apierr.As(err)
		if err == nil || e.Code != apierr.PreconditionFailed || !strings.Contains(e.Message, "gopls") ||
			!strings.Contains(e.Message, "signal 9") || !strings.Contains(e.Message, "restarts it") {
			t.Fatalf("get_diagnostics while gopls is down: %v, want PRECONDITION_FAILED naming gopls, signal 9 and the restart", err)
		}
		t.Logf("%s (%s)", e.Message, e.Remediation)
		_, err = client.Definition(ctx, "broken.go", lsp.Target{Line: 6, Symbol: "three"})
		if apierr.CodeOf(err) != apierr.PreconditionFailed {
			t.Fatalf("find_definition while gopls is down: %v, want PRECONDITION_FAILED", err)
		}
	})

	t.Run("restarted", func(t *testing.T) {
		if err := s.SetServerRestartDelay(ctx, 0); err != nil {
			t.Fatal(err)
		}
		check(t)
		r, err := client.Hover(ctx, "broken.go", lsp.Target{Line: 7, Symbol: "unused"})
		if err != nil || !strings.Contains(r.Contents, "unused") {
			t.Fatalf("hover after the restart: %+v %v", r, err)
		}
	})
}

// TestDiagnosticsNoServer: a file no language server handles has no
// diagnostics because nothing checked it, which the answer says (not
// "complete, zero").
func TestDiagnosticsNoServer(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	r, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "notes.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if r.DiagnosticsComplete == nil || *r.DiagnosticsComplete || !strings.Contains(r.Incomplete, "no language server") || r.Total != 0 {
		t.Fatalf("report = %+v, want complete false saying no language server is attached", r)
	}
	x, err := client.ReadLines(ctx, "notes.txt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if x.DiagnosticsComplete || !strings.Contains(x.DiagnosticsIncomplete, "no language server") {
		t.Fatalf("read_file = %+v, want diagnostics_complete false with the reason", x)
	}
}

// TestServerKilledAttached: attached to a user's Neovim, the servers are
// the user's: one that dies is reported with the way to restart it, and
// nvbridge does not restart it behind the user's back.
func TestServerKilledAttached(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go", "pgrep")
	root := testenv.CopySample(t, "gobroken")
	addr := testenv.Listening(t, root, testenv.UserLSPConfig(t, "user-gopls")...)
	s, client := testenv.Attached(t, addr, root)
	ctx := testenv.Context(t)
	client.AttachGrace = testenv.Timeout() // the user's FileType autocmd starts it
	r, err := client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "broken.go", MinSeverity: "warning"})
	if err != nil || len(r.Diagnostics) != 2 {
		t.Fatalf("diagnostics before the kill: %+v %v", r, err)
	}
	doc, err := client.Open(ctx, "broken.go")
	if err != nil {
		t.Fatal(err)
	}
	var nvimPid int
	if err := s.ExecLua(ctx, "return vim.fn.getpid()", &nvimPid); err != nil {
		t.Fatal(err)
	}
	killGopls(ctx, t, s, nvimPid, doc.Buffer.Bufnr, "the user's gopls")
	_, err = client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "broken.go"})
	e := apierr.As(err)
	if err == nil || e.Code != apierr.PreconditionFailed || !strings.Contains(e.Message, "user-gopls") ||
		!strings.Contains(e.Message, "signal 9") || !strings.Contains(e.Remediation, ":LspRestart") {
		t.Fatalf("get_diagnostics after the user's server died: %v (%s), want PRECONDITION_FAILED naming user-gopls, signal 9, :LspRestart", err, e.Remediation)
	}
	// Not restarted behind the user's back: no client came back.
	var clients int
	if err := s.ExecLua(ctx, "return #vim.lsp.get_clients({ name = 'user-gopls' })", &clients); err != nil || clients != 0 {
		t.Fatalf("user-gopls clients after the kill: %d %v, want 0", clients, err)
	}
}
