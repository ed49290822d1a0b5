package lsp

// get_status's language server half: every client of the Neovim session
// (attached or started by nvbridge) with its state, and every server the
// embedded mode would start, with whether it is installed and needed here.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
)

// Server states in get_status.
const (
	StateStarting = "starting" // not initialized yet
	StateIndexing = "indexing" // reports $/progress work (or has not ended its first)
	StateReady    = "ready"
	StateCrashed  = "crashed" // exited abnormally and not back
	StateStopped  = "stopped"
)

// ToolMethods are the LSP methods the tools need, by tool: a server that
// lacks one cannot serve that tool (the tool answers UNSUPPORTED).
var ToolMethods = map[string]string{
	"find_definition":      "textDocument/definition",
	"find_references":      "textDocument/references",
	"find_implementations": "textDocument/implementation",
	"get_hover_info":       "textDocument/hover",
	"get_symbols":          "textDocument/documentSymbol",
	"get_completions":      "textDocument/completion",
	"get_signature_help":   "textDocument/signatureHelp",
	"get_call_hierarchy":   "textDocument/prepareCallHierarchy",
	"get_type_hierarchy":   "textDocument/prepareTypeHierarchy",
	"rename_symbol":        "textDocument/rename",
	"apply_code_action":    "textDocument/codeAction",
	"organize_imports":     "textDocument/codeAction",
}

// ServerStatus is one language server client.
type ServerStatus struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Root    string `json:"root,omitempty"`
	State   string `json:"state"`
	// Work is the $/progress work under way ("Loading packages... 40%").
	Work    []string `json:"work,omitempty"`
	Buffers int      `json:"buffers"`
	// Tools are the tools this server serves; Unsupported the ones it
	// cannot (it lacks their method).
	Tools       []string `json:"tools,omitempty"`
	Unsupported []string `json:"unsupported,omitempty"`
	// Exit says how a crashed server ended; Restart what happens next.
	Exit    string `json:"exit,omitempty"`
	Restart string `json:"restart,omitempty"`
}

// ConfiguredServer is a server of the registry (or $NVBRIDGE_EXTRA_SERVERS)
// that the embedded Neovim starts for its filetypes.
type ConfiguredServer struct {
	Name      string   `json:"name"`
	Command   string   `json:"command"`
	Filetypes []string `json:"filetypes"`
	Installed bool     `json:"installed"`
	// Path is where the command was found.
	Path string `json:"path,omitempty"`
	// Needed: the workspace root holds one of its root markers.
	Needed  bool `json:"needed"`
	Running bool `json:"running"`
}

// ServersStatus is the language server part of get_status.
type ServersStatus struct {
	Servers    []ServerStatus     `json:"servers"`
	Configured []ConfiguredServer `json:"configured"`
}

type clientsWire struct {
	Clients json.RawMessage `json:"clients"`
	Down    json.RawMessage `json:"down"`
}

type clientWire struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	RootDir     string          `json:"root_dir"`
	Initialized bool            `json:"initialized"`
	Stopped     bool            `json:"stopped"`
	Indexing    bool            `json:"indexing"`
	Buffers     int             `json:"buffers"`
	Methods     map[string]bool `json:"methods"`
	Work        json.RawMessage `json:"work"`
}

type workWire struct {
	Title      string   `json:"title"`
	Message    string   `json:"message"`
	Percentage *float64 `json:"percentage"`
}

type downWire struct {
	Name    string `json:"name"`
	How     string `json:"how"`
	Restart any    `json:"restart"`
	GaveUp  bool   `json:"gave_up"`
	Managed bool   `json:"managed"`
}

// Status reads every client's state from Neovim and the configured
// servers from the registry.
func (c *Client) Status(ctx context.Context) (ServersStatus, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	var raw string
	if err := c.Session.ClientsStatus(ctx, &raw); err != nil {
		return ServersStatus{}, err
	}
	var w clientsWire
	if err := json.Unmarshal([]byte(raw), &w); err != nil {
		return ServersStatus{}, fmt.Errorf("decode clients_status: %w", err)
	}
	var clients []clientWire
	var down []downWire
	if err := decodeList(w.Clients, &clients); err != nil {
		return ServersStatus{}, fmt.Errorf("decode clients: %w", err)
	}
	if err := decodeList(w.Down, &down); err != nil {
		return ServersStatus{}, fmt.Errorf("decode down: %w", err)
	}
	out := ServersStatus{Servers: []ServerStatus{}, Configured: []ConfiguredServer{}}
	live := map[string]bool{}
	for _, cl := range clients {
		var work []workWire
		_ = decodeList(cl.Work, &work)
		s := serverStatus(cl, work)
		if s.State != StateStopped {
			live[s.Name] = true
		}
		out.Servers = append(out.Servers, s)
	}
	for _, d := range down {
		if live[d.Name] {
			continue // back (restarted, or the user's :LspRestart)
		}
		s := ServerStatus{Name: d.Name, State: StateCrashed, Exit: d.How}
		switch {
		case d.GaveUp:
			s.Restart = "nvbridge gave up restarting it after repeated crashes: fix the cause (see its log), then restart nvbridge"
		case d.Managed || d.Restart != nil:
			s.Restart = "nvbridge restarts it (with a backoff); calls on its files answer PRECONDITION_FAILED until it is back"
		case c.Session.Embedded():
			s.Restart = "it is restarted when a file of its language is opened again"
		default:
			s.Restart = "run :LspRestart in your Neovim (nvbridge never restarts your servers)"
		}
		out.Servers = append(out.Servers, s)
	}
	root := c.Session.Root().Dir()
	specs := append(append([]lang.ServerSpec{}, c.Session.ExtraServers()...), lang.ServerSpecs()...)
	seen := map[string]bool{}
	for _, spec := range specs {
		if seen[spec.Name] || len(spec.Cmd) == 0 {
			continue
		}
		seen[spec.Name] = true
		cs := ConfiguredServer{Name: spec.Name, Command: spec.Cmd[0], Filetypes: spec.Filetypes, Running: live[spec.Name]}
		if path, err := exec.LookPath(spec.Cmd[0]); err == nil {
			cs.Installed, cs.Path = true, path
		}
		for _, m := range spec.Markers {
			if _, err := os.Stat(filepath.Join(root, m)); err == nil {
				cs.Needed = true
				break
			}
		}
		out.Configured = append(out.Configured, cs)
	}
	return out, nil
}

// indexingWork reports whether work holds anything but diagnosis runs
// ("diagnosing ...", gopls with verboseWorkDoneProgress): a server that is
// diagnosing answers requests, so it is ready (bridge.lua's busy agrees).
func indexingWork(work []workWire) bool {
	for _, w := range work {
		if !strings.HasPrefix(w.Title, "diagnosing") {
			return true
		}
	}
	return false
}

// serverStatus shapes one client.
func serverStatus(cl clientWire, work []workWire) ServerStatus {
	s := ServerStatus{Name: cl.Name, Version: cl.Version, Root: cl.RootDir, Buffers: cl.Buffers}
	switch {
	case cl.Stopped:
		s.State = StateStopped
	case !cl.Initialized:
		s.State = StateStarting
	case cl.Indexing || indexingWork(work):
		s.State = StateIndexing
	default:
		s.State = StateReady
	}
	for _, w := range work {
		text := w.Title
		if w.Message != "" {
			text += " " + w.Message
		}
		if w.Percentage != nil {
			text += fmt.Sprintf(" %.0f%%", *w.Percentage)
		}
		s.Work = append(s.Work, text)
	}
	sort.Strings(s.Work)
	if len(cl.Methods) > 0 { // known once a buffer is attached
		for tool, method := range ToolMethods {
			if cl.Methods[method] {
				s.Tools = append(s.Tools, tool)
			} else {
				s.Unsupported = append(s.Unsupported, tool)
			}
		}
		sort.Strings(s.Tools)
		sort.Strings(s.Unsupported)
	}
	return s
}
