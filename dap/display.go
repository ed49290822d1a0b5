package dap

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/nvim"
)

// Display shows the debug sessions in Neovim (lua/nvbridge/debug_ui.lua):
// breakpoint signs and the stopped line as extmarks in nvbridge's own
// namespace, cleared when the sessions end, and the panel :NvbridgeDebug
// opens (where the program stopped, the stack, the locals) with the
// controls a person uses to take over. A control from Neovim arrives as
// the notification nvbridge_debug_action and runs exactly as the agent's
// control_execution does.
type Display struct {
	nv *nvim.Session
	m  *Manager

	mu     sync.Mutex // one render at a time
	dirty  chan struct{}
	closed chan struct{}
	once   sync.Once
}

// NewDisplay returns a display in the Neovim of s; nil s gives nil.
func NewDisplay(s *nvim.Session) *Display {
	if s == nil {
		return nil
	}
	return &Display{nv: s, dirty: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (d *Display) attach(m *Manager) {
	d.m = m
	if err := d.nv.Handle("nvbridge_debug_action", d.onAction); err != nil {
		m.logf("dap: register nvbridge_debug_action: %v", err)
	}
	safego.Go("the debug display loop", d.loop, nil)
}

// poke asks for a render soon (events from the adapter, user actions).
func (d *Display) poke() {
	select {
	case d.dirty <- struct{}{}:
	default:
	}
}

func (d *Display) loop() {
	for {
		select {
		case <-d.dirty:
		case <-d.closed:
			return
		case <-d.nv.Done():
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		// A panic in one render costs that render, not the display.
		_ = safego.Call("rendering the debug display", func() { d.sync(ctx) })
		cancel()
	}
}

// sync renders the current state now.
func (d *Display) sync(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	view := d.view(ctx)
	body, err := json.Marshal(view)
	if err != nil {
		return
	}
	if err := d.nv.DebugRender(ctx, string(body)); err != nil {
		d.m.logf("dap: display: %v", err)
	}
}

func (d *Display) clear(ctx context.Context) {
	d.once.Do(func() { close(d.closed) })
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.nv.DebugClear(ctx)
}

// onAction runs a control from :NvbridgeDebug (a notification: it must
// not block the notification loop).
func (d *Display) onAction(args ...any) {
	if len(args) < 2 {
		return
	}
	id, _ := args[0].(string)
	action, _ := args[1].(string)
	safego.Go("a :NvbridgeDebug action", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var err error
		if action == "stop" {
			_, err = d.m.Stop(ctx, id)
		} else {
			_, err = d.m.Control(ctx, id, action, 0, 30*time.Second, "user")
		}
		if err != nil {
			d.m.logf("dap: %s from Neovim: %v", action, err)
			msg := fmt.Sprintf("nvbridge debug: %s: %v", action, err)
			_ = d.nv.DebugNotify(ctx, msg)
		}
	}, nil)
}

type displayView struct {
	Channel  int           `json:"channel"`
	Sessions []sessionView `json:"sessions"`
}

type sessionView struct {
	ID          string     `json:"id"`
	Language    string     `json:"language"`
	Program     string     `json:"program"`
	State       State      `json:"state"`
	Stopped     *markView  `json:"stopped,omitempty"`
	Breakpoints []markView `json:"breakpoints"`
	Panel       []string   `json:"panel"`
	Last        *Action    `json:"last_action,omitempty"`
}

type markView struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Verified bool   `json:"verified"`
	Kind     string `json:"kind,omitempty"`
}

// stopView caches the panel text of one stop (stack and locals are read
// from the adapter once per stop).
type stopView struct {
	stops int
	loc   *markView
	panel []string
}

func (d *Display) view(ctx context.Context) displayView {
	v := displayView{Channel: d.nv.Channel(), Sessions: []sessionView{}}
	for _, s := range d.m.sessionList() {
		v.Sessions = append(v.Sessions, s.view(ctx))
	}
	return v
}

func (s *Session) view(ctx context.Context) sessionView {
	s.mu.Lock()
	sv := sessionView{ID: s.ID, Language: s.adapter.Language, Program: s.program, State: s.state, Breakpoints: []markView{}, Last: s.lastDone}
	for file, list := range s.bps {
		for _, b := range list {
			kind := "breakpoint"
			switch {
			case b.LogMessage != "":
				kind = "log"
			case b.Condition != "" || b.HitCondition != "":
				kind = "conditional"
			}
			line := b.Line
			if b.ActualLine != 0 {
				line = b.ActualLine
			}
			sv.Breakpoints = append(sv.Breakpoints, markView{File: file, Line: line, Verified: b.Verified, Kind: kind})
		}
	}
	stopped, stops, cache := s.state == StateStopped, s.stops, s.stopCache
	exit, endErr := s.exitCode, s.endErr
	s.mu.Unlock()
	header := fmt.Sprintf("session %s  %s  %s  [%s]", s.ID, s.adapter.Name, s.program, sv.State)
	if !stopped {
		sv.Panel = []string{header}
		switch {
		case endErr != nil:
			sv.Panel = append(sv.Panel, "ended: "+endErr.Message)
		case exit != nil:
			sv.Panel = append(sv.Panel, fmt.Sprintf("the program exited with code %d", *exit))
		case sv.State == StateRunning:
			sv.Panel = append(sv.Panel, "running…  (p: pause, x: stop)")
		}
		return sv
	}
	if cache == nil || cache.stops != stops {
		cache = s.stopPanel(ctx, stops)
		s.mu.Lock()
		if s.stops == stops {
			s.stopCache = cache
		}
		s.mu.Unlock()
	}
	sv.Stopped = cache.loc
	sv.Panel = append([]string{header}, cache.panel...)
	return sv
}

// stopPanel reads the stack and the locals of the current stop.
func (s *Session) stopPanel(ctx context.Context, stops int) *stopView {
	c := &stopView{stops: stops}
	in, err := s.Inspect(ctx, InspectRequest{Depth: 1})
	if err != nil {
		c.panel = []string{"cannot read the program's state: " + err.Error()}
		return c
	}
	s.mu.Lock()
	reason := ""
	if s.stop != nil {
		reason = s.stop.Reason
	}
	s.mu.Unlock()
	if len(in.Stack) > 0 {
		top := in.Stack[0]
		if top.abs != "" {
			c.loc = &markView{File: top.abs, Line: top.Line}
		}
		c.panel = append(c.panel, fmt.Sprintf("stopped (%s) at %s:%d in %s", reason, top.File, top.Line, top.Function))
	}
	c.panel = append(c.panel, "", "Stack:")
	for _, f := range in.Stack {
		if f.Index >= 10 {
			c.panel = append(c.panel, fmt.Sprintf("  … %d more", len(in.Stack)-10))
			break
		}
		c.panel = append(c.panel, fmt.Sprintf("  #%d %s  %s:%d", f.Index, f.Function, f.File, f.Line))
	}
	for _, sc := range in.Scopes {
		if !sc.Expanded {
			continue
		}
		c.panel = append(c.panel, "", sc.Name+":")
		for _, v := range sc.Variables {
			c.panel = append(c.panel, "  "+oneLine(fmt.Sprintf("%s = %s", v.Name, v.Value)))
		}
		if sc.More > 0 {
			c.panel = append(c.panel, fmt.Sprintf("  … %d more", sc.More))
		}
	}
	c.panel = append(c.panel, "", "c: continue  n: step over  s: step into  o: step out  p: pause  x: stop  q: close")
	return c
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "\\n")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}
