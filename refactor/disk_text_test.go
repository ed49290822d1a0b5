package refactor

import (
	"path/filepath"
	"testing"
)

// TestDiskTextKeptUntilChanged: the text of the file a rename was asked
// in is read once while nothing happens to it, and read again as soon as
// another process rewrites it, even to the same size with its
// modification time put back (no stamp could tell it).
func TestDiskTextKeptUntilChanged(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod": "module example.com/m\n",
		"a/a.go": "package a\n\nfunc Zed() {}\n",
	})
	abs := filepath.Join(root.Dir(), "a", "a.go")
	reads := 0
	read := readDiskText
	readDiskText = func(abs string) (string, bool) {
		reads++
		return read(abs)
	}
	defer func() { readDiskText = read }()
	text := func() string {
		t.Helper()
		got, ok := diskText(root.Dir(), abs)
		if !ok {
			t.Fatal("not read")
		}
		return got
	}
	if got := text(); got != "package a\n\nfunc Zed() {}\n" || reads != 1 {
		t.Fatalf("first: %q after %d reads", got, reads)
	}
	if got := text(); got != "package a\n\nfunc Zed() {}\n" || reads != 1 {
		t.Fatalf("again, nothing changed: %q after %d reads, want no second read", got, reads)
	}
	runShell(t, filepath.Join(root.Dir(), "a"), "cp -p a.go ref && printf 'package a\\n\\nfunc Zzz() {}\\n' > a.go && touch -r ref a.go && rm ref")
	if got := text(); got != "package a\n\nfunc Zzz() {}\n" || reads != 2 {
		t.Fatalf("after another process rewrote it: %q after %d reads", got, reads)
	}
	if got := text(); got != "package a\n\nfunc Zzz() {}\n" || reads != 2 {
		t.Fatalf("again: %q after %d reads", got, reads)
	}
}
