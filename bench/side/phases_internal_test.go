package side

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPhasesFromLog: a call's log lines (as nvbridge --log writes them,
// rpc lines stamped with their start and written at their end) give its
// open, requests, after and outside; lines outside any call are left out.
func TestPhasesFromLog(t *testing.T) {
	log := `nvbridge: 2026/11/27 05:08:39 trace 05:08:39.000000 rpc   exec_lua before any call (1ms)
nvbridge: 2026/11/27 05:08:39 trace 05:08:39.100100 async #7 open_wait("/m/zap/logger.go", true, 260, 0, [11 strings])
nvbridge: 2026/11/27 05:08:39 trace 05:08:39.100500 async #7 ← {"clients":[]} (400µs)
nvbridge: 2026/11/27 05:08:39 trace 05:08:39.100150 rpc   nvbridge.bridge.open_wait(#7) (250µs)
nvbridge: 2026/11/27 05:08:39 trace 05:08:39.100600 lsp   #8 → textDocument/definition {"x":1} (client 1, buffer 2)
nvbridge: 2026/11/27 05:08:39 trace 05:08:39.100620 rpc   nvbridge.bridge.request(#8) (80µs)
nvbridge: 2026/11/27 05:08:39 trace 05:08:39.101600 lsp   #8 ← [{"uri":"file:\/\/\/m\/a (b).go"}] (1ms)
nvbridge: 2026/11/27 05:08:39 trace 05:08:39.101700 rpc   nvbridge.buffers.get_lines(map[string][]int) (200µs)
nvbridge: 2026/11/27 05:08:40 trace 05:08:40.000000 rpc   exec_lua after every call (1ms) ERR boom (x)
`
	path := filepath.Join(t.TempDir(), "nvbridge.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := readTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 9 || lines[8].took != time.Millisecond || lines[3].took != 250*time.Microsecond {
		t.Fatalf("read %d lines: %+v", len(lines), lines)
	}
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006/01/02 15:04:05.000000", "2026/11/27 "+s, time.Local)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	calls := []callSpan{{op: "find_definition", start: at("05:08:39.100000"), end: at("05:08:39.102400")}}
	got := phasesOf(lines, calls)["find_definition"]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	// open 100.1 -> 100.5; requests 100.6 -> 101.6; the last exchange
	// ends at 101.9 (get_lines 101.7 + 0.2); inside 100.1 -> 101.9; the
	// call 100.0 -> 102.4.
	if got == nil || got.Calls != 1 || !near(got.OpenMs, 0.4) || !near(got.RequestsMs, 1.0) || !near(got.AfterMs, 0.3) ||
		!near(got.InsideMs, 1.8) || !near(got.OutsideMs, 0.6) {
		t.Fatalf("phases = %+v", got)
	}
}
