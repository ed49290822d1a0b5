package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
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
		diskCache.bytes -= f.size()
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

// The kept files' memory, their texts and their line starts, stays within
// diskCacheBytes: files of short lines (where the starts weigh most) past
// the bound push the oldest out, and each kept file holds its text in a
// buffer of its size (not io.ReadAll's doublings) and 4 bytes a line.
func TestDiskCacheBound(t *testing.T) {
	keeps := runtime.GOOS == "linux" || runtime.GOOS == "darwin" // workspace.StampOf; elsewhere nothing is kept
	settleFiles(t)
	dir := t.TempDir()
	text := []byte(strings.Repeat("x\n", 200<<10/2)) // 200 KiB, 100k lines
	lines := 100 << 10
	var paths []string
	for i := range 3 * diskCacheBytes / len(text) {
		path := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		if got := diskLines(path, []int{lines - 1}); got[lines-1] != "x" {
			t.Fatalf("%s: last line %q", path, got[lines-1])
		}
		if kept(path) != keeps {
			t.Fatalf("%s kept: %v, want %v", path, kept(path), keeps)
		}
		if !keeps {
			return
		}
	}
	t.Cleanup(func() {
		for _, p := range paths {
			forget(p)
		}
	})
	diskCache.Lock()
	defer diskCache.Unlock()
	sum, ours := 0, 0
	for p, f := range diskCache.files {
		sum += f.size()
		if filepath.Dir(p) != dir {
			continue
		}
		ours++
		if cap(f.data) > len(text)+1 || len(f.starts) != lines || cap(f.starts) != lines {
			t.Errorf("%s: text buffer %d bytes for %d, starts %d (cap %d) for %d lines", p, cap(f.data), len(text), len(f.starts), cap(f.starts), lines)
		}
		if f.size() < len(text)+4*lines {
			t.Errorf("%s: size %d leaves out its starts (%d bytes of text, %d lines)", p, f.size(), len(text), lines)
		}
	}
	if sum != diskCache.bytes || diskCache.bytes > diskCacheBytes {
		t.Errorf("kept %d bytes (counted %d), bound %d", sum, diskCache.bytes, diskCacheBytes)
	}
	if per := len(text) + 4*lines; ours < diskCacheBytes/per-1 || ours > diskCacheBytes/per {
		t.Errorf("%d of %d files kept, want %d (%d bytes each within %d)", ours, len(paths), diskCacheBytes/per, per, diskCacheBytes)
	}
}

// readSized reads the whole text whatever the size it was told (a file
// that grew or shrank since its stat), and refuses one past the limit.
func TestReadSized(t *testing.T) {
	for _, c := range []struct {
		text        string
		size, limit int
		ok          bool
	}{
		{"abc\n", 4, 10, true},
		{"abc\n", 0, 10, true},
		{"abc\ndef\n", 4, 10, true},
		{"ab", 4, 10, true},
		{"", 0, 10, true},
		{"abcdefghijk", 4, 10, false},
		{"abcdefghij", 10, 10, true},
		{"abcdefghijk", 11, 10, false},
	} {
		got, ok := readSized(iotest.OneByteReader(strings.NewReader(c.text)), c.size, c.limit)
		if ok != c.ok || ok && string(got) != c.text {
			t.Errorf("readSized(%q, %d, %d) = %q, %v; want %v", c.text, c.size, c.limit, got, ok, c.ok)
		}
	}
}

// Past the bound, the least recently read files go first: a file read
// again stays while files read once after it are pushed out.
func TestDiskCacheLeastRecentFirst(t *testing.T) {
	keeps := runtime.GOOS == "linux" || runtime.GOOS == "darwin" // workspace.StampOf; elsewhere nothing is kept
	settleFiles(t)
	dir := t.TempDir()
	text := []byte(strings.Repeat("line\n", 400<<10/5)) // 400 KiB
	var paths []string
	t.Cleanup(func() {
		for _, p := range paths {
			forget(p)
		}
	})
	hot := ""
	for i := range 2 * diskCacheBytes / len(text) {
		path := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		if got := diskLines(path, []int{0}); got[0] != "line" {
			t.Fatalf("%s: first line %q", path, got[0])
		}
		if i == 0 {
			hot = path
		}
		// The first file is read again after each other one.
		if got := diskLines(hot, []int{1}); got[1] != "line" {
			t.Fatalf("%s: second line %q", hot, got[1])
		}
		if !keeps {
			if kept(path) || kept(hot) {
				t.Fatal("a file kept where nothing is")
			}
			return
		}
	}
	if !kept(hot) {
		t.Errorf("the file read after every other one was pushed out")
	}
	if kept(paths[1]) || !kept(paths[len(paths)-1]) {
		t.Errorf("the oldest file read once kept: %v, the newest: %v; want the oldest pushed out first", kept(paths[1]), kept(paths[len(paths)-1]))
	}
}
