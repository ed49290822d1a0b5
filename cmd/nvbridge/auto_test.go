package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gonvim "github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestNvimAuto: a Neovim started in a project with the plugin writes its
// discovery file; --nvim auto finds it from the project and from a folder
// inside it, and refuses (RESOURCE_NOT_FOUND) from elsewhere; a file left
// by a Neovim that is gone is skipped and removed.
func TestNvimAuto(t *testing.T) {
	testenv.Require(t, "nvim")
	repo := testenv.RepoRoot(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	addr := testenv.Listening(t, root, "--cmd", "set rtp^="+repo, "-c", "runtime plugin/nvbridge.lua")
	// The plugin writes the file at VimEnter; writing it again here (the
	// same call, idempotent) makes the test independent of that moment.
	v, err := gonvim.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.ExecLua("require('nvbridge').advertise()", nil); err != nil {
		t.Fatal(err)
	}
	dir := discoveryDir()
	stale := filepath.Join(dir, "nvim-999999999.json")
	if err := os.WriteFile(stale, []byte(`{"address":"/nonexistent/sock","cwd":"`+root+`","pid":999999999}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{root, filepath.Join(root, "sub", "deeper")} {
		got, err := discoverNvim(from)
		if err != nil {
			t.Fatalf("from %s: %v", from, err)
		}
		if got != addr {
			t.Errorf("from %s: found %s, want %s", from, got, addr)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale discovery file was not removed (%v)", err)
	}
	_, err = discoverNvim(t.TempDir())
	if e := apierr.As(err); e == nil || e.Code != apierr.ResourceNotFound || !strings.Contains(e.Message, root) {
		t.Errorf("from elsewhere: %v, want RESOURCE_NOT_FOUND naming the running Neovim's cwd", err)
	}
}
