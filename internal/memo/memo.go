// Package memo remembers the results of pure functions that are called
// again and again with the same few arguments (a policy's verdict on a
// path, the path of a URI: a result names the same files many times).
package memo

import (
	"sync"
	"sync/atomic"
)

// Bounded remembers up to Max results (0: 65536); past that it computes
// without remembering. Safe for concurrent use; the zero value is ready.
type Bounded[K comparable, V any] struct {
	Max    int64
	values sync.Map // K -> V
	stored atomic.Int64
}

// Get returns f(k), computed once while within the bound.
func (b *Bounded[K, V]) Get(k K, f func(K) V) V {
	if v, ok := b.values.Load(k); ok {
		return v.(V)
	}
	v := f(k)
	limit := b.Max
	if limit == 0 {
		limit = 1 << 16
	}
	if b.stored.Add(1) <= limit {
		b.values.Store(k, v)
	}
	return v
}
