package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/tools"
)

// TestRequiredArguments (issue 8): leaving out a required argument is an
// INVALID_PARAMETER error naming it ("line is required"), not a later
// "line 0 is outside" from the zero value. Table-driven over every tool's
// required fields as its input schema lists them; the check happens before
// the tool runs, so no session is needed.
func TestRequiredArguments(t *testing.T) {
	for _, tool := range tools.All(&tools.Env{}) {
		var schema struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		raw, err := json.Marshal(tool.Tool.InputSchema)
		if tool.Tool.RawInputSchema != nil {
			raw = tool.Tool.RawInputSchema
		}
		if err != nil || json.Unmarshal(raw, &schema) != nil {
			t.Fatalf("%s: schema %s: %v", tool.Tool.Name, raw, err)
		}
		// Arguments at: "cursor" or range: "selection" can stand for are
		// required unless one of those is given (where.go): the schema
		// says so in their descriptions, not in its required list.
		var standIns []string
		for name, prop := range schema.Properties {
			var p struct {
				Description string `json:"description"`
			}
			if json.Unmarshal(prop, &p) == nil && strings.Contains(p.Description, "(required unless ") {
				standIns = append(standIns, name)
			}
		}
		for _, missing := range append(append([]string{}, schema.Required...), standIns...) {
			for _, absent := range []string{"left out", "null"} {
				args := map[string]any{}
				for _, name := range append(append([]string{}, schema.Required...), standIns...) {
					if name != missing {
						args[name] = sample(t, schema.Properties[name])
					}
				}
				if absent == "null" {
					args[missing] = nil
				}
				t.Run(tool.Tool.Name+"/"+missing+"/"+absent, func(t *testing.T) {
					req := mcp.CallToolRequest{}
					req.Params.Name = tool.Tool.Name
					req.Params.Arguments = args
					res, err := tool.Handler(context.Background(), req)
					if err != nil {
						t.Fatal(err)
					}
					body, ok := res.StructuredContent.(tools.ErrorBody)
					if !res.IsError || !ok {
						t.Fatalf("no error: %+v", res)
					}
					want := "`" + missing + "` is required"
					if slices.Contains(standIns, missing) {
						want += " (or " // names at or range as the other way
					}
					if body.Error.Code != apierr.InvalidParameter || !strings.Contains(body.Error.Message, want) {
						t.Fatalf("%s: %s (want INVALID_PARAMETER saying `%s` is required)", body.Error.Code, body.Error.Message, missing)
					}
				})
			}
		}
	}
}

// sample is a value of a property's schema type.
func sample(t *testing.T, prop json.RawMessage) any {
	var p struct {
		Type any `json:"type"`
	}
	_ = json.Unmarshal(prop, &p)
	typ := p.Type
	if list, ok := p.Type.([]any); ok { // ["null", "array"]
		for _, x := range list {
			if x != "null" {
				typ = x
			}
		}
	}
	switch typ {
	case "string":
		return "x"
	case "integer", "number":
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	t.Fatalf("property schema %s has no simple type", prop)
	return nil
}
