package memo

import (
	"fmt"
	"runtime"
	"testing"
)

// TestBounded: a result is computed once, and past the bound it is computed
// every time (nothing more is stored).
func TestBounded(t *testing.T) {
	calls := map[int]int{}
	square := func(k int) int { calls[k]++; return k * k }
	m := Bounded[int, int]{Max: 2}
	for range 3 {
		for k := 1; k <= 3; k++ {
			if got := m.Get(k, square); got != k*k {
				t.Fatalf("Get(%d) = %d", k, got)
			}
		}
	}
	if calls[1] != 1 || calls[2] != 1 || calls[3] != 3 {
		t.Fatalf("computed %v times, want 1, 1 and 3 (past the bound)", calls)
	}
}

// TestBoundedMemory: a remembered result costs about 40 bytes (a
// sync.Map's, its trie's nodes and the boxed key and value, about 100).
func TestBoundedMemory(t *testing.T) {
	keys := make([]string, 5000)
	for i := range keys {
		keys[i] = fmt.Sprintf("src/pkg%d/file%d.go", i/10, i)
	}
	var m Bounded[string, string]
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, k := range keys {
		m.Get(k, func(string) string { return "" })
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(len(keys))
	if per > 64 {
		t.Errorf("%d bytes a remembered result", per)
	}
	runtime.KeepAlive(&m)
}
