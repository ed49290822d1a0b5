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
