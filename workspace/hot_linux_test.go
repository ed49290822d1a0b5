package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A path reached moments ago is asked again with a raw system call, and
// the answer is the kernel's of the moment as before: a stamp that moves
// with the file, a missing file told as missing, and a resolve that
// meets a symlink put on the way since (a folder swapped for a link out
// of the root) refused as the ordinary one is. A path not reached lately
// is asked the ordinary way.
func TestHotPathsRaw(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"root/pkg", "outside"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "root/pkg/f.go")
	if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "outside/f.go"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := New(filepath.Join(dir, "root"))
	if err != nil {
		t.Fatal(err)
	}
	raw := func(what string, f func()) {
		t.Helper()
		before := rawCalls.Load()
		f()
		if rawCalls.Load() == before {
			t.Errorf("%s: made the ordinary way, want raw", what)
		}
	}
	ordinary := func(what string, f func()) {
		t.Helper()
		before := rawCalls.Load()
		f()
		if rawCalls.Load() != before {
			t.Errorf("%s: made raw, want the ordinary way", what)
		}
	}

	ordinary("the first resolve", func() {
		if got, err := root.Resolve("pkg/f.go"); err != nil || got != file {
			t.Fatalf("Resolve: %q %v", got, err)
		}
	})
	raw("the resolve again", func() {
		if got, err := root.Resolve("pkg/f.go"); err != nil || got != file {
			t.Fatalf("Resolve again: %q %v", got, err)
		}
	})
	var first Stamp
	raw("the stat of a file just resolved", func() {
		var ok bool
		if first, ok = StatHot(file); !ok || first.Missing || first != mustStamp(t, file) {
			t.Fatalf("StatHot: %+v %v, want %+v", first, ok, mustStamp(t, file))
		}
	})
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw("the stat after a write", func() {
		if s, ok := StatHot(file); !ok || s == first || s != mustStamp(t, file) {
			t.Errorf("StatHot after a write: %+v, want %+v (before: %+v)", s, mustStamp(t, file), first)
		}
	})
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	raw("the stat of the file removed", func() {
		if s, ok := StatHot(file); !ok || !s.Missing {
			t.Errorf("StatHot of a removed file: %+v %v, want missing", s, ok)
		}
	})
	// The folder swapped for a link out of the root.
	if err := os.RemoveAll(filepath.Join(dir, "root/pkg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(dir, "root/pkg")); err != nil {
		t.Fatal(err)
	}
	raw("the resolve through the new link", func() {
		if got, err := root.Resolve("pkg/f.go"); err == nil {
			t.Errorf("Resolve through a link out of the root: %q, want refused", got)
		}
	})

	other := filepath.Join(dir, "outside/f.go")
	ordinary("the stat of a path never reached", func() { StatHot(other) })
	// Hot for hotFor after it was last reached, then ordinary again.
	now := time.Now().UnixNano()
	if !isHot(other, now) || isHot(other, now+hotFor) {
		t.Errorf("hot now %v, hot after hotFor %v", isHot(other, now), isHot(other, now+hotFor))
	}
	// Bounded: past hotMax paths the set starts again.
	for i := range hotMax {
		markHot(filepath.Join(dir, "x", string(rune('a'+i%26)), time.Duration(i).String()), now)
	}
	if hotLen() > hotMax {
		t.Errorf("%d paths hot, want at most %d", hotLen(), hotMax)
	}
}

func mustStamp(t *testing.T, path string) Stamp {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := StampOf(info)
	if !ok {
		t.Fatal("no stamp")
	}
	return s
}

func hotLen() int {
	hot.Lock()
	defer hot.Unlock()
	return len(hot.at)
}
