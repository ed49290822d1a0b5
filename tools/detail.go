package tools

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// Lean answers: every read tool whose result carries text beyond the
// essentials (a location's source line, a declaration's source, a
// symbol's detail, documentation, a range's end) takes detail: "brief",
// which leaves that out: locations as line and column without their
// context lines, counts and names kept. The text fields are the domain types' fields tagged
// `brief:"omit"`; newTool zeroes them (the structured content drops or
// empties them, the summary no longer prints them), so every tool gets it
// from its result type, with no code of its own.

const detailDescription = `brief: the essentials only (locations as line and column without their source lines or ends, counts, names; no declaration source, details or documentation); full (default): everything`

// briefNames returns the JSON names of the fields tagged brief:"omit"
// that values of t hold (none: the tool has no brief form).
func briefNames(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	briefNamesIn(t, map[reflect.Type]bool{}, out)
	return out
}

func briefNamesIn(t reflect.Type, seen map[reflect.Type]bool, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("brief") == "omit" {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			out[name] = true
			continue
		}
		if f.IsExported() {
			briefNamesIn(f.Type, seen, out)
		}
	}
}

// briefContent is the structured content of a brief answer: out as JSON
// without the keys names lists (at any depth).
func briefContent(out any, names map[string]bool) any {
	raw, err := json.Marshal(out)
	if err != nil {
		return out
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return out
	}
	var drop func(v any)
	drop = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if names[k] {
					delete(x, k)
					continue
				}
				drop(e)
			}
		case []any:
			for _, e := range x {
				drop(e)
			}
		}
	}
	drop(v)
	return v
}

// optionalIn makes the keys names lists optional everywhere in an output
// schema (a brief answer leaves them out).
func optionalIn(raw json.RawMessage, names map[string]bool) json.RawMessage {
	var schema any
	if json.Unmarshal(raw, &schema) != nil {
		return raw
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if req, ok := x["required"].([]any); ok {
				kept := []any{}
				for _, r := range req {
					if n, _ := r.(string); !names[n] {
						kept = append(kept, r)
					}
				}
				x["required"] = kept
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(schema)
	out, err := json.Marshal(schema)
	if err != nil {
		return raw
	}
	return out
}

// takeDetail removes detail from a call's arguments (a JSON object) and
// reports whether it asked for brief. Anything but "brief" or "full" is
// INVALID_PARAMETER.
func takeDetail(body []byte) ([]byte, bool, error) {
	if !bytes.Contains(body, []byte(`"detail"`)) {
		return body, false, nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(body, &args) != nil {
		return body, false, nil // not an object: the strict decoding says so
	}
	raw, ok := args["detail"]
	if !ok {
		return body, false, nil
	}
	var detail *string
	if err := json.Unmarshal(raw, &detail); err != nil || detail != nil && *detail != "brief" && *detail != "full" {
		return nil, false, apierr.Errorf(apierr.InvalidParameter, `detail is "brief" or "full"`, "invalid detail %s", strings.TrimSpace(string(raw)))
	}
	delete(args, "detail")
	out, err := json.Marshal(args)
	if err != nil {
		return nil, false, err
	}
	return out, detail != nil && *detail == "brief", nil
}

// withDetailSchema adds detail to an input schema.
func withDetailSchema(raw json.RawMessage) json.RawMessage {
	var schema map[string]any
	if json.Unmarshal(raw, &schema) != nil {
		return raw
	}
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		return raw
	}
	props["detail"] = map[string]any{"type": "string", "enum": []string{"brief", "full"}, "description": detailDescription}
	out, err := json.Marshal(schema)
	if err != nil {
		return raw
	}
	return out
}

// brief zeroes, in place, every field tagged brief:"omit" reachable from
// v (a pointer to the result).
func brief(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			brief(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			brief(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if e.Kind() == reflect.Pointer || e.Kind() == reflect.Slice || e.Kind() == reflect.Map {
				brief(e) // shares what it points at: prunable in place
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			if f.Tag.Get("brief") == "omit" {
				if fv.CanSet() {
					fv.SetZero()
				}
				continue
			}
			brief(fv)
		}
	}
}

// trimLines drops the spaces a summary left where a brief field was.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}
