package refactor

import (
	"context"
	"fmt"
	"sync"

	"github.com/nvbridge/nvbridge/internal/progress"
)

// steps reports the numbered steps of a multi-step refactoring as MCP
// progress ("inline_function: step 3 of 7: call site 1 of 4, main.go:12"),
// so an agent waiting seconds per inlined call sees it advance. The total
// may grow once the work is known (the call sites found). Without a
// progress token in ctx a report costs a context lookup.
type steps struct {
	ctx         context.Context
	tool        string
	mu          sync.Mutex
	done, total int
}

type stepsKey struct{}

// newSteps starts the steps of tool, total of them as far as known, and
// returns ctx carrying them for the helpers that report their own steps.
func newSteps(ctx context.Context, tool string, total int) (context.Context, *steps) {
	s := &steps{ctx: ctx, tool: tool, total: total}
	return context.WithValue(ctx, stepsKey{}, s), s
}

// stepsOf returns the steps ctx carries, nil (reports nothing) when none.
func stepsOf(ctx context.Context) *steps {
	s, _ := ctx.Value(stepsKey{}).(*steps)
	return s
}

// add announces n more steps than first counted.
func (s *steps) add(n int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.total += n
	s.mu.Unlock()
}

// next reports that the next step begins.
func (s *steps) next(format string, args ...any) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.done++
	done, total := s.done, max(s.total, s.done)
	s.mu.Unlock()
	progress.Report(s.ctx, float64(done), float64(total),
		fmt.Sprintf("%s: step %d of %d: %s", s.tool, done, total, fmt.Sprintf(format, args...)))
}
