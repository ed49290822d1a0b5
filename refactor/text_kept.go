package refactor

// What a rename computes from a file's whole text and keeps for the next
// call (the parse for the format check: keeps_memo.go; the split into
// lines: snapshot_doc.go): kept by the text itself, compared byte by byte
// (no stamp trusted; a text changed in any byte is computed again), and a
// key beside it. The most recently used first; bounded by count and by
// the kept texts' total size (a text over that bound is computed every
// time, never kept).

import "sync"

// textKept keeps values made from a text and a key.
type textKept[K comparable, V any] struct {
	// max bounds the values kept; maxText bounds their texts, together.
	max, maxText int

	mu   sync.Mutex
	list []textEntry[K, V] // the most recently used first
}

type textEntry[K comparable, V any] struct {
	key  K
	text string
	v    V
}

// get is the value kept for key and text, else make(), kept.
func (t *textKept[K, V]) get(key K, text string, make func() V) V {
	if len(text) > t.maxText {
		return make()
	}
	t.mu.Lock()
	for i, e := range t.list {
		if e.key == key && e.text == text {
			copy(t.list[1:i+1], t.list[:i])
			t.list[0] = e
			t.mu.Unlock()
			return e.v
		}
	}
	t.mu.Unlock()
	v := make()
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.list) < t.max {
		t.list = append(t.list, textEntry[K, V]{})
	}
	copy(t.list[1:], t.list[:len(t.list)-1])
	t.list[0] = textEntry[K, V]{key: key, text: text, v: v}
	total := 0
	for i, e := range t.list {
		if total += len(e.text); total > t.maxText {
			clear(t.list[i:])
			t.list = t.list[:i]
			break
		}
	}
	return v
}

// textBytes is the size of the texts kept, together.
func (t *textKept[K, V]) textBytes() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	total := 0
	for _, e := range t.list {
		total += len(e.text)
	}
	return total
}

// forget drops everything kept.
func (t *textKept[K, V]) forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.list = nil
}
