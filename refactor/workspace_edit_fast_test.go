package refactor

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// goplsRename is a WorkspaceEdit as gopls answers a rename: documentChanges
// of TextDocumentEdits.
func goplsRename(files, edits int, newText string) string {
	var b strings.Builder
	b.WriteString(`{"documentChanges":[`)
	for f := range files {
		if f > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"edits":[`)
		for e := range edits {
			if e > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"newText":%q,"range":{"start":{"character":%d,"line":%d},"end":{"character":%d,"line":%d}}}`, newText, 14, 200+e*8, 19, 200+e*8)
		}
		fmt.Fprintf(&b, `],"textDocument":{"uri":"file:///w/p%d/logger.go","version":%d}}`, f, f)
	}
	b.WriteString(`]}`)
	return b.String()
}

// sameAsUnmarshal checks decodeTextEditsFast against json.Unmarshal on
// raw: when it decodes, json.Unmarshal decodes the same; when
// json.Unmarshal refuses, it does not decode. It reports whether the fast
// path decoded.
func sameAsUnmarshal(t *testing.T, raw string) bool {
	t.Helper()
	fast, ok := decodeTextEditsFast([]byte(raw))
	var want wireWorkspaceEdit
	err := json.Unmarshal([]byte(raw), &want)
	if ok && (err != nil || !reflect.DeepEqual(fast, want)) {
		t.Fatalf("%s:\nfast %+v\njson %+v (%v)", raw, fast, want, err)
	}
	return ok
}

// TestWorkspaceEditFast: gopls's answer to a rename is decoded without
// encoding/json, to what json.Unmarshal gives; every other shape (an
// escape, a member it does not know, a file operation, a null, a negative
// or fractional number, a duplicate member, bytes not UTF-8, text after
// the value), and thousands of random changes of the answer, are either
// decoded the same or left to json.Unmarshal.
func TestWorkspaceEditFast(t *testing.T) {
	for _, raw := range []string{
		goplsRename(1, 10, "checkEntry"),
		goplsRename(3, 2, "日本"),
		goplsRename(1, 0, "x"),
		" \n{ \"documentChanges\" : [ ] }\t",
		`{"documentChanges":[{"textDocument":{"version":0,"uri":"file:///a.go"},"edits":[{"range":{"end":{"line":0,"character":0},"start":{"character":4294967295,"line":1}},"newText":""}]}]}`,
	} {
		if !sameAsUnmarshal(t, raw) {
			t.Errorf("not decoded fast: %s", raw)
		}
	}
	base := goplsRename(1, 2, "ab")
	for _, raw := range []string{
		strings.Replace(base, `"ab"`, `"a\"b"`, 1),
		strings.Replace(base, `"ab"`, `"a\u0062"`, 1),
		strings.Replace(base, `"ab"`, "\"a\xffb\"", 1),
		strings.Replace(base, `"ab"`, "\"a\tb\"", 1),
		strings.Replace(base, `"newText"`, `"NewText"`, 1),
		strings.Replace(base, `"newText":"ab",`, `"newText":"ab","annotationId":"x",`, 1),
		strings.Replace(base, `"newText":"ab",`, `"newText":"ab","newText":"cd",`, 1),
		strings.Replace(base, `"version":0`, `"version":null`, 1),
		strings.Replace(base, `"version":0`, `"version":-1`, 1),
		strings.Replace(base, `"character":14`, `"character":1.5`, 1),
		strings.Replace(base, `"character":14`, `"character":014`, 1),
		strings.Replace(base, `"character":14`, `"character":4294967296`, 1),
		strings.Replace(base, `"character":14`, `"character":1e1`, 1),
		strings.Replace(base, `{"edits"`, `{"kind":"create","uri":"file:///b.go"},{"edits"`, 1),
		`{"changes":{"file:///a.go":[]}}`,
		`{"documentChanges":[],"changeAnnotations":{}}`,
		`{"documentChanges":null}`,
		`{}`,
		base + "x",
		base[:len(base)-1],
	} {
		if sameAsUnmarshal(t, raw) {
			t.Errorf("decoded fast: %s", raw)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("{}[]:,\"\\ 0123456789-.eEnulltrue\xff\x01abcdefghijklmnopqrstuvwxyz")
	decoded := 0
	for range 20000 {
		b := []byte(base)
		for range 1 + r.IntN(2) {
			i := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b[i] = alphabet[r.IntN(len(alphabet))]
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = append(b[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[i:]...)...)
			}
		}
		if sameAsUnmarshal(t, string(b)) {
			decoded++
		}
	}
	if decoded < 1000 {
		t.Errorf("only %d of the changed answers decoded fast: the test changes too much", decoded)
	}
}

// TestWorkspaceEditDecodedFast: decodeWorkspaceEdit leaves gopls's
// answer to a rename to no json.Unmarshal, and another shape to it.
func TestWorkspaceEditDecodedFast(t *testing.T) {
	calls := 0
	defer func(u func([]byte, any) error) { unmarshalEdit = u }(unmarshalEdit)
	unmarshalEdit = func(b []byte, v any) error {
		calls++
		return json.Unmarshal(b, v)
	}
	ops, err := decodeWorkspaceEdit(json.RawMessage(goplsRename(2, 3, "checkEntry")))
	if err != nil || len(ops) != 2 || len(ops[1].edits) != 3 || ops[1].uri != "file:///w/p1/logger.go" || *ops[1].version != 1 || calls != 0 {
		t.Fatalf("gopls's rename: %+v, %v, %d json.Unmarshal calls, want 2 steps of 3 edits and none", ops, err, calls)
	}
	if _, err := decodeWorkspaceEdit(json.RawMessage(`{"changes":{"file:///a.go":[]}}`)); err != nil || calls != 1 {
		t.Fatalf("changes: %v, %d json.Unmarshal calls, want 1", err, calls)
	}
}

func BenchmarkWorkspaceEditDecode(b *testing.B) {
	raw := []byte(goplsRename(1, 10, "checkEntry"))
	b.Run("fast", func(b *testing.B) {
		for range b.N {
			if _, ok := decodeTextEditsFast(raw); !ok {
				b.Fatal("not decoded")
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for range b.N {
			var we wireWorkspaceEdit
			if err := json.Unmarshal(raw, &we); err != nil {
				b.Fatal(err)
			}
		}
	})
}
