package side

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/safego"
)

// Op is one measured operation: the tool through nvbridge, the same LSP
// work sent straight to gopls, and sent through Neovim's own client.
// Straight and Neovim are nil when there is no such equivalent
// (diagnostics held by the client, the MCP ping).
type Op struct {
	Name     string
	Bridge   sideFunc
	Straight sideFunc
	Neovim   sideFunc
	// Peer: the same op through the peer agent-lsp's tools (Options.AgentLSP;
	// nil when it has no such tool).
	Peer sideFunc
	// NeovimAll: through Neovim's client, every request nvbridge's answer
	// needs, sent as nvbridge sends them (hover: the hover and, beside it,
	// the definition that says whether the symbol is declared in a
	// sensitive file, whose text nvbridge then withholds); nil when that is
	// the one request Neovim already measures.
	NeovimAll sideFunc
	// OwnNeovimAll: NeovimAll runs in a Neovim of its own (lazyVia), not
	// Neovim's (first_request: its files are still unopened there).
	OwnNeovimAll bool
	// Rounds overrides the round count (first_request: one file a round).
	Rounds int
}

// Sample is one op's timings in milliseconds.
type Stats struct {
	Op        string    `json:"op"`
	BridgeMs  []float64 `json:"bridge_ms"`
	DirectMs  []float64 `json:"direct_ms,omitempty"`
	BridgeP50 float64   `json:"bridge_p50"`
	BridgeP95 float64   `json:"bridge_p95"`
	DirectP50 float64   `json:"direct_p50,omitempty"`
	DirectP95 float64   `json:"direct_p95,omitempty"`
	Ratio     float64   `json:"ratio,omitempty"` // bridge p50 / direct p50
	// The same requests through Neovim's own client (ViaNeovim), no
	// nvbridge: the floor of the architecture, MCP exchange aside.
	NeovimMs  []float64 `json:"neovim_ms,omitempty"`
	NeovimP50 float64   `json:"neovim_p50,omitempty"`
	NeovimP95 float64   `json:"neovim_p95,omitempty"`
	// The requests nvbridge's answer needs through Neovim's client, when
	// more than the op's one (Op.NeovimAll), and that Neovim's CPU.
	NeovimAllMs    []float64 `json:"neovim_all_ms,omitempty"`
	NeovimAllP50   float64   `json:"neovim_all_p50,omitempty"`
	NeovimAllCPUMs []float64 `json:"neovim_all_cpu_ms,omitempty"`
	// The same op through the peer agent-lsp (a direct LSP client over
	// MCP), when measured.
	PeerMs  []float64 `json:"peer_ms,omitempty"`
	PeerP50 float64   `json:"peer_p50,omitempty"`
	PeerP95 float64   `json:"peer_p95,omitempty"`
	// CPU per call, in milliseconds, of nvbridge's process and its Neovim,
	// and of the through-Neovim side's Neovim: what the load on a shared
	// machine moves far less than wall time.
	BridgeCPUMs []float64 `json:"bridge_cpu_ms,omitempty"`
	NeovimCPUMs []float64 `json:"neovim_cpu_ms,omitempty"`
	// BridgeNvimCPUMs: of BridgeCPUMs, nvbridge's Neovim's.
	BridgeNvimCPUMs []float64 `json:"bridge_nvim_cpu_ms,omitempty"`
	// What carrying nvbridge's answer over MCP costs (Bridge.AnswerCodec),
	// per round, and the answer's size in bytes (last round).
	CodecMs     []float64 `json:"codec_ms,omitempty"`
	CodecP50    float64   `json:"codec_p50,omitempty"`
	AnswerBytes int       `json:"answer_bytes,omitempty"`
	// Noise: the spread of the bridge's timings, (p75-p25)/p50.
	Noise  float64 `json:"noise"`
	Counts string  `json:"counts,omitempty"` // result sizes, bridge vs direct
	// Phases: where nvbridge's time went (Options.Phases runs only).
	Phases *Phases `json:"phases,omitempty"`
}

// ModuleResult is one module's side-by-side run.
type ModuleResult struct {
	Module  string  `json:"module"`
	Version string  `json:"version"`
	Lines   int     `json:"lines"`
	Files   int     `json:"files"`
	Rounds  int     `json:"rounds"`
	Ops     []Stats `json:"ops"`
	// Memory in MiB after the rounds: nvbridge + its Neovim + its gopls,
	// and the straight gopls alone.
	BridgeTreeMiB float64 `json:"bridge_tree_mib"`
	BridgeOnlyMiB float64 `json:"bridge_only_mib"`
	NvimMiB       float64 `json:"nvim_mib"`
	BridgeGopls   float64 `json:"bridge_gopls_mib"`
	DirectGopls   float64 `json:"direct_gopls_mib"`
	// The same resident sets split (/proc/PID/status): anonymous pages
	// (heaps, stacks: what the process itself holds) and file-backed
	// ones (its executable's and libraries' pages mapped in, clean and
	// shared with the page cache).
	BridgeAnonMiB float64 `json:"bridge_anon_mib,omitempty"`
	BridgeFileMiB float64 `json:"bridge_file_mib,omitempty"`
	NvimAnonMiB   float64 `json:"nvim_anon_mib,omitempty"`
	NvimFileMiB   float64 `json:"nvim_file_mib,omitempty"`
	SetupSeconds  float64 `json:"setup_seconds"`
	Positions     string  `json:"positions"`
	// Peer names the peer measured beside (agent-lsp and its build), "" when none.
	Peer     string          `json:"peer,omitempty"`
	Warnings []string        `json:"warnings,omitempty"`
	Cold     *ColdResult     `json:"cold,omitempty"`
	Edits    *EditsResult    `json:"edits,omitempty"`
	Attached *AttachedResult `json:"attached,omitempty"`
	// Responsive: the user's Neovim under agent load (-responsive).
	Responsive *ResponsiveResult `json:"responsive,omitempty"`
}

// Quantile of sorted-copy of xs (linear interpolation).
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// RatioInterval is the 90% bootstrap interval of median(a)/median(b): both
// samples resampled with replacement (a fixed seed: the report is the same
// for the same figures), 2,000 times. A goal inside it is within noise.
func RatioInterval(a, b []float64) (lo, hi float64) {
	if len(a) == 0 || len(b) == 0 {
		return 0, 0
	}
	rng := rand.New(rand.NewPCG(1, 2))
	resample := func(xs, into []float64) []float64 {
		into = into[:0]
		for range xs {
			into = append(into, xs[rng.IntN(len(xs))])
		}
		return into
	}
	const n = 2000
	ratios := make([]float64, n)
	var ra, rb []float64
	for i := range ratios {
		ra, rb = resample(a, ra), resample(b, rb)
		if d := Quantile(rb, .5); d > 0 {
			ratios[i] = Quantile(ra, .5) / d
		}
	}
	return Quantile(ratios, .05), Quantile(ratios, .95)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Options of a run.
type Options struct {
	Binary string // the built nvbridge
	Repo   string
	Rounds int
	Logf   func(format string, args ...any)
	// Phases runs nvbridge with --log and splits each call's time by what
	// the log says it did (Stats.Phases). Writing the log costs nvbridge
	// time: a run with phases shows where the time goes, not how much.
	Phases bool
	// AgentLSP is the peer agent-lsp's binary ("": not measured).
	AgentLSP string
	// BaselineBinary, BaselineRepo: another build of nvbridge (a checkout
	// of another revision: its binary and its Lua) whose verified apply
	// the edits interleave with this one's, on a copy of the module ("":
	// none).
	BaselineBinary, BaselineRepo string
}

// RunModule starts the three sides on m, warms them up and measures every op in
// interleaved rounds (the sides' order rotates every round).
func RunModule(ctx context.Context, m *Module, o Options) (*ModuleResult, error) {
	res := &ModuleResult{Module: m.Name, Version: m.Version, Lines: m.Lines, Files: len(m.Files), Rounds: o.Rounds,
		Positions: fmt.Sprintf("declaration %s; call %s; interface %s; file %s", m.Decl, m.Call, m.Iface, m.File)}
	t0 := time.Now()
	var extra []string
	logPath := ""
	if o.Phases {
		dir, err := os.MkdirTemp("", "nvbridge-phases-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		logPath = filepath.Join(dir, "nvbridge.log")
		extra = []string{"--log", logPath}
	}
	br, err := StartBridge(ctx, o.Binary, o.Repo, m.Root, extra...)
	if err != nil {
		return nil, err
	}
	defer br.Close()
	st, err := StartStraight(ctx, m.Root)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	vn, err := StartViaNeovim(ctx, m.Root)
	if err != nil {
		return nil, err
	}
	defer vn.Close()
	// The first request with the definition nvbridge asks beside the hover
	// needs files no other request opened: a Neovim and gopls of its own,
	// on the modules whose gopls is small (not std's, of 1.8 GB), started
	// for the first requests' phase only (beside the warm ops, one more
	// gopls on two cores would slow every side).
	vnAll := &lazyVia{wanted: m.Name == "sample" || m.Name == "zap"}
	defer vnAll.Close()
	var peer *AgentLSP
	if o.AgentLSP != "" {
		loadCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		peer, err = StartAgentLSP(loadCtx, o.AgentLSP, o.Repo, m.Root)
		cancel()
		if err != nil {
			return nil, err
		}
		defer peer.Close()
		res.Peer = "agent-lsp " + AgentLSPVersion(o.AgentLSP)
	}
	ops, firstFiles := buildOps(m, br, st, vn, vnAll, peer, o.Rounds)

	// Warm up: every side answers every op once (the first answers wait for
	// the workspace load); the first-request op is not warmed (its files
	// must stay unopened).
	loadCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if err := st.WaitLoaded(loadCtx); err != nil {
		o.Logf("%s: straight gopls load progress not seen: %v", m.Name, err)
	}
	if err := vn.WaitLoaded(loadCtx, m.Decl.File); err != nil {
		return nil, fmt.Errorf("%s: gopls through Neovim: load progress not seen: %w", m.Name, err)
	}
	for _, op := range ops {
		if op.Rounds > 0 {
			continue
		}
		if _, err := op.Bridge(loadCtx, -1); err != nil {
			return nil, fmt.Errorf("%s warm-up %s (nvbridge): %w", m.Name, op.Name, err)
		}
		if op.Straight != nil {
			if _, err := op.Straight(loadCtx, -1); err != nil {
				return nil, fmt.Errorf("%s warm-up %s (straight): %w", m.Name, op.Name, err)
			}
		}
		if op.Neovim != nil {
			if _, err := op.Neovim(loadCtx, -1); err != nil {
				return nil, fmt.Errorf("%s warm-up %s (through Neovim): %w", m.Name, op.Name, err)
			}
		}
		if op.Peer != nil {
			if _, err := op.Peer(loadCtx, -1); err != nil {
				return nil, fmt.Errorf("%s warm-up %s (agent-lsp): %w", m.Name, op.Name, err)
			}
		}
		if op.NeovimAll != nil {
			if _, err := op.NeovimAll(loadCtx, -1); err != nil {
				return nil, fmt.Errorf("%s warm-up %s (through Neovim, every request): %w", m.Name, op.Name, err)
			}
		}
	}
	res.SetupSeconds = time.Since(t0).Seconds()
	o.Logf("%s: %d lines, %d files; all sides warm after %.1fs; first-request files: %d", m.Name, m.Lines, len(m.Files), res.SetupSeconds, firstFiles)

	// nvbridge's process and its Neovim (not the servers: each side has
	// its own gopls).
	bridgePIDs := []int{br.Cmd.Process.Pid}
	var bridgeNvim []int
	for _, p := range processTree(br.Cmd.Process.Pid) {
		if p.pid != br.Cmd.Process.Pid && (strings.Contains(p.comm, "nvim") || strings.Contains(p.comm, "ld-linux")) {
			bridgePIDs = append(bridgePIDs, p.pid)
			bridgeNvim = append(bridgeNvim, p.pid)
		}
	}
	stats := make([]Stats, len(ops))
	counts := make([][5]int, len(ops))
	var spans []callSpan // nvbridge's calls, for the phases
	for i := range ops {
		stats[i].Op = ops[i].Name
	}
	// Three phases: the warm ops round after round, then the first-request
	// op (a new file each round), then the first request with every request
	// nvbridge's answer needs, alone (its own Neovim and gopls: beside the
	// others, a fifth gopls type-checking each new file's package would
	// slow every side's first requests). Opening a file sets every gopls
	// type-checking its package in the background for a while: interleaved
	// with the warm ops, that work slowed whichever ops came next
	// (find_references on zap, gopls straight: 2.08 ms amid it, 1.01 ms
	// without).
	for _, phase := range []string{"warm ops", "first requests", "first requests with every request"} {
		firstRequests, ownNeovim := phase != "warm ops", phase == "first requests with every request"
		if ownNeovim {
			if !vnAll.wanted || firstFiles == 0 {
				break
			}
			if err := vnAll.start(ctx, m); err != nil {
				return nil, err
			}
		}
		for r := 0; r < o.Rounds; r++ {
			ran := false
			for i, op := range ops {
				if (op.Rounds > 0) != firstRequests || op.Rounds > 0 && r >= op.Rounds || ownNeovim && !op.OwnNeovimAll {
					continue
				}
				ran = true
				// Sides: 0 nvbridge, 1 straight, 2 through Neovim, 3
				// agent-lsp, 4 through Neovim with every request
				// nvbridge's answer needs; the order rotates every round.
				// A NeovimAll of a Neovim of its own runs in its phase only,
				// alone.
				for k := range 5 {
					side := (r + k) % 5
					run := [5]sideFunc{op.Bridge, op.Straight, op.Neovim, op.Peer, op.NeovimAll}[side]
					if op.OwnNeovimAll && (side == 4) != ownNeovim {
						run = nil
					}
					if run == nil {
						continue
					}
					br.last = nil // the answer AnswerCodec measures is this op's
					// CPU of the side's own processes (nvbridge and its
					// Neovim; the other Neovim), read outside the timing.
					var cpuPIDs []int
					switch side {
					case 0:
						cpuPIDs = bridgePIDs
					case 2:
						cpuPIDs = []int{vn.Pid()}
					case 4:
						cpuPIDs = []int{vn.Pid()}
						if op.OwnNeovimAll && vnAll.v != nil {
							cpuPIDs = []int{vnAll.v.Pid()}
						}
					}
					cpu0, nvimCPU0 := cpuMs(cpuPIDs...), cpuMs(bridgeNvim...)
					start := time.Now()
					n, err := run(ctx, r)
					elapsed := time.Since(start)
					d := ms(elapsed)
					cpu, nvimCPU := cpuMs(cpuPIDs...)-cpu0, cpuMs(bridgeNvim...)-nvimCPU0
					if err != nil {
						return nil, fmt.Errorf("%s round %d %s (side %d): %w", m.Name, r, op.Name, side, err)
					}
					counts[i][side] = n
					switch side {
					case 0:
						stats[i].BridgeMs = append(stats[i].BridgeMs, d)
						stats[i].BridgeCPUMs = append(stats[i].BridgeCPUMs, cpu)
						stats[i].BridgeNvimCPUMs = append(stats[i].BridgeNvimCPUMs, nvimCPU)
						spans = append(spans, callSpan{op: op.Name, start: start, end: start.Add(elapsed)})
						codec, size, err := br.AnswerCodec()
						if err != nil {
							return nil, fmt.Errorf("%s round %d %s: re-encoding the answer: %w", m.Name, r, op.Name, err)
						}
						stats[i].CodecMs = append(stats[i].CodecMs, codec)
						stats[i].AnswerBytes = size
					case 1:
						stats[i].DirectMs = append(stats[i].DirectMs, d)
					case 2:
						stats[i].NeovimMs = append(stats[i].NeovimMs, d)
						stats[i].NeovimCPUMs = append(stats[i].NeovimCPUMs, cpu)
					case 4:
						stats[i].NeovimAllMs = append(stats[i].NeovimAllMs, d)
						stats[i].NeovimAllCPUMs = append(stats[i].NeovimAllCPUMs, cpu)
					default:
						stats[i].PeerMs = append(stats[i].PeerMs, d)
					}
				}
			}
			if ran {
				o.Logf("%s: %s round %d/%d done", m.Name, phase, r+1, o.Rounds)
			}
		}
	}
	if o.Phases {
		lines, err := readTrace(logPath)
		if err != nil {
			return nil, fmt.Errorf("%s: nvbridge's log: %w", m.Name, err)
		}
		byOp := phasesOf(lines, spans)
		for i := range stats {
			stats[i].Phases = byOp[stats[i].Op]
		}
	}
	for i := range stats {
		s := &stats[i]
		s.BridgeP50, s.BridgeP95 = Quantile(s.BridgeMs, .5), Quantile(s.BridgeMs, .95)
		s.CodecP50 = Quantile(s.CodecMs, .5)
		if s.BridgeP50 > 0 {
			s.Noise = (Quantile(s.BridgeMs, .75) - Quantile(s.BridgeMs, .25)) / s.BridgeP50
		}
		if len(s.DirectMs) > 0 {
			s.DirectP50, s.DirectP95 = Quantile(s.DirectMs, .5), Quantile(s.DirectMs, .95)
			if s.DirectP50 > 0 {
				s.Ratio = s.BridgeP50 / s.DirectP50
			}
			s.Counts = fmt.Sprintf("%d vs %d", counts[i][0], counts[i][1])
			if len(s.NeovimMs) > 0 {
				s.NeovimP50, s.NeovimP95 = Quantile(s.NeovimMs, .5), Quantile(s.NeovimMs, .95)
			}
			if len(s.NeovimAllMs) > 0 {
				s.NeovimAllP50 = Quantile(s.NeovimAllMs, .5)
			}
			if len(s.PeerMs) > 0 {
				s.PeerP50, s.PeerP95 = Quantile(s.PeerMs, .5), Quantile(s.PeerMs, .95)
			}
			if counts[i][0] != counts[i][1] {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: nvbridge answered %d items, gopls straight %d", s.Op, counts[i][0], counts[i][1]))
			}
			if len(s.NeovimMs) > 0 && counts[i][2] != counts[i][1] {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: through Neovim's client %d items, gopls straight %d", s.Op, counts[i][2], counts[i][1]))
			}
		}
	}
	res.Ops = stats
	// Memory: the nvbridge process, its children (Neovim) and theirs
	// (gopls), and the straight gopls.
	if br.Cmd != nil && br.Cmd.Process != nil {
		tree := processTree(br.Cmd.Process.Pid)
		for _, p := range tree {
			mib := rssMiB(p.pid)
			res.BridgeTreeMiB += mib
			switch {
			case p.pid == br.Cmd.Process.Pid:
				res.BridgeOnlyMiB += mib
				anon, file := rssSplitMiB(p.pid)
				res.BridgeAnonMiB += anon
				res.BridgeFileMiB += file
			case strings.Contains(p.comm, "nvim") || strings.Contains(p.comm, "ld-linux"):
				res.NvimMiB += mib
				anon, file := rssSplitMiB(p.pid)
				res.NvimAnonMiB += anon
				res.NvimFileMiB += file
			case strings.Contains(p.comm, "gopls"):
				res.BridgeGopls += mib
			}
		}
	}
	res.DirectGopls = rssMiB(st.Cmd.Process.Pid)
	return res, nil
}

// lspSide sends LSP requests without nvbridge: straight to gopls
// (Straight) or through Neovim's own client (ViaNeovim).
type lspSide interface {
	URI(rel string) protocol.DocumentURI
	Open(ctx context.Context, rel string) error
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
	rootDir() string
}

// openCaller is a side that opens a file and sends a request about it in
// one exchange (ViaNeovim: one call to Neovim, as nvbridge makes it).
type openCaller interface {
	OpenCall(ctx context.Context, rel, method string, params any) (json.RawMessage, error)
}

type sideFunc = func(ctx context.Context, round int) (count int, err error)

func buildOps(m *Module, br *Bridge, st *Straight, vn *ViaNeovim, vnAll *lazyVia, peer *AgentLSP, rounds int) ([]Op, int) {
	posArgs := func(p Pos) map[string]any {
		return map[string]any{"file": p.File, "line": p.Line, "column": p.Col}
	}
	with := func(a map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range a {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	num := func(c map[string]any, key string) int {
		if f, ok := c[key].(float64); ok {
			return int(f)
		}
		return -1
	}
	bridge := func(tool string, args map[string]any, count func(map[string]any) int) sideFunc {
		return func(ctx context.Context, _ int) (int, error) {
			c, err := br.Call(ctx, tool, args)
			if err != nil {
				return 0, err
			}
			return count(c), nil
		}
	}
	fresh := freshPositions(m, rounds)
	straight, via := sideOps(m, st, fresh), sideOps(m, vn, fresh)
	var peers map[string]sideFunc
	if peer != nil {
		peers = peerOps(m, peer, fresh)
	}
	all := viaAll(m, vn, vnAll, fresh)
	op := func(name string, b sideFunc) Op {
		return Op{Name: name, Bridge: b, Straight: straight[name], Neovim: via[name], Peer: peers[name], NeovimAll: all[name]}
	}
	ops := []Op{
		// The MCP path alone (stdio, JSON-RPC, the server's dispatch): no
		// Neovim, no server.
		{Name: "mcp_ping", Bridge: func(ctx context.Context, _ int) (int, error) {
			//lint:ignore SA1019 the harness speaks protocol 2025-11-25 (mcpside.go), where Ping is a real round trip
			return 0, br.Client.Ping(ctx)
		}},
		op("find_definition", bridge("find_definition", posArgs(m.Call), func(c map[string]any) int { return num(c, "count") })),
		op("find_references", bridge("find_references", with(posArgs(m.Decl), "max_results", 1000), func(c map[string]any) int { return num(c, "total") })),
		op("hover", bridge("get_hover_info", posArgs(m.Decl), func(map[string]any) int { return 1 })),
		// A rename's preview (nothing applied): the edits of every reference.
		op("rename_preview", func(ctx context.Context, r int) (int, error) {
			c, err := br.Call(ctx, "rename_symbol", with(posArgs(m.Decl), "new_name", renameTo(m.Decl, r)))
			if err != nil {
				return 0, err
			}
			l, _ := c["affected_files"].([]any)
			return len(l), nil
		}),
		op("symbols", bridge("get_symbols", map[string]any{"file": m.File}, func(c map[string]any) int {
			l, _ := c["symbols"].([]any)
			return len(l)
		})),
		op("find_implementations", bridge("find_implementations", posArgs(m.Iface), func(c map[string]any) int { return num(c, "count") })),
		{Name: "diagnostics",
			Bridge: bridge("get_diagnostics", map[string]any{"file": m.File}, func(map[string]any) int { return 1 })},
	}
	for _, h := range hierarchyOps {
		ops = append(ops, op(h.name(), bridge("get_call_hierarchy", with(posArgs(m.Decl), "direction", h.dir, "depth", h.depth),
			func(c map[string]any) int {
				t, _ := c["totals"].(map[string]any)
				d, _ := t[h.dir].(map[string]any)
				return num(d, "entries")
			})))
	}
	ops = append(ops, op("understand_symbol", bridge("understand_symbol", posArgs(m.Decl), func(map[string]any) int { return 1 })))
	if len(fresh) > 0 {
		o := op("first_request_new_file", func(ctx context.Context, r int) (int, error) {
			_, err := br.Call(ctx, "get_hover_info", posArgs(fresh[r]))
			return 1, err
		})
		o.Rounds = len(fresh)
		o.OwnNeovimAll = o.NeovimAll != nil
		ops = append(ops, o)
	}
	return ops, len(fresh)
}

// viaAll is, for the ops whose answer nvbridge makes from more than the
// op's one request, those requests through Neovim's client as nvbridge
// sends them (Op.NeovimAll).
func viaAll(m *Module, vn *ViaNeovim, vnAll *lazyVia, fresh []Pos) map[string]sideFunc {
	if vn == nil {
		return nil
	}
	ops := map[string]sideFunc{
		// get_hover_info: the hover and the definition at the same
		// position, in one read (lsp.Client.Hover).
		"hover": func(ctx context.Context, _ int) (int, error) {
			if err := vn.Open(ctx, m.Decl.File); err != nil {
				return 0, err
			}
			params := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: vn.URI(m.Decl.File)},
				Position: protocol.Position{Line: uint32(m.Decl.Line - 1), Character: uint32(m.Decl.Col)}}
			_, err := vn.CallAll(ctx, []string{protocol.MethodTextDocumentHover, protocol.MethodTextDocumentDefinition}, params)
			return 1, err
		},
	}
	if vnAll.wanted && len(fresh) > 0 {
		// get_hover_info in a file not opened yet: the open, the hover and
		// the definition in one call, in vnAll (its own Neovim and gopls:
		// the file is new there too).
		ops["first_request_new_file"] = func(ctx context.Context, r int) (int, error) {
			p := fresh[max(r, 0)]
			params := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: vnAll.v.URI(p.File)},
				Position: protocol.Position{Line: uint32(p.Line - 1), Character: uint32(p.Col)}}
			_, err := vnAll.v.OpenCallAll(ctx, p.File, []string{protocol.MethodTextDocumentHover, protocol.MethodTextDocumentDefinition}, params)
			return 1, err
		}
	}
	return ops
}

// lazyVia is the first requests' own ViaNeovim, started when their phase
// begins (start), when wanted.
type lazyVia struct {
	wanted bool
	v      *ViaNeovim
}

// start starts it and waits for its gopls's workspace load.
func (l *lazyVia) start(ctx context.Context, m *Module) error {
	v, err := StartViaNeovim(ctx, m.Root)
	if err != nil {
		return err
	}
	l.v = v
	loadCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if err := v.WaitLoaded(loadCtx, m.Decl.File); err != nil {
		return fmt.Errorf("%s: gopls through the first requests' Neovim: load progress not seen: %w", m.Name, err)
	}
	return nil
}

// Close ends it, when started.
func (l *lazyVia) Close() {
	if l.v != nil {
		l.v.Close()
	}
}

type hierOp struct {
	dir   string
	depth int
}

func (h hierOp) name() string { return fmt.Sprintf("calls_%s_depth%d", h.dir, h.depth) }

var hierarchyOps = []hierOp{{"incoming", 1}, {"outgoing", 1}, {"incoming", 3}, {"outgoing", 3}}

// freshPositions are the first-request op's positions: one file a round
// that no other op opens, spread over the module.
func freshPositions(m *Module, rounds int) []Pos {
	used := map[string]bool{m.Decl.File: true, m.Call.File: true, m.Iface.File: true, m.File: true}
	var fresh []Pos
	for _, f := range m.Files {
		if used[f] || strings.Contains(f, "internal/") && m.Name == "sample" {
			continue
		}
		if p, ok := FirstFunc(m.Root, f); ok {
			fresh = append(fresh, p)
		}
		if len(fresh) >= rounds {
			break
		}
	}
	// Spread over the module rather than the first directory.
	if len(m.Files) > rounds*4 && m.Name != "sample" {
		fresh = fresh[:0]
		step := len(m.Files) / (rounds * 2)
		for i := 0; i < len(m.Files) && len(fresh) < rounds; i += step {
			f := m.Files[i]
			if used[f] {
				continue
			}
			if p, ok := FirstFunc(m.Root, f); ok {
				fresh = append(fresh, p)
			}
		}
	}
	return fresh
}

// sideOps is each op's LSP work as s sends it, by op name.
func sideOps(m *Module, s lspSide, fresh []Pos) map[string]sideFunc {
	tdp := func(p Pos) protocol.TextDocumentPositionParams {
		return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.URI(p.File)},
			Position: protocol.Position{Line: uint32(p.Line - 1), Character: uint32(p.Col)}}
	}
	request := func(method string, params func() any, open string) sideFunc {
		return func(ctx context.Context, _ int) (int, error) {
			if err := s.Open(ctx, open); err != nil {
				return 0, err
			}
			raw, err := s.Call(ctx, method, params())
			return listLen(raw), err
		}
	}
	ops := map[string]sideFunc{
		"find_definition": request(protocol.MethodTextDocumentDefinition, func() any {
			return protocol.DefinitionParams{TextDocumentPositionParams: tdp(m.Call)}
		}, m.Call.File),
		"find_references": request(protocol.MethodTextDocumentReferences, func() any {
			return protocol.ReferenceParams{TextDocumentPositionParams: tdp(m.Decl), Context: protocol.ReferenceContext{IncludeDeclaration: true}}
		}, m.Decl.File),
		"hover": request(protocol.MethodTextDocumentHover, func() any {
			return protocol.HoverParams{TextDocumentPositionParams: tdp(m.Decl)}
		}, m.Decl.File),
		"rename_preview": func(ctx context.Context, r int) (int, error) {
			if err := s.Open(ctx, m.Decl.File); err != nil {
				return 0, err
			}
			raw, err := s.Call(ctx, protocol.MethodTextDocumentRename, protocol.RenameParams{TextDocumentPositionParams: tdp(m.Decl), NewName: renameTo(m.Decl, r)})
			return editedFiles(raw), err
		},
		"symbols": request(protocol.MethodTextDocumentDocumentSymbol, func() any {
			return protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: s.URI(m.File)}}
		}, m.File),
		"find_implementations": request(protocol.MethodTextDocumentImplementation, func() any {
			return protocol.ImplementationParams{TextDocumentPositionParams: tdp(m.Iface)}
		}, m.Iface.File),
		"understand_symbol": func(ctx context.Context, _ int) (int, error) {
			if err := s.Open(ctx, m.Decl.File); err != nil {
				return 0, err
			}
			return 1, straightUnderstand(ctx, s, tdp(m.Decl))
		},
		// The first request in a file not opened yet: one new file per
		// round, the same file on every side (each has its own gopls).
		"first_request_new_file": func(ctx context.Context, r int) (int, error) {
			p := fresh[r]
			params := protocol.HoverParams{TextDocumentPositionParams: tdp(p)}
			if oc, ok := s.(openCaller); ok {
				_, err := oc.OpenCall(ctx, p.File, protocol.MethodTextDocumentHover, params)
				return 1, err
			}
			if err := s.Open(ctx, p.File); err != nil {
				return 0, err
			}
			_, err := s.Call(ctx, protocol.MethodTextDocumentHover, params)
			return 1, err
		},
	}
	for _, h := range hierarchyOps {
		ops[h.name()] = func(ctx context.Context, _ int) (int, error) {
			if err := s.Open(ctx, m.Decl.File); err != nil {
				return 0, err
			}
			return straightWalk(ctx, s, tdp(m.Decl), h.dir, h.depth, 100, 8)
		}
	}
	return ops
}

// editedFiles is the number of files a WorkspaceEdit answer changes.
func editedFiles(raw json.RawMessage) int {
	var we struct {
		Changes         map[string]json.RawMessage `json:"changes"`
		DocumentChanges []json.RawMessage          `json:"documentChanges"`
	}
	_ = json.Unmarshal(raw, &we)
	return max(len(we.Changes), len(we.DocumentChanges))
}

// listLen is the number of elements of a JSON array answer (1 for an
// object, 0 for null).
func listLen(raw json.RawMessage) int {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		return len(list)
	}
	// Neovim's client hands an empty list on as "{}" (a Lua table).
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return 0
	}
	return 1
}

type callItem struct {
	Name           string          `json:"name"`
	URI            string          `json:"uri"`
	SelectionRange protocol.Range  `json:"selectionRange"`
	Raw            json.RawMessage `json:"-"`
}

func (it callItem) key() string {
	return fmt.Sprintf("%s:%d:%d:%s", it.URI, it.SelectionRange.Start.Line, it.SelectionRange.Start.Character, it.Name)
}

// straightWalk is the call hierarchy walk a client does by itself:
// prepare, then one request per item level by level (concurrently within
// a level, at most conc in flight), items outside the root listed but not
// expanded, each item expanded once, at most maxItems entries. It returns
// the entries found.
func straightWalk(ctx context.Context, st lspSide, at protocol.TextDocumentPositionParams, dir string, depth, maxItems, conc int) (int, error) {
	raw, err := st.Call(ctx, protocol.MethodTextDocumentPrepareCallHierarchy, protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: at})
	if err != nil {
		return 0, err
	}
	var roots []json.RawMessage
	if err := json.Unmarshal(raw, &roots); err != nil || len(roots) == 0 {
		return 0, fmt.Errorf("prepareCallHierarchy: %s", raw)
	}
	method := protocol.MethodCallHierarchyIncomingCalls
	field := "from"
	if dir == "outgoing" {
		method, field = protocol.MethodCallHierarchyOutgoingCalls, "to"
	}
	rootDir := "file://" + st.rootDir() + "/"
	var root callItem
	_ = json.Unmarshal(roots[0], &root)
	seen := map[string]bool{root.key(): true}
	level := []json.RawMessage{roots[0]}
	count := 0
	for d := 1; d <= depth && len(level) > 0 && count < maxItems; d++ {
		found := make([][]json.RawMessage, len(level))
		errs := make([]error, len(level))
		sem := make(chan struct{}, conc)
		var wg sync.WaitGroup
		for i, it := range level {
			wg.Add(1)
			sem <- struct{}{}
			safego.Go("side: call hierarchy request", func() {
				defer wg.Done()
				defer func() { <-sem }()
				raw, err := st.Call(ctx, method, map[string]json.RawMessage{"item": it})
				if err != nil {
					errs[i] = err
					return
				}
				var calls []map[string]json.RawMessage
				errs[i] = json.Unmarshal(raw, &calls)
				for _, c := range calls {
					found[i] = append(found[i], c[field])
				}
			}, nil)
		}
		wg.Wait()
		var next []json.RawMessage
		for i := range level {
			if errs[i] != nil {
				return 0, errs[i]
			}
			for _, it := range found[i] {
				if count >= maxItems {
					break
				}
				count++
				var ci callItem
				_ = json.Unmarshal(it, &ci)
				if seen[ci.key()] || !strings.HasPrefix(ci.URI, rootDir) {
					continue
				}
				seen[ci.key()] = true
				next = append(next, it)
			}
		}
		level = next
	}
	return count, nil
}

// straightUnderstand sends understand_symbol's requests concurrently:
// definition then the defining file's symbols, hover, references, the
// call hierarchy both ways at depth 1, implementations.
func straightUnderstand(ctx context.Context, st lspSide, at protocol.TextDocumentPositionParams) error {
	steps := []func() error{
		func() error {
			raw, err := st.Call(ctx, protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{TextDocumentPositionParams: at})
			if err != nil {
				return err
			}
			var locs []protocol.Location
			if json.Unmarshal(raw, &locs) != nil || len(locs) == 0 {
				return nil
			}
			_, err = st.Call(ctx, protocol.MethodTextDocumentDocumentSymbol, protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: locs[0].URI}})
			return err
		},
		func() error {
			_, err := st.Call(ctx, protocol.MethodTextDocumentHover, protocol.HoverParams{TextDocumentPositionParams: at})
			return err
		},
		func() error {
			_, err := st.Call(ctx, protocol.MethodTextDocumentReferences, protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}})
			return err
		},
		func() error {
			raw, err := st.Call(ctx, protocol.MethodTextDocumentPrepareCallHierarchy, protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: at})
			if err != nil {
				return err
			}
			var items []json.RawMessage
			if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
				return nil
			}
			errs := make(chan error, 2)
			for _, m := range []string{protocol.MethodCallHierarchyIncomingCalls, protocol.MethodCallHierarchyOutgoingCalls} {
				safego.Go("side: calls", func() {
					_, err := st.Call(ctx, m, map[string]json.RawMessage{"item": items[0]})
					errs <- err
				}, nil)
			}
			return firstErr(<-errs, <-errs)
		},
		func() error {
			// gopls answers an error for a function ("not a method"):
			// that is its answer, as nvbridge reports it.
			_, _ = st.Call(ctx, protocol.MethodTextDocumentImplementation, protocol.ImplementationParams{TextDocumentPositionParams: at})
			return nil
		},
	}
	errs := make(chan error, len(steps))
	for _, s := range steps {
		safego.Go("side: understand step", func() { errs <- s() }, nil)
	}
	var out []error
	for range steps {
		out = append(out, <-errs)
	}
	return firstErr(out...)
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

type proc struct {
	pid  int
	comm string
}

// processTree lists pid and its descendants (from /proc).
func processTree(pid int) []proc {
	parent := map[int]int{}
	comm := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscanf(e.Name(), "%d", &p); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < 0 {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if len(fields) < 2 {
			continue
		}
		var pp int
		fmt.Sscanf(fields[1], "%d", &pp)
		parent[p], comm[p] = pp, s[open+1:close]
	}
	out := []proc{{pid, comm[pid]}}
	for i := 0; i < len(out); i++ {
		for p, pp := range parent {
			if pp == out[i].pid {
				out = append(out, proc{p, comm[p]})
			}
		}
	}
	return out
}

// rssMiB is a process's resident set in MiB (0 when gone).
func rssMiB(pid int) float64 { return statusMiB(pid, "VmRSS:") }

// rssSplitMiB is a process's resident set's anonymous and file-backed
// parts in MiB (RssShmem, the third part, is left out).
func rssSplitMiB(pid int) (anon, file float64) {
	return statusMiB(pid, "RssAnon:"), statusMiB(pid, "RssFile:")
}

// statusMiB is the field (e.g. "VmRSS:") of /proc/PID/status in MiB (0
// when the process is gone).
func statusMiB(pid int, field string) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field) {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, field)), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

// cpuMs is the CPU time the processes have used so far, in milliseconds,
// at nanosecond resolution: the sum over their threads of the run time the
// scheduler accounts (/proc/PID/task/TID/schedstat, first field). On a
// shared machine it moves far less with the load than wall time does.
func cpuMs(pids ...int) float64 {
	var ns int64
	for _, pid := range pids {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		for _, t := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
			if err != nil {
				continue
			}
			var run int64
			if _, err := fmt.Sscan(string(b), &run); err == nil {
				ns += run
			}
		}
	}
	return float64(ns) / 1e6
}

// treePIDs is pid and its descendants' pids.
func treePIDs(pid int) []int {
	var out []int
	for _, p := range processTree(pid) {
		out = append(out, p.pid)
	}
	return out
}
