package tools

import "testing"

// TestWaitFieldsOf: the fields saying a wait was cut are read from a
// result's struct (embedded structs flattened, pointers followed), from a
// decoded map, and never invented.
func TestWaitFieldsOf(t *testing.T) {
	f := false
	type inner struct {
		Complete   *bool  `json:"complete,omitempty"`
		Incomplete string `json:"incomplete,omitempty"`
	}
	type outer struct {
		inner
		DiagnosticsComplete bool   `json:"diagnostics_complete"`
		DiagnosticsWhy      string `json:"diagnostics_incomplete,omitempty"`
		Other               string `json:"other"`
	}
	top, ok := waitFieldsOf(&outer{inner: inner{Complete: &f, Incomplete: "cut"}, DiagnosticsWhy: "late"})
	if !ok || top.Complete == nil || *top.Complete || top.Incomplete != "cut" || top.DiagnosticsComplete == nil || *top.DiagnosticsComplete || top.DiagnosticsWhy != "late" {
		t.Fatalf("struct: %+v %v", top, ok)
	}
	top, ok = waitFieldsOf(map[string]any{"complete": false, "incomplete": "why"})
	if !ok || top.Complete == nil || *top.Complete || top.Incomplete != "why" || top.DiagnosticsComplete != nil {
		t.Fatalf("map: %+v %v", top, ok)
	}
	if top, ok := waitFieldsOf(struct {
		Other string `json:"other"`
	}{"x"}); !ok || top.Complete != nil || top.DiagnosticsComplete != nil || top.Incomplete != "" {
		t.Fatalf("no such fields: %+v %v", top, ok)
	}
	if _, ok := waitFieldsOf(nil); ok {
		t.Fatal("nil read")
	}
}

type marshalled struct{ C bool }

func (m marshalled) MarshalJSON() ([]byte, error) {
	return []byte(`{"complete":` + map[bool]string{true: "true", false: "false"}[m.C] + `}`), nil
}

// TestWaitFieldsOfMarshaler: a result with its own encoding is read
// through it.
func TestWaitFieldsOfMarshaler(t *testing.T) {
	top, ok := waitFieldsOf(&marshalled{C: false})
	if !ok || top.Complete == nil || *top.Complete {
		t.Fatalf("marshaler: %+v %v", top, ok)
	}
}
