package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestStampPathAsStat: the stamp StampPath asks the system for is the one
// os.Stat (os.Lstat) and StampOf make, for every kind of file (a file, a
// folder with the sticky and setgid bits, a setuid file, a symlink
// followed and not, a dangling one, a named pipe, a missing path), and a
// path through a file is no stamp, as os.Stat's error.
func TestStampPathAsStat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.go")
	if err := os.WriteFile(file, []byte("package f\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	setuid := filepath.Join(dir, "s")
	if err := os.WriteFile(setuid, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(setuid, 0o755|fs.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	sticky := filepath.Join(dir, "d")
	if err := os.Mkdir(sticky, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sticky, 0o775|fs.ModeSticky|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	link, dangling, fifo := filepath.Join(dir, "l"), filepath.Join(dir, "dl"), filepath.Join(dir, "p")
	if err := os.Symlink("f.go", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("none", dangling); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	viaOS := func(abs string, follow bool) (Stamp, bool) {
		stat := os.Lstat
		if follow {
			stat = os.Stat
		}
		info, err := stat(abs)
		if err != nil {
			return Stamp{Missing: os.IsNotExist(err)}, os.IsNotExist(err)
		}
		return StampOf(info)
	}
	kinds := map[fs.FileMode]bool{}
	for _, p := range []string{file, setuid, sticky, link, dangling, fifo, filepath.Join(dir, "missing"), filepath.Join(file, "x")} {
		for _, follow := range []bool{true, false} {
			want, wantOK := viaOS(p, follow)
			got, ok, done := stampPathSys(p, follow)
			if !done || got != want || ok != wantOK {
				t.Errorf("%s (follow %v): %+v %v (done %v), os.Stat's %+v %v", filepath.Base(p), follow, got, ok, done, want, wantOK)
			}
			if s, ok := StampPath(p, follow); s != want || ok != wantOK {
				t.Errorf("StampPath(%s, %v) = %+v %v", filepath.Base(p), follow, s, ok)
			}
			kinds[want.Mode&(fs.ModeType|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)] = true
		}
	}
	if len(kinds) < 5 {
		t.Errorf("only %d kinds of file stamped: %v", len(kinds), kinds)
	}
}
