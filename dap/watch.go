package dap

import "sync"

// watchList holds the functions Watch registered.
type watchList struct {
	mu  sync.Mutex
	fns []func()
}

var managerWatchers sync.Map // *Manager -> *watchList

// Watch calls fn after any session changes (a stop, output, the end; not
// the start or forgetting of a session: compare IDs for that). fn runs
// under the session's lock: it must return quickly and not call the
// manager.
func (m *Manager) Watch(fn func()) {
	v, _ := managerWatchers.LoadOrStore(m, &watchList{})
	w := v.(*watchList)
	w.mu.Lock()
	w.fns = append(w.fns, fn)
	w.mu.Unlock()
}

// notifyWatchers runs the Watch functions (Manager.changed).
func (m *Manager) notifyWatchers() {
	v, ok := managerWatchers.Load(m)
	if !ok {
		return
	}
	w := v.(*watchList)
	w.mu.Lock()
	fns := append([]func(){}, w.fns...)
	w.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// forgetWatchers drops m's watchers (Close).
func (m *Manager) forgetWatchers() { managerWatchers.Delete(m) }

// IDs lists the sessions, in order.
func (m *Manager) IDs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.idsLocked()
}

// PeekOutput returns the output a session collected that no result has
// taken yet (the next control or stop result carries it), without taking
// it, and how many bytes were dropped to stay within the bound.
func (m *Manager) PeekOutput(id string) ([]OutputChunk, int, error) {
	s, err := m.Get(id)
	if err != nil {
		return nil, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]OutputChunk{}, s.out.chunks...), s.out.dropped, nil
}
