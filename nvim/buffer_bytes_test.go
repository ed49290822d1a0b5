package nvim_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestBufferBytesAreWhatNeovimWrites: the bytes a save's commit reads from
// a buffer (Session.BufferBytes, given what write.lua's buffer_source
// says) are the bytes write.lua's file_bytes makes of it, and what :write
// puts on disk, through line endings, 'eol', a BOM, multibyte text and
// empty lines; a buffer changed since its changedtick was taken is a
// CONFLICT.
func TestBufferBytesAreWhatNeovimWrites(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	s, _ := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	const setup = `local path, lines, ff, eol, bomb = ...
vim.cmd('silent keepalt edit ' .. vim.fn.fnameescape(path))
local b = vim.api.nvim_get_current_buf()
vim.bo[b].fileformat, vim.bo[b].eol, vim.bo[b].fixeol, vim.bo[b].bomb = ff, eol, false, bomb
vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
return b`
	const source = `local b = ...
local nl = ({ unix = '\n', dos = '\r\n', mac = '\r' })[vim.bo[b].fileformat]
return { vim.b[b].changedtick, vim.api.nvim_buf_line_count(b), nl, vim.bo[b].eol, vim.bo[b].bomb and '\239\187\191' or '',
  require('nvbridge.write').file_bytes(b) }`
	cases := []struct {
		ff        string
		eol, bomb bool
		lines     []string
	}{
		{"unix", true, false, []string{"a", "", "é 😀", "last"}},
		{"unix", false, false, []string{"no final newline"}},
		{"dos", true, false, []string{"crlf", "", "lines"}},
		{"dos", false, true, []string{"bom", "and crlf"}},
		{"unix", true, true, []string{"", ""}},
		{"mac", true, false, []string{"cr", "only"}},
	}
	for i, c := range cases {
		path := filepath.Join(root, fmt.Sprintf("f%d.txt", i))
		var b int
		if err := s.ExecLua(ctx, setup, &b, path, c.lines, c.ff, c.eol, c.bomb); err != nil {
			t.Fatal(err)
		}
		var src []any
		if err := s.ExecLua(ctx, source, &src, b); err != nil {
			t.Fatal(err)
		}
		tick, count := int(src[0].(int64)), int(src[1].(int64))
		got, err := s.BufferBytes(ctx, b, tick, count, src[2].(string), src[3].(bool), src[4].(string))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if want := src[5].(string); string(got) != want {
			t.Errorf("case %d (%+v): read %q, file_bytes makes %q", i, c, got, want)
		}
		if err := s.ExecLua(ctx, `vim.api.nvim_buf_call((...), function() vim.cmd('silent write') end)`, nil, b); err != nil {
			t.Fatal(err)
		}
		if disk, err := os.ReadFile(path); err != nil || !bytes.Equal(disk, got) {
			t.Errorf("case %d (%+v): read %q, :write wrote %q (%v)", i, c, got, disk, err)
		}
		if _, err := s.BufferBytes(ctx, b, tick-1, count, "\n", true, ""); apierr.CodeOf(err) != apierr.Conflict {
			t.Errorf("case %d: bytes at a changedtick the buffer is past: %v, want CONFLICT", i, err)
		}
	}
}
