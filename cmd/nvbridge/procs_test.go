package main

import (
	"runtime"
	"testing"
)

// TestStdioProcs (spareProc, which stdioProcs runs once): serving stdio, the scheduler gets one P more than it
// chose, a P for the goroutine blocked reading stdin; a GOMAXPROCS the
// user set is left as it is.
func TestStdioProcs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(before) })

	t.Setenv("GOMAXPROCS", "")
	spareProc()
	if got := runtime.GOMAXPROCS(0); got != before+1 {
		t.Errorf("GOMAXPROCS %d after spareProc, want %d", got, before+1)
	}

	runtime.GOMAXPROCS(before)
	t.Setenv("GOMAXPROCS", "1")
	spareProc()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after spareProc with the user's GOMAXPROCS set, want %d unchanged", got, before)
	}
}
