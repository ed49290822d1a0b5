package side

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/neovim/go-client/nvim"
)

// ColdResult: cold starts to a first answer, medians in milliseconds.
type ColdResult struct {
	Runs int `json:"runs"`
	// gopls definition FILE:LINE:COL (a fresh gopls each time).
	GoplsDefinition []float64 `json:"gopls_definition_ms"`
	// nvbridge call --no-daemon find_definition (a fresh Neovim and gopls).
	CallNoDaemon []float64 `json:"call_no_daemon_ms"`
	// nvbridge call find_definition with no daemon running (starts one).
	CallDaemonCold []float64 `json:"call_daemon_cold_ms"`
	// the next call, answered by that daemon.
	CallWarm []float64 `json:"call_warm_ms"`
	// nvbridge mcp over stdio: process start, initialize, first
	// find_definition answered.
	MCPFirstAnswer []float64 `json:"mcp_first_answer_ms"`
}

// Cold measures cold starts on m, interleaved, runs times.
func Cold(ctx context.Context, o Options, m *Module, runs int) (*ColdResult, error) {
	res := &ColdResult{Runs: runs}
	env := Env(o.Repo)
	args := fmt.Sprintf(`{"file":%q,"line":%d,"column":%d}`, m.Call.File, m.Call.Line, m.Call.Col)
	timed := func(name string, argv ...string) (float64, error) {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = m.Root, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := ms(time.Since(start))
		if err != nil {
			return 0, fmt.Errorf("%s: %v: %s", name, err, out)
		}
		return d, nil
	}
	stop := func() {
		cmd := exec.Command(o.Binary, "--root", m.Root, "daemon", "stop")
		cmd.Dir, cmd.Env = m.Root, env
		_ = cmd.Run()
	}
	defer stop()
	for r := 0; r < runs; r++ {
		d, err := timed("gopls definition", "gopls", "definition", fmt.Sprintf("%s:%d:%d", m.Call.File, m.Call.Line, m.Call.Col+1))
		if err != nil {
			return nil, err
		}
		res.GoplsDefinition = append(res.GoplsDefinition, d)
		if d, err = timed("call --no-daemon", o.Binary, "--root", m.Root, "call", "--no-daemon", "find_definition", args); err != nil {
			return nil, err
		}
		res.CallNoDaemon = append(res.CallNoDaemon, d)
		stop()
		if d, err = timed("call (daemon cold)", o.Binary, "--root", m.Root, "call", "find_definition", args); err != nil {
			return nil, err
		}
		res.CallDaemonCold = append(res.CallDaemonCold, d)
		if d, err = timed("call (warm)", o.Binary, "--root", m.Root, "call", "find_definition", args); err != nil {
			return nil, err
		}
		res.CallWarm = append(res.CallWarm, d)
		stop()
		start := time.Now()
		br, err := StartBridge(ctx, o.Binary, o.Repo, m.Root)
		if err != nil {
			return nil, err
		}
		_, err = br.Call(ctx, "find_definition", map[string]any{"file": m.Call.File, "line": m.Call.Line, "column": m.Call.Col})
		d = ms(time.Since(start))
		br.Close()
		if err != nil {
			return nil, err
		}
		res.MCPFirstAnswer = append(res.MCPFirstAnswer, d)
		o.Logf("%s: cold run %d/%d done", m.Name, r+1, runs)
	}
	return res, nil
}

// AttachedResult: the first navigation call on a buffer the user's Neovim
// opened (and gopls diagnosed) before nvbridge attached, then the next.
type AttachedResult struct {
	Runs      int       `json:"runs"`
	FirstCall []float64 `json:"first_call_ms"`
	NextCall  []float64 `json:"next_call_ms"`
}

const userInit = `
-- The harness's mark that gopls has published (the user's handler runs as
-- before).
local publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(...)
  vim.g.harness_published = true
  return publish(...)
end
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(ev)
    vim.lsp.start({ name = 'user-gopls', cmd = { 'gopls' }, root_dir = vim.fs.root(ev.buf, { 'go.mod' }) })
  end,
})
`

// AttachedFirstCall starts a user's Neovim (gopls from its own config) on
// m's declaration file, waits until gopls has published that buffer's
// diagnostics, then attaches `nvbridge --nvim SOCK mcp` and times its
// first hover there and the next one.
func AttachedFirstCall(ctx context.Context, o Options, m *Module, runs int) (*AttachedResult, error) {
	res := &AttachedResult{Runs: runs}
	dir, err := os.MkdirTemp("", "nvbridge-attached-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	initLua := filepath.Join(dir, "init.lua")
	if err := os.WriteFile(initLua, []byte(userInit), 0o644); err != nil {
		return nil, err
	}
	hover := map[string]any{"file": m.Decl.File, "line": m.Decl.Line, "column": m.Decl.Col}
	for r := 0; r < runs; r++ {
		sock := filepath.Join(dir, fmt.Sprintf("nvim%d.sock", r))
		cmd := exec.Command("nvim", "--headless", "--clean", "-n", "-i", "NONE", "--listen", sock, "--cmd", "luafile "+initLua, m.Decl.File)
		cmd.Dir = m.Root
		cmd.Env = append(Env(o.Repo), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		end := func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
		first, next, err := attachedRun(ctx, o, m, sock, hover)
		end()
		if err != nil {
			return nil, err
		}
		res.FirstCall = append(res.FirstCall, first)
		res.NextCall = append(res.NextCall, next)
		o.Logf("%s: attached run %d/%d: first call %.0f ms, next %.0f ms", m.Name, r+1, runs, first, next)
	}
	return res, nil
}

func attachedRun(ctx context.Context, o Options, m *Module, sock string, hover map[string]any) (first, next float64, err error) {
	// The user's Neovim: wait until it listens, then until gopls has
	// published the buffer's diagnostics (its namespace exists). Polling:
	// this is the harness standing in for a user, not nvbridge.
	deadline := time.Now().Add(2 * time.Minute)
	var v *nvim.Nvim
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			if v, err = nvim.Dial(sock); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("the user's Neovim did not listen")
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer v.Close()
	const published = `return vim.g.harness_published == true`
	for {
		var ok bool
		if err := v.ExecLua(published, &ok); err != nil {
			return 0, 0, err
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("gopls never published in the user's Neovim")
		}
		time.Sleep(50 * time.Millisecond)
	}
	br, err := StartBridge(ctx, o.Binary, o.Repo, m.Root, "--nvim", sock)
	if err != nil {
		return 0, 0, err
	}
	defer br.Close()
	start := time.Now()
	if _, err := br.Call(ctx, "get_hover_info", hover); err != nil {
		return 0, 0, err
	}
	first = ms(time.Since(start))
	start = time.Now()
	if _, err := br.Call(ctx, "get_hover_info", hover); err != nil {
		return 0, 0, err
	}
	return first, ms(time.Since(start)), nil
}

// Report is one run of the harness, as written to JSON.
type Report struct {
	Command  string            `json:"command"`
	Started  time.Time         `json:"started"`
	Finished time.Time         `json:"finished"`
	Rounds   int               `json:"rounds"`
	Machine  string            `json:"machine"`
	Versions map[string]string `json:"versions"`
	Modules  []ModuleResult    `json:"modules"`
	BigEdit  *BigEditResult    `json:"big_edit,omitempty"`
}

// Machine describes the host: CPU model, cores, memory, load.
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				model = strings.TrimSpace(line[strings.Index(line, ":")+1:])
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "MemTotal:")), "%f", &kb)
		mem = fmt.Sprintf(", %.0f GiB RAM", kb/1024/1024)
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average at start " + strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return fmt.Sprintf("%s, %d cores%s%s (shared with other work)", model, numCPU(), mem, load)
}

func numCPU() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "processor\t:")
}

// Versions of the pieces measured.
func Versions(repo string) map[string]string {
	out := map[string]string{}
	run := func(key string, argv ...string) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = repo, Env(repo)
		b, err := cmd.Output()
		if err != nil {
			out[key] = "?"
			return
		}
		out[key] = strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	}
	run("go", "go", "version")
	run("gopls", "gopls", "version")
	run("nvim", "nvim", "--version")
	run("nvbridge", "git", "describe", "--always")
	// Dirty means the measured code differs from the commit: the report's
	// own outputs (bench/results, rewritten while it runs) do not count.
	status := exec.Command("git", "status", "--porcelain", "--", ".", ":(exclude)bench/results")
	status.Dir = repo
	if b, err := status.Output(); err == nil && len(bytes.TrimSpace(b)) > 0 {
		out["nvbridge"] += "-dirty"
	}
	var mods struct {
		Require []struct{ Path, Version string }
	}
	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = repo
	if b, err := cmd.Output(); err == nil && json.Unmarshal(b, &mods) == nil {
		for _, r := range mods.Require {
			if r.Path == "github.com/mark3labs/mcp-go" {
				out["mcp-go"] = r.Version
			}
		}
	}
	return out
}

// Table renders one module's figures as text.
func Table(r *ModuleResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n== %s %s (%d lines, %d files, %d rounds)\n", r.Module, r.Version, r.Lines, r.Files, r.Rounds)
	fmt.Fprintf(&b, "%-28s %10s %10s %10s %10s %10s %10s %9s %8s %7s  %s\n", "op", "nvb p50", "nvb p95", "gopls p50", "gopls p95", "via nvim", "agent-lsp", "answer", "ratio", "noise", "counts")
	for _, s := range r.Ops {
		ratio := "-"
		if s.Ratio > 0 {
			ratio = fmt.Sprintf("x%.2f", s.Ratio)
		}
		fmt.Fprintf(&b, "%-28s %8.2fms %8.2fms %8.2fms %8.2fms %8.2fms %8.2fms %7.1fKB %8s %6.0f%%  %s\n", s.Op, s.BridgeP50, s.BridgeP95, s.DirectP50, s.DirectP95, s.NeovimP50, s.PeerP50, float64(s.AnswerBytes)/1024, ratio, s.Noise*100, s.Counts)
	}
	fmt.Fprintf(&b, "memory: nvbridge tree %.0f MiB (nvbridge %.0f, Neovim %.0f, gopls %.0f) vs gopls alone %.0f MiB\n",
		r.BridgeTreeMiB, r.BridgeOnlyMiB, r.NvimMiB, r.BridgeGopls, r.DirectGopls)
	if r.BridgeAnonMiB+r.BridgeFileMiB > 0 {
		fmt.Fprintf(&b, "memory split: nvbridge anonymous %.1f MiB + file-backed %.1f; Neovim anonymous %.1f + file-backed %.1f\n",
			r.BridgeAnonMiB, r.BridgeFileMiB, r.NvimAnonMiB, r.NvimFileMiB)
	}
	if c := r.Cold; c != nil {
		fmt.Fprintf(&b, "cold (median of %d): gopls definition %.0f ms; call --no-daemon %.0f ms; call daemon cold %.0f ms; call warm %.0f ms; mcp first answer %.0f ms\n",
			c.Runs, Quantile(c.GoplsDefinition, .5), Quantile(c.CallNoDaemon, .5), Quantile(c.CallDaemonCold, .5), Quantile(c.CallWarm, .5), Quantile(c.MCPFirstAnswer, .5))
	}
	if a := r.Attached; a != nil {
		fmt.Fprintf(&b, "attached, buffer opened before connecting (median of %d): first call %.0f ms, next %.0f ms\n",
			a.Runs, Quantile(a.FirstCall, .5), Quantile(a.NextCall, .5))
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}
