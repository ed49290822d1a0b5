package side

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/internal/safego"
)

// ResponsiveResult: a user's Neovim (attached mode, its own gopls) while
// an agent works through nvbridge, against the same Neovim idle, in
// alternating windows.
type ResponsiveResult struct {
	Windows  int     `json:"windows"`   // windows of each kind
	WindowS  float64 `json:"window_s"`  // seconds per window
	AgentOps int     `json:"agent_ops"` // agent calls answered during the load windows
	// RPC round trips of a user-side client (nvim_eval("1")) every 5 ms.
	IdleRPCMs []float64 `json:"idle_rpc_ms"`
	LoadRPCMs []float64 `json:"load_rpc_ms"`
	// With a UI attached (a second client, ext_linegrid): from
	// nvim_input of a cursor motion (j, k in turn) to the end of its
	// redraw (the flush event), every 20 ms.
	IdleRedrawMs []float64 `json:"idle_redraw_ms"`
	LoadRedrawMs []float64 `json:"load_redraw_ms"`
	// The control: the same requests sent straight to a second gopls by a
	// minimal client, the user's Neovim not involved: what the load's
	// competition for the machine's 2 cores alone costs the user.
	ControlRPCMs    []float64 `json:"control_rpc_ms"`
	ControlRedrawMs []float64 `json:"control_redraw_ms"`
	ControlOps      int       `json:"control_ops"`
	// The agent's calls' own times (ms) during the load windows.
	AgentMs []float64 `json:"agent_ms"`
}

// Responsive measures how the user's Neovim answers while an agent runs
// depth-3 call hierarchies (incoming and outgoing) and understand_symbol
// in a loop through nvbridge attached to it: windows seconds each, idle
// and loaded in turn, windows of each.
func Responsive(ctx context.Context, o Options, m *Module, windows int, window time.Duration) (*ResponsiveResult, error) {
	u, err := startUserNeovim(o, m)
	if err != nil {
		return nil, err
	}
	defer u.close()
	br, err := StartBridge(ctx, o.Binary, o.Repo, m.Root, "--nvim", u.sock)
	if err != nil {
		return nil, err
	}
	defer br.Close()
	// The UI: a second client attached as a remote UI.
	ui, err := nvim.Dial(u.sock)
	if err != nil {
		return nil, err
	}
	defer ui.Close()
	flushed := make(chan struct{}, 16)
	if err := ui.RegisterHandler("redraw", func(updates ...[]any) {
		for _, up := range updates {
			if len(up) > 0 && up[0] == "flush" {
				select {
				case flushed <- struct{}{}:
				default:
				}
			}
		}
	}); err != nil {
		return nil, err
	}
	if err := ui.AttachUI(120, 40, map[string]any{"ext_linegrid": true, "rgb": true}); err != nil {
		return nil, err
	}
	defer func() { _ = ui.DetachUI() }()
	// The user's cursor in the middle of the file, so j and k both move.
	if err := u.v.ExecLua(`vim.api.nvim_win_set_cursor(0, {math.floor(vim.api.nvim_buf_line_count(0) / 2), 0})`, nil); err != nil {
		return nil, err
	}
	pos := map[string]any{"file": m.Decl.File, "line": m.Decl.Line, "column": m.Decl.Col}
	with := func(kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range pos {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"get_call_hierarchy", with("direction", "incoming", "depth", 3)},
		{"understand_symbol", pos},
		{"get_call_hierarchy", with("direction", "outgoing", "depth", 3)},
	}
	// The control's gopls, loaded, and its requests.
	st, err := StartStraight(ctx, m.Root)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	loadCtx, cancelLoad := context.WithTimeout(ctx, 10*time.Minute)
	defer cancelLoad()
	if err := st.WaitLoaded(loadCtx); err != nil {
		return nil, err
	}
	sops := sideOps(m, st, nil)
	var control []sideFunc
	for _, name := range []string{"calls_incoming_depth3", "understand_symbol", "calls_outgoing_depth3"} {
		f, ok := sops[name]
		if !ok {
			return nil, fmt.Errorf("no straight op %s", name)
		}
		control = append(control, f)
	}
	// Warm: every call answered once, the UI drawn.
	for i, c := range calls {
		if _, err := br.Call(ctx, c.tool, c.args); err != nil {
			return nil, fmt.Errorf("%s: %w", c.tool, err)
		}
		if _, err := control[i](ctx, 0); err != nil {
			return nil, fmt.Errorf("straight %s: %w", c.tool, err)
		}
	}
	drain := func() {
		for {
			select {
			case <-flushed:
			default:
				return
			}
		}
	}
	res := &ResponsiveResult{Windows: windows, WindowS: window.Seconds()}
	motion := 0
	for w := 0; w < 3*windows; w++ {
		// idle, nvbridge's agent, the control, in turn.
		kind := w % 3
		loaded := kind == 1
		wctx, cancel := context.WithTimeout(ctx, window)
		var wg sync.WaitGroup
		var agentMu sync.Mutex
		var ops atomic.Int64
		var agentErr error
		if kind == 2 {
			wg.Add(1)
			safego.Go("the control's requests", func() {
				defer wg.Done()
				for i := 0; wctx.Err() == nil; i++ {
					if _, err := control[i%len(control)](ctx, i); err != nil {
						agentMu.Lock()
						agentErr = fmt.Errorf("straight: %w", err)
						agentMu.Unlock()
						return
					}
					ops.Add(1)
				}
			}, nil)
		}
		if loaded {
			wg.Add(1)
			safego.Go("the agent's calls", func() {
				defer wg.Done()
				for i := 0; wctx.Err() == nil; i++ {
					c := calls[i%len(calls)]
					start := time.Now()
					_, err := br.Call(ctx, c.tool, c.args)
					if err != nil {
						agentMu.Lock()
						agentErr = fmt.Errorf("%s: %w", c.tool, err)
						agentMu.Unlock()
						return
					}
					agentMu.Lock()
					res.AgentMs = append(res.AgentMs, ms(time.Since(start)))
					agentMu.Unlock()
					ops.Add(1)
				}
			}, nil)
		}
		// The user's RPC client and the UI, side by side.
		var rpc, redraw []float64
		var rpcErr, uiErr error
		wg.Add(2)
		safego.Go("the user's RPC client", func() {
			defer wg.Done()
			for wctx.Err() == nil {
				start := time.Now()
				var one int
				if err := u.v.Eval("1", &one); err != nil {
					rpcErr = err
					return
				}
				rpc = append(rpc, ms(time.Since(start)))
				time.Sleep(5 * time.Millisecond) // the sampling interval
			}
		}, nil)
		safego.Go("the user's UI", func() {
			defer wg.Done()
			for wctx.Err() == nil {
				drain()
				keys := []string{"j", "k"}[motion%2]
				motion++
				start := time.Now()
				if _, err := ui.Input(keys); err != nil {
					uiErr = err
					return
				}
				select {
				case <-flushed:
					redraw = append(redraw, ms(time.Since(start)))
				case <-time.After(5 * time.Second):
					uiErr = fmt.Errorf("no redraw within 5 s of %q", keys)
					return
				}
				time.Sleep(20 * time.Millisecond) // the sampling interval
			}
		}, nil)
		wg.Wait()
		cancel()
		for _, err := range []error{agentErr, rpcErr, uiErr} {
			if err != nil {
				return nil, err
			}
		}
		switch kind {
		case 1:
			res.LoadRPCMs = append(res.LoadRPCMs, rpc...)
			res.LoadRedrawMs = append(res.LoadRedrawMs, redraw...)
			res.AgentOps += int(ops.Load())
		case 2:
			res.ControlRPCMs = append(res.ControlRPCMs, rpc...)
			res.ControlRedrawMs = append(res.ControlRedrawMs, redraw...)
			res.ControlOps += int(ops.Load())
		default:
			res.IdleRPCMs = append(res.IdleRPCMs, rpc...)
			res.IdleRedrawMs = append(res.IdleRedrawMs, redraw...)
		}
		o.Logf("%s: responsiveness window %d/%d (%s): rpc p99 %.1f ms, redraw p99 %.1f ms, agent calls %d", m.Name, w+1, 3*windows,
			[]string{"idle", "agent working", "control: the same requests straight to a gopls"}[kind], Quantile(rpc, .99), Quantile(redraw, .99), ops.Load())
	}
	return res, nil
}

// ResponsiveTable renders a ResponsiveResult.
func ResponsiveTable(m *Module, r *ResponsiveResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n== the user's Neovim under agent load on %s (attached; %d windows each of idle, agent, control, %.0f s, in turn; %d agent calls, %d control calls)\n",
		m.Name, r.Windows, r.WindowS, r.AgentOps, r.ControlOps)
	row := func(name string, xs []float64) {
		fmt.Fprintf(&b, "%-40s n %5d  p50 %6.2f ms  p90 %6.2f  p99 %6.2f  max %7.2f\n", name, len(xs), Quantile(xs, .5), Quantile(xs, .9), Quantile(xs, .99), Quantile(xs, 1))
	}
	row("user RPC round trip, idle", r.IdleRPCMs)
	row("user RPC round trip, agent working", r.LoadRPCMs)
	row("input to redraw (UI), idle", r.IdleRedrawMs)
	row("input to redraw (UI), agent working", r.LoadRedrawMs)
	row("user RPC round trip, control load", r.ControlRPCMs)
	row("input to redraw (UI), control load", r.ControlRedrawMs)
	row("agent calls (their own time)", r.AgentMs)
	return b.String()
}
