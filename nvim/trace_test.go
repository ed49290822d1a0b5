package nvim

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestTraceRingIsBoundedAndOrdered(t *testing.T) {
	var logged []string
	r := newTraceRing(func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) })
	if got := r.snapshot(); len(got) != 0 {
		t.Fatalf("empty ring holds %v", got)
	}
	for i := 0; i < TraceSize+10; i++ {
		r.add(TraceEntry{Kind: "rpc", Text: fmt.Sprintf("call %d", i)})
	}
	got := r.snapshot()
	if len(got) != TraceSize || got[0].Text != "call 10" || got[len(got)-1].Text != fmt.Sprintf("call %d", TraceSize+9) {
		t.Fatalf("ring: %d entries, first %q, last %q", len(got), got[0].Text, got[len(got)-1].Text)
	}
	if len(logged) != TraceSize+10 || !strings.Contains(logged[0], "rpc") || !strings.Contains(logged[0], "call 0") {
		t.Fatalf("sink got %d lines, first %q", len(logged), logged[0])
	}
}

func TestTraceClipsText(t *testing.T) {
	long := strings.Repeat("é", TraceTextLimit) // 2 bytes each
	c := clip(long + "\n\tand more")
	if len(c) > TraceTextLimit+len("…") || !utf8.ValidString(c) || !strings.HasSuffix(c, "…") {
		t.Fatalf("clip: %d bytes, valid %v", len(c), utf8.ValidString(c))
	}
	e := TraceEntry{At: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC), Kind: "lsp", Text: "#3 ← {}", Took: 1500 * time.Microsecond, Err: "x"}
	if s := e.String(); s != "03:04:05.006000 lsp   #3 ← {} (1.5ms) ERR x" {
		t.Fatalf("entry renders as %q", s)
	}
	if d := describeArgs([]any{"a", 3, true, []string{"x", "y"}, map[string]int{}}); d != `"a", 3, true, [2 strings], map[string]int` {
		t.Fatalf("describeArgs = %s", d)
	}
}
