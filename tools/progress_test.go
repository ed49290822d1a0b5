package tools_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

// progressLog collects the notifications/progress a client receives, per
// token.
type progressLog struct {
	mu   sync.Mutex
	got  map[string][]map[string]any
	note chan struct{}
}

func watchProgress(c interface {
	OnNotification(func(mcp.JSONRPCNotification))
}) *progressLog {
	l := &progressLog{got: map[string][]map[string]any{}, note: make(chan struct{}, 1)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		p := n.Params.AdditionalFields
		tok, _ := p["progressToken"].(string)
		l.mu.Lock()
		l.got[tok] = append(l.got[tok], p)
		l.mu.Unlock()
		select {
		case l.note <- struct{}{}:
		default:
		}
	})
	return l
}

// await waits for a notification for token whose message contains want.
func (l *progressLog) await(t *testing.T, token, want string) map[string]any {
	t.Helper()
	deadline := time.After(testenv.Timeout())
	for {
		l.mu.Lock()
		for _, p := range l.got[token] {
			if m, _ := p["message"].(string); strings.Contains(m, want) {
				l.mu.Unlock()
				return p
			}
		}
		all, _ := json.Marshal(l.got[token])
		l.mu.Unlock()
		select {
		case <-l.note:
		case <-deadline:
			t.Fatalf("no progress %q for token %s; received: %s", want, token, all)
		}
	}
}

// check fails unless the token's progress values increase strictly.
func (l *progressLog) check(t *testing.T, token string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	last := -1.0
	for _, p := range l.got[token] {
		v, _ := p["progress"].(float64)
		if v <= last {
			all, _ := json.Marshal(l.got[token])
			t.Fatalf("progress values do not increase: %s", all)
		}
		last = v
	}
}

// progressSession is an MCP client session on a copy of the Go sample
// (embedded Neovim, real gopls), with the progress it receives logged.
func progressSession(t *testing.T) (*client.Client, *progressLog) {
	t.Helper()
	root := testenv.CopySample(t, "go")
	s, lc := testenv.Embedded(t, root)
	env := tools.NewEnv(s, lc, t.Logf)
	t.Cleanup(env.Close)
	c := mcpClient(t, env)
	return c, watchProgress(c)
}

// callWithToken calls a tool with a progressToken; it must succeed.
func callWithToken(t *testing.T, c *client.Client, name, args, token string) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(testenv.Context(t), tokenRequest(name, args, token))
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", name, err, res)
	}
	return res
}

func tokenRequest(name, args, token string) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	req.Params.Meta = &mcp.Meta{ProgressToken: token}
	return req
}

// TestProgressGopls: over the protocol, a first call on a fresh gopls
// relays gopls's own $/progress while the call waits for it, and a deep
// call hierarchy walk reports its levels.
func TestProgressGopls(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	c, log := progressSession(t)
	call := func(name, args, token string) { callWithToken(t, c, name, args, token) }
	// gopls loads the workspace ("Setting up workspace", its $/progress
	// title) while the first call waits for its first diagnostics.
	call("get_call_hierarchy", `{"file":"graph/walk.go","line":13,"symbol":"Visit","direction":"incoming","depth":5}`, "first")
	log.await(t, "first", "waiting for gopls: Setting up workspace")
	log.await(t, "first", "walking the hierarchy: level 2")
	log.check(t, "first")

	// prepare_change at depth 6: its phases and the callers' walk.
	call("prepare_change", `{"file":"graph/walk.go","line":13,"symbol":"Visit","depth":6}`, "walk")
	log.await(t, "walk", "prepare_change: definition, references and callers to depth 6")
	log.await(t, "walk", "walking the hierarchy: level 3")
	log.await(t, "walk", "prepare_change: callers done")
	log.check(t, "walk")

	// No token, no progress.
	mcpCall(t, c, "get_symbols", `{"file":"graph/walk.go"}`)
	log.mu.Lock()
	defer log.mu.Unlock()
	for tok := range log.got {
		if tok != "first" && tok != "walk" {
			t.Errorf("progress for a token never given: %q", tok)
		}
	}
}

// TestProgressRefactorings: over the protocol, the multi-step
// refactorings report each step with a progressToken: every inlined call
// site, the references of a move, the phases of a signature change.
func TestProgressRefactorings(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	c, log := progressSession(t)
	call := func(name, args, token string) { callWithToken(t, c, name, args, token) }
	call("inline_function", `{"file":"refactor/pricing.go","line":27,"symbol":"taxOf"}`, "inline")
	log.await(t, "inline", "inline_function: step 2 of 3: finding the uses of taxOf")
	log.await(t, "inline", "call site 1 of ")
	log.await(t, "inline", ": building the changeset")
	log.check(t, "inline")

	call("move_symbol", `{"file":"refactor/pricing.go","line":32,"symbol":"cents","target_file":"refactor/money.go"}`, "move")
	log.await(t, "move", "move_symbol: step 2 of 3: finding the references at refactor/pricing.go:32")
	log.await(t, "move", "move_symbol: step 3 of 3: moved cents to refactor/money.go")
	log.check(t, "move")

	call("change_signature", `{"file":"refactor/pricing.go","line":27,"symbol":"taxOf","params":[{"name":"rate","from":"percent"},{"name":"subtotal","from":"subtotal"}]}`, "chsig")
	log.await(t, "chsig", "change_signature: step 3 of ")
	log.await(t, "chsig", "rewriting the declarations and call sites")
	log.check(t, "chsig")
}

// TestProgressRunTests: run_tests reports each test's outcome as it
// finishes (go test -json's events), after the search for the tests.
func TestProgressRunTests(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	c, log := progressSession(t)
	callWithToken(t, c, "run_tests", `{"file":"orders/orders.go","line":33,"symbol":"Process"}`, "tests")
	log.await(t, "tests", "prepare_change: callers done")
	log.await(t, "tests", "TestProcess pass")
	log.check(t, "tests")
}
