package tools_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/fakelsp"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/tools"
)

// notificationLog keeps every notification a client receives, in order.
type notificationLog struct {
	mu   sync.Mutex
	got  []mcp.JSONRPCNotification
	note chan struct{}
}

func watchNotifications(c *client.Client) *notificationLog {
	l := &notificationLog{note: make(chan struct{}, 1)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		l.mu.Lock()
		l.got = append(l.got, n)
		l.mu.Unlock()
		select {
		case l.note <- struct{}{}:
		default:
		}
	})
	return l
}

// mark is how many notifications arrived so far (await after it).
func (l *notificationLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.got)
}

// await waits (bounded by the test timeout) for a notification after mark
// that match accepts, and returns it.
func (l *notificationLog) await(t *testing.T, from int, what string, match func(mcp.JSONRPCNotification) bool) mcp.JSONRPCNotification {
	t.Helper()
	deadline := time.After(testenv.Timeout())
	for {
		l.mu.Lock()
		for _, n := range l.got[min(from, len(l.got)):] {
			if match(n) {
				l.mu.Unlock()
				return n
			}
		}
		l.mu.Unlock()
		select {
		case <-l.note:
		case <-deadline:
			t.Fatalf("no %s within %s; got %s", what, testenv.Timeout(), l.describe())
		}
	}
}

func (l *notificationLog) describe() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b []string
	for _, n := range l.got {
		p, _ := json.Marshal(n.Params.AdditionalFields)
		b = append(b, n.Method+" "+string(p))
	}
	return strings.Join(b, "\n")
}

func updatedFor(uri string) func(mcp.JSONRPCNotification) bool {
	return func(n mcp.JSONRPCNotification) bool {
		return n.Method == mcp.MethodNotificationResourceUpdated && n.Params.AdditionalFields["uri"] == uri
	}
}

func isMethod(m string) func(mcp.JSONRPCNotification) bool {
	return func(n mcp.JSONRPCNotification) bool { return n.Method == m }
}

func listURIs(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListResources(testenv.Context(t), mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Resources {
		if r.Name == "" {
			t.Errorf("resource %s has no name", r.URI)
		}
		out = append(out, r.URI)
	}
	return out
}

func readText(t *testing.T, c *client.Client, uri string) string {
	t.Helper()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.ReadResource(testenv.Context(t), req)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(res.Contents))
	}
	tc, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok || tc.URI != uri {
		t.Fatalf("read %s: %#v", uri, res.Contents[0])
	}
	return tc.Text
}

func subscribe(t *testing.T, c *client.Client, uri string) {
	t.Helper()
	req := mcp.SubscribeRequest{}
	req.Params.URI = uri
	//lint:ignore SA1019 resources/subscribe is what clients of protocol 2025-11-25 send
	if err := c.Subscribe(testenv.Context(t), req); err != nil {
		t.Fatalf("subscribe %s: %v", uri, err)
	}
}

// watchedClient is an Env over s and its LSP client, and an MCP client of
// it (legacy era) whose notifications are logged.
func watchedClient(t testing.TB, s *nvim.Session, lc *lsp.Client) (*tools.Env, *client.Client, *notificationLog) {
	env := tools.NewEnv(s, lc, t.Logf)
	t.Cleanup(env.Close)
	c := mcpLegacyClient(t, env)
	return env, c, watchNotifications(c)
}

// mcpLegacyClient is mcpClient speaking protocol 2025-11-25 (the
// initialize handshake, resources/subscribe, logging/setLevel), as the
// clients of today and the conformance suite do; mcpClient speaks
// 2026-07-28 (subscriptions/listen, per-request log levels).
func mcpLegacyClient(t testing.TB, env *tools.Env) *client.Client {
	t.Helper()
	ctx := testenv.Context(t)
	c, err := client.NewInProcessClient(tools.NewServer(env, "test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "nvbridge-test-legacy", Version: "0"}
	init.Params.ProtocolVersion = mcp.ProtocolVersion20251125
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != mcp.ProtocolVersion20251125 {
		t.Fatalf("negotiated %s, want %s", res.ProtocolVersion, mcp.ProtocolVersion20251125)
	}
	return c
}

// sensitiveRoot is a copy of the Go sample with a .env the policy hides.
func sensitiveRoot(t *testing.T) string {
	root := testenv.CopySample(t, "go")
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("TOKEN=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

// loadInNeovim loads files into buffers the way a user's :edit would
// (nvbridge's own reads refuse a sensitive file).
func loadInNeovim(t *testing.T, env *tools.Env, files ...string) {
	t.Helper()
	for _, f := range files {
		const code = `local b = vim.fn.bufadd(...); vim.fn.bufload(b); vim.bo[b].buflisted = true`
		if err := env.Session.ExecLua(testenv.Context(t), code, nil, filepath.Join(env.Session.Root().Dir(), f)); err != nil {
			t.Fatal(err)
		}
	}
}

// setLine replaces one line of a loaded buffer as a user (or a plugin)
// would: straight through Neovim's API.
func setLine(t *testing.T, env *tools.Env, file string, line int, text string) {
	t.Helper()
	const code = `local path, line, text = ...
local b = vim.fn.bufnr(path)
vim.api.nvim_buf_set_lines(b, line - 1, line, true, { text })`
	if err := env.Session.ExecLua(testenv.Context(t), code, nil, filepath.Join(env.Session.Root().Dir(), file), line, text); err != nil {
		t.Fatal(err)
	}
}

// TestResourcesOverMCP: resources/list lists the buffers, the diagnostics
// and a pending changeset (never the sensitive .env Neovim holds); reading
// one returns its current content; a subscription is told when the buffer
// changes and when gopls publishes new diagnostics, within the test's
// bound, and never about .env.
func TestResourcesOverMCP(t *testing.T) {
	root := sensitiveRoot(t)
	s, lspClient := testenv.Embedded(t, root)
	env, c, log := watchedClient(t, s, lspClient)
	ctx := testenv.Context(t)
	// A 2026-07-28 client opts in with subscriptions/listen instead.
	modern := mcpClient(t, env)
	modernLog := watchNotifications(modern)
	stopListen, err := modern.ListenAsync(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{"nvbridge://buffer/main.go", "nvbridge://buffer/.env"}}, func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopListen)

	loadInNeovim(t, env, "main.go", ".env", "text/normalize.go")
	uris := listURIs(t, c)
	for _, want := range []string{"nvbridge://diagnostics", "nvbridge://buffer/main.go", "nvbridge://buffer/text/normalize.go"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %v", want, uris)
		}
	}
	for _, u := range uris {
		if strings.Contains(u, ".env") {
			t.Errorf("resources/list shows the sensitive file: %s", u)
		}
	}
	tmpl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var templates []string
	for _, r := range tmpl.ResourceTemplates {
		templates = append(templates, r.URITemplate.Raw())
	}
	for _, want := range []string{"nvbridge://buffer/{+path}", "nvbridge://diagnostics/{+path}", "nvbridge://changeset/{id}", "nvbridge://debug/{session_id}"} {
		if !slices.Contains(templates, want) {
			t.Errorf("templates lack %s: %v", want, templates)
		}
	}

	disk, err := os.ReadFile(filepath.Join(root, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readText(t, c, "nvbridge://buffer/main.go"); got != string(disk) {
		t.Fatalf("buffer text differs from the file Neovim loaded:\n%s", got)
	}
	req := mcp.ReadResourceRequest{}
	req.Params.URI = "nvbridge://buffer/.env"
	if _, err := c.ReadResource(ctx, req); err == nil || !strings.Contains(err.Error(), "PRECONDITION_FAILED") || !strings.Contains(err.Error(), "sensitive") {
		t.Fatalf("reading .env's buffer: %v, want PRECONDITION_FAILED (sensitive)", err)
	}

	// A change of the buffer: the subscriber is told, the text and the
	// unsaved diff say it. .env changes first, in the same way: nothing is
	// ever said about it (its subscription is acknowledged, never served).
	subscribe(t, c, "nvbridge://buffer/main.go")
	subscribe(t, c, "nvbridge://buffer/.env")
	subscribe(t, c, "nvbridge://unsaved-diff/.env")
	from := log.mark()
	setLine(t, env, ".env", 1, "TOKEN=changed")
	setLine(t, env, "main.go", 1, "// Command shop, changed in Neovim.")
	log.await(t, from, "an update of the buffer", updatedFor("nvbridge://buffer/main.go"))
	modernLog.await(t, 0, "an update of the buffer on the listen stream", updatedFor("nvbridge://buffer/main.go"))
	if got := readText(t, c, "nvbridge://buffer/main.go"); !strings.HasPrefix(got, "// Command shop, changed in Neovim.\n") {
		t.Fatalf("buffer text after the change: %.80q", got)
	}
	if !slices.Contains(listURIs(t, c), "nvbridge://unsaved-diff/main.go") {
		t.Errorf("a modified buffer's unsaved diff is not listed")
	}
	if diff := readText(t, c, "nvbridge://unsaved-diff/main.go"); !strings.Contains(diff, "+// Command shop, changed in Neovim.") {
		t.Errorf("unsaved diff lacks the change:\n%s", diff)
	}

	// New diagnostics: gopls publishes for the broken text.
	subscribe(t, c, "nvbridge://diagnostics/main.go")
	from = log.mark()
	callOK(t, c, "edit_buffer", `{"file":"main.go","preview":false,"edits":[{"line_start":18,"line_end":17,"new_text":"\tvar unused int = \"not an int\""}]}`)
	log.await(t, from, "an update of main.go's diagnostics", updatedFor("nvbridge://diagnostics/main.go"))
	diags := readText(t, c, "nvbridge://diagnostics/main.go")
	if !strings.Contains(diags, `"severity": "error"`) || !strings.Contains(diags, "main.go") {
		t.Errorf("main.go's diagnostics after the broken line:\n%s", diags)
	}
	if uris := listURIs(t, c); !slices.Contains(uris, "nvbridge://diagnostics/main.go") || !slices.Contains(uris, "nvbridge://buffer/main.go") {
		t.Errorf("main.go's buffer and diagnostics are not both listed: %v", uris)
	}

	// A pending changeset is listed (list_changed says so) and reads as its diff.
	from = log.mark()
	prev := okContent(t, c, "edit_buffer", `{"file":"text/normalize.go","edits":[{"line_start":1,"line_end":0,"new_text":"// previewed"}]}`)
	id, _ := prev["changeset_id"].(string)
	log.await(t, from, "list_changed after the preview", isMethod(mcp.MethodNotificationResourcesListChanged))
	if !slices.Contains(listURIs(t, c), "nvbridge://changeset/"+id) {
		t.Fatalf("changeset %s is not listed", id)
	}
	if diff := readText(t, c, "nvbridge://changeset/"+id); diff != prev["diff"] || !strings.Contains(diff, "+// previewed") {
		t.Errorf("changeset resource:\n%s\nwant the preview's diff:\n%s", diff, prev["diff"])
	}

	for _, l := range []*notificationLog{log, modernLog} {
		if all := l.describe(); strings.Contains(all, ".env") {
			t.Errorf("a notification names the sensitive file:\n%s", all)
		}
	}
}

// TestCompletionAndLogging: completion/complete suggests paths under the
// root (policy applied) for a prompt's file argument and pending changeset
// ids for the changeset template; logging/setLevel decides whether a
// policy refusal reaches the client as notifications/message.
func TestCompletionAndLogging(t *testing.T) {
	root := sensitiveRoot(t)
	s, lspClient := testenv.Embedded(t, root)
	_, c, log := watchedClient(t, s, lspClient)
	ctx := testenv.Context(t)

	complete := func(ref any, name, value string) mcp.Completion {
		t.Helper()
		req := mcp.CompleteRequest{}
		req.Params.Ref = ref
		req.Params.Argument.Name, req.Params.Argument.Value = name, value
		res, err := c.Complete(ctx, req)
		if err != nil {
			t.Fatalf("complete %s=%q: %v", name, value, err)
		}
		return res.Completion
	}
	prompt := mcp.PromptReference{Type: "ref/prompt", Name: "fix_diagnostics"}
	if got := complete(prompt, "file", "ma").Values; !slices.Equal(got, []string{"main.go"}) {
		t.Errorf("file ma -> %v, want [main.go]", got)
	}
	if got := complete(prompt, "file", "text/").Values; !slices.Equal(got, []string{"text/normalize.go", "text/unicode.go"}) {
		t.Errorf("file text/ -> %v, want text/normalize.go, text/unicode.go", got)
	}
	all := complete(prompt, "file", "").Values
	if !slices.Contains(all, "orders/") || slices.Contains(all, ".env") {
		t.Errorf("file \"\" -> %v: want folders (orders/), never .env", all)
	}
	if got := complete(prompt, "file", ".e").Values; len(got) != 0 {
		t.Errorf("file .e -> %v: the sensitive .env was suggested", got)
	}
	if got := complete(mcp.PromptReference{Type: "ref/prompt", Name: "no_such_prompt"}, "x", "").Values; got == nil || len(got) != 0 {
		t.Errorf("an unknown prompt -> %v, want an empty list", got)
	}
	prev := okContent(t, c, "edit_buffer", `{"file":"main.go","edits":[{"line_start":1,"line_end":0,"new_text":"// x"}]}`)
	tmpl := mcp.ResourceReference{Type: "ref/resource", URI: "nvbridge://changeset/{id}"}
	if got := complete(tmpl, "id", "cs_").Values; !slices.Equal(got, []string{prev["changeset_id"].(string)}) {
		t.Errorf("changeset id -> %v, want [%s]", got, prev["changeset_id"])
	}

	// The level: at "error" (mcp-go's default) a refusal sends nothing; at
	// "warning" it does. Notifications arrive in order: once the second
	// refusal's message is here, the first would have been too.
	setLevel := func(l mcp.LoggingLevel) {
		req := mcp.SetLevelRequest{}
		req.Params.Level = l
		//lint:ignore SA1019 logging/setLevel is what clients of protocol 2025-11-25 send
		//lint:ignore SA1019 logging/setLevel is what clients of protocol 2025-11-25 send
		if err := c.SetLevel(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	setLevel(mcp.LoggingLevelError)
	from := log.mark()
	wantError(t, mcpCall(t, c, "read_file", `{"file":".env"}`), "PRECONDITION_FAILED", "sensitive")
	setLevel(mcp.LoggingLevelWarning)
	wantError(t, mcpCall(t, c, "read_file", `{"file":".env","start_line":1}`), "PRECONDITION_FAILED", "sensitive")
	msg := log.await(t, from, "a policy warning", isMethod("notifications/message"))
	if fmt.Sprint(msg.Params.AdditionalFields["logger"]) != "nvbridge.policy" || fmt.Sprint(msg.Params.AdditionalFields["level"]) != "warning" {
		t.Errorf("message: %v", msg.Params.AdditionalFields)
	}
	data, _ := json.Marshal(msg.Params.AdditionalFields["data"])
	if !strings.Contains(string(data), "read_file refused") {
		t.Errorf("message data: %s", data)
	}
	log.mu.Lock()
	n := 0
	for _, m := range log.got[from:] {
		if m.Method == "notifications/message" {
			n++
		}
	}
	log.mu.Unlock()
	if n != 1 {
		t.Errorf("%d log messages, want 1 (the refusal at level error is filtered)", n)
	}
	req := mcp.SetLevelRequest{}
	req.Params.Level = "loud"
	//lint:ignore SA1019 logging/setLevel is what clients of protocol 2025-11-25 send
	if err := c.SetLevel(ctx, req); err == nil {
		t.Error("logging/setLevel accepted an unknown level")
	}
}

// TestDebugResources: a debug session is listed as nvbridge://debug/{id}
// and nvbridge://debug-output/{id}; reading the state says where it
// stopped; a subscriber is told when it moves on (a continue to the next
// stop), and the session's end takes it off the list (list_changed).
func TestDebugResources(t *testing.T) {
	testenv.Require(t, "nvim", "dlv", "go")
	root := testenv.CopySample(t, filepath.Join("debug", "go"))
	s, nc := testenv.Embedded(t, root)
	_, c, log := watchedClient(t, s, nc)
	loop := markerLine(t, root, "main.go", "loop")
	double := markerLine(t, root, "main.go", "double")

	got := okContent(t, c, "start_debug_session", fmt.Sprintf(`{"program":".","breakpoints":[{"file":"main.go","line":%d}]}`, loop))
	id, _ := got["session_id"].(string)
	stateURI, outputURI := "nvbridge://debug/"+id, "nvbridge://debug-output/"+id
	uris := listURIs(t, c)
	if !slices.Contains(uris, stateURI) || !slices.Contains(uris, outputURI) {
		t.Fatalf("resources/list lacks the debug session %s: %v", id, uris)
	}
	var state map[string]any
	if err := json.Unmarshal([]byte(readText(t, c, stateURI)), &state); err != nil {
		t.Fatal(err)
	}
	if state["state"] != "stopped" || fmt.Sprint(mustAt(t, state, "location.line")) != fmt.Sprint(loop) {
		t.Errorf("debug state %v: want stopped at line %d", state, loop)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(readText(t, c, outputURI)), &out); err != nil || out["session_id"] != id {
		t.Errorf("debug output %v (%v)", out, err)
	}

	subscribe(t, c, stateURI)
	from := log.mark()
	okContent(t, c, "set_breakpoints", fmt.Sprintf(`{"file":"main.go","breakpoints":[{"line":%d}]}`, double))
	okContent(t, c, "control_execution", `{"action":"continue"}`)
	log.await(t, from, "an update of the debug session", updatedFor(stateURI))
	if err := json.Unmarshal([]byte(readText(t, c, stateURI)), &state); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(mustAt(t, state, "location.line")) != fmt.Sprint(double) {
		t.Errorf("after continue: %v, want stopped at line %d", state["location"], double)
	}

	from = log.mark()
	okContent(t, c, "stop_debug_session", `{}`)
	log.await(t, from, "list_changed after the session ended", isMethod(mcp.MethodNotificationResourcesListChanged))
	if slices.Contains(listURIs(t, c), stateURI) {
		t.Errorf("the ended session %s is still listed", id)
	}
}

// TestServerCrashWarning: a language server that crashes reaches a client
// that set the level to warning as notifications/message from
// nvbridge.server, saying how it ended and that it is restarted.
func TestServerCrashWarning(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake, err := fakelsp.Spec("fakelsp", []string{"text"}, fakelsp.Script{Methods: map[string]string{
		protocol.MethodTextDocumentReferences: fakelsp.Crash,
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, lspClient := testenv.EmbeddedWith(t, root, nvim.Options{ExtraServers: []nvim.ServerSpec{fake}})
	_, c, log := watchedClient(t, s, lspClient)
	ctx := testenv.Context(t)
	if err := s.SetServerRestartDelay(ctx, 3600*1000); err != nil {
		t.Fatal(err)
	}
	req := mcp.SetLevelRequest{}
	req.Params.Level = mcp.LoggingLevelWarning
	//lint:ignore SA1019 logging/setLevel is what clients of protocol 2025-11-25 send
	if err := c.SetLevel(ctx, req); err != nil {
		t.Fatal(err)
	}
	from := log.mark()
	if res := mcpCall(t, c, "find_references", `{"file":"notes.txt","line":1,"symbol":"hello"}`); !res.IsError {
		t.Fatalf("find_references on the crashing fake succeeded: %v", res.Content)
	}
	msg := log.await(t, from, "a warning that the server crashed", func(n mcp.JSONRPCNotification) bool {
		return n.Method == "notifications/message" && fmt.Sprint(n.Params.AdditionalFields["logger"]) == "nvbridge.server"
	})
	data, _ := json.Marshal(msg.Params.AdditionalFields["data"])
	for _, want := range []string{"fakelsp", "exited with code 3", "restarting it"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("warning %s lacks %q", data, want)
		}
	}
}

// TestReadListsLoadedBuffer: a read that loads a file changes the resource
// list (its buffer is listed), and the client is told (list_changed) once
// the read has answered. A preview first has the list compared and
// notified (a change of nvbridge's own), so the read's is a change from a
// list the client was told of.
func TestReadListsLoadedBuffer(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	root := testenv.CopySample(t, "go")
	s, lspClient := testenv.Embedded(t, root)
	_, c, log := watchedClient(t, s, lspClient)

	from := log.mark()
	okContent(t, c, "edit_buffer", `{"file":"text/normalize.go","edits":[{"line_start":1,"line_end":0,"new_text":"// previewed"}]}`)
	log.await(t, from, "list_changed after the preview", isMethod(mcp.MethodNotificationResourcesListChanged))
	const loaded = "nvbridge://buffer/orders/orders.go"
	if slices.Contains(listURIs(t, c), loaded) {
		t.Fatalf("%s is listed before any tool loaded it", loaded)
	}
	from = log.mark()
	okContent(t, c, "get_hover_info", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`)
	log.await(t, from, "list_changed after the read loaded orders.go", isMethod(mcp.MethodNotificationResourcesListChanged))
	if !slices.Contains(listURIs(t, c), loaded) {
		t.Fatalf("%s is not listed after the read loaded it", loaded)
	}
}

// TestListChangedOncePerList: once the client was told the resource list
// changed, the reads that load more files tell it nothing more (nor list
// the resources again to compare) until it lists them; its list makes the
// next change told again, against the list it got.
func TestListChangedOncePerList(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	root := testenv.CopySample(t, "go")
	s, lspClient := testenv.Embedded(t, root)
	_, c, log := watchedClient(t, s, lspClient)
	listChanged := isMethod(mcp.MethodNotificationResourcesListChanged)

	// A preview has the list compared and told.
	from := log.mark()
	okContent(t, c, "edit_buffer", `{"file":"text/normalize.go","edits":[{"line_start":1,"line_end":0,"new_text":"// previewed"}]}`)
	log.await(t, from, "list_changed after the preview", listChanged)

	// Told, not listed since: a read that loads orders.go is not told.
	from = log.mark()
	okContent(t, c, "get_hover_info", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`)
	// Beyond relistWait (a change Neovim reports waits at most that for
	// the calls in flight), and a call after it: a comparison would have
	// told it by now.
	time.Sleep(time.Second)
	okContent(t, c, "get_hover_info", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`)
	time.Sleep(200 * time.Millisecond)
	log.mu.Lock()
	for _, n := range log.got[from:] {
		if listChanged(n) {
			t.Errorf("list_changed again before the client listed the resources")
		}
	}
	log.mu.Unlock()

	// Its list shows the read's buffer; the next load is told.
	const orders, payment = "nvbridge://buffer/orders/orders.go", "nvbridge://buffer/payment/payment.go"
	if uris := listURIs(t, c); !slices.Contains(uris, orders) || slices.Contains(uris, payment) {
		t.Fatalf("resources/list: %v, want %s and not %s", uris, orders, payment)
	}
	from = log.mark()
	okContent(t, c, "get_hover_info", `{"file":"payment/payment.go","line":2,"symbol":"payment"}`)
	log.await(t, from, "list_changed after the read loaded payment.go", listChanged)
	if !slices.Contains(listURIs(t, c), payment) {
		t.Fatalf("%s is not listed after the read loaded it", payment)
	}
}
