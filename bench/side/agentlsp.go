package side

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// DefaultAgentLSP is where the peer agent-lsp is built for this machine
// (from a snapshot of github.com/blackwell-systems/agent-lsp); "" when it
// is not there.
func DefaultAgentLSP() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(home, ".cache", "nvbridge", "peers", "agent-lsp")
	if st, err := os.Stat(p); err != nil || st.IsDir() {
		return ""
	}
	return p
}

// AgentLSPVersion is what the build next to the binary says it was built
// from (agent-lsp.version), else "".
func AgentLSPVersion(binary string) string {
	b, err := os.ReadFile(binary + ".version")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// AgentLSP is one MCP client session with the peer agent-lsp (a direct LSP
// client over MCP) running `agent-lsp go:gopls` in the module, with the
// same gopls the other sides run (PATH from Env). Its home is a directory
// of its own: it keeps a reference cache under ~/.agent-lsp.
type AgentLSP struct {
	rooted
	Client *client.Client
	Cmd    *exec.Cmd
	home   string
	stderr bytes.Buffer
}

// StartAgentLSP starts the peer in root and has it start gopls there
// (start_lsp, waiting for the workspace load).
func StartAgentLSP(ctx context.Context, binary, repo, root string) (*AgentLSP, error) {
	home, err := os.MkdirTemp("", "nvbridge-side-agentlsp-")
	if err != nil {
		return nil, err
	}
	a := &AgentLSP{rooted: rooted{root}, home: home}
	var env []string
	for _, kv := range Env(repo) {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	tr, cmd, err := startStdio(ctx, binary, env, []string{"go:gopls"}, root, &a.stderr)
	a.Cmd = cmd
	if err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("start agent-lsp: %w", err)
	}
	a.Client = client.NewClient(tr)
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20250618
	init.Params.ClientInfo = mcp.Implementation{Name: "nvbridge-sidebyside", Version: "1"}
	if _, err := a.Client.Initialize(ctx, init); err != nil {
		a.Close()
		return nil, fmt.Errorf("agent-lsp: initialize: %w (stderr: %.2000s)", err, a.stderr.String())
	}
	if _, err := a.Call(ctx, "start_lsp", map[string]any{"root_dir": root, "language_id": "go", "ready_timeout_seconds": 120}); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Call calls one of its tools and returns the text of the answer; a tool
// error is an error.
func (a *AgentLSP) Call(ctx context.Context, tool string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := a.Client.CallTool(ctx, req)
	if err != nil {
		return "", fmt.Errorf("agent-lsp %s: %w", tool, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("agent-lsp %s %v: %.500s", tool, args, text.String())
	}
	return text.String(), nil
}

// Close ends the session (agent-lsp stops gopls) and removes its home.
func (a *AgentLSP) Close() {
	if a.Client != nil {
		a.Client.Close()
	}
	if a.Cmd != nil && a.Cmd.Process != nil {
		_, _ = a.Cmd.Process.Wait()
	}
	os.RemoveAll(a.home)
}

// peerCount is the number of items of an answer's text when it is a JSON
// list (or an object holding one under a usual key), else 1.
func peerCount(text string) int {
	var list []json.RawMessage
	if json.Unmarshal([]byte(text), &list) == nil {
		return len(list)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) == nil {
		for _, k := range []string{"references", "locations", "callers", "incoming", "items"} {
			if json.Unmarshal(obj[k], &list) == nil && list != nil {
				return len(list)
			}
		}
	}
	return 1
}

// peerOps is each shared op as agent-lsp's tools do it (1-based columns),
// by op name: references, definition, hover (inspect_symbol), the rename
// preview (rename_symbol dry_run), incoming calls (callers: prepare and
// one level) and the first request in a new file.
func peerOps(m *Module, a *AgentLSP, fresh []Pos) map[string]sideFunc {
	at := func(p Pos) map[string]any {
		return map[string]any{"file_path": filepath.Join(a.Root, p.File), "line": p.Line, "column": p.Col + 1, "language_id": "go"}
	}
	with := func(args map[string]any, kv ...any) map[string]any {
		for i := 0; i+1 < len(kv); i += 2 {
			args[kv[i].(string)] = kv[i+1]
		}
		return args
	}
	call := func(tool string, args func(round int) map[string]any) sideFunc {
		return func(ctx context.Context, r int) (int, error) {
			text, err := a.Call(ctx, tool, args(r))
			return peerCount(text), err
		}
	}
	ops := map[string]sideFunc{
		"find_definition": call("go_to_definition", func(int) map[string]any { return at(m.Call) }),
		"find_references": call("find_references", func(int) map[string]any { return with(at(m.Decl), "include_declaration", true) }),
		"hover":           call("inspect_symbol", func(int) map[string]any { return at(m.Decl) }),
		"rename_preview": call("rename_symbol", func(r int) map[string]any {
			return with(at(m.Decl), "new_name", renameTo(m.Decl, r), "dry_run", true)
		}),
		"calls_incoming_depth1": call("callers", func(int) map[string]any { return with(at(m.Decl), "direction", "incoming") }),
	}
	if len(fresh) > 0 {
		ops["first_request_new_file"] = call("inspect_symbol", func(r int) map[string]any { return at(fresh[max(r, 0)]) })
	}
	return ops
}

// renameTo is the new name the rename preview op asks for in a round
// (warm-ups: negative rounds): a new one each round, as an agent asks
// each rename once, so that nothing kept from the round before answers
// the next (every side renames the same symbol to the same name in a
// round).
func renameTo(p Pos, round int) string {
	if round < 0 {
		return fmt.Sprintf("%sWarm%d", p.Symbol, -round)
	}
	return fmt.Sprintf("%sRenamed%d", p.Symbol, round)
}
