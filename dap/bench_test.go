package dap_test

import (
	"testing"

	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/workspace"
)

// BenchmarkGoInspect measures one inspect_state (threads, stack, scopes
// expanded to depth 2, an expression) on a program stopped by real dlv.
func BenchmarkGoInspect(b *testing.B) {
	testenv.Require(b, "dlv", "go")
	testenv.Isolate(b)
	root := testenv.CopySample(b, "debug/go")
	r, err := workspace.New(root)
	if err != nil {
		b.Fatal(err)
	}
	m := dap.NewManager(r, nil, b.Logf)
	b.Cleanup(m.Close)
	ctx := testenv.Context(b)
	start, err := m.Start(ctx, dap.StartRequest{Program: ".", Wait: testenv.Timeout(),
		Breakpoints: map[string][]dap.BreakpointSpec{"main.go": {{Line: benchLine(b, root, "loop")}}}})
	if err != nil || start.State != dap.StateStopped {
		b.Fatalf("start: %+v %v", start.Report, err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in, err := m.Inspect(ctx, "", dap.InspectRequest{Expression: "items[0]", Depth: 2})
		if err != nil || in.Evaluated == nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoStep measures one step_over (request, stopped event, stack and
// source of the report) with real dlv; the loop of the sample is stepped
// until the program nears its end, then a new session starts (untimed).
func BenchmarkGoStep(b *testing.B) {
	testenv.Require(b, "dlv", "go")
	testenv.Isolate(b)
	root := testenv.CopySample(b, "debug/go")
	r, err := workspace.New(root)
	if err != nil {
		b.Fatal(err)
	}
	m := dap.NewManager(r, nil, b.Logf)
	b.Cleanup(m.Close)
	ctx := testenv.Context(b)
	bp := benchLine(b, root, "loop")
	begin := func() {
		b.StopTimer()
		for _, in := range mustInfos(b, m) {
			if _, err := m.Stop(ctx, in.SessionID); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := m.Start(ctx, dap.StartRequest{Program: ".", Wait: testenv.Timeout(),
			Breakpoints: map[string][]dap.BreakpointSpec{"main.go": {{Line: bp}}}}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	begin()
	steps := 0
	for i := 0; i < b.N; i++ {
		if steps == 6 { // well inside restock's loop
			begin()
			steps = 0
		}
		rep, err := m.Control(ctx, "", "step_over", 0, testenv.Timeout(), "agent")
		if err != nil || rep.State != dap.StateStopped {
			b.Fatalf("step: %+v %v", rep, err)
		}
		steps++
	}
}

func mustInfos(b *testing.B, m *dap.Manager) []dap.Info {
	infos, err := m.Infos(testenv.Context(b), "")
	if err != nil {
		b.Fatal(err)
	}
	return infos
}

func benchLine(b *testing.B, root, marker string) int { return lineOfTB(b, root, "main.go", marker) }
