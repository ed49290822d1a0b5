package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
)

// Names instead of positions: every position tool accepts name (a
// qualified name such as orders.Process, Logger.clone,
// requests.sessions.Session.request, z.string) instead of file and line.
// Like at: "cursor" (where.go), the argument is resolved (lsp.ResolveName)
// and rewritten into file, line and column before the tool's own strict
// decoding, so every position tool gets it without a change of its own;
// the answer gains resolved: the declaration chosen and how the name was
// read.

const nameDescription = `instead of file and line: the symbol's name, optionally qualified as its language writes it (orders.Process, Logger.clone, requests.sessions.Session.request, z.string), resolved in the workspace; several matches answer AMBIGUOUS listing each candidate's file, line and kind; the answer's resolved says which declaration was chosen. With file, file picks the language server, and among several declarations so named the one in that file`

// withName adds name to the position tools (those with file, line and
// column or symbol): schema, resolution and the answer's resolved.
func withName(env *Env, t Tool) Tool {
	var schema map[string]any
	if t.Tool.RawInputSchema == nil || json.Unmarshal(t.Tool.RawInputSchema, &schema) != nil {
		return t
	}
	props, _ := schema["properties"].(map[string]any)
	_, hasFile := props["file"]
	_, hasLine := props["line"]
	_, hasColumn := props["column"]
	_, hasSymbol := props["symbol"]
	if !hasFile || !hasLine || !(hasColumn || hasSymbol) {
		return t
	}
	props["name"] = map[string]any{"type": "string", "description": nameDescription}
	var standIns []string
	if req, ok := schema["required"].([]any); ok {
		kept := []any{}
		for _, r := range req {
			if n, _ := r.(string); n == "file" || n == "line" {
				standIns = append(standIns, n)
				continue
			}
			kept = append(kept, r)
		}
		schema["required"] = kept
	}
	for _, n := range []string{"file", "line"} {
		p, ok := props[n].(map[string]any)
		if !ok {
			continue
		}
		d, _ := p["description"].(string)
		switch {
		case strings.Contains(d, " is given)"):
			p["description"] = strings.Replace(d, " is given)", " or name is given)", 1)
		case slices.Contains(standIns, n):
			p["description"] = d + " (required unless name is given)"
		}
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return t
	}
	t.Tool.RawInputSchema = raw
	t.Tool.RawOutputSchema = withResolvedSchema(t.Tool.RawOutputSchema)
	inner := t.Handler
	t.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		body, err := argumentBody(req.GetRawArguments())
		if err != nil {
			return inner(ctx, req)
		}
		// Most calls give a position: their arguments are not decoded here
		// as well.
		var args map[string]any
		if mayName(body, "name") && json.Unmarshal(body, &args) != nil {
			return inner(ctx, req)
		}
		raw, given := args["name"]
		if !given || raw == nil {
			delete(args, "name")
			res, err := inner(ctx, req)
			return mentionName(res, standIns), err
		}
		name, ok := raw.(string)
		if !ok || strings.TrimSpace(name) == "" {
			return errorResult(apierr.New(apierr.InvalidParameter, "name must be a non-empty string",
				"pass the symbol's name, optionally qualified (orders.Process, Logger.clone)")), nil
		}
		for _, k := range []string{"line", "column", "symbol", "at", "range"} {
			if v, ok := args[k]; ok && v != nil {
				return errorResult(apierr.Errorf(apierr.InvalidParameter,
					"pass either name, or file and line (with symbol or column) or at: \"cursor\", not both",
					"name %q and %s were both given", name, k)), nil
			}
		}
		file, _ := args["file"].(string)
		if env == nil || env.LSP == nil {
			return errorResult(apierr.New(apierr.PreconditionFailed, "no language servers: nvbridge is not attached to a Neovim",
				"start nvbridge with a Neovim session")), nil
		}
		named, err := env.LSP.ResolveName(ctx, name, file)
		if err != nil {
			return errorResult(err), nil
		}
		delete(args, "name")
		args["file"], args["line"], args["column"] = named.Symbol.File, named.Symbol.Line, named.Symbol.Column
		rewritten, err := json.Marshal(args)
		if err != nil {
			return errorResult(err), nil
		}
		req.Params.Arguments = json.RawMessage(rewritten)
		req.Params.RawArguments = json.RawMessage(rewritten)
		res, err := inner(ctx, req)
		if err != nil || res == nil || res.IsError {
			return res, err
		}
		return withResolved(res, named), nil
	}
	return t
}

// mentionName adds name as the other way to a missing file or line error.
func mentionName(res *mcp.CallToolResult, standIns []string) *mcp.CallToolResult {
	if res == nil {
		return res
	}
	body, ok := res.StructuredContent.(ErrorBody)
	if !res.IsError || !ok || body.Error == nil || body.Error.Code != apierr.InvalidParameter {
		return res
	}
	e := *body.Error
	changed := false
	for _, n := range []string{"file", "line"} {
		missing := "`" + n + "` is required"
		if i := strings.Index(e.Message, missing); i >= 0 {
			rest := e.Message[i+len(missing):]
			if strings.HasPrefix(rest, " (or ") {
				e.Message = e.Message[:i+len(missing)] + strings.Replace(rest, ")", ", or name)", 1)
			} else {
				e.Message = strings.Replace(e.Message, missing, missing+" (or name)", 1)
			}
			changed = true
		}
	}
	if !changed {
		return res
	}
	e.Remediation += "; or name: the symbol's name, optionally qualified (orders.Process, Logger.clone)"
	return errorResult(&e)
}

// withResolved adds resolved (the declaration a name chose) to a
// successful answer: its structured content and, first, its text.
func withResolved(res *mcp.CallToolResult, named lsp.NamedSymbol) *mcp.CallToolResult {
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return res
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return res
	}
	m["resolved"] = named
	res.StructuredContent = m
	s := named.Symbol
	line := fmt.Sprintf("%s resolved to %s %s at %s:%d:%d (%s", named.Name, s.Kind, s.Name, s.File, s.Line, s.Column, named.How)
	if named.SetAside > 0 {
		line += fmt.Sprintf("; %d other(s) so named set aside", named.SetAside)
	}
	line += ")\n"
	for i, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			tc.Text = line + tc.Text
			res.Content[i] = tc
			break
		}
	}
	return res
}

// withResolvedSchema adds resolved to a tool's output schema (its
// successful branch, anyOf[0]).
func withResolvedSchema(raw json.RawMessage) json.RawMessage {
	var top map[string]any
	if json.Unmarshal(raw, &top) != nil {
		return raw
	}
	branches, _ := top["anyOf"].([]any)
	if len(branches) == 0 {
		return raw
	}
	success, _ := branches[0].(map[string]any)
	props, _ := success["properties"].(map[string]any)
	if props == nil {
		return raw
	}
	if _, has := props["resolved"]; !has {
		props["resolved"] = schemaOf(reflect.TypeFor[lsp.NamedSymbol]())
	}
	out, err := json.Marshal(top)
	if err != nil {
		return raw
	}
	return out
}
