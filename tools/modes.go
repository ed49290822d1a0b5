package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/apierr"
)

// Modes: which tools a session shows. explore shows the read-only tools,
// edit adds the writing ones (changesets, refactorings), debug adds the
// debugging ones (DAP), all (the default) shows everything. A tool's
// family is read from what it is, never from a list kept by hand: a debug
// tool is one of debugTools; any other tool whose readOnlyHint is false is
// a writing (edit) tool; the rest explore. So tools added later fall into
// the right mode by themselves. The session tools (get_status, set_mode,
// suggest_tools) show in every mode.
//
// The start mode (--mode) is a ceiling: set_mode switches only between the
// modes whose tools it shows (explore and edit under edit; explore and
// debug under debug; any under all), so an agent cannot widen what the
// user chose.
//
// Read-only (--read-only) is stronger than a mode: every writing tool is
// refused, even when called by name, and no mode brings it back.
const (
	ModeExplore = "explore"
	ModeEdit    = "edit"
	ModeDebug   = "debug"
	ModeAll     = "all"
)

// ModeNames lists the modes.
var ModeNames = []string{ModeExplore, ModeEdit, ModeDebug, ModeAll}

// Modes is a session's mode, its ceiling and the read-only switch. Safe
// for concurrent use.
type Modes struct {
	mu       sync.Mutex
	mode     string
	ceiling  string // the start mode: set may not show more
	readOnly bool
}

// NewModes checks mode ("" is all), which is also the ceiling.
func NewModes(mode string, readOnly bool) (*Modes, error) {
	if mode == "" {
		mode = ModeAll
	}
	if !slices.Contains(ModeNames, mode) {
		return nil, apierr.Errorf(apierr.InvalidParameter, "pass one of "+strings.Join(ModeNames, ", "), "unknown mode %q", mode)
	}
	return &Modes{mode: mode, ceiling: mode, readOnly: readOnly}, nil
}

// Ceiling returns the start mode, the widest set may choose.
func (m *Modes) Ceiling() string {
	if m == nil {
		return ModeAll
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ceiling
}

// Get returns the mode and the read-only switch.
func (m *Modes) Get() (mode string, readOnly bool) {
	if m == nil {
		return ModeAll, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mode, m.readOnly
}

func (m *Modes) set(mode string) (previous string, err error) {
	if _, err := NewModes(mode, false); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !within(mode, m.ceiling) {
		return "", apierr.Errorf(apierr.PreconditionFailed,
			fmt.Sprintf("the start mode is a ceiling no call can raise: ask the user to %s; meanwhile set_mode accepts %s", restartFor(mode), strings.Join(modesWithin(m.ceiling), ", ")),
			"mode %s shows more tools than this nvbridge was started with (--mode %s)", mode, m.ceiling)
	}
	previous, m.mode = m.mode, mode
	return previous, nil
}

// familyNames lists every tool family, for comparing what modes show.
var familyNames = []string{"session", "explore", "edit", "debug"}

// within reports whether ceiling shows every family mode shows: the
// modes set may choose (explore ⊂ edit ⊂ all, explore ⊂ debug ⊂ all).
func within(mode, ceiling string) bool {
	for _, fam := range familyNames {
		if visible(mode, fam) && !visible(ceiling, fam) {
			return false
		}
	}
	return true
}

// modesWithin lists the modes set may choose under ceiling.
func modesWithin(ceiling string) []string {
	var out []string
	for _, m := range ModeNames {
		if within(m, ceiling) {
			out = append(out, m)
		}
	}
	return out
}

// restartFor says how the user lifts the ceiling to what mode shows.
func restartFor(mode string) string {
	if mode == ModeAll {
		return "restart nvbridge with --mode all"
	}
	return fmt.Sprintf("restart nvbridge with --mode all (or --mode %s)", mode)
}

// family of a tool: "session", "debug", "edit" or "explore".
type families map[string]string

func toolFamilies(env *Env) families {
	f := families{}
	for _, t := range debugTools(env) {
		f[t.Tool.Name] = "debug"
	}
	for _, t := range sessionTools(env) {
		f[t.Tool.Name] = "session"
	}
	return f
}

func (f families) of(t mcp.Tool) string {
	if fam, ok := f[t.Name]; ok {
		return fam
	}
	if t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint {
		return "explore"
	}
	return "edit"
}

// Refusal says why the mode or read-only forbids calling t (the same
// answer an MCP session gives), nil when it may be called. The CLI's call
// and daemon check each call with it.
func (m *Modes) Refusal(env *Env, t Tool) error {
	return m.refusal(toolFamilies(env), t.Tool)
}

// refusal says why a tool cannot be called now, nil when it can.
func (m *Modes) refusal(f families, t mcp.Tool) error {
	mode, readOnly := m.Get()
	fam := f.of(t)
	if readOnly && fam != "session" && (t.Annotations.ReadOnlyHint == nil || !*t.Annotations.ReadOnlyHint) {
		return apierr.Errorf(apierr.PreconditionFailed,
			"this nvbridge was started with --read-only: nothing can be changed through it; use the read-only tools (find_references, get_diagnostics, ...), or restart it without --read-only",
			"%s changes buffers or files, and this nvbridge is read-only", t.Name)
	}
	if !visible(mode, fam) {
		ceiling := m.Ceiling()
		if !visible(ceiling, fam) {
			return apierr.Errorf(apierr.PreconditionFailed,
				fmt.Sprintf("this nvbridge was started with --mode %s, a ceiling set_mode cannot raise: ask the user to %s", ceiling, restartFor(modeFor(fam))),
				"%s is not available in mode %s", t.Name, mode)
		}
		how := fmt.Sprintf("call set_mode {\"mode\": %q}", modeFor(fam))
		if within(ModeAll, ceiling) {
			how += " (or \"all\")"
		}
		return apierr.Errorf(apierr.PreconditionFailed, how+" first", "%s is not available in mode %s", t.Name, mode)
	}
	return nil
}

func visible(mode, family string) bool {
	switch {
	case family == "session" || mode == ModeAll:
		return true
	case family == "explore":
		return true
	case family == "edit":
		return mode == ModeEdit
	case family == "debug":
		return mode == ModeDebug
	}
	return false
}

func modeFor(family string) string {
	switch family {
	case "edit":
		return ModeEdit
	case "debug":
		return ModeDebug
	}
	return ModeExplore
}

// modeHooks make tools/list show only the tools the mode shows (and no
// writing tool when read-only). A hook on the list, not mcp-go's tool
// filter: that filter also hides a tool from tools/call, which would
// answer "tool not found" where modeGuard answers why and what to do.
func modeHooks(env *Env, f families) *server.Hooks {
	h := &server.Hooks{}
	h.AddAfterListTools(func(ctx context.Context, id any, _ *mcp.ListToolsRequest, result *mcp.ListToolsResult) {
		if result == nil {
			return
		}
		out := make([]mcp.Tool, 0, len(result.Tools))
		for _, t := range result.Tools {
			if env.Modes.refusal(f, t) == nil {
				out = append(out, t)
			}
		}
		result.Tools = out
	})
	return h
}

// modeGuard refuses a call the mode or read-only forbids, whatever the
// client listed: a tool called by name is checked too.
func modeGuard(env *Env, f families, defs map[string]mcp.Tool) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if t, ok := defs[req.Params.Name]; ok {
				if err := env.Modes.refusal(f, t); err != nil {
					return errorResult(err), nil
				}
			}
			return next(ctx, req)
		}
	}
}

// allTools is All, set in init: set_mode lists the tools, and All lists
// set_mode (a reference from the declaration would be a cycle).
var allTools func(*Env) []Tool

func init() { allTools = All }

type setModeArgs struct {
	Mode string `json:"mode" jsonschema:"explore (read-only tools), edit (adds changesets and refactorings), debug (adds debugging), all; at most what nvbridge was started with (--mode): a wider mode is refused"`
}

type setModeResult struct {
	Mode     string   `json:"mode"`
	Previous string   `json:"previous"`
	ReadOnly bool     `json:"read_only"`
	Tools    []string `json:"tools"`
}

func (r setModeResult) Summary() string {
	s := fmt.Sprintf("Mode %s (was %s): %d tools: %s", r.Mode, r.Previous, len(r.Tools), strings.Join(r.Tools, ", "))
	if r.ReadOnly {
		s += "\nRead-only: writing tools stay refused."
	}
	return s
}

func setModeTool(env *Env) Tool {
	return newTool("set_mode", "Set mode",
		"Choose which tools this session shows: explore (read-only navigation and analysis), edit (adds changesets, edits and refactorings), debug (adds the debugger), all (everything, the default). The mode nvbridge was started with (--mode) is a ceiling: switch down and back up within it (under edit: explore, edit; under debug: explore, debug); a wider mode is refused with PRECONDITION_FAILED (only the user can restart nvbridge with --mode all). The client is told the tool list changed (notifications/tools/list_changed). Use it to keep the tool list short for the task at hand; a read-only nvbridge (--read-only) refuses writing tools in every mode.",
		hints{idempotent: true},
		func(ctx context.Context, in setModeArgs) (setModeResult, error) {
			prev, err := env.Modes.set(in.Mode)
			if err != nil {
				return setModeResult{}, err
			}
			_, readOnly := env.Modes.Get()
			out := setModeResult{Mode: in.Mode, Previous: prev, ReadOnly: readOnly, Tools: []string{}}
			f := toolFamilies(env)
			for _, t := range allTools(env) {
				if env.Modes.refusal(f, t.Tool) == nil {
					out.Tools = append(out.Tools, t.Tool.Name)
				}
			}
			if srv := ServerOf(ctx); srv != nil {
				srv.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
			}
			return out, nil
		})
}
