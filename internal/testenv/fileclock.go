package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// FileClockTick returns once the filesystem of dir stamps a write later
// than every write made before the call (its timestamps are as coarse as
// the kernel's clock tick, or a second): a change made after it has times
// of its own, as a change made a while after a cache was filled does. It
// writes a probe file next to dir (not in it) until its mtime moves on.
func FileClockTick(t testing.TB, dir string) {
	t.Helper()
	probe, err := os.CreateTemp(filepath.Dir(dir), "clock-probe-")
	if err != nil {
		t.Fatal(err)
	}
	probe.Close()
	defer os.Remove(probe.Name())
	mtime := func() time.Time {
		if err := os.WriteFile(probe.Name(), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(probe.Name())
		if err != nil {
			t.Fatal(err)
		}
		return st.ModTime()
	}
	first := mtime()
	for deadline := time.Now().Add(Timeout()); time.Now().Before(deadline); runtime.Gosched() {
		if mtime().After(first) {
			return
		}
	}
	t.Fatalf("the filesystem of %s stamped no later time than %v", dir, first)
}
