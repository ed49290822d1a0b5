package nvim

import (
	"context"
	"sync"
)

// A snapshot memo keeps the snapshots taken during one planned change (a
// refactoring tool call: the server's edit converted against the files,
// then the changeset engine preparing it), so the engine checks the very
// snapshots the plan was made from instead of reading every file again.
// Nothing is lost by it: the apply step still compares each file's
// changedtick or content fingerprint with the snapshot's at the moment it
// writes (apply.lua), so a change by the user in between is a CONFLICT.
// ForgetSnapshots empties the memo once something was changed.
type snapshotMemo struct {
	mu    sync.Mutex
	snaps map[string]FileSnapshot
}

type snapshotMemoKey struct{}

// WithSnapshotMemo returns ctx carrying a new, empty snapshot memo.
func WithSnapshotMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, snapshotMemoKey{}, &snapshotMemo{snaps: map[string]FileSnapshot{}})
}

// ForgetSnapshots empties ctx's snapshot memo (if any): files changed.
func ForgetSnapshots(ctx context.Context) {
	if m := memoOf(ctx); m != nil {
		m.mu.Lock()
		clear(m.snaps)
		m.mu.Unlock()
	}
}

// HasSnapshotMemo reports whether ctx carries a snapshot memo: a snapshot
// taken with ctx ahead of the plan that needs it is kept for it.
func HasSnapshotMemo(ctx context.Context) bool { return memoOf(ctx) != nil }

func memoOf(ctx context.Context) *snapshotMemo {
	m, _ := ctx.Value(snapshotMemoKey{}).(*snapshotMemo)
	return m
}

// lookup returns the memo's snapshots of paths (ok false for any missing).
func (m *snapshotMemo) lookup(paths []string) (map[string]FileSnapshot, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	hits := map[string]FileSnapshot{}
	var misses []string
	for _, p := range paths {
		if s, ok := m.snaps[p]; ok {
			hits[p] = s
		} else {
			misses = append(misses, p)
		}
	}
	return hits, misses
}

// store keeps snaps, the snapshots of paths (one each, in order).
func (m *snapshotMemo) store(paths []string, snaps []FileSnapshot) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, s := range snaps {
		if i < len(paths) && s.Err == nil && s.Disk == nil {
			m.snaps[paths[i]] = s
		}
	}
}
