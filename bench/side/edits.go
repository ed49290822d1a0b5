package side

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/neovim/go-client/nvim"
	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/safego"
)

// EditsResult: verified edits on a module, timed through an MCP session
// (milliseconds per round), next to what gopls itself takes for the same
// change driven by a minimal client.
type EditsResult struct {
	Rounds int    `json:"rounds"`
	Line   string `json:"line"` // the edited line, file:line
	// A one-line edit_buffer with preview: false: the apply and its
	// complete diagnostics delta (embedded Neovim, nvbridge's gopls).
	ApplyMs []float64 `json:"apply_ms"`
	// The same edit previewed with check: true (the delta from the
	// check's second Neovim, nothing applied).
	CheckMs []float64 `json:"check_ms"`
	// gopls straight, the route by publishes (verboseWorkDoneProgress
	// and diagnosticsDelay 0: its whole diagnosis of a change at once, and
	// the end of it reported, as nvbridge's gopls ran before it pulled),
	// the same one-line change as a didChange: until the publish for that
	// version, and until its diagnosis of the change ended ($/progress
	// "diagnosing" end).
	StraightPublishMs []float64 `json:"straight_publish_ms"`
	StraightDoneMs    []float64 `json:"straight_done_ms"`
	// gopls straight, the route by pulls (gopls's defaults, as nvbridge's
	// gopls and a user's have them: its whole diagnosis of the change
	// starts a diagnosticsDelay, 1s, after the answers; with
	// verboseWorkDoneProgress, so that the harness waits for that pass to
	// end before the next side's turn): the same change
	// as a didChange, then textDocument/diagnostic for every file it can
	// affect, sent at once (PullFiles: the edited file, its package's
	// files and those of the packages importing it, test files aside, as
	// a pulled delta asks), until the last answer.
	StraightPullMs []float64 `json:"straight_pull_ms,omitempty"`
	PullFiles      int       `json:"pull_files,omitempty"`
	// CPU during each call, in milliseconds (cpuMs: it moves far less with
	// the load than wall time): the apply's and the check's (nvbridge, its
	// Neovims and their servers), each straight gopls's.
	ApplyCPUMs []float64 `json:"apply_cpu_ms,omitempty"`
	// The same apply through the baseline build (Options.BaselineBinary),
	// interleaved, on a copy of the module.
	BaselineApplyMs    []float64 `json:"baseline_apply_ms,omitempty"`
	BaselineApplyCPUMs []float64 `json:"baseline_apply_cpu_ms,omitempty"`
	CheckCPUMs         []float64 `json:"check_cpu_ms,omitempty"`
	StraightCPUMs      []float64 `json:"straight_cpu_ms,omitempty"`
	StraightPullCPUMs  []float64 `json:"straight_pull_cpu_ms,omitempty"`
	// Attached to a user's Neovim whose gopls was started by
	// vim.lsp.start with no settings (its defaults): the same apply.
	AttachedApplyMs []float64 `json:"attached_apply_ms,omitempty"`
	// CPU during each (nvbridge, the user's Neovim and its gopls).
	AttachedApplyCPUMs []float64 `json:"attached_apply_cpu_ms,omitempty"`
	// The attached apply's floor, interleaved with it: gopls straight with
	// the user's settings (its defaults), a minimal client, the same
	// one-line change as a didChange, then textDocument/diagnostic for the
	// files the attached verifier checks (AttachedPullFiles: its delta's
	// files_checked), all at once, until the last answer; and the CPU of
	// that gopls during it.
	AttachedFloorMs    []float64 `json:"attached_floor_ms,omitempty"`
	AttachedFloorCPUMs []float64 `json:"attached_floor_cpu_ms,omitempty"`
	AttachedPullFiles  int       `json:"attached_pull_files,omitempty"`
	// AttachedPullScope: those files against go list's scope of the change.
	AttachedPullScope string `json:"attached_pull_scope,omitempty"`
	// The same through the baseline build, interleaved with it.
	BaselineAttachedApplyMs    []float64 `json:"baseline_attached_apply_ms,omitempty"`
	BaselineAttachedApplyCPUMs []float64 `json:"baseline_attached_apply_cpu_ms,omitempty"`
	// How the deltas ended: "complete" counts, else the reasons.
	Verdicts map[string]int `json:"verdicts"`
	// What the attached deltas waited on (their waited_on).
	AttachedWaitedOn map[string]int `json:"attached_waited_on,omitempty"`
}

// editLine is the line the rounds edit: a statement inside a function body
// of m.File (a trailing comment is added and changed each round, so every
// round is a new text, and the file's diagnostics stay the same).
func editLine(m *Module) (int, string, error) {
	b, err := os.ReadFile(filepath.Join(m.Root, m.File))
	if err != nil {
		return 0, "", err
	}
	lines := strings.Split(string(b), "\n")
	for i := m.Decl.Line; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "\t") && !strings.HasPrefix(strings.TrimSpace(l), "//") && strings.TrimSpace(l) != "}" && !strings.Contains(l, "//") && !strings.Contains(l, "`") {
			return i + 1, l, nil
		}
	}
	return 0, "", fmt.Errorf("%s: no line to edit after %d", m.File, m.Decl.Line)
}

func deltaOf(out map[string]any) (complete bool, why string, waited string) {
	d, _ := out["diagnostics_delta"].(map[string]any)
	if d == nil {
		return false, "no diagnostics_delta", ""
	}
	c, _ := d["complete"].(bool)
	why, _ = d["incomplete"].(string)
	waited, _ = d["waited_on"].(string)
	return c, why, waited
}

// Edits measures verified edits on m: when embedded is set, rounds of a
// one-line apply and a check preview through nvbridge, interleaved with
// the same change sent straight to gopls; then, when attached is set, the
// apply in a user's Neovim whose gopls runs on its defaults, interleaved
// with its floor.
func Edits(ctx context.Context, o Options, m *Module, rounds int, embedded, attached bool) (*EditsResult, error) {
	if m.ReadOnly {
		return nil, fmt.Errorf("%s is used in place: no edits", m.Name)
	}
	lineNo, orig, err := editLine(m)
	if err != nil {
		return nil, err
	}
	res := &EditsResult{Rounds: rounds, Line: fmt.Sprintf("%s:%d", m.File, lineNo), Verdicts: map[string]int{}}
	if !embedded {
		if attached {
			if err := attachedEdits(ctx, o, m, rounds, lineNo, orig, res); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	br, err := StartBridge(ctx, o.Binary, o.Repo, m.Root)
	if err != nil {
		return nil, err
	}
	defer br.Close()
	st, err := StartStraightWith(ctx, m.Root, map[string]any{"verboseWorkDoneProgress": true, "diagnosticsDelay": "0s"})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	sp, err := StartStraightWith(ctx, m.Root, map[string]any{"verboseWorkDoneProgress": true, "diagnosticsDelay": "1s"})
	if err != nil {
		return nil, err
	}
	defer sp.Close()
	var base *Bridge
	if o.BaselineBinary != "" {
		root := m.Root + "-baseline"
		if err := copyTree(m.Root, root); err != nil {
			return nil, err
		}
		defer os.RemoveAll(root)
		if base, err = StartBridge(ctx, o.BaselineBinary, o.BaselineRepo, root); err != nil {
			return nil, err
		}
		defer base.Close()
	}
	pullSet, err := pullScope(ctx, o, m)
	if err != nil {
		return nil, err
	}
	res.PullFiles = len(pullSet)
	loadCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	for _, s := range []*Straight{st, sp} {
		if err := s.WaitLoaded(loadCtx); err != nil {
			return nil, fmt.Errorf("straight gopls load: %w", err)
		}
		if err := s.Open(ctx, m.File); err != nil {
			return nil, err
		}
	}
	text, err := os.ReadFile(filepath.Join(m.Root, m.File))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(text), "\n")
	// Warm: the file open and diagnosed on both sides.
	if _, err := br.Call(loadCtx, "get_diagnostics", map[string]any{"file": m.File}); err != nil {
		return nil, err
	}
	// Every text is new to every gopls: gopls keeps type-check and
	// analysis results in a cache on disk shared by all its processes,
	// keyed by the files' contents, so a text another side (or an earlier
	// run) already diagnosed is answered from it in ~10 ms. Each side
	// gets its own comment, and the run its own nonce.
	nonce := time.Now().UnixNano()
	edit := func(r int, preview bool) map[string]any {
		side := "apply"
		if preview {
			side = "check"
		}
		args := map[string]any{"file": m.File, "edits": []map[string]any{{"line_start": lineNo, "line_end": lineNo,
			"new_text": fmt.Sprintf("%s // nvbridge-bench %d %s %d", orig, nonce, side, r)}}, "preview": preview}
		if preview {
			args["check"] = true
		}
		return args
	}
	version := 0
	straight := func(r int) (pub, done float64, err error) {
		version++
		l := append([]string(nil), lines...)
		l[lineNo-1] = fmt.Sprintf("%s // nvbridge-bench %d straight %d", orig, nonce, r)
		return st.ChangeAndWait(ctx, m.File, strings.Join(l, "\n"), version)
	}
	pullVersion := 0
	straightPull := func(r int, answered func()) (float64, error) {
		pullVersion++
		l := append([]string(nil), lines...)
		l[lineNo-1] = fmt.Sprintf("%s // nvbridge-bench %d pull %d", orig, nonce, r)
		return sp.ChangeAndPull(ctx, m.File, strings.Join(l, "\n"), pullVersion, pullSet, answered)
	}
	if base != nil {
		if _, err := base.Call(loadCtx, "get_diagnostics", map[string]any{"file": m.File}); err != nil {
			return nil, err
		}
		if _, err := base.Call(loadCtx, "edit_buffer", edit(-1, false)); err != nil {
			return nil, err
		}
	}
	// One warm-up of each (the check starts its second Neovim).
	if _, err := br.Call(loadCtx, "edit_buffer", edit(-1, false)); err != nil {
		return nil, err
	}
	if out, err := br.Call(loadCtx, "edit_buffer", edit(-2, true)); err != nil {
		return nil, err
	} else if id, _ := out["changeset_id"].(string); id != "" {
		_, _ = br.Call(ctx, "discard_changeset", map[string]any{"changeset_id": id})
	}
	if _, _, err := straight(-1); err != nil {
		return nil, err
	}
	if _, err := straightPull(-1, nil); err != nil {
		return nil, err
	}
	// verdict counts how a delta ended, under side's prefix ("" for this
	// build's, "baseline " for the baseline build's).
	verdict := func(side string, out map[string]any) {
		c, why, _ := deltaOf(out)
		if c {
			res.Verdicts[side+"complete"]++
		} else {
			res.Verdicts[side+"incomplete: "+why]++
		}
	}
	sides := 4
	if base != nil {
		sides = 5
	}
	for r := 0; r < rounds; r++ {
		for k := range sides {
			switch (r + k) % sides {
			case 4:
				out, wall, cpu, err := base.timedCall(ctx, "edit_buffer", edit(2000+r, false))
				if err != nil {
					return nil, err
				}
				res.BaselineApplyMs = append(res.BaselineApplyMs, wall)
				res.BaselineApplyCPUMs = append(res.BaselineApplyCPUMs, cpu)
				verdict("baseline ", out)
			case 3:
				c0, c1 := cpuMs(sp.Cmd.Process.Pid), 0.0
				d, err := straightPull(r, func() { c1 = cpuMs(sp.Cmd.Process.Pid) })
				if err != nil {
					return nil, err
				}
				res.StraightPullMs = append(res.StraightPullMs, d)
				res.StraightPullCPUMs = append(res.StraightPullCPUMs, c1-c0)
			case 0:
				out, wall, cpu, err := br.timedCall(ctx, "edit_buffer", edit(r, false))
				if err != nil {
					return nil, err
				}
				res.ApplyMs = append(res.ApplyMs, wall)
				res.ApplyCPUMs = append(res.ApplyCPUMs, cpu)
				verdict("", out)
			case 1:
				out, wall, cpu, err := br.timedCall(ctx, "edit_buffer", edit(1000+r, true))
				if err != nil {
					return nil, err
				}
				res.CheckMs = append(res.CheckMs, wall)
				res.CheckCPUMs = append(res.CheckCPUMs, cpu)
				verdict("", out)
				if id, _ := out["changeset_id"].(string); id != "" {
					_, _ = br.Call(ctx, "discard_changeset", map[string]any{"changeset_id": id})
				}
			default:
				c0 := cpuMs(st.Cmd.Process.Pid)
				pub, done, err := straight(r)
				res.StraightCPUMs = append(res.StraightCPUMs, cpuMs(st.Cmd.Process.Pid)-c0)
				if err != nil {
					return nil, err
				}
				res.StraightPublishMs = append(res.StraightPublishMs, pub)
				res.StraightDoneMs = append(res.StraightDoneMs, done)
			}
		}
		o.Logf("%s: verified edits round %d/%d: apply %.0f ms, check %.0f ms, gopls publish %.0f ms, done %.0f ms, pulls %.0f ms", m.Name, r+1, rounds,
			res.ApplyMs[r], res.CheckMs[r], res.StraightPublishMs[r], res.StraightDoneMs[r], res.StraightPullMs[r])
	}
	if attached {
		if err := attachedEdits(ctx, o, m, rounds, lineNo, orig, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// userPlainInit is a user's configuration that starts gopls with
// vim.lsp.start and no settings (no verboseWorkDoneProgress, the default
// diagnosticsDelay: gopls's defaults, as nvbridge's own), and the nvbridge
// plugin set to apply without asking (the harness is the user).
const userPlainInit = `
vim.opt.rtp:prepend(vim.env.NVBRIDGE_REPO)
require('nvbridge').setup({ approve = 'never', discovery = false })
local publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(...)
  vim.g.harness_published = true
  return publish(...)
end
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(ev)
    vim.lsp.start({ name = 'gopls', cmd = { 'gopls' }, root_dir = vim.fs.root(ev.buf, { 'go.mod' }) })
  end,
})
`

// userNeovim is a user's Neovim (userPlainInit) on m's file, listening on
// sock, its gopls having published once; close ends it.
type userNeovim struct {
	sock  string
	pid   int
	v     *nvim.Nvim
	close func()
}

func startUserNeovim(o Options, m *Module) (*userNeovim, error) {
	dir, err := os.MkdirTemp("", "nvbridge-user-nvim-")
	if err != nil {
		return nil, err
	}
	initLua := filepath.Join(dir, "init.lua")
	if err := os.WriteFile(initLua, []byte(userPlainInit), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	sock := filepath.Join(dir, "nvim.sock")
	cmd := exec.Command("nvim", "--headless", "--clean", "-n", "-i", "NONE", "--listen", sock, "--cmd", "luafile "+initLua, m.File)
	cmd.Dir = m.Root
	cmd.Env = append(Env(o.Repo), "NVBRIDGE_REPO="+o.Repo, "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	u := &userNeovim{sock: sock, pid: cmd.Process.Pid}
	u.close = func() {
		if u.v != nil {
			u.v.Close()
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		os.RemoveAll(dir)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			if u.v, err = nvim.Dial(sock); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			u.close()
			return nil, fmt.Errorf("the user's Neovim did not listen")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		var ok bool
		if err := u.v.ExecLua(`return vim.g.harness_published == true`, &ok); err != nil {
			u.close()
			return nil, err
		}
		if ok {
			return u, nil
		}
		if time.Now().After(deadline) {
			u.close()
			return nil, fmt.Errorf("gopls never published in the user's Neovim")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// attachedEdits measures the apply attached to a user's Neovim whose gopls
// runs on its defaults (and the baseline build's, when given),
// interleaved round by round with its floor: gopls straight with the
// user's settings (its defaults), driven by a minimal client that makes
// the same change and pulls the diagnostics of the same files the attached
// verifier checks (its delta's files_checked), all at once.
func attachedEdits(ctx context.Context, o Options, m *Module, rounds, lineNo int, orig string, res *EditsResult) error {
	type side struct {
		name string
		// run measures round r (r < 0: a warm-up, not recorded).
		run func(r int) error
	}
	newText := func(name string, r int) string {
		return fmt.Sprintf("%s // nvbridge-bench %d %s %d", orig, time.Now().UnixNano(), name, r)
	}
	res.AttachedWaitedOn = map[string]int{}
	var checked []string // the attached verifier's files_checked (its warm-up's)
	start := func(binary, repo string, m *Module, name string, wall, cpu *[]float64) (side, func(), error) {
		u, err := startUserNeovim(Options{Repo: repo}, m)
		if err != nil {
			return side{}, nil, err
		}
		br, err := StartBridge(ctx, binary, repo, m.Root, "--nvim", u.sock)
		if err != nil {
			u.close()
			return side{}, nil, err
		}
		// nvbridge, the user's Neovim and its gopls (started: it has
		// published once).
		pids := append([]int{br.Cmd.Process.Pid}, treePIDs(u.pid)...)
		run := func(r int) error {
			args := map[string]any{"file": m.File, "edits": []map[string]any{{"line_start": lineNo, "line_end": lineNo,
				"new_text": newText(name, r)}}, "preview": false}
			c0, t0 := cpuMs(pids...), time.Now()
			out, err := br.Call(ctx, "edit_buffer", args)
			d, c := ms(time.Since(t0)), cpuMs(pids...)-c0
			if err != nil {
				return err
			}
			complete, why, waited := deltaOf(out)
			if r < 0 {
				if name == "attached" {
					checked = filesChecked(out)
				}
				return nil // warm-up
			}
			*wall = append(*wall, d)
			if cpu != nil {
				*cpu = append(*cpu, c)
			}
			if name == "attached" {
				res.AttachedWaitedOn[waited]++
			}
			if complete {
				res.Verdicts[name+" complete"]++
			} else {
				res.Verdicts[name+" incomplete: "+why]++
			}
			o.Logf("%s: %s apply round %d/%d: %.0f ms, CPU %.0f ms (complete %v, waited on %q)", m.Name, name, r+1, rounds, d, c, complete, waited)
			return nil
		}
		return side{name, run}, func() { br.Close(); u.close() }, nil
	}
	this, stop, err := start(o.Binary, o.Repo, m, "attached", &res.AttachedApplyMs, &res.AttachedApplyCPUMs)
	if err != nil {
		return err
	}
	defer stop()
	sides := []side{this}
	if o.BaselineBinary != "" {
		bm := *m
		bm.Root = m.Root + "-baseline"
		if _, err := os.Stat(bm.Root); err != nil {
			// No embedded rounds made the baseline's copy (-edits-embedded=false).
			if err := copyTree(m.Root, bm.Root); err != nil {
				return err
			}
			defer os.RemoveAll(bm.Root)
		}
		base, stop, err := start(o.BaselineBinary, o.BaselineRepo, &bm, "baseline attached", &res.BaselineAttachedApplyMs, &res.BaselineAttachedApplyCPUMs)
		if err != nil {
			return err
		}
		defer stop()
		sides = append(sides, base)
	}
	// The floor's gopls loads while the bridges warm up.
	fl, err := StartStraightPlain(ctx, m.Root)
	if err != nil {
		return err
	}
	defer fl.Close()
	for _, sd := range sides {
		if err := sd.run(-1); err != nil {
			return fmt.Errorf("%s warm-up: %w", sd.name, err)
		}
	}
	if len(checked) == 0 {
		return fmt.Errorf("the attached apply's delta checked no files: nothing to pull for its floor")
	}
	res.AttachedPullFiles = len(checked)
	if scope, err := pullScope(ctx, o, m); err == nil {
		res.AttachedPullScope = sameFiles(checked, scope)
	}
	text, err := os.ReadFile(filepath.Join(m.Root, m.File))
	if err != nil {
		return err
	}
	lines := strings.Split(string(text), "\n")
	loadCtx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if err := fl.WaitLoaded(loadCtx); err != nil {
		return fmt.Errorf("the floor's gopls: load: %w", err)
	}
	if err := fl.Open(ctx, m.File); err != nil {
		return err
	}
	version := 0
	floor := func(r int) error {
		version++
		l := append([]string(nil), lines...)
		l[lineNo-1] = newText("floor", r)
		c0 := cpuMs(fl.Cmd.Process.Pid)
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		d, err := fl.ChangeThenPull(wctx, m.File, strings.Join(l, "\n"), version, checked)
		cancel()
		c := cpuMs(fl.Cmd.Process.Pid) - c0
		if err != nil {
			return fmt.Errorf("the floor (gopls straight, its defaults): %w", err)
		}
		if r >= 0 {
			res.AttachedFloorMs = append(res.AttachedFloorMs, d)
			res.AttachedFloorCPUMs = append(res.AttachedFloorCPUMs, c)
			o.Logf("%s: attached floor round %d/%d: %.0f ms, CPU %.0f ms (gopls straight, its defaults: didChange, %d pulls)", m.Name, r+1, rounds, d, c, len(checked))
		}
		return nil
	}
	if err := floor(-1); err != nil {
		return err
	}
	sides = append(sides, side{"floor", floor})
	for r := range rounds {
		for k := range sides {
			if err := sides[(r+k)%len(sides)].run(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// filesChecked is a delta's files_checked (relative to the root).
func filesChecked(out map[string]any) []string {
	d, _ := out["diagnostics_delta"].(map[string]any)
	l, _ := d["files_checked"].([]any)
	var files []string
	for _, f := range l {
		if s, ok := f.(string); ok {
			files = append(files, s)
		}
	}
	return files
}

// sameFiles says how the verifier's files compare with go list's scope of
// the change (pullScope).
func sameFiles(checked, scope []string) string {
	in := map[string]bool{}
	for _, f := range scope {
		in[f] = true
	}
	var extra []string
	for _, f := range checked {
		if !in[f] {
			extra = append(extra, f)
		}
		delete(in, f)
	}
	if len(extra) == 0 && len(in) == 0 {
		return fmt.Sprintf("the %d files go list says the change can affect, test files aside", len(checked))
	}
	var missing []string
	for f := range in {
		missing = append(missing, f)
	}
	sort.Strings(missing)
	return fmt.Sprintf("%d files; against go list's scope of the change (test files aside): %d more (%s), %d fewer (%s)",
		len(checked), len(extra), strings.Join(extra, ", "), len(missing), strings.Join(missing, ", "))
}

// EditsTable renders an EditsResult.
func EditsTable(m *Module, r *EditsResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n== verified edits on %s (%s, %d rounds)\n", m.Name, r.Line, r.Rounds)
	row := func(name string, xs []float64) {
		if len(xs) == 0 {
			return
		}
		fmt.Fprintf(&b, "%-44s p50 %8.1f ms  p25-p75 %8.1f-%-8.1f p95 %8.1f\n", name, Quantile(xs, .5), Quantile(xs, .25), Quantile(xs, .75), Quantile(xs, .95))
	}
	row("apply, one line, delta complete (nvbridge)", r.ApplyMs)
	row("check preview (nvbridge)", r.CheckMs)
	row("gopls straight: didChange to its publish", r.StraightPublishMs)
	row("gopls straight: didChange to diagnosis end", r.StraightDoneMs)
	row(fmt.Sprintf("gopls straight: didChange, pulls (%d files)", r.PullFiles), r.StraightPullMs)
	row("apply, baseline build (interleaved)", r.BaselineApplyMs)
	row("CPU: apply (nvbridge, Neovims, servers)", r.ApplyCPUMs)
	row("CPU: apply, baseline build", r.BaselineApplyCPUMs)
	row("CPU: check preview (same)", r.CheckCPUMs)
	row("CPU: gopls straight, to diagnosis end", r.StraightCPUMs)
	row("CPU: gopls straight, pulls", r.StraightPullCPUMs)
	row("attached, user's plain gopls: apply", r.AttachedApplyMs)
	row(fmt.Sprintf("floor: gopls defaults, didChange, %d pulls", r.AttachedPullFiles), r.AttachedFloorMs)
	row("CPU: attached apply (nvbridge, user's nvim+gopls)", r.AttachedApplyCPUMs)
	row("CPU: floor (its gopls)", r.AttachedFloorCPUMs)
	row("attached, baseline build (interleaved)", r.BaselineAttachedApplyMs)
	row("CPU: attached, baseline build", r.BaselineAttachedApplyCPUMs)
	fmt.Fprintf(&b, "verdicts: %v; attached waited on: %v\n", r.Verdicts, r.AttachedWaitedOn)
	if len(r.AttachedFloorMs) > 0 {
		lo, hi := RatioInterval(r.AttachedApplyMs, r.AttachedFloorMs)
		fmt.Fprintf(&b, "attached apply / floor: x%.2f (90%%: x%.2f-x%.2f); files pulled: %s\n", Quantile(r.AttachedApplyMs, .5)/Quantile(r.AttachedFloorMs, .5), lo, hi, r.AttachedPullScope)
	}
	return b.String()
}

// ChangeAndWait sends rel's whole new text as a didChange at version and
// returns how long gopls took to publish diagnostics for that version and
// to end its diagnosis of the change ("diagnosing" progress: the side
// sets verboseWorkDoneProgress), in milliseconds.
func (s *Straight) ChangeAndWait(ctx context.Context, rel, text string, version int) (pub, done float64, err error) {
	uri := string(s.URI(rel))
	published := make(chan struct{})
	s.mu.Lock()
	s.waitPub = func(u string, v int) {
		if u == uri && v == version && published != nil {
			close(published)
			published = nil
		}
	}
	var endCh <-chan struct{}
	s.waitProgress, endCh = diagnosisEnd()
	pubCh := published
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.waitPub, s.waitProgress = nil, nil
		s.mu.Unlock()
	}()
	start := time.Now()
	err = s.Conn.Notify(ctx, protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
	if err != nil {
		return 0, 0, err
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := waitClosed(wctx, pubCh); err != nil {
		return 0, 0, fmt.Errorf("no publish for version %d: %w", version, err)
	}
	pub = ms(time.Since(start))
	if err := waitClosed(wctx, endCh); err != nil {
		return pub, 0, fmt.Errorf("no end of the diagnosis of version %d: %w", version, err)
	}
	return pub, ms(time.Since(start)), nil
}

// diagnosisEnd is a Straight.waitProgress (called under s.mu) and the
// channel it closes at the first end of a "diagnosing" run once such a run
// has begun after it was set (the end of a run already under way then does
// not count): the end of gopls's diagnosis of a change.
func diagnosisEnd() (func(kind, title string), <-chan struct{}) {
	ended := make(chan struct{})
	began, closed := false, false
	return func(kind, title string) {
		if strings.HasPrefix(title, "diagnosing") && kind == "begin" {
			began = true
		}
		if kind == "end-diagnosing" && began && !closed {
			close(ended)
			closed = true
		}
	}, ended
}

// publishVersion reads a publish's URI and version (0 when it has none).
func publishVersion(params json.RawMessage) (string, int) {
	var p struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
	}
	_ = json.Unmarshal(params, &p)
	return p.URI, p.Version
}

// timedCall calls tool on b and answers its result with the call's wall
// time and the CPU of b's process tree (nvbridge, its Neovims and their
// servers) during it, in milliseconds.
func (b *Bridge) timedCall(ctx context.Context, tool string, args map[string]any) (map[string]any, float64, float64, error) {
	pids := treePIDs(b.Cmd.Process.Pid)
	c0, start := cpuMs(pids...), time.Now()
	out, err := b.Call(ctx, tool, args)
	return out, ms(time.Since(start)), cpuMs(pids...) - c0, err
}

// ChangeAndPull sends rel's whole new text as a didChange at version, then
// textDocument/diagnostic for each of files (relative), all at once, and
// returns the milliseconds until the last answer (answered is called
// then, before the wait for the full pass).
func (s *Straight) ChangeAndPull(ctx context.Context, rel, text string, version int, files []string, answered func()) (float64, error) {
	// gopls's full pass of the change comes after its diagnosticsDelay,
	// once the pulls are answered: it is waited for after the timing, so
	// that it does not run into the next side's measurement.
	s.mu.Lock()
	var endCh <-chan struct{}
	s.waitProgress, endCh = diagnosisEnd()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.waitProgress = nil
		s.mu.Unlock()
	}()
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	took, err := s.ChangeThenPull(wctx, rel, text, version, files)
	if err != nil {
		return 0, err
	}
	if answered != nil {
		answered()
	}
	if err := waitClosed(wctx, endCh); err != nil {
		return took, fmt.Errorf("no end of the full diagnosis of version %d: %w", version, err)
	}
	return took, nil
}

// ChangeThenPull sends rel's whole new text as a didChange at version,
// then textDocument/diagnostic for each of files (relative), all at once,
// and returns the milliseconds until the last answer: a direct client's
// pulled delta of the change, the pulls before it aside.
func (s *Straight) ChangeThenPull(ctx context.Context, rel, text string, version int, files []string) (float64, error) {
	start := time.Now()
	err := s.Conn.Notify(ctx, protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": string(s.URI(rel)), "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
	if err != nil {
		return 0, err
	}
	errs := make(chan error, len(files))
	for _, f := range files {
		safego.Go("pulling diagnostics", func() {
			_, err := s.Call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": s.URI(f)}})
			errs <- err
		}, nil)
	}
	for range files {
		if err := <-errs; err != nil {
			return 0, fmt.Errorf("pull: %w", err)
		}
	}
	return ms(time.Since(start)), nil
}

// pullScope is what the apply's delta asks gopls about for an edit of
// m.File: the file, its package's other files and the files of the
// module's packages that import it, directly or not (test files aside),
// from go list.
func pullScope(ctx context.Context, o Options, m *Module) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}\t{{join .Imports \" \"}}", "./...")
	cmd.Dir, cmd.Env = m.Root, Env(o.Repo)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v", m.Root, err)
	}
	type pkg struct {
		dir     string
		files   []string
		imports []string
	}
	pkgs := map[string]pkg{}
	edited := ""
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			continue
		}
		pkgs[f[0]] = pkg{dir: f[1], files: strings.Fields(f[2]), imports: strings.Fields(f[3])}
		if f[1] == filepath.Join(m.Root, filepath.Dir(m.File)) {
			edited = f[0]
		}
	}
	if edited == "" {
		return nil, fmt.Errorf("go list: no package in %s", filepath.Dir(m.File))
	}
	in := map[string]bool{edited: true}
	for grew := true; grew; {
		grew = false
		for path, p := range pkgs {
			if in[path] {
				continue
			}
			for _, imp := range p.imports {
				if in[imp] {
					in[path], grew = true, true
					break
				}
			}
		}
	}
	files := []string{m.File}
	for path, p := range pkgs {
		if !in[path] {
			continue
		}
		for _, f := range p.files {
			rel, _ := filepath.Rel(m.Root, filepath.Join(p.dir, f))
			if rel != m.File {
				files = append(files, rel)
			}
		}
	}
	return files, nil
}
