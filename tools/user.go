package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/dap"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/nvim"
)

// The user's side of tool calls in an attached Neovim (lua/nvbridge/user.lua):
// every call runs User NvbridgeToolPre / NvbridgeToolPost there, the
// user's before_tool hooks may refuse it, a pause refuses writing tools,
// and changes wait for the user's approval (approve = "writes" | "always"
// | "never", read from the plugin's setup). An embedded Neovim has no user:
// none of this runs there.

// Every change the user approves shows what it does: a changeset's diff
// (hunk by hunk), what a save writes, what a discard or an undo takes back
// (the engine asks, edit.Engine.Approve), the command line a debug session
// runs (start_debug_session). A plain approval, showing the call, is left
// for the user's own writing tools and, with "always", the other calls.

// callInfo is what the wrapper knows of the call in flight: the tool's
// name and the approval mode tool_pre read, carried by the context to the
// approvals the call asks for.
type callInfo struct {
	tool string
	mode string
}

type callKey struct{}

func withCall(ctx context.Context, c callInfo) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

func callOf(ctx context.Context) callInfo {
	c, _ := ctx.Value(callKey{}).(callInfo)
	return c
}

// toolPreReply is user.tool_pre's answer.
type toolPreReply struct {
	Refuse *nvim.LuaError `msgpack:"refuse,omitempty"`
	Mode   string         `msgpack:"mode,omitempty"`
}

// withUser wraps a tool's handler with the user's events, hooks, pause and
// approval (attached mode only).
func withUser(env *Env, t Tool) Tool { return wrapWithUser(env, t, false) }

// wrapWithUser is withUser; approveWrites also asks the user for a plain
// approval of each call that writes (a user-defined tool: no changeset
// shows its change).
func wrapWithUser(env *Env, t Tool, approveWrites bool) Tool {
	t = withName(env, withWhere(env, t))
	if env == nil || env.Session == nil || env.Session.Embedded() {
		return t
	}
	name := t.Tool.Name
	readOnly := t.Tool.Annotations.ReadOnlyHint != nil && *t.Tool.Annotations.ReadOnlyHint
	hasPreview := strings.Contains(string(mustSchema(t.Tool)), `"preview"`)
	inner := t.Handler
	t.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		body, err := argumentBody(req.GetRawArguments())
		if err != nil {
			return inner(ctx, req)
		}
		writes := !readOnly
		if writes && hasPreview {
			var a struct {
				Preview *bool `json:"preview"`
			}
			_ = json.Unmarshal(body, &a)
			writes = a.Preview != nil && !*a.Preview
		}
		var pre toolPreReply
		if err := env.Session.ToolPre(ctx, &pre, name, string(body), writes); err != nil {
			return errorResult(err), nil
		}
		if pre.Refuse != nil {
			res := errorResult(pre.Refuse.APIError())
			env.userPost(name, res)
			return res, nil
		}
		// Changes, saves, discards, undos and debug sessions are shown
		// with what they do by the approvals they ask for; a user's own
		// writing tool (and, with "always", every other call) gets a
		// plain approval of the call here.
		if pre.Mode != "never" && approveWrites && writes || pre.Mode == "always" && !writes {
			if _, err := env.approve(ctx, edit.Approval{Tool: name, Kind: "call", Diff: fmt.Sprintf("%s %s\n", name, body)}); err != nil {
				res := errorResult(err)
				env.userPost(name, res)
				return res, nil
			}
		}
		ctx = withCall(ctx, callInfo{tool: name, mode: pre.Mode})
		res, err := inner(ctx, req)
		if res != nil {
			res = env.afterTool(ctx, name, body, res)
			env.userPost(name, res)
		}
		return res, err
	}
	return t
}

func mustSchema(t mcp.Tool) []byte {
	if t.RawInputSchema != nil {
		return t.RawInputSchema
	}
	b, _ := json.Marshal(t.InputSchema)
	return b
}

// userPost runs User NvbridgeToolPost with the call's outcome; its failure
// (Neovim gone) does not change the answer.
func (e *Env) userPost(name string, res *mcp.CallToolResult) {
	summary := ""
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			summary = tc.Text
			break
		}
	}
	if len(summary) > 2000 {
		summary = summary[:2000] + "…"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.Session.ToolPost(ctx, name, !res.IsError, summary)
}

// approvalRequest is what review.approve receives.
type approvalRequest struct {
	Tool        string              `msgpack:"tool"`
	Kind        string              `msgpack:"kind"`
	Diff        string              `msgpack:"diff"`
	Files       []string            `msgpack:"files"`
	ChangesetID string              `msgpack:"changeset_id,omitempty"`
	Proposed    []edit.ProposedFile `msgpack:"proposed"`
	Hunks       []edit.Hunk         `msgpack:"hunks"`
	Note        string              `msgpack:"note,omitempty"`
}

// approvalAnswer is review.approve's answer when the user accepted: the
// texts they edited before accepting, by absolute path, and when they
// decided hunk by hunk the indexes of the hunks they accepted.
type approvalAnswer struct {
	Edited map[string]string `json:"edited"`
	Hunks  []int             `json:"hunks"`
}

// approve asks the user in Neovim (user.approve, bounded there by
// approve_timeout_ms: TIMEOUT) and waits; REJECTED carries their note.
func (e *Env) approve(ctx context.Context, a edit.Approval) (edit.Decision, error) {
	files := a.Files
	if files == nil {
		files = []string{}
	}
	proposed := a.Proposed
	if proposed == nil {
		proposed = []edit.ProposedFile{}
	}
	hunks := a.Hunks
	if hunks == nil {
		hunks = []edit.Hunk{}
	}
	if a.Tool == "" {
		a.Tool = callOf(ctx).tool
	}
	if a.Kind == "" {
		a.Kind = "call"
	}
	raw, err := e.Session.Approve(ctx, approvalRequest{Tool: a.Tool, Kind: a.Kind, Diff: a.Diff, Files: files, ChangesetID: a.ChangesetID,
		Proposed: proposed, Hunks: hunks, Note: a.Note})
	if err != nil {
		if ae, ok := err.(*apierr.Error); ok && ae.Code == apierr.Timeout && ae.Remediation == "" {
			ae.Remediation = "ask the user to answer in Neovim, then retry"
		}
		return edit.Decision{}, err
	}
	var ans approvalAnswer
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &ans); err != nil {
			return edit.Decision{}, fmt.Errorf("decode the approval: %w", err)
		}
	}
	return edit.Decision{Edited: ans.Edited, Hunks: ans.Hunks}, nil
}

// approvalMode is the user's approval mode for the call in flight (read by
// tool_pre), else read now.
func (e *Env) approvalMode(ctx context.Context) (string, error) {
	if mode := callOf(ctx).mode; mode != "" {
		return mode, nil
	}
	var mode string
	err := e.Session.ApproveMode(ctx, &mode)
	return mode, err
}

// asksUser reports whether the user approves changes (a mode other than
// "never"); when the mode cannot be read, it asks.
func (e *Env) asksUser(ctx context.Context) bool {
	mode, err := e.approvalMode(ctx)
	return err != nil || mode != "never"
}

// engineApproval is the engine's approval in attached mode: asked unless
// the user set approve = "never"; a change that cannot go ahead
// (Approval.Check) is refused before the user is asked.
func (e *Env) engineApproval(ctx context.Context, a edit.Approval) (edit.Decision, error) {
	mode, err := e.approvalMode(ctx)
	if err != nil {
		return edit.Decision{}, err
	}
	if mode == "never" {
		return edit.Decision{}, nil
	}
	if a.Check != nil {
		if err := a.Check(ctx); err != nil {
			return edit.Decision{}, err
		}
	}
	return e.approve(ctx, a)
}

// confirmRun asks the user before a debug session runs a program (in the
// user's Neovim, unless approve = "never"), showing its command line.
func (e *Env) confirmRun(ctx context.Context, run dap.Run) error {
	return e.askToRun(ctx, run.Text, "runs a program on this machine under a debugger: "+run.CommandLine)
}

// confirmTests asks the same before run_tests runs the project's tests,
// showing each runner's command line.
func (e *Env) confirmTests(ctx context.Context, commandLines []string) error {
	return e.askToRun(ctx, strings.Join(commandLines, "\n")+"\n", "runs the project's tests on this machine: "+strings.Join(commandLines, "; "))
}

// askToRun is the approval of running code: details shown, note the
// summary; none in an embedded Neovim or with approve = "never".
func (e *Env) askToRun(ctx context.Context, details, note string) error {
	if e == nil || e.Session == nil || e.Session.Embedded() || !e.asksUser(ctx) {
		return nil
	}
	_, err := e.approve(ctx, edit.Approval{Kind: "run", Diff: details, Note: note})
	return err
}

// AnnounceAgent registers this nvbridge with the user's Neovim (listed by
// :NvbridgeStatus with its transport and last calls); nothing in embedded
// mode.
func AnnounceAgent(ctx context.Context, env *Env, transport string) error {
	if env != nil {
		transports.Store(env, transport)
	}
	if env == nil || env.Session == nil || env.Session.Embedded() {
		return nil
	}
	return env.Session.RegisterAgent(ctx, transport)
}

// wrapUser applies withUser to every tool.
func wrapUser(env *Env, all []server.ServerTool) []server.ServerTool {
	for i := range all {
		all[i] = withUser(env, all[i])
	}
	return all
}
