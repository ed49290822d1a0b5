package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
)

// Where the user is: position tools accept at: "cursor" (the file, line
// and column of the cursor in the user's current window) and range tools
// range: "selection" (the last visual selection there) instead of file and
// line numbers. The argument is rewritten before the tool's own strict
// decoding, so every position and range tool gets it without a change of
// its own.

// editorContext is user.editor_context's answer (JSON).
type editorContext struct {
	File   string `json:"file"`
	Cursor struct {
		Line   int `json:"line"`
		Column int `json:"column"`
	} `json:"cursor"`
	Selection *editorSelection `json:"selection"`
	Visible   struct {
		First int `json:"first"`
		Last  int `json:"last"`
	} `json:"visible"`
	Mode    string `json:"mode"`
	Buffers []struct {
		File     string `json:"file"`
		Modified bool   `json:"modified"`
		Visible  bool   `json:"visible"`
		Loaded   bool   `json:"loaded"`
	} `json:"buffers"`
}

// editorSelection is the user's selection: the live one in visual mode,
// else the last one they made (in the buffer they last selected in).
type editorSelection struct {
	File        string `json:"file" jsonschema:"the file it is in (relative to the root): the current one while selecting, else the one the user last selected in"`
	StartLine   int    `json:"start_line"`
	StartColumn int    `json:"start_column"`
	EndLine     int    `json:"end_line"`
	EndColumn   int    `json:"end_column"`
	// Live: the user is selecting it now (visual mode).
	Live bool `json:"live" jsonschema:"true while the user is selecting it (visual mode); false: the last selection they made"`
}

// readEditor asks the user's Neovim where they are; files are made
// relative to the workspace root (a file outside it keeps its absolute
// path and is flagged by the caller).
func readEditor(ctx context.Context, env *Env) (editorContext, error) {
	var out editorContext
	if env == nil || env.Session == nil {
		return out, apierr.New(apierr.PreconditionFailed, "no Neovim session", "start nvbridge attached to a Neovim")
	}
	if env.Session.Embedded() {
		return out, apierr.New(apierr.PreconditionFailed, "nvbridge runs its own headless Neovim: there is no user's cursor or selection",
			"pass file and line numbers, or attach nvbridge to the user's Neovim (--nvim, $NVIM or --nvim auto)")
	}
	var raw string
	if err := env.Session.EditorContext(ctx, &raw); err != nil {
		return out, err
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return out, apierr.Errorf(apierr.OperationFailed, "report this", "read the editor context: %v", err)
	}
	out.File = env.relPath(out.File)
	if out.Selection != nil {
		out.Selection.File = env.relPath(out.Selection.File)
	}
	for i := range out.Buffers {
		out.Buffers[i].File = env.relPath(out.Buffers[i].File)
	}
	return out, nil
}

// relPath is abs relative to the workspace root (Root.Rel: absolute when
// outside it).
func (e *Env) relPath(abs string) string {
	if abs == "" || !filepath.IsAbs(abs) {
		return abs
	}
	return e.Session.Root().Rel(abs)
}

// positionFields are the arguments at: "cursor" and range: "selection"
// fill in.
var positionFields = map[string]bool{"file": true, "line": true, "start_line": true, "end_line": true,
	"column": true, "start_column": true, "end_column": true}

// withWhere adds at: "cursor" to position tools and range: "selection" to
// range tools (schema and handling).
func withWhere(env *Env, t Tool) Tool {
	var schema map[string]any
	if t.Tool.RawInputSchema == nil || json.Unmarshal(t.Tool.RawInputSchema, &schema) != nil {
		return t
	}
	props, _ := schema["properties"].(map[string]any)
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := props[n]; !ok {
				return false
			}
		}
		return true
	}
	var kind string
	switch {
	case has("file", "start_line", "end_line"):
		kind = "range"
		props["range"] = map[string]any{"type": "string", "enum": []string{"selection"},
			"description": `"selection": the range is the user's selection: the one they are making (visual mode), else the last one they made, in whichever buffer (file, start and end filled in: leave them out); attached to the user's Neovim only`}
	case has("file", "line", "end_line"):
		kind = "range"
		props["range"] = map[string]any{"type": "string", "enum": []string{"selection"},
			"description": `"selection": the range is the user's selection: the one they are making (visual mode), else the last one they made, in whichever buffer (file, line, column, end_line, end_column filled in: leave them out); attached to the user's Neovim only`}
		props["at"] = map[string]any{"type": "string", "enum": []string{"cursor"},
			"description": `"cursor": the position is the user's cursor in their current window (file, line and column filled in: leave them out); attached to the user's Neovim only`}
	case has("file", "line") && (has("column") || has("symbol")):
		kind = "at"
		props["at"] = map[string]any{"type": "string", "enum": []string{"cursor"},
			"description": `"cursor": the position is the user's cursor in their current window (file, line and column filled in: leave them out); attached to the user's Neovim only`}
	default:
		return t
	}
	// The fields at or range stand for are not required in the schema
	// (an agent may leave them out); a call that gives neither them nor
	// at/range is refused below, naming both ways. The tool's own
	// required check still runs on the rewritten arguments.
	var standIns []string
	if req, ok := schema["required"].([]any); ok {
		kept := []any{}
		for _, r := range req {
			if name, _ := r.(string); positionFields[name] {
				standIns = append(standIns, name)
				continue
			}
			kept = append(kept, r)
		}
		schema["required"] = kept
	}
	alternative := `at: "cursor"`
	if kind == "range" {
		alternative = `range: "selection"`
	}
	for _, name := range standIns {
		if p, ok := props[name].(map[string]any); ok {
			d, _ := p["description"].(string)
			p["description"] = d + " (required unless " + alternative + " is given)"
		}
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return t
	}
	t.Tool.RawInputSchema = raw
	inner := t.Handler
	t.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		body, err := argumentBody(req.GetRawArguments())
		if err != nil {
			return inner(ctx, req)
		}
		// Most calls name no stand-in: their arguments (a 1,000-edit
		// change: 60 KB) are not decoded here as well.
		var args map[string]any
		if mayName(body, "at") || mayName(body, "range") {
			if json.Unmarshal(body, &args) != nil {
				return inner(ctx, req)
			}
		}
		at, hasAt := args["at"]
		rng, hasRange := args["range"]
		if !hasAt && !hasRange {
			// The tool's own checks run (unknown fields first, then the
			// required ones); a stand-in reported missing is told it has
			// an alternative.
			res, err := inner(ctx, req)
			if body, ok := res.StructuredContent.(ErrorBody); ok && err == nil && res.IsError && body.Error != nil && body.Error.Code == apierr.InvalidParameter {
				e := *body.Error
				for _, name := range standIns {
					missing := "`" + name + "` is required"
					if strings.Contains(e.Message, missing) && !strings.Contains(e.Message, missing+" (or ") {
						e.Message = strings.Replace(e.Message, missing, missing+" (or "+alternative+")", 1)
						e.Remediation += "; or " + alternative + " for where the user is in their Neovim"
					}
				}
				return errorResult(&e), nil
			}
			return res, err
		}
		delete(args, "at")
		delete(args, "range")
		if hasAt && at != "cursor" || hasRange && rng != "selection" {
			return errorResult(apierr.New(apierr.InvalidParameter, `at must be "cursor" and range must be "selection"`,
				"omit them and pass file and line numbers, or use those values")), nil
		}
		ed, err := readEditor(ctx, env)
		if err != nil {
			return errorResult(err), nil
		}
		// A selection names its own file (the user may have moved on).
		file := ed.File
		if hasRange && ed.Selection != nil && ed.Selection.File != "" {
			file = ed.Selection.File
		}
		if filepath.IsAbs(file) || file == "" {
			return errorResult(apierr.Errorf(apierr.PreconditionFailed, "pass file and line numbers instead",
				"the user's current window shows %q, which is not a file inside the workspace", file)), nil
		}
		args["file"] = file
		switch {
		case hasRange:
			if ed.Selection == nil {
				return errorResult(apierr.New(apierr.PreconditionFailed, "the user has made no visual selection",
					"ask the user to select the range (v or V), or pass the range's lines")), nil
			}
			sel := ed.Selection
			// Columns only where the tool takes them (read_file reads
			// whole lines).
			set := func(name string, v int) {
				if has(name) {
					args[name] = v
				}
			}
			if kind == "range" && has("start_line") {
				set("start_line", sel.StartLine)
				set("start_column", sel.StartColumn)
			} else {
				set("line", sel.StartLine)
				set("column", sel.StartColumn)
				delete(args, "symbol")
			}
			set("end_line", sel.EndLine)
			set("end_column", sel.EndColumn)
		default:
			args["line"], args["column"] = ed.Cursor.Line, ed.Cursor.Column
			delete(args, "symbol")
		}
		rewritten, err := json.Marshal(args)
		if err != nil {
			return inner(ctx, req)
		}
		req.Params.Arguments = json.RawMessage(rewritten)
		req.Params.RawArguments = json.RawMessage(rewritten)
		return inner(ctx, req)
	}
	return t
}

// mayName reports whether a JSON object's text may have the key: it holds
// the quoted name, or an escape (\u0061t spells "at" too).
func mayName(body []byte, key string) bool {
	return bytes.Contains(body, []byte(`"`+key+`"`)) || bytes.Contains(body, []byte(`\u`))
}
