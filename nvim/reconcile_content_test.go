package nvim_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// Rewriting a file with the same bytes (a new mtime, same content) must not
// reload its buffer: a reload makes every server re-read the file. Covers
// the file shapes whose buffers look alike through the API.
func TestReconcileKeepsBufferWhenContentIsSame(t *testing.T) {
	root := t.TempDir()
	s, _ := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	for name, content := range map[string]string{
		"empty.txt":       "",
		"one-newline.txt": "\n",
		"no-eol.txt":      "a",
		"crlf.txt":        "a\r\nb\r\n",
		"plain.txt":       "a\nb\n",
	} {
		path := filepath.Join(s.Root().Dir(), name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.OpenBuffer(ctx, path, true); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(2 * time.Second)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		st, err := s.OpenBuffer(ctx, path, true)
		if err != nil {
			t.Fatal(err)
		}
		if st.State != "same" {
			t.Errorf("%s (%q): state after touching = %q, want same", name, content, st.State)
		}
	}
}

// A file rewritten right after its load, before the load's fingerprint is
// recorded (buffers.lua's record_loaded leaves it to the main loop's next
// turn), at the same size with its mtime put back (as cp -p, rsync or git
// do): the next open must reload it, not take the new bytes' fingerprint
// for the loaded text's.
func TestLoadThenRewriteBeforeFingerprint(t *testing.T) {
	root := t.TempDir()
	s, _ := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	path := filepath.Join(s.Root().Dir(), "notes.txt")
	if err := os.WriteFile(path, []byte("first text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mtime := info.ModTime()
	// One Neovim call: the open, then the rewrite (same size, the mtime
	// put back), before any scheduled callback can run.
	const openThenRewrite = `
local path, text, sec, nsec = ...
local st = require('nvbridge.buffers').open(path, true)
local f = assert(io.open(path, 'wb'))
f:write(text)
f:close()
assert(vim.uv.fs_utime(path, sec + nsec / 1e9, sec + nsec / 1e9))
return st.bufnr`
	var b int
	if err := s.ExecLua(ctx, openThenRewrite, &b, path, "other text\n", mtime.Unix(), mtime.Nanosecond()); err != nil {
		t.Fatal(err)
	}
	st, err := s.OpenBuffer(ctx, path, true)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "reloaded" {
		t.Errorf("state after the rewrite = %q, want reloaded", st.State)
	}
	if got := bufferLines(t, s, path); len(got) != 1 || got[0] != "other text" {
		t.Errorf("buffer = %q, want the rewritten text", got)
	}
}
