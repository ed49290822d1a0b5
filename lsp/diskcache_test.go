package lsp

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// streamLines is diskLines without the kept files: the streaming read.
func streamLines(t *testing.T, path string, lines []int) map[int]string {
	t.Helper()
	saved := diskNow
	diskNow = func() time.Time { return time.Time{} } // nothing is settled: nothing kept
	defer func() { diskNow = saved }()
	forget(path)
	return diskLines(path, lines)
}

func forget(path string) {
	diskCache.Lock()
	if f := diskCache.files[path]; f != nil {
		diskCache.bytes -= len(f.data)
		delete(diskCache.files, path)
	}
	diskCache.Unlock()
}

func kept(path string) bool {
	diskCache.Lock()
	defer diskCache.Unlock()
	return diskCache.files[path] != nil
}

// settled makes every file look unchanged for an hour.
func settleFiles(t *testing.T) {
	saved := diskNow
	diskNow = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { diskNow = saved })
}

// A kept file answers exactly the lines the streaming read answers: CRLF,
// no final newline, empty lines, an empty file, lines past the end.
func TestDiskLinesKeptAsRead(t *testing.T) {
	keeps := runtime.GOOS == "linux" || runtime.GOOS == "darwin" // workspace.StampOf; elsewhere diskLines always streams
	dir := t.TempDir()
	wanted := []int{-1, 0, 1, 2, 3, 4, 5, 9}
	for name, text := range map[string]string{
		"lf":       "a\nbé😀\n\nd\n",
		"crlf":     "a\r\nb\r\n\r\nd",
		"nofinal":  "x\ny",
		"empty":    "",
		"newlines": "\n\n\n",
		"cr-only":  "a\rb\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		want := streamLines(t, path, wanted)
		settleFiles(t)
		first := diskLines(path, wanted)
		if kept(path) != keeps {
			t.Errorf("%s: a settled file kept: %v, want %v", name, kept(path), keeps)
		}
		again := diskLines(path, wanted)
		if !reflect.DeepEqual(first, want) || !reflect.DeepEqual(again, want) {
			t.Errorf("%s: kept %v then %v, streamed %v", name, first, again, want)
		}
	}
}

// A kept file that changes is read again: another size, or another file
// of the same size renamed over it (another inode). A file whose stamp is
// not settled is not kept at all.
func TestDiskLinesKeptFileChanges(t *testing.T) {
	keeps := runtime.GOOS == "linux" || runtime.GOOS == "darwin" // workspace.StampOf
	dir := t.TempDir()
	path := filepath.Join(dir, "f.go")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Just written: not settled, read but not kept.
	if got := diskLines(path, []int{1}); got[1] != "two" || kept(path) {
		t.Fatalf("fresh file: %v, kept %v", got, kept(path))
	}
	settleFiles(t)
	if got := diskLines(path, []int{1}); got[1] != "two" || kept(path) != keeps {
		t.Fatalf("settled file: %v, kept %v", got, kept(path))
	}
	if err := os.WriteFile(path, []byte("one\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := diskLines(path, []int{1}); got[1] != "three" {
		t.Errorf("after a write of another size: %v", got)
	}
	other := filepath.Join(dir, "g.go")
	if err := os.WriteFile(other, []byte("one\nfour!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if got := diskLines(path, []int{1}); got[1] != "four!" {
		t.Errorf("after a file of the same size renamed over it: %v", got)
	}
}
