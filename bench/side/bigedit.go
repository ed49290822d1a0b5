package side

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/neovim/go-client/nvim"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// BigEditResult: 1,000 one-line edits spread over a 100,000-line file,
// through a real MCP client session (milliseconds per round), next to
// Neovim's own vim.lsp.util.apply_workspace_edit of the same edits called
// over RPC (one nvim_exec_lua) in a Neovim of its own.
type BigEditResult struct {
	Rounds int `json:"rounds"`
	// edit_buffer with preview (the diff, a changeset_id), then
	// apply_changeset of that id.
	PreviewMs []float64 `json:"preview_ms"`
	ApplyMs   []float64 `json:"apply_ms"`
	// edit_buffer with preview: false (plan and apply in one call).
	OneShotMs []float64 `json:"oneshot_ms"`
	// Neovim's apply_workspace_edit over RPC.
	NeovimMs []float64 `json:"neovim_ms"`
	// nvbridge's plan alone: apply.lua's apply called over RPC with the
	// plan edit_buffer makes, in a Neovim of its own (no MCP, no engine):
	// what the architecture's apply costs Neovim (wall and CPU).
	LuaPlanMs    []float64 `json:"lua_plan_ms,omitempty"`
	LuaPlanCPUMs []float64 `json:"lua_plan_cpu_ms,omitempty"`
	// CPU time per call (ms, scheduler run time of every thread): nvbridge
	// and its Neovim for the preview, the apply and the one-shot apply;
	// the Neovim alone for apply_workspace_edit. Wall time on a shared
	// machine moves with the others' load; this far less.
	PreviewCPUMs []float64 `json:"preview_cpu_ms"`
	// The same, nvbridge's process alone (the rest is its Neovim's).
	PreviewGoCPUMs []float64 `json:"preview_go_cpu_ms"`
	ApplyGoCPUMs   []float64 `json:"apply_go_cpu_ms"`
	ApplyCPUMs     []float64 `json:"apply_cpu_ms"`
	OneShotCPUMs   []float64 `json:"oneshot_cpu_ms"`
	NeovimCPUMs    []float64 `json:"neovim_cpu_ms"`
	// Saving too: apply_changeset with save: true (its preview untimed),
	// and Neovim's apply_workspace_edit then :write (wall and CPU).
	ApplySaveMs      []float64 `json:"apply_save_ms"`
	ApplySaveCPUMs   []float64 `json:"apply_save_cpu_ms"`
	ApplySaveGoCPUMs []float64 `json:"apply_save_go_cpu_ms"` // nvbridge's process alone
	NeovimWriteMs    []float64 `json:"neovim_write_ms"`
	NeovimWriteCPUMs []float64 `json:"neovim_write_cpu_ms"`
	// The request alone: edit_buffer with the same 1,000 edits (60 KB of
	// arguments) refused at once (no file named): the MCP exchange and the
	// decoding of the preview's request, which the preview cannot go
	// under (wall, and CPU of nvbridge and its Neovim).
	RequestMs    []float64 `json:"request_ms,omitempty"`
	RequestCPUMs []float64 `json:"request_cpu_ms,omitempty"`
	// The sizes of the preview's and the apply's answers (bytes of their
	// structured content).
	PreviewBytes int `json:"preview_bytes"`
	ApplyBytes   int `json:"apply_bytes"`
}

const (
	bigLines = 100_000
	bigEdits = 1_000
)

// BigEdit measures the big edit through nvbridge (MCP, embedded Neovim)
// and through Neovim alone, interleaved, rounds times: each round applies
// the change and then its reverse on each side (the sides' order rotates),
// every call timed.
func BigEdit(ctx context.Context, o Options, rounds int) (*BigEditResult, error) {
	dir, err := os.MkdirTemp("", "nvbridge-bigedit-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var text strings.Builder
	for i := range bigLines {
		fmt.Fprintf(&text, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	path := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		return nil, err
	}
	// Two changes: every 100th line edited, and back. Each side applies
	// them in turn (as an agent applies one change after another), so
	// every change starts from the text the last one left.
	var lineEdits [2][]map[string]any
	var lspEdits [2][]protocol.TextEdit
	for i := range bigEdits {
		line := i * (bigLines / bigEdits)
		texts := [2]string{fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog", line), fmt.Sprintf("line %d: edited", line)}
		for d := range 2 {
			old, newText := texts[d], texts[1-d]
			lineEdits[d] = append(lineEdits[d], map[string]any{"line_start": line + 1, "line_end": line + 1, "new_text": newText})
			lspEdits[d] = append(lspEdits[d], protocol.TextEdit{NewText: newText, Range: protocol.Range{
				Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line), Character: uint32(len(old))}}})
		}
	}
	// Neovim's side edits its own copy (both sides save).
	nvPath := filepath.Join(dir, "big-neovim.txt")
	if err := os.WriteFile(nvPath, []byte(text.String()), 0o644); err != nil {
		return nil, err
	}
	var we [2]string
	for d := range 2 {
		b, _ := json.Marshal(protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{uri.File(nvPath): lspEdits[d]}})
		we[d] = string(b)
	}

	br, err := StartBridge(ctx, o.Binary, o.Repo, dir)
	if err != nil {
		return nil, err
	}
	defer br.Close()
	nv, err := nvim.NewChildProcess(nvim.ChildProcessCommand("nvim"), nvim.ChildProcessArgs("--embed", "--headless", "--clean", "-n", "-i", "NONE"),
		nvim.ChildProcessEnv(Env(o.Repo)), nvim.ChildProcessDir(dir))
	if err != nil {
		return nil, err
	}
	defer nv.Close()
	if err := nv.ExecLua(`vim.cmd.edit(vim.fn.fnameescape((...)))`, nil, nvPath); err != nil {
		return nil, err
	}
	const neovimApply = `local we, enc = ...
vim.lsp.util.apply_workspace_edit(vim.json.decode(we), enc)`
	const neovimApplyWrite = `local we, enc = ...
vim.lsp.util.apply_workspace_edit(vim.json.decode(we), enc)
vim.cmd('silent write')`
	var nvPID int
	if err := nv.ExecLua(`return vim.fn.getpid()`, &nvPID); err != nil {
		return nil, err
	}
	// A third Neovim runs nvbridge's apply.lua on its own copy.
	luaPath := filepath.Join(dir, "big-lua.txt")
	if err := os.WriteFile(luaPath, []byte(text.String()), 0o644); err != nil {
		return nil, err
	}
	lp, err := nvim.NewChildProcess(nvim.ChildProcessCommand("nvim"), nvim.ChildProcessArgs("--embed", "--headless", "--clean", "-n", "-i", "NONE"),
		nvim.ChildProcessEnv(Env(o.Repo)), nvim.ChildProcessDir(dir))
	if err != nil {
		return nil, err
	}
	defer lp.Close()
	var lpBuf, lpPID int
	if err := lp.ExecLua(`local repo, path = ...
vim.opt.rtp:prepend(repo)
require('nvbridge.bridge').setup()
local b = require('nvbridge.buffers').load(path)
return { b, vim.fn.getpid() }`, &[]*int{&lpBuf, &lpPID}, o.Repo, luaPath); err != nil {
		return nil, err
	}
	// The plan edit_buffer makes of each change: its ops last line first.
	var planOps [2][][]any
	for d := range 2 {
		for i := len(lspEdits[d]) - 1; i >= 0; i-- {
			e := lspEdits[d][i]
			planOps[d] = append(planOps[d], []any{e.Range.Start.Line, 0, e.Range.End.Line, e.Range.End.Character, e.NewText})
		}
	}
	const luaApply = `local plan = ...
plan.files[1].expect.changedtick = vim.b[plan.files[1].expect.bufnr].changedtick
local r = require('nvbridge.apply').apply(plan)
return r.err and r.err.message or ''`
	bridgePIDs := treePIDs(br.Cmd.Process.Pid)
	size := func(v any) int {
		b, _ := json.Marshal(v)
		return len(b)
	}
	res := &BigEditResult{Rounds: rounds}
	const kinds = 7
	for r := -1; r < rounds; r++ { // round -1: warm-up
		for k := range kinds {
			for d := range 2 {
				switch (r + kinds + k) % kinds {
				case 6:
					c0, start := cpuMs(bridgePIDs...), time.Now()
					if _, err := br.Call(ctx, "edit_buffer", map[string]any{"file": "", "edits": lineEdits[d]}); err == nil {
						return nil, fmt.Errorf("edit_buffer without a file was not refused")
					}
					if r >= 0 {
						res.RequestMs = append(res.RequestMs, ms(time.Since(start)))
						res.RequestCPUMs = append(res.RequestCPUMs, cpuMs(bridgePIDs...)-c0)
					}
				case 5:
					plan := map[string]any{"id": fmt.Sprintf("cs_lua_%d_%d", r, d), "guard": map[string]any{"root": dir, "channel": 0},
						"files": []any{map[string]any{"path": luaPath, "kind": "edit", "ops": planOps[d], "line_count": bigLines,
							"expect": map[string]any{"loaded": true, "bufnr": lpBuf}}}}
					var msg string
					c0, start := cpuMs(lpPID), time.Now()
					if err := lp.ExecLua(luaApply, &msg, plan); err != nil {
						return nil, err
					}
					if msg != "" {
						return nil, fmt.Errorf("apply.lua: %s", msg)
					}
					if r >= 0 {
						res.LuaPlanMs = append(res.LuaPlanMs, ms(time.Since(start)))
						res.LuaPlanCPUMs = append(res.LuaPlanCPUMs, cpuMs(lpPID)-c0)
					}
				case 4:
					out, err := br.Call(ctx, "edit_buffer", map[string]any{"file": "big.txt", "edits": lineEdits[d]})
					if err != nil {
						return nil, err
					}
					id, _ := out["changeset_id"].(string)
					g0, c0, start := cpuMs(bridgePIDs[0]), cpuMs(bridgePIDs...), time.Now()
					if _, err := br.Call(ctx, "apply_changeset", map[string]any{"changeset_id": id, "save": true}); err != nil {
						return nil, err
					}
					if r >= 0 {
						res.ApplySaveMs = append(res.ApplySaveMs, ms(time.Since(start)))
						res.ApplySaveCPUMs = append(res.ApplySaveCPUMs, cpuMs(bridgePIDs...)-c0)
						res.ApplySaveGoCPUMs = append(res.ApplySaveGoCPUMs, cpuMs(bridgePIDs[0])-g0)
					}
				case 0:
					g0, c0, start := cpuMs(bridgePIDs[0]), cpuMs(bridgePIDs...), time.Now()
					out, err := br.Call(ctx, "edit_buffer", map[string]any{"file": "big.txt", "edits": lineEdits[d]})
					if err != nil {
						return nil, err
					}
					preview, c1, g1 := ms(time.Since(start)), cpuMs(bridgePIDs...), cpuMs(bridgePIDs[0])
					id, _ := out["changeset_id"].(string)
					start = time.Now()
					applied, err := br.Call(ctx, "apply_changeset", map[string]any{"changeset_id": id})
					if err != nil {
						return nil, err
					}
					apply, c2, g2 := ms(time.Since(start)), cpuMs(bridgePIDs...), cpuMs(bridgePIDs[0])
					if r >= 0 {
						res.PreviewMs = append(res.PreviewMs, preview)
						res.ApplyMs = append(res.ApplyMs, apply)
						res.PreviewCPUMs = append(res.PreviewCPUMs, c1-c0)
						res.ApplyCPUMs = append(res.ApplyCPUMs, c2-c1)
						res.PreviewGoCPUMs = append(res.PreviewGoCPUMs, g1-g0)
						res.ApplyGoCPUMs = append(res.ApplyGoCPUMs, g2-g1)
						res.PreviewBytes, res.ApplyBytes = size(out), size(applied)
					}
				case 1:
					c0, start := cpuMs(bridgePIDs...), time.Now()
					if _, err := br.Call(ctx, "edit_buffer", map[string]any{"file": "big.txt", "edits": lineEdits[d], "preview": false}); err != nil {
						return nil, err
					}
					if r >= 0 {
						res.OneShotMs = append(res.OneShotMs, ms(time.Since(start)))
						res.OneShotCPUMs = append(res.OneShotCPUMs, cpuMs(bridgePIDs...)-c0)
					}
				case 3:
					c0, start := cpuMs(nvPID), time.Now()
					if err := nv.ExecLua(neovimApplyWrite, nil, we[d], "utf-16"); err != nil {
						return nil, err
					}
					if r >= 0 {
						res.NeovimWriteMs = append(res.NeovimWriteMs, ms(time.Since(start)))
						res.NeovimWriteCPUMs = append(res.NeovimWriteCPUMs, cpuMs(nvPID)-c0)
					}
				default:
					c0, start := cpuMs(nvPID), time.Now()
					if err := nv.ExecLua(neovimApply, nil, we[d], "utf-16"); err != nil {
						return nil, err
					}
					if r >= 0 {
						res.NeovimMs = append(res.NeovimMs, ms(time.Since(start)))
						res.NeovimCPUMs = append(res.NeovimCPUMs, cpuMs(nvPID)-c0)
					}
				}
			}
		}
	}
	return res, nil
}

// BigEditTable renders a BigEditResult.
func BigEditTable(r *BigEditResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n== 1,000 edits in a 100,000-line file through MCP (%d rounds, each a change and its reverse)\n", r.Rounds)
	row := func(name string, xs []float64) {
		fmt.Fprintf(&b, "%-48s p50 %7.1f ms  p25-p75 %7.1f-%-7.1f\n", name, Quantile(xs, .5), Quantile(xs, .25), Quantile(xs, .75))
	}
	row("edit_buffer preview (nvbridge)", r.PreviewMs)
	row("apply_changeset (nvbridge)", r.ApplyMs)
	row("edit_buffer preview: false (nvbridge)", r.OneShotMs)
	row("apply_workspace_edit over RPC (Neovim)", r.NeovimMs)
	row("nvbridge's plan alone (apply.lua over RPC)", r.LuaPlanMs)
	row("the preview's request alone (refused at once)", r.RequestMs)
	row("apply_changeset save: true (nvbridge)", r.ApplySaveMs)
	row("apply_workspace_edit + :write (Neovim)", r.NeovimWriteMs)
	row("CPU: edit_buffer preview (nvbridge+its Neovim)", r.PreviewCPUMs)
	row("CPU: apply_changeset (nvbridge+its Neovim)", r.ApplyCPUMs)
	row("CPU: edit_buffer preview (nvbridge alone)", r.PreviewGoCPUMs)
	row("CPU: apply_changeset (nvbridge alone)", r.ApplyGoCPUMs)
	row("CPU: preview: false (nvbridge+its Neovim)", r.OneShotCPUMs)
	row("CPU: apply_workspace_edit (Neovim)", r.NeovimCPUMs)
	row("CPU: nvbridge's plan alone (its Neovim)", r.LuaPlanCPUMs)
	row("CPU: the preview's request alone (nvbridge+its Neovim)", r.RequestCPUMs)
	row("CPU: apply_changeset save: true (nvbridge+its Neovim)", r.ApplySaveCPUMs)
	row("CPU: apply_changeset save: true (nvbridge alone)", r.ApplySaveGoCPUMs)
	row("CPU: apply_workspace_edit + :write (Neovim)", r.NeovimWriteCPUMs)
	lo, hi := RatioInterval(r.ApplyMs, r.NeovimMs)
	fmt.Fprintf(&b, "apply x%.2f (90%%: x%.2f-x%.2f)", Quantile(r.ApplyMs, .5)/Quantile(r.NeovimMs, .5), lo, hi)
	both := make([]float64, len(r.ApplyMs))
	for i := range both {
		both[i] = r.ApplyMs[i] + r.PreviewMs[i]
	}
	lo, hi = RatioInterval(both, r.NeovimMs)
	fmt.Fprintf(&b, "; preview+apply x%.2f (90%%: x%.2f-x%.2f); answers: preview %d B, apply %d B\n",
		Quantile(both, .5)/Quantile(r.NeovimMs, .5), lo, hi, r.PreviewBytes, r.ApplyBytes)
	if len(r.NeovimWriteMs) > 0 && len(r.ApplySaveMs) > 0 {
		lo, hi = RatioInterval(r.ApplySaveMs, r.NeovimWriteMs)
		fmt.Fprintf(&b, "both saving (apply_changeset save: true against apply_workspace_edit + :write): apply x%.2f (90%%: x%.2f-x%.2f)", Quantile(r.ApplySaveMs, .5)/Quantile(r.NeovimWriteMs, .5), lo, hi)
		lo, hi = RatioInterval(r.ApplySaveCPUMs, r.NeovimWriteCPUMs)
		fmt.Fprintf(&b, "; CPU x%.2f (90%%: x%.2f-x%.2f)\n", Quantile(r.ApplySaveCPUMs, .5)/Quantile(r.NeovimWriteCPUMs, .5), lo, hi)
	}
	lo, hi = RatioInterval(r.ApplyCPUMs, r.NeovimCPUMs)
	fmt.Fprintf(&b, "CPU: apply x%.2f (90%%: x%.2f-x%.2f)", Quantile(r.ApplyCPUMs, .5)/Quantile(r.NeovimCPUMs, .5), lo, hi)
	bothCPU := make([]float64, len(r.ApplyCPUMs))
	for i := range bothCPU {
		bothCPU[i] = r.ApplyCPUMs[i] + r.PreviewCPUMs[i]
	}
	lo, hi = RatioInterval(bothCPU, r.NeovimCPUMs)
	fmt.Fprintf(&b, "; preview+apply x%.2f (90%%: x%.2f-x%.2f)\n", Quantile(bothCPU, .5)/Quantile(r.NeovimCPUMs, .5), lo, hi)
	return b.String()
}
