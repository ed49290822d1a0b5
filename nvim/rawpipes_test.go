package nvim_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// An embedded Neovim's pipes are read and written with raw system calls
// (rawio), and the session works over them: an argument and an answer
// each larger than a pipe holds.
func TestEmbeddedPipesRaw(t *testing.T) {
	s, _ := testenv.Embedded(t, t.TempDir())
	if !nvim.RawPipes(s) {
		t.Fatal("the embedded Neovim's pipes are read and written through os.File: each first system call after an idle moment wakes the runtime's monitor")
	}
	var n int
	if err := s.ExecLua(testenv.Context(t), "return #(...)", &n, strings.Repeat("x", 1<<20)); err != nil {
		t.Fatal(err)
	}
	var big string
	if err := s.ExecLua(testenv.Context(t), "return string.rep('y', ...)", &big, 1<<20); err != nil {
		t.Fatal(err)
	}
	if n != 1<<20 || len(big) != 1<<20 {
		t.Fatalf("got %d and %d bytes, want %d", n, len(big), 1<<20)
	}
}
