package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/workspace"
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

// The kept lines' memory stays within diskCacheBytes, counted as it is
// held (each line's text and diskLineCost): files whose lines are all read
// past the bound push the oldest out. Only the lines read are kept, not the
// rest of the file: a read of one line of a 200 KiB file keeps that line.
func TestDiskCacheBound(t *testing.T) {
	keeps := runtime.GOOS == "linux" || runtime.GOOS == "darwin" // workspace.StampOf; elsewhere nothing is kept
	settleFiles(t)
	dir := t.TempDir()
	line := strings.Repeat("x", 99)
	text := []byte(strings.Repeat(line+"\n", 2000)) // 200 KB, 2,000 lines
	all := make([]int, 2000)
	for i := range all {
		all[i] = i
	}
	one := filepath.Join(dir, "one.go")
	if err := os.WriteFile(one, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := diskLines(one, []int{1000}); got[1000] != line || len(got) != 1 {
		t.Fatalf("line 1000: %v", got)
	}
	if kept(one) != keeps {
		t.Fatalf("kept: %v, want %v", kept(one), keeps)
	}
	if !keeps {
		return
	}
	diskCache.Lock()
	if f := diskCache.files[one]; len(f.lines) != 1 || f.size() != len(line)+diskLineCost {
		t.Errorf("one line read of a 2,000-line file keeps %d lines, %d bytes", len(f.lines), f.size())
	}
	diskCache.Unlock()
	forget(one)

	per := 2000 * (len(line) + diskLineCost)
	var paths []string
	t.Cleanup(func() {
		for _, p := range paths {
			forget(p)
		}
	})
	for i := range 3 * diskCacheBytes / per {
		path := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		if got := diskLines(path, all); len(got) != 2000 || got[1999] != line {
			t.Fatalf("%s: %d lines, last %q", path, len(got), got[1999])
		}
	}
	diskCache.Lock()
	defer diskCache.Unlock()
	sum, ours := 0, 0
	for p, f := range diskCache.files {
		n := 0
		for _, l := range f.lines {
			n += len(l) + diskLineCost
		}
		if n != f.size() {
			t.Errorf("%s: counted %d bytes, holds %d", p, f.size(), n)
		}
		sum += n
		if filepath.Dir(p) == dir {
			ours++
		}
	}
	if sum != diskCache.bytes || diskCache.bytes > diskCacheBytes {
		t.Errorf("kept %d bytes (counted %d), bound %d", sum, diskCache.bytes, diskCacheBytes)
	}
	if ours < diskCacheBytes/per-1 || ours > diskCacheBytes/per {
		t.Errorf("%d of %d files kept, want %d (%d bytes each within %d)", ours, len(paths), diskCacheBytes/per, per, diskCacheBytes)
	}
}

// Lines kept answer a read only when they are all the lines it wants: a
// read of other lines of the same file reads it (and keeps those too); a
// line past the end of a file read to its end is known absent.
func TestDiskCacheLinesWanted(t *testing.T) {
	keeps := runtime.GOOS == "linux" || runtime.GOOS == "darwin" // workspace.StampOf; elsewhere nothing is kept
	settleFiles(t)
	path := filepath.Join(t.TempDir(), "f.go")
	if err := os.WriteFile(path, []byte("zero\none\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { forget(path) })
	st, ok := workspace.StampPath(path, true)
	if !ok {
		t.Fatal("no stamp")
	}
	if got := diskLines(path, []int{1}); got[1] != "one" || kept(path) != keeps {
		t.Fatalf("line 1: %v, kept %v (want %v)", got, kept(path), keeps)
	}
	if !keeps {
		return
	}
	m := map[int]string{}
	if !cachedLines(path, st, []int{1}, m) || m[1] != "one" {
		t.Errorf("line 1 read again: not answered from the kept lines (%v)", m)
	}
	if cachedLines(path, st, []int{0, 1}, map[int]string{}) {
		t.Error("lines 0 and 1 answered with only line 1 kept")
	}
	if got := diskLines(path, []int{0, 1, 7}); !reflect.DeepEqual(got, map[int]string{0: "zero", 1: "one"}) {
		t.Fatalf("lines 0, 1 and 7: %v", got)
	}
	m = map[int]string{}
	if !cachedLines(path, st, []int{-1, 0, 1, 3, 7}, m) || !reflect.DeepEqual(m, map[int]string{0: "zero", 1: "one"}) {
		t.Errorf("lines 0, 1 and some past the end of a file read to its end: %v", m)
	}
	if cachedLines(path, st, []int{2}, map[int]string{}) {
		t.Error("line 2, never read, answered")
	}
}

// Past the bound, the least recently read files go first: a file read
// again stays while files read once after it are pushed out.
func TestDiskCacheLeastRecentFirst(t *testing.T) {
	keeps := runtime.GOOS == "linux" || runtime.GOOS == "darwin" // workspace.StampOf; elsewhere nothing is kept
	settleFiles(t)
	dir := t.TempDir()
	// Each file's lines read cost a fifth of the bound.
	n := diskCacheBytes / 5 / (1000 + diskLineCost)
	text := []byte(strings.Repeat(strings.Repeat("l", 1000)+"\n", n))
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	per := n * (1000 + diskLineCost)
	var paths []string
	t.Cleanup(func() {
		for _, p := range paths {
			forget(p)
		}
	})
	hot := ""
	for i := range 2 * diskCacheBytes / per {
		path := filepath.Join(dir, fmt.Sprintf("f%d.go", i))
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		if got := diskLines(path, all); len(got) != n {
			t.Fatalf("%s: %d lines of %d", path, len(got), n)
		}
		if i == 0 {
			hot = path
		}
		// The first file is read again after each other one.
		if got := diskLines(hot, []int{1}); len(got[1]) != 1000 {
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
