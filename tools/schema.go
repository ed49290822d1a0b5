package tools

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/mcp"
)

// outputSchema is a tool's outputSchema: the schema of its result type
// Out (derived like its input schema, by mcp-go from the json tags), or,
// for a failed call (isError), the error body {error: {code, message,
// remediation, details}}: clients (the TypeScript SDK) validate the
// structuredContent of every result against it, failures included.
// newTool sets it, so every tool has one.
func outputSchema[Out any]() json.RawMessage {
	var result map[string]any
	if _, err := jsonschema.For[Out](&jsonschema.ForOptions{IgnoreInvalidTypes: true}); err != nil {
		// mcp-go's generator refuses it (a recursive type): our own.
		result = schemaOf(reflect.TypeFor[Out]())
	} else {
		var scratch mcp.Tool
		mcp.WithOutputSchema[Out]()(&scratch)
		raw, err := json.Marshal(scratch.OutputSchema)
		if err != nil {
			panic("tools: output schema: " + err.Error()) // a programming error, caught by any test run
		}
		if err := json.Unmarshal(raw, &result); err != nil {
			panic("tools: output schema: " + err.Error())
		}
	}
	if props, _ := result["properties"].(map[string]any); len(props) == 0 {
		panic("tools: no output schema could be derived for a result type")
	}
	top := map[string]any{"type": "object", "anyOf": []any{result, errorSchema}}
	if defs, ok := result["$defs"]; ok {
		// References (#/$defs/...) resolve from the top of the document.
		delete(result, "$defs")
		top["$defs"] = defs
	}
	out, err := json.Marshal(top)
	if err != nil {
		panic("tools: output schema: " + err.Error())
	}
	return out
}

// errorSchema is the structured content of a failed call (ErrorBody).
var errorSchema = map[string]any{
	"type":     "object",
	"required": []string{"error"},
	"properties": map[string]any{
		"error": map[string]any{
			"type":     "object",
			"required": []string{"code", "message"},
			"properties": map[string]any{
				"code":        map[string]any{"type": "string"},
				"message":     map[string]any{"type": "string"},
				"remediation": map[string]any{"type": "string"},
				"details":     map[string]any{},
			},
		},
	},
	"additionalProperties": false,
}

// reflectSchema derives a JSON schema from a Go type the way encoding/json
// marshals it, for result types mcp-go's generator refuses (recursive
// ones: call and type hierarchies). A type met again inside itself becomes
// a $ref into defs.
type reflectSchema struct {
	defs      map[string]any
	active    map[reflect.Type]bool
	recursive map[reflect.Type]bool
}

func schemaOf(t reflect.Type) map[string]any {
	g := &reflectSchema{defs: map[string]any{}, active: map[reflect.Type]bool{}, recursive: map[reflect.Type]bool{}}
	s := g.of(t)
	if ref, ok := s["$ref"]; ok { // the top type itself is recursive: inline it
		name := strings.TrimPrefix(ref.(string), "#/$defs/")
		s = g.defs[name].(map[string]any)
		delete(g.defs, name)
		g.defs[name] = s // still referred to from inside
	}
	if len(g.defs) > 0 {
		s["$defs"] = g.defs
	}
	return s
}

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	marshalerType  = reflect.TypeFor[json.Marshaler]()
	timeType       = reflect.TypeFor[time.Time]()
)

func defName(t reflect.Type) string {
	return strings.NewReplacer("/", "_", ".", "_").Replace(t.PkgPath() + "." + t.Name())
}

func (g *reflectSchema) of(t reflect.Type) map[string]any {
	switch {
	case t == rawMessageType:
		return map[string]any{}
	case t == timeType:
		return map[string]any{"type": "string"}
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType):
		return map[string]any{} // its own encoding
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(g.of(t.Elem()))
	case reflect.Interface:
		return map[string]any{}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": []any{"string", "null"}}
		}
		return map[string]any{"type": []any{"array", "null"}, "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": []any{"object", "null"}, "additionalProperties": g.of(t.Elem())}
	case reflect.Struct:
		return g.object(t)
	}
	return map[string]any{}
}

func nullable(s map[string]any) map[string]any {
	if _, ok := s["$ref"]; ok {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	switch ty := s["type"].(type) {
	case string:
		s["type"] = []any{ty, "null"}
	case []any:
		if !slices.Contains(ty, any("null")) {
			s["type"] = append(ty, "null")
		}
	}
	return s
}

func (g *reflectSchema) object(t reflect.Type) map[string]any {
	named := t.Name() != ""
	if named && g.active[t] {
		g.recursive[t] = true
		return map[string]any{"$ref": "#/$defs/" + defName(t)}
	}
	if named {
		g.active[t] = true
		defer delete(g.active, t)
	}
	props := map[string]any{}
	var required []string
	g.fields(t, props, &required)
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	if named && g.recursive[t] {
		g.defs[defName(t)] = s
		return map[string]any{"$ref": "#/$defs/" + defName(t)}
	}
	return s
}

// fields adds t's JSON fields (embedded structs' promoted ones included).
func (g *reflectSchema) fields(t reflect.Type, props map[string]any, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, props, &[]string{}) // promoted; an embedded pointer may be nil
				if f.Type.Kind() != reflect.Pointer {
					var req []string
					g.fields(ft, map[string]any{}, &req)
					*required = append(*required, req...)
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.of(ft)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			*required = append(*required, name)
		}
	}
}
