package tools

import (
	"reflect"
	"strings"
	"testing"
)

type fastMode string

type fastArgs struct {
	positionArgs
	NewName  string   `json:"new_name"`
	Preview  *bool    `json:"preview,omitempty"`
	Save     bool     `json:"save,omitempty"`
	Mode     fastMode `json:"mode,omitempty"`
	Limit    *int     `json:"limit,omitempty"`
	Note     *string  `json:"note,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	Skipped  string   `json:"-"`
	internal string   //lint:ignore U1000 an unexported field: no member decodes into it
}

// fastBodies are argument objects of every shape the fast path takes or
// leaves to encoding/json.
var fastBodies = []string{
	`{"file":"logger.go","line":191,"symbol":"check"}`,
	` { "file" : "a/b.go" , "line":1,"column":0 } `,
	`{"file":"é😀.go","line":-3,"column":12,"new_name":"x","preview":false,"save":true,"mode":"m","limit":7,"note":"n"}`,
	`{}`,
	`{"file":"a","file":"b"}`,
	`{"File":"a"}`,
	`{"fil\u0065":"a"}`,
	`{"file":"a\nb"}`,
	`{"file":"a\"b"}`,
	"{\"file\":\"a\tb\"}",
	"{\"file\":\"\xff\"}",
	`{"file":null}`,
	`{"line":1.0}`,
	`{"line":1e2}`,
	`{"line":01}`,
	`{"line":-0}`,
	`{"line":123456789012345678}`,
	`{"line":1234567890123456789}`,
	`{"line":"1"}`,
	`{"line":1x}`,
	`{"save":truex}`,
	`{"save":True}`,
	`{"paths":["a"]}`,
	`{"Skipped":"x"}`,
	`{"internal":"x"}`,
	`{"unknown":1}`,
	`{"file":"a",}`,
	`{"file":"a"} x`,
	`{"file":"a"`,
	`["file"]`,
	`null`,
	``,
	`{"preview":null}`,
	`{"limit":-12,"limit":13}`,
}

// Whatever the fast path decodes, encoding/json decodes the same, without
// an error; and the calls nearly every tool gets take the fast path.
func TestArgsFastAgreesWithEncodingJSON(t *testing.T) {
	plan := planArgs(reflect.TypeFor[fastArgs]())
	if plan == nil {
		t.Fatal("no plan for fastArgs")
	}
	taken := 0
	for _, body := range fastBodies {
		if checkArgsFast(t, plan, body) {
			taken++
		}
	}
	for _, body := range fastBodies[:5] {
		var in fastArgs
		if !plan.decode([]byte(body), &in) {
			t.Errorf("%s: left to encoding/json, want the fast path", body)
		}
	}
	if taken == len(fastBodies) {
		t.Error("every body took the fast path: the fallback is untested")
	}
	// The reads' and the rename's own arguments have a plan.
	for _, typ := range []reflect.Type{reflect.TypeFor[findDefinitionArgs](), reflect.TypeFor[findReferencesArgs](),
		reflect.TypeFor[getHoverInfoArgs](), reflect.TypeFor[getCallHierarchyArgs](), reflect.TypeFor[renameSymbolArgs]()} {
		if planArgs(typ) == nil {
			t.Errorf("%s: no plan", typ)
		}
	}
}

// checkArgsFast reports whether the fast path decoded body; when it did,
// encoding/json must agree.
func checkArgsFast(t *testing.T, plan *argsPlan, body string) bool {
	t.Helper()
	var fast fastArgs
	if !plan.decode([]byte(body), &fast) {
		return false
	}
	var slow fastArgs
	if err := decodeStrict([]byte(body), &slow); err != nil {
		t.Errorf("%s: fast path decoded %+v, encoding/json failed: %v", body, fast, err)
		return true
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: fast path %+v, encoding/json %+v", body, fast, slow)
	}
	return true
}

// A type encoding/json decodes otherwise than by plain assignment has no
// plan.
func TestArgsPlanRefuses(t *testing.T) {
	type withString struct {
		N int `json:"n,string"`
	}
	type twice struct {
		positionArgs
		File string `json:"file"`
	}
	for name, typ := range map[string]reflect.Type{
		"string option": reflect.TypeFor[withString](),
		"unmarshaler":   reflect.TypeFor[struct{ T fastText }](),
		"a name twice":  reflect.TypeFor[twice](),
		"not a struct":  reflect.TypeFor[map[string]any](),
	} {
		if planArgs(typ) != nil {
			t.Errorf("%s: a plan, want none", name)
		}
	}
}

type fastText struct{ s string }

func (f *fastText) UnmarshalText(b []byte) error { f.s = strings.ToUpper(string(b)); return nil }

func FuzzArgsFast(f *testing.F) {
	for _, b := range fastBodies {
		f.Add(b)
	}
	plan := planArgs(reflect.TypeFor[fastArgs]())
	f.Fuzz(func(t *testing.T, body string) {
		checkArgsFast(t, plan, body)
	})
}
