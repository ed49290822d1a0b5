package workspace

// The paths a read tool touches on every call (the file asked about, the
// files its answer names) are asked of the kernel with raw system calls
// once they are hot: reached by this process within hotFor. A system
// call made the ordinary way enters the scheduler's syscall state, and
// the first one after the process was wholly idle wakes the runtime's
// monitor thread (sysmon), which then polls every 20 µs through the call
// (internal/rawio says the same of the pipes): the resolve (an openat2
// and a close) and the stat of the file's lines kept (lsp/diskcache.go)
// were the only ordinary system calls of a warm read, and with them made
// raw nvbridge's CPU per find_definition fell by about 55 µs (readsab,
// both ways round).
//
// Raw is for hot paths only: a raw call that blocks keeps its thread's P
// (and a stop of the world waits for it), where an ordinary one hands it
// on. A path reached moments ago has its kernel entries (dentries,
// inodes) cached, and a metadata call on it answers without I/O; a path
// not reached lately (the first read of a file, a network mount after a
// pause) is asked the ordinary way.

import (
	"sync"
	"sync/atomic"
	"time"
)

const (
	// hotFor is how long a path stays hot after it was last reached.
	hotFor = int64(5 * time.Second)
	// hotMax bounds the set (a walk over thousands of files): past it,
	// the set starts again empty.
	hotMax = 4096
)

// rawCalls counts the system calls made raw (tests).
var rawCalls atomic.Int64

var hot = struct {
	sync.Mutex
	at map[string]int64 // path -> when it was last reached (Unix ns)
}{at: map[string]int64{}}

func isHot(path string, now int64) bool {
	hot.Lock()
	at, ok := hot.at[path]
	hot.Unlock()
	return ok && now-at >= 0 && now-at < hotFor
}

func markHot(path string, now int64) {
	hot.Lock()
	if len(hot.at) >= hotMax {
		clear(hot.at)
	}
	hot.at[path] = now
	hot.Unlock()
}

// StatHot is StampPath(abs, true): the stamp of the file abs leads to
// (Missing when there is none), asked with a raw system call when abs is
// hot; ok is false when it cannot be told.
func StatHot(abs string) (Stamp, bool) {
	now := time.Now().UnixNano()
	s, ok, done := Stamp{}, false, false
	if isHot(abs, now) {
		if s, ok, done = rawStampSys(abs); done {
			rawCalls.Add(1)
		}
	}
	if !done {
		s, ok = StampPath(abs, true)
	}
	// Reached again, raw or not (as plainRealPath marks its opens): a
	// path read every few seconds stays hot.
	if ok && !s.Missing {
		markHot(abs, now)
	}
	return s, ok
}
