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
	var args map[string]json.RawMessage
	if json.Unmarshal(body, &args) != nil {
		return nil // not an object: the strict decoding reports it
	}
	var missing, remedy []string
	for _, a := range r {
		if v, ok := args[a.name]; !ok || string(bytes.TrimSpace(v)) == "null" {
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
