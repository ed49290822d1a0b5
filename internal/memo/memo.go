// Package memo remembers the results of pure functions that are called
// again and again with the same few arguments (a policy's verdict on a
// path, the path of a URI: a result names the same files many times).
package memo

import "sync"

// Bounded remembers up to Max results (0: 65536); past that it computes
// without remembering. Safe for concurrent use; the zero value is ready.
//
// The results are a plain map under a read-write lock: about 40 bytes a
// result where a sync.Map held about 100 (its trie's nodes, the key and
// value boxed); the policy's verdicts on the standard library's tree are
// 12,800 results.
type Bounded[K comparable, V any] struct {
	Max    int64
	mu     sync.RWMutex
	values map[K]V
}

// Get returns f(k), computed once while within the bound.
func (b *Bounded[K, V]) Get(k K, f func(K) V) V {
	b.mu.RLock()
	v, ok := b.values[k]
	b.mu.RUnlock()
	if ok {
		return v
	}
	v = f(k)
	limit := b.Max
	if limit == 0 {
		limit = 1 << 16
	}
	b.mu.Lock()
	if int64(len(b.values)) < limit {
		if b.values == nil {
			b.values = map[K]V{}
		}
		b.values[k] = v
	}
	b.mu.Unlock()
	return v
}
