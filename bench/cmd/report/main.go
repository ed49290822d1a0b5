// Command report turns the side-by-side harness's JSON (bench/cmd/sidebyside)
// and the Go benchmarks' output (Go->Neovim round trip, changeset
// throughput) into bench/results/REPORT.md and a PNG chart:
//
//	go run ./bench/cmd/report -side FILE.json -micro FILE.txt -out bench/results
//
// `make bench-report` runs the measurements and then this.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/bench/side"
)

func main() {
	sidePath := flag.String("side", "bench/results/sidebyside.json", "the harness's JSON")
	microPath := flag.String("micro", "bench/results/microbench.txt", "go test -bench output (RoundTrip, BigBuffer)")
	microCmd := flag.String("micro-cmd", "", "the command that produced -micro (for the report)")
	out := flag.String("out", "bench/results", "directory for REPORT.md and chart.png")
	phasesPath := flag.String("phases", "", "the JSON of a sidebyside -phases run (where nvbridge's time goes); optional")
	perf2Path := flag.String("perf2", "", "the JSONs (comma-separated) of sidebyside runs with -edits, -bigedit, -responsive and std (issue 30's goals); optional")
	readsPath := flag.String("reads", "", "the JSON of a sidebyside read run on zap with the peer agent-lsp (issue 30's goal 3; else perf2's zap reads); optional")
	beforePath := flag.String("reads-before", "", "the same run before a change, shown beside it; optional")
	flag.Parse()
	if err := run(*sidePath, *microPath, *microCmd, *phasesPath, *perf2Path, *readsPath, *beforePath, *out); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(sidePath, microPath, microCmd, phasesPath, perf2Path, readsPath, beforePath, out string) error {
	rep, err := readReport(sidePath)
	if err != nil {
		return err
	}
	var phases *side.Report
	if phasesPath != "" {
		if phases, err = readReport(phasesPath); err != nil {
			return err
		}
	}
	var perf2 *side.Report
	for _, path := range strings.Split(perf2Path, ",") {
		if path == "" {
			continue
		}
		r, err := readReport(path)
		if err != nil {
			return err
		}
		if perf2 == nil {
			perf2 = r
			continue
		}
		// Runs after the first add their modules and big edit.
		perf2.Command += "` and `" + r.Command
		if r.Started.Before(perf2.Started) {
			perf2.Started, perf2.Machine = r.Started, r.Machine
		}
		if r.Finished.After(perf2.Finished) {
			perf2.Finished = r.Finished
		}
		perf2.Modules = append(perf2.Modules, r.Modules...)
		if r.BigEdit != nil {
			perf2.BigEdit = r.BigEdit
		}
	}
	var reads, before *side.Report
	if readsPath != "" {
		if reads, err = readReport(readsPath); err != nil {
			return err
		}
	}
	if beforePath != "" {
		if before, err = readReport(beforePath); err != nil {
			return err
		}
	}
	micro, err := parseMicro(microPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeChart(filepath.Join(out, "chart.png"), *rep); err != nil {
		return err
	}
	md := render(*rep, micro, microCmd) + renderPerf2(perf2, reads, before) + renderPhases(phases)
	return os.WriteFile(filepath.Join(out, "REPORT.md"), []byte(md), 0o644)
}

func readReport(path string) (*side.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep side.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &rep, nil
}

// renderPhases is the section on where nvbridge's time goes within its
// calls, from a run with its log on (nil: no such run).
func renderPhases(rep *side.Report) string {
	if rep == nil {
		return ""
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Where nvbridge's time goes within a call\n\n")
	p("A separate run, `%s` (%d rounds), with nvbridge's log on: every exchange with Neovim stamped to the microsecond, split by the harness's own start and end of each call. Writing the log slows nvbridge, so read the parts against each other and against the same run's straight and through-Neovim figures, not against the tables above. p50s in ms. **open**: `bridge.open_wait` (reconcile the buffer with the disk, wait for the servers, the target line); **requests**: first LSP request sent to last answer; **after**: last answer to the last exchange with Neovim (the lines the answer shows); **outside**: the call minus its time with Neovim (MCP exchange, arguments, shaping and encoding the answer), of which the MCP exchange (`mcp_ping`) and carrying the answer are any bridge's; **rest** is outside minus those two. A read made in one Neovim call (definition, references, hover, implementations, the first step of a hierarchy, the first request in a new file: `lua/nvbridge/read.lua` opens and reconciles the buffer, waits for the servers, sends the request and reads the answer's lines) has its open and after inside **requests** (0 and -): for those, requests less the through-Neovim figure is nvbridge's own work in Neovim.\n\n", rep.Command, rep.Rounds)
	for _, m := range rep.Modules {
		ping, _ := op(m, "mcp_ping")
		p("### %s\n\n| op | nvbridge | gopls straight | through Neovim | open | requests | after | outside | MCP exchange + carrying | rest |\n|---|---|---|---|---|---|---|---|---|---|\n", m.Module)
		for _, s := range m.Ops {
			ph := s.Phases
			if ph == nil || ph.Calls == 0 {
				continue
			}
			carry := ping.BridgeP50 + s.CodecP50
			p("| %s | %.2f | %s | %s | %.2f | %s | %s | %.2f | %.2f | %+.2f |\n", s.Op, s.BridgeP50, orDash(s.DirectP50), orDash(s.NeovimP50),
				ph.OpenMs, orDash(ph.RequestsMs), orDash(ph.AfterMs), ph.OutsideMs, carry, ph.OutsideMs-carry)
		}
		p("\n")
	}
	return b.String()
}

func orDash(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// parseMicro reads `go test -bench` output: every ns/op per benchmark
// name (the -N GOMAXPROCS suffix removed), one value per -count run.
func parseMicro(path string) (map[string][]float64, error) {
	out := map[string][]float64{}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	re := regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		out[m[1]] = append(out[m[1]], v)
	}
	return out, sc.Err()
}

func op(m side.ModuleResult, name string) (side.Stats, bool) {
	for _, s := range m.Ops {
		if s.Op == name {
			return s, true
		}
	}
	return side.Stats{}, false
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

func render(rep side.Report, micro map[string][]float64, microCmd string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# nvbridge benchmark report\n\n")
	p("Generated by `make bench-report` (bench/cmd/sidebyside, then bench/cmd/report). Do not edit by hand.\n\n")
	p("- Run: %s to %s (UTC)\n", rep.Started.Format("2006-01-02 15:04"), rep.Finished.Format("15:04"))
	p("- Machine: %s\n", rep.Machine)
	var keys []string
	for k := range rep.Versions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	p("- Versions:")
	for _, k := range keys {
		p(" %s `%s`;", k, rep.Versions[k])
	}
	p("\n- Side by side: `%s` (%d interleaved rounds; the order of the three sides rotates every round)\n", rep.Command, rep.Rounds)
	if microCmd != "" {
		p("- Go benchmarks: `%s`\n", microCmd)
	}
	p("\nnvbridge is measured through a real MCP client session (mcp-go client, stdio, the built binary: JSON-RPC, dispatch, schemas, structured content) against a minimal LSP client sending the same requests straight to a second gopls on the same copy of the module, at the same positions. A third side sends the same requests through Neovim's own LSP client (an embedded Neovim of its own, set up as nvbridge's embedded Neovim is: no syntax, filetype plugins or indent scripts, the client capabilities and gopls settings nvbridge gives it; one `nvim_exec_lua` per request, the answer back as a notification, nothing else): the guide has every request go through Neovim's client, so that side, plus the MCP exchange alone (`mcp_ping`), plus carrying the answer over MCP (encoding nvbridge's answer as a JSON-RPC response and decoding it as mcp-go's client does, timed apart from the calls) is the **floor**: what any bridge built this way and giving this answer pays before doing any work of its own. Figures are medians (p50) and 95th percentiles in milliseconds; \"x\" is nvbridge p50 / gopls p50. Noise is the interquartile range of nvbridge's timings over its median: the machine is shared, read ratios with it.\n\n")
	p("![ratios](chart.png)\n\n")

	// Goals (issue 14).
	p("## Goals (issue 14)\n\n\"floor\" is Neovim's client, the MCP exchange and carrying the answer (p50s added), and its ratio to gopls; \"own\" is nvbridge's p50 minus the floor: its own work (opening and reconciling the buffer, waiting for the server, locating the symbol, reading context lines, shaping the answer). The 90%% interval of a ratio is bootstrapped from the rounds' timings.\n\n| goal | module | measured | floor | own | verdict |\n|---|---|---|---|---|---|\n")
	for _, m := range rep.Modules {
		if m.Module == "sample" {
			continue
		}
		ping, _ := op(m, "mcp_ping")
		ratioGoal := func(name, label string, limit float64) {
			s, ok := op(m, name)
			if !ok || s.Ratio == 0 {
				return
			}
			floor, own := "-", "-"
			var why []string
			lo, hi := side.RatioInterval(s.BridgeMs, s.DirectMs)
			if lo <= limit && limit < hi {
				why = append(why, "the goal is inside the 90% interval: within noise")
			}
			if s.NeovimP50 > 0 {
				f := s.NeovimP50 + ping.BridgeP50 + s.CodecP50
				floor = fmt.Sprintf("%.2f ms, x%.2f", f, f/s.DirectP50)
				own = fmt.Sprintf("%+.2f ms", s.BridgeP50-f)
				if s.Ratio > limit && f/s.DirectP50 > limit {
					why = append(why, "the floor alone is over the goal")
				}
			}
			v := verdict(s.Ratio <= limit)
			if len(why) > 0 {
				v += " (" + strings.Join(why, "; ") + ")"
			}
			p("| %s <= x%.1f | %s | %.2f ms vs %.2f ms, x%.2f (90%%: x%.2f-x%.2f; noise %.0f%%) | %s | %s | %s |\n", label, limit, m.Module, s.BridgeP50, s.DirectP50, s.Ratio, lo, hi, s.Noise*100, floor, own, v)
		}
		ratioGoal("find_references", "warm find_references", 1.5)
		ratioGoal("find_definition", "warm find_definition", 1.5)
		ratioGoal("calls_incoming_depth1", "incoming calls depth 1", 1.5)
		ratioGoal("calls_outgoing_depth1", "outgoing calls depth 1", 1.5)
		ratioGoal("calls_incoming_depth3", "incoming calls depth 3", 1.2)
		ratioGoal("calls_outgoing_depth3", "outgoing calls depth 3", 1.2)
		ratioGoal("first_request_new_file", "first request in a new file", 2)
		ratioGoal("understand_symbol", "understand_symbol vs its requests sent concurrently", 1.3)
		if c := m.Cold; c != nil {
			g := side.Quantile(c.GoplsDefinition, .5)
			for _, v := range []struct {
				label string
				xs    []float64
			}{{"cold `nvbridge call find_definition` (starts the daemon)", c.CallDaemonCold}, {"cold `nvbridge call --no-daemon find_definition`", c.CallNoDaemon}} {
				n := side.Quantile(v.xs, .5)
				p("| %s <= `gopls definition` + 0.3 s | %s | %.0f ms vs %.0f ms | | | %s |\n", v.label, m.Module, n, g, verdict(n <= g+300))
			}
		}
	}
	apply, aok := med(micro, "BenchmarkBigBuffer/apply-stored")
	prev, pok := med(micro, "BenchmarkBigBuffer/preview-after-user-edit")
	first, firstOK := med(micro, "BenchmarkBigBuffer/preview-first-read")
	full, fok := med(micro, "BenchmarkBigBuffer/apply")
	nv, nok := med(micro, "BenchmarkBigBuffer/apply-workspace-edit/neovim")
	// Ratios within each run (the runs are seconds apart on a shared
	// machine whose load drifts), then their median.
	runRatio := func(num []string, den string) (float64, bool) {
		d := micro[den]
		var rs []float64
		for i := range d {
			sum := 0.0
			for _, k := range num {
				if i >= len(micro[k]) {
					return 0, false
				}
				sum += micro[k][i]
			}
			rs = append(rs, sum/d[i])
		}
		return side.Quantile(rs, .5), len(rs) > 0
	}
	if aok && nok {
		r, _ := runRatio([]string{"BenchmarkBigBuffer/apply-stored"}, "BenchmarkBigBuffer/apply-workspace-edit/neovim")
		p("| 1,000 edits in a 100k-line file: apply <= x1.0 of `apply_workspace_edit` | - | %.1f ms vs %.1f ms, x%.2f; per-run ratio median x%.2f | | | %s |\n", apply/1e6, nv/1e6, apply/nv, r, verdict(r <= 1))
	}
	if pok && aok && nok {
		r, _ := runRatio([]string{"BenchmarkBigBuffer/preview-after-user-edit", "BenchmarkBigBuffer/apply-stored"}, "BenchmarkBigBuffer/apply-workspace-edit/neovim")
		p("| same: preview + apply <= x2, the buffer known (the user typed since the last read) | - | %.1f + %.1f ms vs %.1f ms, x%.2f; per-run ratio median x%.2f | | | %s |\n", prev/1e6, apply/1e6, nv/1e6, (prev+apply)/nv, r, verdict(r <= 2))
	}
	if firstOK && aok && nok {
		r, _ := runRatio([]string{"BenchmarkBigBuffer/preview-first-read", "BenchmarkBigBuffer/apply-stored"}, "BenchmarkBigBuffer/apply-workspace-edit/neovim")
		p("| same: preview + apply <= x2, the buffer's first read | - | %.1f + %.1f ms vs %.1f ms, x%.2f; per-run ratio median x%.2f | | | %s |\n", first/1e6, apply/1e6, nv/1e6, (first+apply)/nv, r, verdict(r <= 2))
	}
	if fok && nok {
		p("| same: one-shot apply (preview: false, plan and apply) | - | %.1f ms vs %.1f ms, x%.2f | | | (for reference) |\n", full/1e6, nv/1e6, full/nv)
	}
	p("\n")

	for _, m := range rep.Modules {
		p("## %s %s: %d lines, %d files\n\n", m.Module, m.Version, m.Lines, m.Files)
		p("Positions: %s. Setup (copy, every side started and warm): %.1f s.\n\n", m.Positions, m.SetupSeconds)
		p("| op | nvbridge p50 | p95 | gopls straight p50 | p95 | x | through Neovim's client p50 | p95 | answer KB | carrying it | floor | own | noise | result sizes |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		ping, _ := op(m, "mcp_ping")
		for _, s := range m.Ops {
			direct, ratio, via, floor := "- | -", "-", "- | -", "- | -"
			answer := fmt.Sprintf("%.1f | %.2f", float64(s.AnswerBytes)/1024, s.CodecP50)
			if len(s.DirectMs) > 0 {
				direct = fmt.Sprintf("%.2f | %.2f", s.DirectP50, s.DirectP95)
				ratio = fmt.Sprintf("x%.2f", s.Ratio)
			}
			if len(s.NeovimMs) > 0 {
				f := s.NeovimP50 + ping.BridgeP50 + s.CodecP50
				via = fmt.Sprintf("%.2f | %.2f", s.NeovimP50, s.NeovimP95)
				floor = fmt.Sprintf("%.2f | %+.2f", f, s.BridgeP50-f)
			}
			p("| %s | %.2f | %.2f | %s | %s | %s | %s | %s | %.0f%% | %s |\n", s.Op, s.BridgeP50, s.BridgeP95, direct, ratio, via, answer, floor, s.Noise*100, s.Counts)
		}
		p("\n`mcp_ping` is the MCP path alone (no Neovim, no server). `diagnostics` has no straight counterpart (a client holds the last publish). `first_request_new_file`: hover in a file no side has opened (one new file per round), measured after the warm ops (the background work each open starts in gopls would slow them). Hierarchies straight: prepare, then one request per item level by level (8 in flight), at most 100 entries, as nvbridge walks.\n\n")
		p("Memory after the rounds: nvbridge + Neovim + gopls %.0f MiB (nvbridge %.0f, Neovim %.0f, its gopls %.0f) vs gopls straight alone %.0f MiB: +%.0f MiB.\n\n",
			m.BridgeTreeMiB, m.BridgeOnlyMiB, m.NvimMiB, m.BridgeGopls, m.DirectGopls, m.BridgeTreeMiB-m.DirectGopls)
		if c := m.Cold; c != nil {
			p("Cold start to the first answer (find_definition at %s; median of %d, interleaved):\n\n| | p50 ms | runs ms |\n|---|---|---|\n", "the call position", c.Runs)
			for _, row := range []struct {
				label string
				xs    []float64
			}{{"`gopls definition` (CLI, fresh gopls)", c.GoplsDefinition}, {"`nvbridge call --no-daemon` (embedded Neovim + gopls)", c.CallNoDaemon},
				{"`nvbridge call`, no daemon running (starts one)", c.CallDaemonCold}, {"`nvbridge call`, warm daemon", c.CallWarm}, {"`nvbridge mcp`: start, initialize, first answer", c.MCPFirstAnswer}} {
				p("| %s | %.0f | %s |\n", row.label, side.Quantile(row.xs, .5), joinMs(row.xs))
			}
			p("\n")
		}
		if a := m.Attached; a != nil {
			p("Attached to a user's Neovim (gopls from its own config) whose buffer was opened and diagnosed before nvbridge connected: first hover %.0f ms, the next %.0f ms (median of %d; runs %s / %s).\n\n",
				side.Quantile(a.FirstCall, .5), side.Quantile(a.NextCall, .5), a.Runs, joinMs(a.FirstCall), joinMs(a.NextCall))
		}
		for _, w := range m.Warnings {
			p("- warning: %s\n", w)
		}
		if len(m.Warnings) > 0 {
			p("\n")
		}
	}

	p("## Go -> Neovim and changesets (Go benchmarks)\n\n| benchmark | median ms | runs |\n|---|---|---|\n")
	var names []string
	for k := range micro {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v, _ := med(micro, k)
		runs := make([]string, 0, len(micro[k]))
		for _, x := range micro[k] {
			runs = append(runs, fmt.Sprintf("%.3f", x/1e6))
		}
		p("| %s | %.3f | %s |\n", k, v/1e6, strings.Join(runs, " "))
	}
	p("\nBigBuffer: 1,000 one-line edits spread over a 100,000-line buffer. `preview-first-read` reads the buffer out of Neovim whole (just reloaded from disk) and renders the diff; `preview-after-user-edit` previews after a user's change (changedtick moved): the text read before and the lines Neovim says changed; `apply-stored` applies a stored preview (apply_changeset); `apply` plans and applies in one call; `apply-workspace-edit/neovim` is Neovim's own `vim.lsp.util.apply_workspace_edit` on the same edits. Each apply is undone outside the timer.\n")
	return b.String()
}

func med(m map[string][]float64, k string) (float64, bool) {
	xs, ok := m[k]
	if !ok || len(xs) == 0 {
		return 0, false
	}
	return side.Quantile(xs, .5), true
}

func joinMs(xs []float64) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(out, ", ")
}
