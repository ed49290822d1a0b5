package lua_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
)

// userToolsInit is a user's config: tools of their own (one that answers
// at once, one that answers later with progress, one that writes, one that
// fails), an after_tool hook hiding a path pattern, and the agent events
// told back to the test (nvbridge_test_event on the agent's channel).
const userToolsInit = answerApprovals + `
require('nvbridge').tool({
  name = 'shout',
  description = 'Upper-cases a text',
  schema = { type = 'object', properties = { text = { type = 'string' } }, required = { 'text' } },
  run = function(args) return { text = args.text:upper() } end,
})
require('nvbridge').tool({
  name = 'count_later',
  description = 'Counts to n, reporting progress, and answers later',
  schema = { type = 'object', properties = { n = { type = 'integer' } } },
  run = function(args, done, progress)
    local i = 0
    local function step()
      i = i + 1
      progress(100 * i / args.n, 'counted ' .. i)
      if i < args.n then vim.schedule(step) else done({ counted = i }) end
    end
    vim.schedule(step)
  end,
})
require('nvbridge').tool({
  name = 'stamp',
  description = 'Writes a stamp on the first line of a buffer',
  writes = true,
  schema = { type = 'object', properties = { file = { type = 'string' } }, required = { 'file' } },
  run = function(args)
    local b = vim.fn.bufadd(args.file)
    vim.fn.bufload(b)
    vim.api.nvim_buf_set_lines(b, 0, 1, false, { 'STAMPED' })
    return 'stamped ' .. args.file
  end,
})
require('nvbridge').tool({
  name = 'broken',
  description = 'Always fails',
  run = function() error('the test command is not configured') end,
})
local function hide(v)
  if type(v) == 'string' then
    return (v:gsub('secret/[%w_./-]+', '[hidden]'))
  elseif type(v) == 'table' then
    local out = setmetatable({}, getmetatable(v))
    for k, x in pairs(v) do out[k] = hide(x) end
    return out
  end
  return v
end
require('nvbridge').on('after_tool', function(ev)
  return { result = hide(ev.result), text = hide(ev.text) }
end)
for _, pattern in ipairs({ 'NvbridgeAgentAttach', 'NvbridgeAgentDetach', 'NvbridgeToolProgress' }) do
  vim.api.nvim_create_autocmd('User', {
    pattern = pattern,
    callback = function(ev)
      vim.rpcnotify(ev.data.channel, 'nvbridge_test_event', ev.match, vim.json.encode(ev.data))
    end,
  })
end
`

// TestUserToolsAndEvents: tools registered in the user's config are
// listed and callable over MCP, shaped like every tool (structured result,
// errors with code and remediation); one that writes is listed in writing
// modes only and asks for approval; one registered later is announced with
// notifications/tools/list_changed; the after_tool hook's change reaches
// the agent; User NvbridgeAgentAttach, NvbridgeToolProgress and
// NvbridgeAgentDetach fire with the client's name and the progress the
// agent is sent.
func TestUserToolsAndEvents(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\ntwo\n", "notes.txt": "the key is in secret/prod/key.pem\n"})
	events := make(chan [2]string, 64)
	u := startUserWith(t, root, userToolsInit, func(s interface {
		Handle(string, any) error
	}) {
		if err := s.Handle("nvbridge_test_event", func(args ...any) {
			if len(args) == 2 {
				name, _ := args[0].(string)
				data, _ := args[1].(string)
				events <- [2]string{name, data}
			}
		}); err != nil {
			t.Fatal(err)
		}
	})
	ctx := testenv.Context(t)
	awaitEvent := func(name string, match func(map[string]any) bool) map[string]any {
		t.Helper()
		deadline := time.After(testenv.Timeout())
		for {
			select {
			case ev := <-events:
				var data map[string]any
				if err := json.Unmarshal([]byte(ev[1]), &data); err != nil {
					t.Fatalf("%s: %v", ev[0], err)
				}
				if ev[0] == name && match(data) {
					return data
				}
			case <-deadline:
				t.Fatalf("no User %s within %s", name, testenv.Timeout())
			}
		}
	}
	attach := awaitEvent("NvbridgeAgentAttach", func(d map[string]any) bool { return d["client"] == "nvbridge-user-test" })
	if attach["transport"] != "stdio" {
		t.Errorf("attach data %v: transport should be stdio", attach)
	}

	listed := func() []string {
		res, err := u.c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	names := listed()
	for _, want := range []string{"shout", "count_later", "stamp", "broken", "read_file"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools/list lacks %s: %v", want, names)
		}
	}

	if out := u.mustCall("shout", `{"text":"quiet"}`); mustJSON(out["result"]) != `{"text":"QUIET"}` {
		t.Errorf("shout: %v", out)
	}
	u.wantError("shout", `{}`, apierr.InvalidParameter, "text")
	if e := u.wantError("broken", `{}`, apierr.OperationFailed, "the test command is not configured"); !strings.Contains(e.Remediation, "broken") {
		t.Errorf("remediation %q does not name the tool", e.Remediation)
	}

	// Later, with progress: the agent gets notifications/progress and the
	// user NvbridgeToolProgress for each.
	progress := make(chan mcp.JSONRPCNotification, 16)
	u.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" || n.Method == mcp.MethodNotificationToolsListChanged {
			progress <- n
		}
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = "count_later"
	req.Params.Arguments = json.RawMessage(`{"n":3}`)
	req.Params.Meta = &mcp.Meta{ProgressToken: "count"}
	res, err := u.c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("count_later: %v %v", err, res)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"result":{"counted":3}}` {
		t.Errorf("count_later: %s", b)
	}
	ev := awaitEvent("NvbridgeToolProgress", func(d map[string]any) bool { return d["tool"] == "count_later" })
	if msg, _ := ev["message"].(string); !strings.Contains(msg, "counted") {
		t.Errorf("progress event %v", ev)
	}

	// A writing tool asks; rejected, nothing changes.
	u.lua(`_G.decision, _G.note = 'reject', 'not now'`, nil)
	u.wantError("stamp", `{"file":"a.txt"}`, apierr.Rejected, "not now")
	if got := u.bufText("a.txt"); got == "STAMPED\ntwo" {
		t.Fatal("stamp ran although the user rejected it")
	}
	u.lua(`_G.decision = 'accept'`, nil)
	u.mustCall("stamp", `{"file":"`+u.abs("a.txt")+`"}`)
	if got := u.bufText("a.txt"); got != "STAMPED\ntwo" {
		t.Fatalf("buffer after an accepted stamp: %q", got)
	}
	var asked []string
	u.lua(`local out = {}; for _, a in ipairs(_G.asked) do table.insert(out, a.tool) end; return out`, &asked)
	if !slices.Equal(asked, []string{"stamp", "stamp"}) {
		t.Errorf("approvals asked: %v, want stamp twice", asked)
	}

	// Modes: explore lists the reading user tools, not the writing one.
	u.mustCall("set_mode", `{"mode":"explore"}`)
	if names := listed(); slices.Contains(names, "stamp") || !slices.Contains(names, "shout") {
		t.Errorf("explore lists %v: want shout, not stamp", names)
	}
	u.wantError("stamp", `{"file":"a.txt"}`, apierr.PreconditionFailed, "not available in mode explore")
	u.mustCall("set_mode", `{"mode":"all"}`)

	// Registered after nvbridge attached: announced, then callable.
	u.lua(`require('nvbridge').tool({ name = 'late', description = 'Registered late', run = function() return 'here' end })`, nil)
	// (set_mode's own list_changed may still be on its way: each one is
	// followed by a look at the list.)
	deadline := time.After(testenv.Timeout())
	for !slices.Contains(listed(), "late") {
		select {
		case <-progress:
		case <-deadline:
			t.Fatal("no notifications/tools/list_changed announcing the tool registered late")
		}
	}
	if out := u.mustCall("late", `{}`); out["result"] != "here" {
		t.Errorf("late: %v", out)
	}

	// after_tool: the hook hides secret/... in what the agent sees.
	out := u.mustCall("read_file", `{"file":"notes.txt"}`)
	if b := mustJSON(out); strings.Contains(b, "secret/") || !strings.Contains(b, "[hidden]") {
		t.Errorf("read_file after the hook: %s", b)
	}

	// The agent leaves: User NvbridgeAgentDetach names it.
	if err := u.c.Close(); err != nil {
		t.Fatal(err)
	}
	awaitEvent("NvbridgeAgentDetach", func(d map[string]any) bool {
		return d["client"] == "nvbridge-user-test" && d["session"] == attach["session"]
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestEditorResource: nvbridge://editor (attached) says where the user is;
// a subscriber is told when the cursor moves; with a sensitive file in the
// current window the resource names no file and lists no sensitive buffer.
func TestEditorResource(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.txt": "one\ntwo\nthree\n", ".env": "TOKEN=1\n"})
	u := startUser(t, root, "")
	ctx := testenv.Context(t)
	notes := make(chan string, 64)
	u.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationResourceUpdated {
			uri, _ := n.Params.AdditionalFields["uri"].(string)
			notes <- uri
		}
	})
	stop, err := u.c.ListenAsync(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{"nvbridge://editor"}}, func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	read := func() map[string]any {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = "nvbridge://editor"
		res, err := u.c.ReadResource(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(res.Contents[0].(mcp.TextResourceContents).Text), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	u.lua(`vim.cmd.edit(...)`, nil, u.abs("a.txt"))
	// The listen stream is open once a move is told; each move is followed
	// by a look at the resource, until it shows the line moved to.
	deadline := time.After(testenv.Timeout())
	for i, moved := 0, false; !moved; i++ {
		line := 2 + i%2 // a move each time, so each has its event
		u.lua(`vim.api.nvim_win_set_cursor(0, { ..., 1 })`, nil, line)
		select {
		case uri := <-notes:
			moved = uri == "nvbridge://editor" && read()["line"] == float64(line)
		case <-deadline:
			t.Fatal("no notifications/resources/updated for nvbridge://editor after the cursor moved")
		}
	}
	if got := read(); got["file"] != "a.txt" {
		t.Errorf("editor: %v", got)
	}
	u.lua(`vim.cmd.edit(...)`, nil, u.abs(".env"))
	got := read()
	if b := mustJSON(got); strings.Contains(b, ".env") || got["file"] != "" {
		t.Errorf("editor with .env current: %s", b)
	}
}
