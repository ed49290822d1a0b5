// Package progress carries a progress reporter through a context, so that
// domain packages (lsp, dap, edit, nvim) tell the caller how long work is
// going without knowing who listens: the MCP layer (tools.newTool) puts a
// reporter in the context of a call whose client sent a progressToken and
// turns each report into notifications/progress; without one, Report does
// nothing and costs a context lookup.
//
// Report where a caller would otherwise wait in silence: a wait on a
// language server (indexing), a walk over many files or levels, each step
// of a multi-step change, a debug session waiting for a stop.
//
//	progress.Report(ctx, 3, 10, "inlining call site 3 of 10")
//	progress.Report(ctx, 0, 0, "waiting for gopls: Loading packages...")
//
// done and total are counts of the caller's own unit (items, steps,
// percent); total 0 means unknown. Reports need not increase: the
// reporter makes what it sends monotonic, as MCP requires, and rate-limits
// it. Reporters must be safe for concurrent use (walks report from
// several goroutines).
package progress

import "context"

// Func receives one report.
type Func func(done, total float64, message string)

type key struct{}

// With returns ctx carrying f (nil: ctx unchanged).
func With(ctx context.Context, f Func) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, key{}, f)
}

// From returns ctx's reporter, nil when there is none.
func From(ctx context.Context) Func {
	f, _ := ctx.Value(key{}).(Func)
	return f
}

// Report sends one report to ctx's reporter, if any.
func Report(ctx context.Context, done, total float64, message string) {
	if f := From(ctx); f != nil {
		f(done, total, message)
	}
}
