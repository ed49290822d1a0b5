package nvim

import (
	"bytes"
	"testing"

	"github.com/neovim/go-client/msgpack"
)

// TestDoneResult: nvbridge_done's result decodes from a string or a
// binary to its bytes, and from any other value (nil, a map, an array, a
// number) to nil, the value skipped whole: the value after it decodes
// (a value left half read would desync the connection, and an error
// would close it).
func TestDoneResult(t *testing.T) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	values := []any{`{"a":1}`, []byte(`[2]`), nil, map[string]any{"k": []any{1, "x"}}, []any{1, map[string]any{"z": 2}}, 7, ""}
	for _, v := range values {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode("after"); err != nil {
			t.Fatal(err)
		}
	}
	dec := msgpack.NewDecoder(&buf)
	want := []string{`{"a":1}`, `[2]`, "", "", "", "", ""}
	for i := range values {
		// As the handler's parameter: a pointer (decoding nil into a
		// doneResult itself panics in go-client).
		var p *doneResult
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		var r doneResult
		if p != nil {
			r = *p
		}
		if string(r) != want[i] || (want[i] == "" && r != nil) {
			t.Errorf("value %d (%v): %q, want %q", i, values[i], r, want[i])
		}
		var after string
		if err := dec.Decode(&after); err != nil || after != "after" {
			t.Fatalf("after value %d: %q %v", i, after, err)
		}
	}
}
