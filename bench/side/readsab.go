package side

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ABBuild is one build of nvbridge measured by ReadsAB: its binary and the
// checkout it came from (its .deps).
type ABBuild struct {
	Name, Binary, Repo string
}

// ABOp is one read op's figures for one build in ReadsAB: wall time, the
// CPU of the nvbridge process alone and of its Neovim, per call.
type ABOp struct {
	Op, Build       string
	Ms, GoCPU, Nvim []float64
}

// ReadsAB measures the warm read ops (and the MCP exchange alone) of
// several builds of nvbridge on one module, interleaved call by call (the
// builds' order rotates every round), each build with its own Neovim and
// gopls: an A/B of what a change does to a read, with the CPU of each
// build's own processes (nvbridge, its Neovim), which moves far less with
// a shared machine's load than wall time does.
//
// gap, when not zero, is a pause after each call, as an agent pauses
// between its calls; a call's CPU is then its process's over the call and
// the pause: a Go process idle between calls pays its runtime's wake-up
// from idle (the monitor thread, sysmon, polls every 20 µs again for a
// millisecond and more after the process wakes from idle), which calls
// made back to back never show.
func ReadsAB(ctx context.Context, m *Module, builds []ABBuild, rounds int, only []string, gap time.Duration, logf func(string, ...any)) ([]ABOp, error) {
	type running struct {
		b         *Bridge
		goPID     int
		nvimPIDs  []int
		buildName string
	}
	var rs []running
	prof := os.Getenv("NVBRIDGE_SIDE_CPUPROFILE")
	defer os.Setenv("NVBRIDGE_SIDE_CPUPROFILE", prof)
	for _, bd := range builds {
		if prof != "" {
			// A profile of each build's process, in a file of its own.
			os.Setenv("NVBRIDGE_SIDE_CPUPROFILE", prof+"."+bd.Name)
		}
		br, err := StartBridge(ctx, bd.Binary, bd.Repo, m.Root)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bd.Name, err)
		}
		defer br.Close()
		rs = append(rs, running{b: br, goPID: br.Cmd.Process.Pid, buildName: bd.Name})
	}
	pos := func(p Pos) map[string]any { return map[string]any{"file": p.File, "line": p.Line, "column": p.Col} }
	with := func(a map[string]any, kv ...any) map[string]any {
		for i := 0; i+1 < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	type op struct {
		name, tool string
		args       map[string]any
		// fresh: a position in a file no call has opened, one a round
		// (the first request in a new file; as many rounds as files).
		fresh []Pos
	}
	ops := []op{
		{"mcp_ping", "", nil, nil},
		{"find_definition", "find_definition", pos(m.Call), nil},
		{"find_references", "find_references", with(pos(m.Decl), "max_results", 1000), nil},
		{"hover", "get_hover_info", pos(m.Decl), nil},
		{"calls_incoming_depth1", "get_call_hierarchy", with(pos(m.Decl), "direction", "incoming", "depth", 1), nil},
		{"rename_preview", "rename_symbol", with(pos(m.Decl), "new_name", renameTo(m.Decl, -1)), nil},
		{"first_request_new_file", "get_hover_info", nil, freshPositions(m, rounds)},
	}
	if len(only) > 0 {
		var kept []op
		for _, o := range ops {
			if slices.Contains(only, o.name) {
				kept = append(kept, o)
			}
		}
		ops = kept
	}
	call := func(ctx context.Context, r running, o op) error {
		if o.tool == "" {
			//lint:ignore SA1019 the harness speaks protocol 2025-11-25 (mcpside.go), where Ping is a real round trip
			return r.b.Client.Ping(ctx)
		}
		_, err := r.b.Call(ctx, o.tool, o.args)
		return err
	}
	callAt := func(ctx context.Context, r running, o op, round int) error {
		if o.fresh != nil {
			o.args = pos(o.fresh[round])
		}
		if o.name == "rename_preview" {
			o.args = with(pos(m.Decl), "new_name", renameTo(m.Decl, round))
		}
		return call(ctx, r, o)
	}
	// Warm up: the first answers wait for the workspace load.
	loadCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	for i := range rs {
		for _, o := range ops {
			if o.fresh != nil {
				continue // a new file each round: none to warm up on
			}
			for range 3 {
				if err := call(loadCtx, rs[i], o); err != nil {
					return nil, fmt.Errorf("%s warm-up %s: %w", rs[i].buildName, o.name, err)
				}
			}
		}
		for _, p := range processTree(rs[i].goPID) {
			if p.pid != rs[i].goPID && (strings.Contains(p.comm, "nvim") || strings.Contains(p.comm, "ld-linux")) {
				rs[i].nvimPIDs = append(rs[i].nvimPIDs, p.pid)
			}
		}
	}
	// A file's lines are kept (lsp/diskcache.go) only once its stamp is
	// older than the racy margin (3 s): the module was just copied, and a
	// run of a few seconds would otherwise mostly time reads of a file
	// from the disk, which no read after the first seconds makes. Wait
	// for the files to settle, then warm up once more.
	if wait := time.Until(newestMtime(m).Add(settleMargin)); wait > 0 {
		logf("waiting %v for the module's files to settle", wait.Round(time.Millisecond))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	for i := range rs {
		for _, o := range ops {
			if o.fresh == nil {
				if err := call(loadCtx, rs[i], o); err != nil {
					return nil, fmt.Errorf("%s warm-up %s: %w", rs[i].buildName, o.name, err)
				}
			}
		}
	}
	out := make([]ABOp, len(ops)*len(rs))
	for i, o := range ops {
		for j, r := range rs {
			out[i*len(rs)+j] = ABOp{Op: o.name, Build: r.buildName}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range rounds {
		for i, o := range ops {
			if o.fresh != nil && round >= len(o.fresh) {
				continue
			}
			for k := range rs {
				j := (round + k) % len(rs)
				if len(rs) > 2 {
					j = rng.IntN(len(rs))
				}
				r := rs[j]
				g0, n0 := cpuMs(r.goPID), cpuMs(r.nvimPIDs...)
				start := time.Now()
				if err := callAt(ctx, r, o, round); err != nil {
					return nil, fmt.Errorf("%s round %d %s: %w", r.buildName, round, o.name, err)
				}
				d := ms(time.Since(start))
				if gap > 0 {
					time.Sleep(gap)
				}
				g, n := cpuMs(r.goPID)-g0, cpuMs(r.nvimPIDs...)-n0
				f := &out[i*len(rs)+j]
				f.Ms, f.GoCPU, f.Nvim = append(f.Ms, d), append(f.GoCPU, g), append(f.Nvim, n)
			}
		}
		if (round+1)%50 == 0 {
			logf("round %d/%d", round+1, rounds)
		}
	}
	return out, nil
}

// ABTable prints ReadsAB's figures: p50s per op and build, and each
// build's p50s against the first build's (ratio, with its 90% interval).
func ABTable(ops []ABOp, builds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-24s %-10s %8s %8s %8s %8s   %s\n", "op", "build", "wall", "go cpu", "nvim cpu", "cpu", "vs first (wall, cpu)")
	for i := 0; i < len(ops); i += builds {
		base := ops[i]
		for j := i; j < i+builds; j++ {
			o := ops[j]
			tot := make([]float64, len(o.GoCPU))
			for k := range tot {
				tot[k] = o.GoCPU[k] + o.Nvim[k]
			}
			fmt.Fprintf(&b, "%-24s %-10s %8.3f %8.3f %8.3f %8.3f", o.Op, o.Build, Quantile(o.Ms, .5), Quantile(o.GoCPU, .5), Quantile(o.Nvim, .5), Quantile(tot, .5))
			if j > i {
				btot := make([]float64, len(base.GoCPU))
				for k := range btot {
					btot[k] = base.GoCPU[k] + base.Nvim[k]
				}
				wl, wh := RatioInterval(o.Ms, base.Ms)
				cl, ch := RatioInterval(tot, btot)
				fmt.Fprintf(&b, "   x%.2f (x%.2f-x%.2f), cpu x%.2f (x%.2f-x%.2f); go %+.3f nvim %+.3f ms",
					Quantile(o.Ms, .5)/Quantile(base.Ms, .5), wl, wh, Quantile(tot, .5)/Quantile(btot, .5), cl, ch,
					Quantile(o.GoCPU, .5)-Quantile(base.GoCPU, .5), Quantile(o.Nvim, .5)-Quantile(base.Nvim, .5))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// settleMargin is past lsp/diskcache.go's racy margin (workspace's 3 s):
// a file changed longer ago than this is settled.
const settleMargin = 3500 * time.Millisecond

// newestMtime is the latest modification time of m's files (the module's
// copy: when its files last changed).
func newestMtime(m *Module) time.Time {
	var newest time.Time
	for _, rel := range m.Files {
		if st, err := os.Stat(filepath.Join(m.Root, rel)); err == nil && st.ModTime().After(newest) {
			newest = st.ModTime()
		}
	}
	return newest
}
