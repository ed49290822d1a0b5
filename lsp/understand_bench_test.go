package lsp_test

import (
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// BenchmarkUnderstand compares understand_symbol on orders.Process with its
// sub-requests running concurrently (the default) against the same
// sub-requests issued one after another (Concurrency 1). "ratio" is
// sequential time / concurrent time, measured in alternation so both see
// the same server state.
func BenchmarkUnderstand(b *testing.B) {
	testenv.Require(b, "nvim", "gopls", "go")
	root := testenv.CopySample(b, "go")
	_, client := testenv.Embedded(b, root)
	ctx := testenv.Context(b)
	req := lsp.UnderstandRequest{File: "orders/orders.go", Target: lsp.Target{Line: 33, Symbol: "Process"}}
	run := func(b *testing.B, conc int) time.Duration {
		r := req
		r.Concurrency = conc
		start := time.Now()
		res, err := client.Understand(ctx, r)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Errors) > 0 || res.References == nil || res.Calls == nil {
			b.Fatalf("incomplete answer: %+v", res)
		}
		return time.Since(start)
	}
	// Warm up: the first answers wait for gopls to load the workspace and
	// its caches.
	for i := 0; i < 5; i++ {
		run(b, 0)
		run(b, 1)
	}
	b.Run("concurrent", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			run(b, 0)
		}
	})
	b.Run("sequential", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			run(b, 1)
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var conc, seq time.Duration
		for i := 0; i < b.N; i++ {
			conc += run(b, 0)
			seq += run(b, 1)
		}
		b.ReportMetric(float64(conc.Microseconds())/float64(b.N)/1000, "concurrent-ms/op")
		b.ReportMetric(float64(seq.Microseconds())/float64(b.N)/1000, "sequential-ms/op")
		b.ReportMetric(float64(seq)/float64(conc), "seq/conc")
	})
}
