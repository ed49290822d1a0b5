package nvim_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestEmbeddedTempDirRemoved: the embedded Neovim and what it starts write
// their temporary files into a directory of nvbridge's, removed at Close
// (typescript-language-server leaves a directory per start in $TMPDIR).
func TestEmbeddedTempDirRemoved(t *testing.T) {
	s, _ := textWorkspace(t, "text\n")
	ctx := testenv.Context(t)
	var tmp, made string
	if err := s.ExecLua(ctx, `return vim.env.TMPDIR`, &tmp); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(tmp), "nvbridge-embedded-") {
		t.Fatalf("the embedded Neovim's TMPDIR is %q; want a directory of nvbridge's", tmp)
	}
	// A child process of Neovim's (as a server is) makes its file there.
	if err := s.ExecLua(ctx, `return vim.trim(vim.fn.system({'mktemp', '-d'}))`, &made); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(made) != tmp {
		t.Fatalf("a child's mktemp -d made %q; want it inside %q", made, tmp)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("%s is still there after Close (stat: %v)", tmp, err)
	}
}

// TestAbandonedCallLeavesResult: a call abandoned when its context ends
// does not write the caller's result later (go-client decodes the reply
// from its own goroutine; -race flagged it in TestUserToolsAndEvents).
func TestAbandonedCallLeavesResult(t *testing.T) {
	s, _ := textWorkspace(t, "text\n")
	ctx, cancel := context.WithCancel(testenv.Context(t))
	var result []string
	errc := make(chan error, 1)
	go func() {
		// Slow in Neovim, so the caller gives up before the reply.
		errc <- s.ExecLua(ctx, `local t = vim.uv.hrtime() while vim.uv.hrtime() - t < 2e8 do end return {'late'}`, &result)
	}()
	cancel()
	if err := <-errc; err == nil {
		t.Skip("the call answered before its context ended") // cannot happen: Neovim is busy for 200 ms
	}
	result = []string{"the caller's"}
	// Calls are answered in order: once this one answers, the abandoned
	// reply has been decoded.
	var ok bool
	if err := s.ExecLua(testenv.Context(t), `return true`, &ok); err != nil || !ok {
		t.Fatal(err)
	}
	if len(result) != 1 || result[0] != "the caller's" {
		t.Fatalf("result = %q after the abandoned call's reply; want the caller's own value", result)
	}
}
