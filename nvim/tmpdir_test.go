package nvim_test

import (
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
