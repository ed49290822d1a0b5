package bench_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/tools"
)

// briefCalls are the read tools measured with detail "brief" against the
// full answer, on the sample's orders.Process (named, not placed).
var briefCalls = []struct{ tool, args string }{
	{"find_references", `{"name":"orders.Process"}`},
	{"find_definition", `{"name":"orders.Process"}`},
	{"understand_symbol", `{"name":"orders.Process"}`},
	{"get_call_hierarchy", `{"name":"orders.Process","direction":"both","depth":2}`},
	{"get_symbols", `{"file":"orders/orders.go"}`},
	{"prepare_change", `{"name":"orders.Process"}`},
}

// BenchmarkBriefBytes measures the bytes of an answer (its text and
// structured content, as sent) with detail "brief" and in full: metrics
// full-B, brief-B and brief/full per tool. What it reports is a size, not
// a time.
func BenchmarkBriefBytes(b *testing.B) {
	f := getFixture(b)
	env := tools.NewEnv(f.Session, f.Client, b.Logf)
	ctx := context.Background()
	size := func(b *testing.B, tool, args string) int {
		t, ok := tools.Find(env, tool)
		if !ok {
			b.Fatalf("no tool %s", tool)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = json.RawMessage(args)
		res, err := t.Handler(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("%s %s: %v %+v", tool, args, err, res.Content)
		}
		body, err := json.Marshal(res)
		if err != nil {
			b.Fatal(err)
		}
		return len(body)
	}
	for _, c := range briefCalls {
		b.Run(c.tool, func(b *testing.B) {
			var full, short int
			for b.Loop() {
				full = size(b, c.tool, c.args)
				short = size(b, c.tool, c.args[:len(c.args)-1]+`,"detail":"brief"}`)
			}
			if short >= full {
				b.Fatalf("%s: brief %d bytes, full %d", c.tool, short, full)
			}
			b.ReportMetric(float64(full), "full-B")
			b.ReportMetric(float64(short), "brief-B")
			b.ReportMetric(float64(short)/float64(full), "brief/full")
		})
	}
}
