// Package memtrim returns to the operating system the memory a large call
// left behind, once its answer is sent.
//
// The Go runtime sizes its heap by what was live at the last collection: a
// collection in the middle of a large call (a rename over the standard
// library: ~80 MB allocated, its changeset, texts and formatting live
// while it runs) sets the next goal at twice that, and the small calls
// that follow allocate too little to reach it, so no collection runs
// again and the pages stay resident for minutes (on std, nvbridge's
// resident set stayed at 60 MB of heap for about 20 MB live). After such a
// call, one collection and a scavenge (debug.FreeOSMemory) bring the heap
// back to what the process keeps, and its goal with it.
package memtrim

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/nvbridge/nvbridge/internal/safego"
)

// Threshold is what a call must have allocated (the whole process's
// allocations while it ran) for a release after it. A warm read on the
// standard library allocates a few MB; a rename over it, the left-behind
// scan and formatting of the files it touches, once about 80 MB, less
// since its parses skip what does not name the name: at 32 MB it no longer
// reached the threshold, and nvbridge's resident set after it stayed 13
// MiB higher (the bench's std memory goal).
var Threshold uint64 = 16 << 20

const allocsMetric = "/gc/heap/allocs:bytes"

// allocated is the bytes the process has allocated on the heap so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: allocsMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Call is a call in progress (Begin).
type Call struct{ start uint64 }

// lastRead is what allocated last read (at the package's start, then at
// each End): a call's Begin takes it rather than reading the runtime's
// metrics again (a metrics.Read, ~3 us on a read's way before its
// request). What was allocated between that read and the call's start
// counts as the call's: a release is asked for a little more often,
// never less (the read only grows).
var lastRead atomic.Uint64

func init() { lastRead.Store(allocated()) }

// Begin marks the start of a call.
func Begin() Call { return Call{start: lastRead.Load()} }

// End is called once the call's answer is sent (nothing of it is live
// any more): when the process allocated Threshold or more since Begin, a
// release runs in the background (one at a time: a release asked while
// one runs is that one). It reports whether one was asked for.
func (c Call) End() bool {
	now := allocated()
	for {
		last := lastRead.Load()
		if now <= last || lastRead.CompareAndSwap(last, now) {
			break
		}
	}
	if now-c.start < Threshold {
		return false
	}
	release()
	return true
}

var (
	running atomic.Bool
	// released counts the releases done (tests).
	released atomic.Int64
	// done, when set, is told of each release done (tests).
	doneMu sync.Mutex
	done   func()
)

func release() {
	if !running.CompareAndSwap(false, true) {
		return
	}
	safego.Go("memtrim: the release after a large call", func() {
		debug.FreeOSMemory()
		released.Add(1)
		running.Store(false)
		doneMu.Lock()
		f := done
		doneMu.Unlock()
		if f != nil {
			f()
		}
	}, func(error) { running.Store(false) })
}
