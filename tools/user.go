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
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/nvim"
)

// The user's side of tool calls in an attached Neovim (lua/nvbridge/user.lua):
// every call runs User NvbridgeToolPre / NvbridgeToolPost there, the
// user's before_tool hooks may refuse it, a pause refuses writing tools,
// and changes wait for the user's approval (approve = "writes" | "always"
// | "never", read from the plugin's setup). An embedded Neovim has no user:
// none of this runs there.

// userTools asks buffer-changing tools that do not go through a changeset
// (which the engine's approval shows as a diff) for a plain approval.
var userApprovedTools = map[string]bool{"save_buffer": true, "discard_buffer": true, "undo": true, "run_tests": true}

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
		// Changesets are shown as a diff by the engine when applied; the
		// other buffer tools (and, with "always", every other call) get a
		// plain approval here.
		if (pre.Mode != "never" && (userApprovedTools[name] || approveWrites && writes)) || (pre.Mode == "always" && !writes) {
			if _, err := env.approve(ctx, edit.Approval{Tool: name, Diff: fmt.Sprintf("%s %s\n", name, body)}); err != nil {
				res := errorResult(err)
				env.userPost(name, res)
				return res, nil
			}
		}
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

// approvalRequest is what user.approve receives.
type approvalRequest struct {
	Tool        string              `msgpack:"tool"`
	Diff        string              `msgpack:"diff"`
	Files       []string            `msgpack:"files"`
	ChangesetID string              `msgpack:"changeset_id,omitempty"`
	Proposed    []edit.ProposedFile `msgpack:"proposed"`
}

// approvalAnswer is user.approve's answer when the user accepted: the
// texts they edited before accepting, by absolute path.
type approvalAnswer struct {
	Edited map[string]string `json:"edited"`
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
	raw, err := e.Session.Approve(ctx, approvalRequest{Tool: a.Tool, Diff: a.Diff, Files: files, ChangesetID: a.ChangesetID, Proposed: proposed})
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
	return edit.Decision{Edited: ans.Edited}, nil
}

// engineApproval is the engine's approval in attached mode: asked unless
// the user set approve = "never".
func (e *Env) engineApproval(ctx context.Context, a edit.Approval) (edit.Decision, error) {
	var mode string
	if err := e.Session.ApproveMode(ctx, &mode); err != nil {
		return edit.Decision{}, err
	}
	if mode == "never" {
		return edit.Decision{}, nil
	}
	return e.approve(ctx, a)
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
