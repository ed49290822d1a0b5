package nvim

import (
	"context"
	"encoding/json"
)

// What the tests in nvim_test see of the package's insides.

var (
	SpliceLines     = spliceLines
	AllLinesEndInCR = allLinesEndInCR
)

// TextCacheCounts: the snapshots of large buffers made from a cached text
// and Neovim's line changes, and those read whole.
func TextCacheCounts(s *Session) (spliced, fetched int64) {
	c := textCacheOf(s)
	return c.spliced.Load(), c.fetched.Load()
}

// TextCacheTaken: the snapshots' texts taken from the cache (Neovim said
// it held them), and the small texts it keeps.
func TextCacheTaken(s *Session) (taken int64, small int) {
	c := textCacheOf(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.taken.Load(), c.small
}

// EvictAfterSnapshot empties the text cache once Neovim answers each
// snapshot (as another call's snapshot may), until restore.
func EvictAfterSnapshot() (restore func()) {
	saved := snapshotAnswered
	snapshotAnswered = func(c *textCache) {
		c.mu.Lock()
		c.entries, c.size, c.small = nil, 0, 0
		c.mu.Unlock()
	}
	return func() { snapshotAnswered = saved }
}

// Sizes of the text cache's tiers.
const (
	SmallTextMin  = smallTextMin
	MaxSmallTexts = maxSmallTexts
)

// DiskTextCounts: the texts of files not loaded read from the disk by
// Snapshot, and those Neovim sent again (the file changed in between).
func DiskTextCounts(s *Session) (read, again int64) {
	c := textCacheOf(s)
	return c.diskRead.Load(), c.diskAgain.Load()
}

// SetReadDiskText replaces how Snapshot reads a file's text, until the
// returned function puts it back.
func SetReadDiskText(f func(string) ([]byte, error)) (restore func()) {
	saved := readDiskText
	readDiskText = f
	return func() { readDiskText = saved }
}

// The asynchronous operations the tests start together.
var (
	LuaOpenWait = luaOpenWait.f
	LuaRequest  = luaRequest.f
)

// StartTogether starts f(channel, id, args...) for each args as one batch,
// as the sender sends the starts callers queue together, and waits for
// their answers.
func StartTogether(ctx context.Context, s *Session, f *luaFunc, argsList [][]any) ([]json.RawMessage, []error) {
	batch := make([]*asyncStart, len(argsList))
	answers := make([]chan asyncResult, len(argsList))
	for i, args := range argsList {
		id := s.nextID.Add(1)
		answers[i] = make(chan asyncResult, 1)
		s.mu.Lock()
		s.waiters[id] = answers[i]
		s.mu.Unlock()
		batch[i] = &asyncStart{f: f, id: id, args: args, sent: make(chan error, 1)}
	}
	s.startBatch(batch)
	results, errs := make([]json.RawMessage, len(batch)), make([]error, len(batch))
	for i, st := range batch {
		if err := <-st.sent; err != nil {
			errs[i] = err
			continue
		}
		select {
		case r := <-answers[i]:
			results[i] = r.result
			if r.err != nil {
				errs[i] = r.err
			}
		case <-ctx.Done():
			errs[i] = ctx.Err()
		}
	}
	return results, errs
}

// EntryPoint is a declared Lua entry point as the tests see it: Params is
// how many parameters its Lua function must take (an operation's channel
// and id included).
type EntryPoint struct {
	Module, Name string
	Params       int
}

// EntryPoints lists every declared Lua entry point.
func EntryPoints() []EntryPoint {
	out := make([]EntryPoint, len(luaFuncs))
	for i, f := range luaFuncs {
		out[i] = EntryPoint{Module: f.module, Name: f.name, Params: f.nargs}
		if f.async {
			out[i].Params += 2
		}
	}
	return out
}

// RawPipes: the embedded Neovim's pipes are read and written raw (rawio).
func RawPipes(s *Session) bool { return s.rawPipes }
