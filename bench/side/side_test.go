package side_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/bench"
	"github.com/nvbridge/nvbridge/bench/side"
)

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for q, want := range map[float64]float64{0: 1, .5: 3, 1: 5, .25: 2, .95: 4.8} {
		if got := side.Quantile(xs, q); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("Quantile(%v) = %v, want %v", q, got, want)
		}
	}
	if xs[0] != 5 {
		t.Error("Quantile sorted its argument")
	}
	if side.Quantile(nil, .5) != 0 {
		t.Error("Quantile of nothing")
	}
}

func TestRatioInterval(t *testing.T) {
	var a, b []float64
	for i := range 40 {
		x := 1 + float64(i%10)/10 // 1.0 .. 1.9
		a, b = append(a, 2*x), append(b, x)
	}
	lo, hi := side.RatioInterval(a, b)
	if lo > 2 || hi < 2 || lo < 1.5 || hi > 2.6 {
		t.Errorf("a = 2b: interval [%.2f, %.2f], want around 2", lo, hi)
	}
	if lo, hi := side.RatioInterval(b, b); lo > 1 || hi < 1 {
		t.Errorf("same samples: interval [%.2f, %.2f] leaves out 1", lo, hi)
	}
	if lo, hi := side.RatioInterval(nil, b); lo != 0 || hi != 0 {
		t.Errorf("no samples: [%.2f, %.2f], want zeros", lo, hi)
	}
}

func TestFirstFunc(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nvar x = 1\n\nfunc (r *T) Method(a int) {}\n\nfunc Plain() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, ok := side.FirstFunc(dir, "p.go")
	if !ok || p.Line != 5 || p.Col != 12 || p.Symbol != "Method" {
		t.Fatalf("FirstFunc = %+v, %v; want Method at 5:12", p, ok)
	}
}

// TestHarnessSmoke runs the side-by-side harness for one round on the
// sample: the built binary over a real MCP session, gopls straight, every
// op answering, and every side (nvbridge, gopls straight, gopls through
// Neovim's own client) finding the same references and callers.
// Timings are not checked (speed is the benchmarks' business).
func TestHarnessSmoke(t *testing.T) {
	repo, err := bench.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range side.Env(repo) {
		if strings.HasPrefix(kv, "PATH=") {
			t.Setenv("PATH", strings.TrimPrefix(kv, "PATH="))
		}
	}
	for _, c := range []string{"nvim", "gopls", "go"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Fatalf("%s is not installed: run `make deps`", c)
		}
	}
	dir := t.TempDir()
	binary := filepath.Join(dir, "nvbridge")
	build := exec.Command("go", "build", "-o", binary, "./cmd/nvbridge")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	ctx := context.Background()
	m, err := side.PrepareModule(ctx, repo, "sample", filepath.Join(dir, "m"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := side.RunModule(ctx, m, side.Options{Binary: binary, Repo: repo, Rounds: 1, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"find_references": "5 vs 5", "calls_incoming_depth1": "3 vs 3", "find_implementations": "4 vs 4"}
	seen := map[string]bool{}
	for _, s := range res.Ops {
		seen[s.Op] = true
		if len(s.BridgeMs) != 1 {
			t.Errorf("%s: %d nvbridge timings, want 1", s.Op, len(s.BridgeMs))
		}
		if w, ok := want[s.Op]; ok && s.Counts != w {
			t.Errorf("%s: result sizes %q, want %q", s.Op, s.Counts, w)
		}
		if (s.Op == "mcp_ping") != (s.AnswerBytes == 0) || len(s.CodecMs) != 1 {
			t.Errorf("%s: answer of %d bytes carried in %v ms: only the ping has no answer", s.Op, s.AnswerBytes, s.CodecMs)
		}
		if len(s.DirectMs) > 0 && len(s.NeovimMs) != 1 {
			t.Errorf("%s: %d timings through Neovim's client, want 1", s.Op, len(s.NeovimMs))
		}
		// The hover's answer needs the definition beside it: that floor
		// too, with both answers, for the hover and the first request (in
		// a Neovim of its own); no other op has one.
		withAll := s.Op == "hover" || s.Op == "first_request_new_file"
		if all := len(s.NeovimAllMs); withAll != (all == 1 && s.NeovimAllP50 > 0 && len(s.NeovimAllCPUMs) == 1 && s.NeovimAllCPUMs[0] > 0) || !withAll && all != 0 {
			t.Errorf("%s: %d timings through Neovim's client with every request nvbridge's answer needs (p50 %v)", s.Op, all, s.NeovimAllP50)
		}
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "through Neovim") {
			t.Error(w)
		}
	}
	for _, op := range []string{"find_definition", "hover", "symbols", "diagnostics", "calls_outgoing_depth3", "understand_symbol", "first_request_new_file"} {
		if !seen[op] {
			t.Errorf("op %s not measured", op)
		}
	}
	if res.BridgeTreeMiB <= res.BridgeOnlyMiB || res.DirectGopls <= 0 {
		t.Errorf("memory not measured: %+v", res)
	}
	t.Log(side.Table(res))
}
