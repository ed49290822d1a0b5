package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

type statusAnswer struct {
	Health string `json:"health"`
	Issues []struct {
		Component, Reason, Remediation string
	} `json:"issues"`
	Mode     string `json:"mode"`
	ReadOnly bool   `json:"read_only"`
	Root     string `json:"root"`
	Neovim   struct {
		Mode, Version string
	} `json:"neovim"`
	Servers []struct {
		Name, State, Exit, Restart, Root string
		Tools, Unsupported               []string
	} `json:"language_servers"`
	Configured []struct {
		Name      string
		Installed bool
		Needed    bool
		Running   bool
	} `json:"configured"`
	DebugAdapters []struct {
		Language, Adapter string
		Found             bool
	} `json:"debug_adapters"`
	WebSearch struct {
		Configured  bool   `json:"configured"`
		HowToEnable string `json:"how_to_enable"`
	} `json:"web_search"`
}

// TestGetStatus over the protocol: gopls ready (and the tools it serves),
// a configured server missing (degraded, remediation naming it), a crashed
// server (degraded, how it ended and what happens next).
func TestGetStatus(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	root := testenv.CopySample(t, "go")
	if err := os.WriteFile(filepath.Join(root, "build.zig"), []byte("// zig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake, err := fakelsp.Spec("fakelsp", []string{"text"}, fakelsp.Script{Methods: map[string]string{
		protocol.MethodTextDocumentReferences: fakelsp.Crash,
		protocol.MethodTextDocumentHover:      fakelsp.OK,
	}})
	if err != nil {
		t.Fatal(err)
	}
	missing := nvim.ServerSpec{Name: "zls", Cmd: []string{"zls-not-installed-here"}, Filetypes: []string{"zig"}, Markers: []string{"build.zig"}}
	s, client := testenv.EmbeddedWith(t, root, nvim.Options{ExtraServers: []nvim.ServerSpec{fake, missing}})
	env := tools.NewEnv(s, client, t.Logf)
	t.Cleanup(env.Close)
	c := mcpClient(t, env)
	status := func() statusAnswer {
		t.Helper()
		res := mcpCall(t, c, "get_status", `{}`)
		if res.IsError {
			t.Fatalf("get_status: %v", res.Content)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var st statusAnswer
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}

	// Missing: zls's marker is here, its command is not installed.
	st := status()
	if st.Health != tools.HealthDegraded || st.Neovim.Mode != "embedded" || !strings.HasPrefix(st.Neovim.Version, "0.") || st.Mode != "all" {
		t.Fatalf("status at start: %+v", st)
	}
	var zls bool
	for _, i := range st.Issues {
		if i.Component == "server zls" && strings.Contains(i.Reason, "zls-not-installed-here is not installed") && strings.HasPrefix(i.Remediation, "install zls") {
			zls = true
		}
	}
	if !zls {
		t.Errorf("no issue for the missing zls: %+v", st.Issues)
	}
	// No search provider: web_search is not listed, and status says how to
	// enable it (without counting it as an issue).
	if st.WebSearch.Configured || !strings.Contains(st.WebSearch.HowToEnable, "--searxng-url") {
		t.Errorf("web_search status = %+v, want not configured with how to enable it", st.WebSearch)
	}
	for _, cs := range st.Configured {
		if cs.Name == "gopls" && (!cs.Installed || !cs.Needed) {
			t.Errorf("gopls configured: %+v, want installed and needed", cs)
		}
	}
	if i := slices.IndexFunc(st.DebugAdapters, func(a struct {
		Language, Adapter string
		Found             bool
	}) bool {
		return a.Adapter == "dlv"
	}); i < 0 || !st.DebugAdapters[i].Found {
		t.Errorf("debug adapters: %+v, want dlv found", st.DebugAdapters)
	}

	// Ready: gopls after a call on a Go file.
	if res := mcpCall(t, c, "get_symbols", `{"file":"orders/orders.go"}`); res.IsError {
		t.Fatalf("get_symbols: %v", res.Content)
	}
	st = status()
	var gopls bool
	for _, sv := range st.Servers {
		if sv.Name == "gopls" {
			gopls = true
			// ready, or still indexing in the background (gopls may report
			// work, e.g. diagnosing, after answering): either way started.
			if (sv.State != "ready" && sv.State != "indexing") || !slices.Contains(sv.Tools, "get_call_hierarchy") || sv.Root != root {
				t.Errorf("gopls: %+v, want ready (or indexing), serving get_call_hierarchy, rooted at %s", sv, root)
			}
		}
	}
	if !gopls {
		t.Fatalf("no gopls in %+v", st.Servers)
	}

	// Crashed: the fake exits on references; restarts held back.
	if err := s.SetServerRestartDelay(testenv.Context(t), 3600*1000); err != nil {
		t.Fatal(err)
	}
	if res := mcpCall(t, c, "find_references", `{"file":"notes.txt","line":1,"symbol":"hello"}`); !res.IsError {
		t.Fatalf("find_references on the crashing fake succeeded: %v", res.Content)
	}
	// The next call on its file answers that it is down: the crash is recorded.
	if res := mcpCall(t, c, "get_hover_info", `{"file":"notes.txt","line":1,"symbol":"hello"}`); !res.IsError {
		t.Fatalf("hover after the crash succeeded: %v", res.Content)
	}
	st = status()
	var crashed bool
	for _, sv := range st.Servers {
		if sv.Name == "fakelsp" && sv.State == "crashed" && strings.Contains(sv.Exit, "exited with code 3") && strings.Contains(sv.Restart, "restarts it") {
			crashed = true
		}
	}
	var issue bool
	for _, i := range st.Issues {
		issue = issue || (i.Component == "server fakelsp" && i.Remediation != "")
	}
	if !crashed || !issue || st.Health != tools.HealthDegraded {
		t.Errorf("after the crash: %+v", st)
	}
}

// TestModes over the protocol: set_mode explore sends list_changed and
// hides edit_buffer (called by name anyway: refused); a read-only server
// lists no writing tool and refuses edit_buffer, leaving the buffer as
// it was.
func TestModes(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	env := tools.NewEnv(s, client, t.Logf)
	t.Cleanup(env.Close)
	c := mcpClient(t, env)
	changed := make(chan struct{}, 4)
	var mu sync.Mutex
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationToolsListChanged {
			mu.Lock()
			defer mu.Unlock()
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	names := func() []string {
		t.Helper()
		res, err := c.ListTools(testenv.Context(t), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	all := names()
	if !slices.Contains(all, "edit_buffer") || !slices.Contains(all, "start_debug_session") {
		t.Fatalf("mode all lists %v", all)
	}
	if res := mcpCall(t, c, "set_mode", `{"mode":"explore"}`); res.IsError {
		t.Fatalf("set_mode: %v", res.Content)
	}
	select {
	case <-changed:
	case <-time.After(testenv.Timeout()):
		t.Fatal("no notifications/tools/list_changed after set_mode")
	}
	explore := names()
	for _, w := range []string{"edit_buffer", "apply_changeset", "rename_symbol", "start_debug_session"} {
		if slices.Contains(explore, w) {
			t.Errorf("mode explore lists %s", w)
		}
	}
	for _, w := range []string{"find_references", "get_status", "set_mode", "read_file"} {
		if !slices.Contains(explore, w) {
			t.Errorf("mode explore lacks %s", w)
		}
	}
	res := mcpCall(t, c, "edit_buffer", `{"file":"notes.txt","start_line":1,"end_line":1,"new_text":"bye\n","preview":false}`)
	if b, _ := json.Marshal(res.StructuredContent); !res.IsError || !strings.Contains(string(b), "not available in mode explore") {
		t.Errorf("edit_buffer in mode explore: %s", b)
	}
	mcpCall(t, c, "set_mode", `{"mode":"debug"}`)
	debug := names()
	if !slices.Contains(debug, "start_debug_session") || slices.Contains(debug, "edit_buffer") {
		t.Errorf("mode debug lists %v", debug)
	}

	// Read-only: another server on the same session.
	ro := tools.NewEnv(s, client, t.Logf)
	ro.Modes, _ = tools.NewModes(tools.ModeAll, true)
	rc := mcpClient(t, ro)
	res2, err := rc.ListTools(testenv.Context(t), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res2.Tools {
		if tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint {
			if tl.Name != "set_mode" {
				t.Errorf("read-only lists the writing tool %s", tl.Name)
			}
		}
	}
	res = mcpCall(t, rc, "edit_buffer", `{"file":"notes.txt","start_line":1,"end_line":1,"new_text":"bye\n","preview":false}`)
	if b, _ := json.Marshal(res.StructuredContent); !res.IsError || !strings.Contains(string(b), "PRECONDITION_FAILED") || !strings.Contains(string(b), "read-only") {
		t.Errorf("edit_buffer on a read-only server: %s", b)
	}
	info := mcpCall(t, rc, "get_buffer_info", `{"file":"notes.txt"}`)
	if b, _ := json.Marshal(info.StructuredContent); !strings.Contains(string(b), `"content":"hello world\n"`) || strings.Contains(string(b), `"is_modified":true`) {
		t.Errorf("the buffer after a refused edit: %s", b)
	}
}

// TestPromptsAndSuggestions over the protocol: prompts/list lists the three
// flows, prompts/get fills one with its arguments (and refuses a missing
// one); suggest_tools picks the tool an intent means, with an example, and
// only among the tools the mode shows.
func TestPromptsAndSuggestions(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	s, client := testenv.Embedded(t, root)
	env := tools.NewEnv(s, client, t.Logf)
	t.Cleanup(env.Close)
	c := mcpClient(t, env)
	ctx := testenv.Context(t)
	list, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"debug_failing_test", "fix_diagnostics", "rename_safely"}) {
		t.Fatalf("prompts/list: %v", names)
	}
	req := mcp.GetPromptRequest{}
	req.Params.Name = "rename_safely"
	req.Params.Arguments = map[string]string{"file": "a.go", "line": "3", "symbol": "Old", "new_name": "New"}
	got, err := c.GetPrompt(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	msg := got.Messages[0].Content.(mcp.TextContent).Text
	for _, want := range []string{`prepare_change {"file":"a.go","line":3,"symbol":"Old"}`, `"new_name":"New"}`, "apply_changeset", "get_diagnostics"} {
		if !strings.Contains(msg, want) {
			t.Errorf("rename_safely lacks %q:\n%s", want, msg)
		}
	}
	req.Params.Arguments = map[string]string{"file": "a.go"}
	if _, err := c.GetPrompt(ctx, req); err == nil || !strings.Contains(err.Error(), "line") {
		t.Errorf("a prompt without a required argument: %v", err)
	}

	suggest := func(intent string) []string {
		t.Helper()
		res := mcpCall(t, c, "suggest_tools", `{"intent":`+strconvQuote(intent)+`}`)
		var out struct {
			Suggestions []struct{ Tool, Example string }
		}
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &out)
		var names []string
		for _, s := range out.Suggestions {
			if s.Example == "" {
				t.Errorf("%s: no example", s.Tool)
			}
			names = append(names, s.Tool)
		}
		return names
	}
	for intent, want := range map[string]string{
		"rename a function everywhere":         "rename_symbol",
		"fix the compile errors in main.go":    "get_diagnostics",
		"debug a failing test":                 "start_debug_session",
		"who uses this method":                 "find_references",
		"replace a typo in a comment":          "replace_in_buffer",
		"apply a unified diff I already have":  "apply_patch",
		"run the tests affected by my change":  "run_tests",
		"review what changed since the commit": "detect_changes",
		"format this file":                     "format",
	} {
		if got := suggest(intent); len(got) == 0 || got[0] != want {
			t.Errorf("suggest_tools %q = %v, want %s first", intent, got, want)
		}
	}
	mcpCall(t, c, "set_mode", `{"mode":"explore"}`)
	if got := suggest("rename a function everywhere"); slices.Contains(got, "rename_symbol") {
		t.Errorf("mode explore suggests rename_symbol: %v", got)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
