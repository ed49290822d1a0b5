package memo

import "testing"

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
