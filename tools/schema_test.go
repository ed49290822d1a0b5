package tools_test

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/nvbridge/nvbridge/tools"
	"github.com/nvbridge/nvbridge/websearch"
)

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

// outputSchemas compiles every tool's outputSchema (as the server sends
// it: the clients' copy drops its anyOf).
func outputSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	schemasOnce.Do(func() {
		schemas = map[string]*jsonschema.Schema{}
		c := jsonschema.NewCompiler()
		for _, tool := range tools.All(&tools.Env{Search: &websearch.Client{}}) {
			if tool.Tool.RawOutputSchema == nil {
				schemasErr = &json.UnsupportedValueError{Str: tool.Tool.Name + " has no outputSchema"}
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.Tool.RawOutputSchema))
			if err != nil {
				schemasErr = err
				return
			}
			url := "mem://" + tool.Tool.Name + ".json"
			if err := c.AddResource(url, doc); err != nil {
				schemasErr = err
				return
			}
			if schemas[tool.Tool.Name], err = c.Compile(url); err != nil {
				schemasErr = err
				return
			}
		}
	})
	if schemasErr != nil {
		t.Fatal(schemasErr)
	}
	return schemas
}

// checkOutputSchema fails unless a real result's structuredContent is
// valid against its tool's outputSchema.
func checkOutputSchema(t *testing.T, name string, res *mcp.CallToolResult) {
	t.Helper()
	sch := outputSchemas(t)[name]
	if sch == nil {
		t.Fatalf("%s: no outputSchema", name)
	}
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s: the result does not match its outputSchema: %v\nresult: %s", name, err, body)
	}
}

// TestOutputSchemasDeclared: every tool declares one, listed over MCP,
// and the destructive tools say so.
func TestOutputSchemasDeclared(t *testing.T) {
	outputSchemas(t)
	destructive := map[string]bool{"apply_changeset": true, "save_buffer": true, "apply_patch": true, "discard_buffer": true,
		"stop_debug_session": true} // ends the debugged program
	for _, tool := range tools.All(&tools.Env{Search: &websearch.Client{}}) {
		d := tool.Tool.Annotations.DestructiveHint
		if got := d != nil && *d; got != destructive[tool.Tool.Name] {
			t.Errorf("%s: destructiveHint %v, want %v", tool.Tool.Name, got, destructive[tool.Tool.Name])
		}
		b, err := json.Marshal(tool.Tool)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"outputSchema":{`)) {
			t.Errorf("%s: no outputSchema in its listing", tool.Tool.Name)
		}
	}
}
