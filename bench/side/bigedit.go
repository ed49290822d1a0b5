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
// and through Neovim alone, interleaved, rounds times; each apply is undone
// outside the timer.
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
	var lineEdits []map[string]any
	var lspEdits []protocol.TextEdit
	for i := range bigEdits {
		line := i * (bigLines / bigEdits)
		old := fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog", line)
		newText := fmt.Sprintf("line %d: edited", line)
		lineEdits = append(lineEdits, map[string]any{"line_start": line + 1, "line_end": line + 1, "new_text": newText})
		lspEdits = append(lspEdits, protocol.TextEdit{NewText: newText, Range: protocol.Range{
			Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line), Character: uint32(len(old))}}})
	}
	we, _ := json.Marshal(protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{uri.File(path): lspEdits}})

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
	if err := nv.ExecLua(`vim.cmd.edit(vim.fn.fnameescape((...)))`, nil, path); err != nil {
		return nil, err
	}
	const neovimApply = `local we, enc = ...
vim.lsp.util.apply_workspace_edit(vim.json.decode(we), enc)`
	const neovimUndo = `vim.cmd('silent undo')`
	undo := func() error {
		_, err := br.Call(ctx, "undo", map[string]any{"file": "big.txt"})
		return err
	}
	size := func(v any) int {
		b, _ := json.Marshal(v)
		return len(b)
	}
	res := &BigEditResult{Rounds: rounds}
	for r := -1; r < rounds; r++ { // round -1: warm-up
		for k := range 3 {
			switch (r + 3 + k) % 3 {
			case 0:
				start := time.Now()
				out, err := br.Call(ctx, "edit_buffer", map[string]any{"file": "big.txt", "edits": lineEdits})
				if err != nil {
					return nil, err
				}
				preview := ms(time.Since(start))
				id, _ := out["changeset_id"].(string)
				start = time.Now()
				applied, err := br.Call(ctx, "apply_changeset", map[string]any{"changeset_id": id})
				if err != nil {
					return nil, err
				}
				apply := ms(time.Since(start))
				if err := undo(); err != nil {
					return nil, err
				}
				if r >= 0 {
					res.PreviewMs = append(res.PreviewMs, preview)
					res.ApplyMs = append(res.ApplyMs, apply)
					res.PreviewBytes, res.ApplyBytes = size(out), size(applied)
				}
			case 1:
				start := time.Now()
				if _, err := br.Call(ctx, "edit_buffer", map[string]any{"file": "big.txt", "edits": lineEdits, "preview": false}); err != nil {
					return nil, err
				}
				d := ms(time.Since(start))
				if err := undo(); err != nil {
					return nil, err
				}
				if r >= 0 {
					res.OneShotMs = append(res.OneShotMs, d)
				}
			default:
				start := time.Now()
				if err := nv.ExecLua(neovimApply, nil, string(we), "utf-16"); err != nil {
					return nil, err
				}
				d := ms(time.Since(start))
				if err := nv.ExecLua(neovimUndo, nil); err != nil {
					return nil, err
				}
				if r >= 0 {
					res.NeovimMs = append(res.NeovimMs, d)
				}
			}
		}
	}
	return res, nil
}

// BigEditTable renders a BigEditResult.
func BigEditTable(r *BigEditResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n== 1,000 edits in a 100,000-line file through MCP (%d rounds)\n", r.Rounds)
	row := func(name string, xs []float64) {
		fmt.Fprintf(&b, "%-48s p50 %7.1f ms  p25-p75 %7.1f-%-7.1f\n", name, Quantile(xs, .5), Quantile(xs, .25), Quantile(xs, .75))
	}
	row("edit_buffer preview (nvbridge)", r.PreviewMs)
	row("apply_changeset (nvbridge)", r.ApplyMs)
	row("edit_buffer preview: false (nvbridge)", r.OneShotMs)
	row("apply_workspace_edit over RPC (Neovim)", r.NeovimMs)
	lo, hi := RatioInterval(r.ApplyMs, r.NeovimMs)
	fmt.Fprintf(&b, "apply x%.2f (90%%: x%.2f-x%.2f)", Quantile(r.ApplyMs, .5)/Quantile(r.NeovimMs, .5), lo, hi)
	both := make([]float64, len(r.ApplyMs))
	for i := range both {
		both[i] = r.ApplyMs[i] + r.PreviewMs[i]
	}
	lo, hi = RatioInterval(both, r.NeovimMs)
	fmt.Fprintf(&b, "; preview+apply x%.2f (90%%: x%.2f-x%.2f); answers: preview %d B, apply %d B\n",
		Quantile(both, .5)/Quantile(r.NeovimMs, .5), lo, hi, r.PreviewBytes, r.ApplyBytes)
	return b.String()
}
