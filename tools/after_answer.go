package tools

import (
	"context"
	"sync"
)

// AfterAnswer holds what a tool call asked to run once its answer is
// written (RunAfterAnswer): work the caller does not wait for, which would
// otherwise share the cores with the end of the call (the relist a
// mutating tool asks for woke the list loop's goroutine while the answer
// was being encoded: ~15 µs on a rename preview's way).
type AfterAnswer struct {
	mu  sync.Mutex
	ran bool
	fns []func()
}

type afterAnswerKey struct{}

// WithAfterAnswer returns ctx carrying a new AfterAnswer, for a transport
// that runs it (Run) once it wrote the call's answer.
func WithAfterAnswer(ctx context.Context) (context.Context, *AfterAnswer) {
	a := &AfterAnswer{}
	return context.WithValue(ctx, afterAnswerKey{}, a), a
}

// Run runs what was asked, in order; anything asked later runs at once.
func (a *AfterAnswer) Run() {
	a.mu.Lock()
	fns := a.fns
	a.fns, a.ran = nil, true
	a.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// RunAfterAnswer runs f once the answer of ctx's call is written, or now
// when no transport said it would (in-process callers, the HTTP
// transport), or when the answer was already written.
func RunAfterAnswer(ctx context.Context, f func()) {
	if a, ok := ctx.Value(afterAnswerKey{}).(*AfterAnswer); ok {
		a.mu.Lock()
		if !a.ran {
			a.fns = append(a.fns, f)
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
	}
	f()
}
