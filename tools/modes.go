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

// Modes is a session's mode and read-only switch. Safe for concurrent use.
type Modes struct {
	mu       sync.Mutex
	mode     string
	readOnly bool
}

// NewModes checks mode ("" is all).
func NewModes(mode string, readOnly bool) (*Modes, error) {
	if mode == "" {
		mode = ModeAll
	}
	if !slices.Contains(ModeNames, mode) {
		return nil, apierr.Errorf(apierr.InvalidParameter, "pass one of "+strings.Join(ModeNames, ", "), "unknown mode %q", mode)
	}
	return &Modes{mode: mode, readOnly: readOnly}, nil
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
	previous, m.mode = m.mode, mode
	return previous, nil
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
		return apierr.Errorf(apierr.PreconditionFailed,
			fmt.Sprintf("call set_mode {\"mode\": %q} (or \"all\") first", modeFor(fam)),
			"%s is not available in mode %s", t.Name, mode)
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
	Mode string `json:"mode" jsonschema:"explore (read-only tools), edit (adds changesets and refactorings), debug (adds debugging), all"`
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
		"Choose which tools this session shows: explore (read-only navigation and analysis), edit (adds changesets, edits and refactorings), debug (adds the debugger), all (everything, the default). The client is told the tool list changed (notifications/tools/list_changed). Use it to keep the tool list short for the task at hand; a read-only nvbridge (--read-only) refuses writing tools in every mode.",
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
			if srv := server.ServerFromContext(ctx); srv != nil {
				srv.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
			}
			return out, nil
		})
}
