package tools

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestRequiredGiven: the walk over the arguments' members (given) says
// which required arguments are there and not null exactly as decoding
// them into a map does, on every shape: nesting, strings holding quotes,
// braces and commas, spaces, duplicates (the later wins), nulls, numbers
// last; and leaves to the map what it cannot tell (an escaped name, not
// an object).
func TestRequiredGiven(t *testing.T) {
	r := required{{name: "file"}, {name: "line"}, {name: "symbol"}}
	byMap := func(body string) uint64 {
		var args map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &args) != nil {
			t.Fatalf("not JSON: %s", body)
		}
		var g uint64
		for i, a := range r {
			if v, ok := args[a.name]; ok && string(bytes.TrimSpace(v)) != "null" {
				g |= 1 << i
			}
		}
		return g
	}
	for _, body := range []string{
		`{}`,
		`{"file":"a.go","line":3,"symbol":"X"}`,
		` { "file" : "a.go" , "line" : 3 } `,
		`{"file":"a \"}, \"line\": 1","other":{"line":[1,{"symbol":"}"}]}}`,
		`{"line":null,"file":"x"}`,
		`{"line":1,"line":null}`,
		`{"line":null,"line":7}`,
		`{"symbol":"s","x":[],"y":{},"z":true,"line":-1.5e3}`,
		`{"x":"\\","file":"f"}`,
		"{\"file\"\t:\n\"f\"\r,\"line\":2}",
		`{"File":"f","LINE":2}`,
		`{"file":"é😀","line":1}`,
	} {
		got, ok := r.given([]byte(body))
		if !ok {
			t.Errorf("%s: the walk did not answer", body)
			continue
		}
		if want := byMap(body); got != want {
			t.Errorf("%s: given %03b, the map %03b", body, got, want)
		}
	}
	for _, body := range []string{`{"fi\u006ce":"f"}`, `[1]`, `"s"`} {
		if _, ok := r.given([]byte(body)); ok {
			t.Errorf("%s: the walk answered", body)
		}
	}
	// And check reports through either way.
	if err := r.check([]byte(`{"fi\u006ce":"f","line":1,"symbol":"s"}`)); err != nil {
		t.Errorf("an escaped name: %v", err)
	}
	if err := r.check([]byte(`{"file":"f","line":null}`)); err == nil {
		t.Error("line null and symbol missing: no error")
	}
}
