package nvim_test

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/workspace"
)

// What a user does in Neovim, as fixed Lua with data arguments.

func bufnr(t *testing.T, s *nvim.Session, path string) int {
	t.Helper()
	var b int
	if err := s.ExecLua(testenv.Context(t), "return vim.fn.bufnr((...))", &b, path); err != nil {
		t.Fatal(err)
	}
	if b <= 0 {
		t.Fatalf("no buffer for %s", path)
	}
	return b
}

// setLines edits a buffer without saving (nvim_buf_set_lines).
func setLines(t *testing.T, s *nvim.Session, path string, start, end int, lines ...string) {
	t.Helper()
	const code = "local b, s, e, lines = ...; vim.api.nvim_buf_set_lines(b, s, e, false, lines)"
	if err := s.ExecLua(testenv.Context(t), code, nil, bufnr(t, s, path), start, end, lines); err != nil {
		t.Fatal(err)
	}
}

func bufferLines(t *testing.T, s *nvim.Session, path string) []string {
	t.Helper()
	lines, err := s.Lines(testenv.Context(t), bufnr(t, s, path), 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// discard throws a buffer's unsaved changes away (:edit!).
func discard(t *testing.T, s *nvim.Session, path string) {
	t.Helper()
	const code = "vim.api.nvim_buf_call((...), function() vim.cmd('edit!') end)"
	if err := s.ExecLua(testenv.Context(t), code, nil, bufnr(t, s, path)); err != nil {
		t.Fatal(err)
	}
}

func workspaceRoot(dir string) (workspace.Root, error) { return workspace.New(dir) }
