package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlainRealPath: the kernel opens a path without following a symlink
// (plainRealPath) exactly when no component of it is one, and then its
// answer is the walk's; a symlink anywhere on the way (the last component,
// a folder, a link out of the root, a dangling link, a loop, /proc's magic
// links) leaves the answer to the /proc way, which agrees with the walk
// too; a missing component before any symlink is told as missing (the walk
// keeps it as written).
func TestPlainRealPath(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return dir + "/" + rel } // as written: no Clean
	for _, d := range []string{"root/a/b", "outside/x"} {
		if err := os.MkdirAll(p(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"root/a/b/f.go", "outside/x/secret"} {
		if err := os.WriteFile(p(f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for target, rel := range map[string]string{
		"a/b":                 "root/ab",
		p("outside/x"):        "root/out",
		"../outside/x/secret": "root/s",
		"f.go":                "root/a/b/g.go",
		"missing":             "root/dangling",
		"../..":               "root/a/b/up",
		"loop":                "root/loop",
	} {
		if err := os.Symlink(target, p(rel)); err != nil {
			t.Fatal(err)
		}
	}
	if err := mkfifo(p("root/fifo")); err != nil {
		t.Fatal(err)
	}
	plain := []string{
		"root", "root/", "root/a/b/f.go", "root/a/./b//f.go", "root/a/b/../b/f.go", "root/a/..",
		"root/fifo", "outside/x/../../root/a",
	}
	linked := []string{
		"root/ab", "root/ab/f.go", "root/ab/../b/f.go", "root/out/secret", "root/out/..", "root/s",
		"root/a/b/g.go", "root/a/b/up/a", "root/dangling", "root/dangling/x", "root/loop",
		"root/out/nothere", "root/ab/nothere/deeper",
	}
	missing := []string{"root/nothere", "root/nothere/..", "root/a/b/f.go/x", "root/a/b/f.go/..", "nothere/../root"}
	for _, rel := range plain {
		want, err := walkRealPath(p(rel))
		if err != nil {
			t.Fatal(err)
		}
		if got, how := plainRealPath(p(rel)); how != plainOpened || got != want {
			t.Errorf("%s: plain %q %v, walk %q", rel, got, how, want)
		}
		if got, ok := kernelRealPath(p(rel)); !ok || got != want {
			t.Errorf("%s: kernel %q %v, walk %q", rel, got, ok, want)
		}
	}
	for _, rel := range linked {
		if got, how := plainRealPath(p(rel)); how != plainUnknown {
			t.Errorf("%s: plain %q %v through a symlink", rel, got, how)
		}
		want, werr := walkRealPath(p(rel))
		if real, err := RealPath(p(rel)); real != want || (err == nil) != (werr == nil) {
			t.Errorf("RealPath(%s) = %q, %v; the walk %q, %v", rel, real, err, want, werr)
		}
	}
	for _, rel := range missing {
		if got, how := plainRealPath(p(rel)); how != plainMissing {
			t.Errorf("%s: plain %q %v for a missing component", rel, got, how)
		}
		want, werr := walkRealPath(p(rel))
		if real, err := RealPath(p(rel)); real != want || (err == nil) != (werr == nil) {
			t.Errorf("RealPath(%s) = %q, %v; the walk %q, %v", rel, real, err, want, werr)
		}
	}
	for _, magic := range []string{"/proc/self/cwd", "/proc/self/exe"} {
		if got, how := plainRealPath(magic); how != plainUnknown {
			t.Errorf("%s: plain %q %v through a magic link", magic, got, how)
		}
	}

	// A folder of the path swapped for a symlink out of the root: the
	// next answer is the link's target, never the cleaned text.
	if err := os.Rename(p("root/a"), p("root/a.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("outside"), p("root/a")); err != nil {
		t.Fatal(err)
	}
	if got, how := plainRealPath(p("root/a/x/secret")); how != plainUnknown {
		t.Errorf("after the swap: plain %q %v", got, how)
	}
	if got, err := RealPath(p("root/a/x/secret")); err != nil || got != p("outside/x/secret") {
		t.Errorf("after the swap: RealPath %q, %v; want %s", got, err, p("outside/x/secret"))
	}
}

// TestRootResolvePlainAndLinked: Resolve through the fast way and the /proc
// way: a plain path inside, a symlink inside, a symlink escaping the root
// (refused), a missing file (kept as written).
func TestRootResolvePlainAndLinked(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pkg", "a.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pkg", filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret.go", filepath.Join(root, "esc.go")); err != nil {
		t.Fatal(err)
	}
	r, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"pkg/a.go":            filepath.Join(root, "pkg", "a.go"),
		"./pkg/../pkg/a.go":   filepath.Join(root, "pkg", "a.go"),
		"lnk/a.go":            filepath.Join(root, "pkg", "a.go"),
		"pkg/new.go":          filepath.Join(root, "pkg", "new.go"),
		root + "/pkg//a.go":   filepath.Join(root, "pkg", "a.go"),
		"nothere/../pkg/a.go": filepath.Join(root, "pkg", "a.go"),
	} {
		if got, err := r.Resolve(in); err != nil || got != want {
			t.Errorf("Resolve(%s) = %q, %v; want %s", in, got, err, want)
		}
	}
	if got, err := r.Resolve("esc.go"); err == nil {
		t.Errorf("Resolve(esc.go) = %q through a symlink out of the root", got)
	}
}
