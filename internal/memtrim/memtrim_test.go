package memtrim

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func freeUnreleased() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

var sink [][]byte

// A call that allocated past Threshold is followed by one release, which
// returns the heap's free pages to the OS; a small call is not.
func TestReleaseAfterLargeCall(t *testing.T) {
	releasedCh := make(chan struct{}, 1)
	doneMu.Lock()
	done = func() { releasedCh <- struct{}{} }
	doneMu.Unlock()
	t.Cleanup(func() {
		doneMu.Lock()
		done = nil
		doneMu.Unlock()
	})

	small := Begin()
	sink = append(sink, make([]byte, 1<<20))
	sink = nil
	if small.End() {
		t.Fatalf("a call that allocated 1 MiB asked for a release (threshold %d)", Threshold)
	}

	before := released.Load()
	large := Begin()
	for range 64 {
		sink = append(sink, make([]byte, 1<<20))
	}
	sink = nil
	runtime.GC() // the 64 MiB are free, not yet returned
	if free := freeUnreleased(); free < 32<<20 {
		t.Fatalf("after a collection, %d bytes free and not returned, want the 64 MiB dropped", free)
	}
	if !large.End() {
		t.Fatalf("a call that allocated 64 MiB asked for no release (threshold %d)", Threshold)
	}
	select {
	case <-releasedCh:
	case <-time.After(time.Minute): // a bound on a hang, not a wait for the release
		t.Fatal("no release done")
	}
	if got := released.Load() - before; got != 1 {
		t.Errorf("%d releases, want 1", got)
	}
	if free := freeUnreleased(); free > 4<<20 {
		t.Errorf("after the release, %d bytes free and not returned to the OS", free)
	}
}
