package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestRealPathKernelAgreesWithWalk: on every shape of path (plain, through
// symlinks relative and absolute, to folders and files, "..", after a
// symlinked folder, missing components, a dangling link, a loop, a FIFO, a
// file without read permission) the kernel's answer (kernelRealPath), when
// it gives one, is the walk's; it gives one for every path that exists,
// and none for the others (the walk keeps their missing part as written).
func TestRealPathKernelAgreesWithWalk(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return dir + "/" + rel } // as written: no Clean
	mkdir := func(rel string) {
		if err := os.MkdirAll(p(rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel string, mode os.FileMode) {
		if err := os.WriteFile(p(rel), []byte("x\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, p(rel)); err != nil {
			t.Fatal(err)
		}
	}
	mkdir("root/a/b")
	mkdir("outside/x")
	write("root/a/b/f.go", 0o644)
	write("outside/x/secret", 0o644)
	write("root/noread", 0o000)
	link("a/b", "root/ab")                // relative, to a folder
	link(p("outside/x"), "root/out")      // absolute, out of the root
	link("../outside/x/secret", "root/s") // relative, out of the root
	link("f.go", "root/a/b/g.go")         // to a file beside it
	link("ab", "root/chain")              // a chain
	link("missing", "root/dangling")      // to nothing
	link("loop2", "root/loop1")           // a loop
	link("loop1", "root/loop2")
	link("../..", "root/a/b/up") // "..": after the link
	if runtime.GOOS == "linux" {
		if err := mkfifo(p("root/fifo")); err != nil {
			t.Fatal(err)
		}
	}
	exist := []string{
		"root", "root/a/b/f.go", "root/ab/f.go", "root/ab/../b/f.go", "root/out/secret", "root/s",
		"root/a/b/g.go", "root/chain/g.go", "root/a/b/up/a", "root/ab/up/ab/f.go", "root/noread",
		"root/a/./b//f.go", "root/ab/", "root/out/..",
	}
	if runtime.GOOS == "linux" {
		exist = append(exist, "root/fifo")
	}
	absent := []string{
		"root/nothere", "root/ab/nothere/deeper", "root/dangling", "root/dangling/x", "root/a/b/f.go/x",
		"root/loop1", "root/out/nothere",
	}
	for _, rel := range exist {
		want, err := walkRealPath(p(rel))
		if err != nil {
			t.Errorf("walk %s: %v", rel, err)
			continue
		}
		got, ok := kernelRealPath(p(rel))
		if runtime.GOOS != "linux" {
			continue
		}
		if !ok || got != want {
			t.Errorf("%s: kernel %q %v, walk %q", rel, got, ok, want)
		}
		if real, err := RealPath(p(rel)); err != nil || real != want {
			t.Errorf("RealPath(%s) = %q, %v; want %q", rel, real, err, want)
		}
	}
	for _, rel := range absent {
		if got, ok := kernelRealPath(p(rel)); ok {
			t.Errorf("%s: the kernel answered %q for a path that does not exist", rel, got)
		}
		want, werr := walkRealPath(p(rel))
		if real, err := RealPath(p(rel)); real != want || (err == nil) != (werr == nil) {
			t.Errorf("RealPath(%s) = %q, %v; the walk %q, %v", rel, real, err, want, werr)
		}
	}
}
