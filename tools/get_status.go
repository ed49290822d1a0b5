package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/websearch"
	"github.com/nvbridge/nvbridge/workspace"
)

// sessionTools are about the session itself; every mode shows them.
func sessionTools(env *Env) []Tool {
	return []Tool{getStatusTool(env), setModeTool(env), suggestToolsTool(env)}
}

// Health values of get_status.
const (
	HealthAvailable   = "available"
	HealthDegraded    = "degraded"
	HealthUnavailable = "unavailable"
)

// StatusIssue is one missing or failing piece, with what to do.
type StatusIssue struct {
	Component   string `json:"component"`
	Reason      string `json:"reason"`
	Remediation string `json:"remediation"`
}

// StatusResult is get_status's answer.
type StatusResult struct {
	Health        string                 `json:"health"`
	Issues        []StatusIssue          `json:"issues"`
	Root          string                 `json:"root"`
	Mode          string                 `json:"mode"`
	MaxMode       string                 `json:"max_mode"` // the start mode: set_mode's ceiling
	ReadOnly      bool                   `json:"read_only"`
	Neovim        *nvim.NeovimInfo       `json:"neovim,omitempty"`
	Servers       []lsp.ServerStatus     `json:"language_servers"`
	Configured    []lsp.ConfiguredServer `json:"configured"`
	DebugAdapters []dap.AdapterStatus    `json:"debug_adapters"`
	WebSearch     WebSearchStatus        `json:"web_search"`
	// LanguageMatrix is what nvbridge's own tests verified per language
	// (server, version, tools): lang/matrix.json, generated from them.
	LanguageMatrix []lang.MatrixRow `json:"language_matrix"`
	// Recovered lists the changes this nvbridge found interrupted (a
	// crash, a kill) and settled: completed or rolled back, file by file.
	Recovered []workspace.Recovery `json:"recovered_changes,omitempty"`
}

// WebSearchStatus says whether web_search is available: an optional tool,
// so its absence is not an issue of the health.
type WebSearchStatus struct {
	Configured bool   `json:"configured"`
	Provider   string `json:"provider,omitempty"`
	// HowToEnable is set when no provider is configured.
	HowToEnable string `json:"how_to_enable,omitempty"`
}

func webSearchStatus(env *Env) WebSearchStatus {
	if env.Search == nil {
		return WebSearchStatus{HowToEnable: websearch.HowToEnable}
	}
	return WebSearchStatus{Configured: true, Provider: env.Search.Provider()}
}

func (r StatusResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nvbridge: %s (mode %s, at most %s%s), root %s\n", r.Health, r.Mode, r.MaxMode, map[bool]string{true: ", read-only"}[r.ReadOnly], r.Root)
	if r.Neovim != nil {
		fmt.Fprintf(&b, "Neovim %s, %s", r.Neovim.Version, r.Neovim.Mode)
		if r.Neovim.Address != "" {
			fmt.Fprintf(&b, " at %s", r.Neovim.Address)
		}
		b.WriteByte('\n')
	}
	for _, s := range r.Servers {
		fmt.Fprintf(&b, "server %s %s: %s", s.Name, s.Version, s.State)
		if len(s.Work) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(s.Work, "; "))
		}
		if s.Exit != "" {
			fmt.Fprintf(&b, " (%s)", s.Exit)
		}
		b.WriteByte('\n')
	}
	for _, a := range r.DebugAdapters {
		fmt.Fprintf(&b, "debug adapter %s (%s): found=%v\n", a.Adapter, a.Language, a.Found)
	}
	fmt.Fprintf(&b, "language matrix (what nvbridge's tests verified per language):\n")
	for _, row := range r.LanguageMatrix {
		fmt.Fprintf(&b, "  %s\n", row.Summary())
	}
	if r.WebSearch.Configured {
		fmt.Fprintf(&b, "web_search: %s\n", r.WebSearch.Provider)
	} else {
		fmt.Fprintf(&b, "web_search: not configured (%s)\n", r.WebSearch.HowToEnable)
	}
	for _, i := range r.Issues {
		fmt.Fprintf(&b, "- %s: %s\n  Remediation: %s\n", i.Component, i.Reason, i.Remediation)
	}
	for _, rec := range r.Recovered {
		fmt.Fprintf(&b, "interrupted change %s (started %s by process %d): %s\n", rec.ID, rec.Started.Format("2006-01-02 15:04:05"), rec.PID, rec.Outcome)
		for _, f := range rec.Files {
			fmt.Fprintf(&b, "  %s %s: %s", f.Op, f.Path, f.State)
			if f.Note != "" {
				fmt.Fprintf(&b, " (%s)", f.Note)
			}
			b.WriteByte('\n')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

type getStatusArgs struct {
	IncludeConfigured *bool `json:"include_configured,omitempty" jsonschema:"also list the servers nvbridge would start in its embedded Neovim and whether each is installed (default true)"`
}

func getStatusTool(env *Env) Tool {
	return newTool("get_status", "Status",
		"Say what works now, before relying on it: Neovim (embedded or attached, version, address), each language server (name, version, root, state starting|indexing|ready|crashed, the tools it serves and cannot), the servers nvbridge would start and whether they are installed, the debug adapters found, the root, the mode and the widest set_mode may choose (max_mode, the start mode), the changes an earlier nvbridge left interrupted (killed mid-write) and how they were settled (recovered_changes: completed or rolled back, file by file), and an overall health available|degraded|unavailable with each problem's reason and remediation (an issue of component policy, such as a project file's ignored allow, is a warning that leaves the health as it is); language_matrix says, per language, which server and version nvbridge's own tests ran and which tools they verified (or checked to answer UNSUPPORTED). Call it first in a session, or when tools start failing.",
		readOnly,
		func(ctx context.Context, in getStatusArgs) (StatusResult, error) {
			out := status(ctx, env)
			if in.IncludeConfigured != nil && !*in.IncludeConfigured {
				out.Configured = []lsp.ConfiguredServer{}
			}
			return out, nil
		})
}

// status gathers the session's state and judges its health, then adds the
// policy's warnings (a project file's ignored allows) as issues: the user
// and the agent should see them, but they take nothing away that works.
func status(ctx context.Context, env *Env) StatusResult {
	out := serviceStatus(ctx, env)
	if env.Session != nil {
		root := env.Session.Root()
		for _, w := range root.Policy().Warnings() {
			out.Issues = append(out.Issues, StatusIssue{Component: "policy", Reason: w.Reason, Remediation: w.Remediation})
		}
		out.Recovered = root.Recoveries()
	}
	return out
}

// serviceStatus gathers the state of Neovim, the servers and the adapters
// and judges the health. It never fails: what cannot be read is an issue
// of the answer.
func serviceStatus(ctx context.Context, env *Env) StatusResult {
	mode, readOnly := env.Modes.Get()
	out := StatusResult{Health: HealthAvailable, Issues: []StatusIssue{}, Mode: mode, MaxMode: env.Modes.Ceiling(), ReadOnly: readOnly,
		Servers: []lsp.ServerStatus{}, Configured: []lsp.ConfiguredServer{}, DebugAdapters: dap.Adapters(), WebSearch: webSearchStatus(env), LanguageMatrix: lang.Matrix()}
	issue := func(component, reason, remediation string) {
		out.Issues = append(out.Issues, StatusIssue{component, reason, remediation})
	}
	if env.Session == nil || env.Session.Closed() {
		out.Health = HealthUnavailable
		issue("neovim", "the connection to Neovim is closed", "restart nvbridge (and, attached, check that your Neovim is still running)")
		return out
	}
	out.Root = env.Session.Root().Dir()
	info, err := env.Session.Info(ctx)
	if err != nil {
		out.Health = HealthUnavailable
		issue("neovim", "Neovim does not answer: "+err.Error(), "check that Neovim is not blocked (a prompt, a long command) and retry; restart nvbridge if it persists")
		return out
	}
	out.Neovim = &info
	servers, err := env.LSP.Status(ctx)
	if err != nil {
		out.Health = HealthDegraded
		issue("language servers", "cannot read their state: "+err.Error(), "retry; if it persists, check the nvbridge log")
		return out
	}
	out.Servers, out.Configured = servers.Servers, servers.Configured
	for _, s := range servers.Servers {
		if s.State == lsp.StateCrashed {
			issue("server "+s.Name, s.Name+" "+s.Exit, s.Restart)
		}
	}
	for _, c := range servers.Configured {
		if c.Needed && !c.Installed && info.Mode == "embedded" {
			issue("server "+c.Name, fmt.Sprintf("the workspace needs %s (its root marker is here) but %s is not installed", c.Name, c.Command),
				fmt.Sprintf("install %s: make deps installs gopls, pyright, typescript-language-server and clangd under .deps/bin; otherwise put %s on PATH and restart nvbridge", c.Name, c.Command))
		}
	}
	if len(out.Issues) > 0 {
		out.Health = HealthDegraded
	}
	return out
}
