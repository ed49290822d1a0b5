package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
)

// Argument pieces shared by tools; embedded so every tool names them alike.

// fileArg names a file.
type fileArg struct {
	File string `json:"file" jsonschema:"path of the file, relative to the workspace root"`
}

// positionArgs name a position: a line and either a column or a symbol.
type positionArgs struct {
	File   string `json:"file" jsonschema:"path of the file, relative to the workspace root"`
	Line   int    `json:"line" jsonschema:"1-based line number"`
	Column *int   `json:"column,omitempty" jsonschema:"0-based column in characters; optional when symbol is given"`
	Symbol string `json:"symbol,omitempty" jsonschema:"name of the symbol on that line, used instead of column (e.g. Process)"`
}

func (p positionArgs) target() lsp.Target {
	return lsp.Target{Line: p.Line, Column: p.Column, Symbol: p.Symbol}
}

// required lists a tool's required arguments, as its input schema (derived
// from the argument struct) does, with their descriptions.
type required []struct{ name, about string }

// requiredOf reads the required arguments out of a tool's input schema.
func requiredOf(def mcp.Tool) required {
	raw := def.RawInputSchema
	if raw == nil {
		var err error
		if raw, err = json.Marshal(def.InputSchema); err != nil {
			return nil
		}
	}
	var schema struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(raw, &schema) != nil {
		return nil
	}
	out := make(required, 0, len(schema.Required))
	for _, name := range schema.Required {
		out = append(out, struct{ name, about string }{name, schema.Properties[name].Description})
	}
	return out
}

// check reports the required arguments missing from body (a JSON object):
// left out or null. Without it, a missing argument decodes as its zero value
// and fails later with a misleading message ("line 0 is outside").
func (r required) check(body []byte) error {
	if len(r) == 0 {
		return nil
	}
	given, ok := r.given(body)
	if !ok {
		var args map[string]json.RawMessage
		if json.Unmarshal(body, &args) != nil {
			return nil // not an object: the strict decoding reports it
		}
		given = 0
		for i, a := range r {
			if v, ok := args[a.name]; ok && string(bytes.TrimSpace(v)) != "null" {
				given |= 1 << i
			}
		}
	}
	var missing, remedy []string
	for i, a := range r {
		if given&(1<<i) == 0 {
			missing = append(missing, "`"+a.name+"` is required")
			remedy = append(remedy, fmt.Sprintf("`%s` (%s)", a.name, a.about))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return apierr.Errorf(apierr.InvalidParameter, "pass "+strings.Join(remedy, ", ")+"; the tool's input schema lists its arguments",
		"missing argument: %s", strings.Join(missing, ", "))
}

// given is which of r are in body and not null (bit i: r[i]), as the
// members decoded into a map say (a later duplicate wins), by a walk over
// body's top-level members that decodes none of them; false when it
// cannot tell (not an object, a name with an escape, more than 64
// required): the map decides.
func (r required) given(body []byte) (uint64, bool) {
	if len(r) > 64 {
		return 0, false
	}
	var given uint64
	i := jsonSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return 0, false
	}
	i = jsonSpace(body, i+1)
	for i < len(body) && body[i] != '}' {
		if body[i] != '"' {
			return 0, false
		}
		end := jsonValueEnd(body, i)
		if end < 0 {
			return 0, false
		}
		name := body[i+1 : end-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			return 0, false
		}
		i = jsonSpace(body, end)
		if i >= len(body) || body[i] != ':' {
			return 0, false
		}
		i = jsonSpace(body, i+1)
		if end = jsonValueEnd(body, i); end < 0 {
			return 0, false
		}
		null := string(body[i:end]) == "null"
		for k, a := range r {
			if string(name) == a.name {
				if null {
					given &^= 1 << k
				} else {
					given |= 1 << k
				}
			}
		}
		i = jsonSpace(body, end)
		if i < len(body) && body[i] == ',' {
			i = jsonSpace(body, i+1)
		}
	}
	if i >= len(body) {
		return 0, false
	}
	return given, true
}

func jsonSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonValueEnd is the offset just past the JSON value at b[i:] (valid
// JSON: strings and nesting are skipped, nothing is decoded); -1 when it
// runs off the end.
func jsonValueEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				return i // the end of the object holding a scalar
			}
		case ',':
			if depth == 0 {
				return i
			}
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		i++
		if depth == 0 && (b[i-1] == '"' || b[i-1] == '}' || b[i-1] == ']') {
			return i
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}
