package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// The envelope found by the walk over a line is the one json.Unmarshal
// finds, member by member, whatever the shape: case folded names, a later
// duplicate, nesting, strings holding braces and quotes, null, escapes in
// names (left to encoding/json), not JSON at all.
func TestDecodeEnvelopeAsEncodingJSON(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":"}"}]}}}`,
		` { "jsonrpc" : "2.0" , "id" : "a\"b}" , "method" : "ping" } `,
		`{"ID":7,"Method":"ping","JSONRPC":"2.0"}`,
		`{"id":1,"id":2,"method":"a","METHOD":"b"}`,
		`{"id":null,"method":null,"params":null,"result":null,"error":null}`,
		`{"jsonrpc":"2.0","id":3,"result":{"x":[]},"error":{"code":-1,"message":"m"}}`,
		`{"i\u0064":5,"method":"ping"}`,
		`{"\u00e9":1,"id":2}`,
		`{"id":-12.5e3,"method":"x","extra":[true,false,null,"\\",{}]}`,
		`{"id":1,"method":"x"`,
		`{"id":1,,"method":"x"}`,
		`{"id":01}`,
		`{}`,
		`{"method":"x"} trailing`,
		`{"method":"\u0070ing","id":"\u00e9"}`,
	}
	for _, line := range lines {
		var want envelope
		wantOK := json.Unmarshal([]byte(line), &want) == nil
		var got envelope
		gotOK := decodeEnvelope([]byte(line), &got)
		if gotOK != wantOK {
			t.Errorf("%s: decoded %v, encoding/json %v", line, gotOK, wantOK)
			continue
		}
		if wantOK && !reflect.DeepEqual(rawMembers(got), rawMembers(want)) {
			t.Errorf("%s:\n walk: %q\n json: %q", line, rawMembers(got), rawMembers(want))
		}
	}
	// The walk itself answered the plain lines (the others went to
	// encoding/json): what the test compares is the walk's work.
	var env envelope
	if !scanEnvelope([]byte(lines[0]), &env) || string(env.Method) != `"tools/call"` {
		t.Errorf("the walk left a plain line to encoding/json: %q", rawMembers(env))
	}
	if scanEnvelope([]byte(lines[6]), &envelope{}) {
		t.Error("the walk took a name with an escape")
	}
}

func rawMembers(e envelope) []string {
	return []string{string(e.JSONRPC), string(e.ID), string(e.Method), string(e.Params), string(e.Result), string(e.Error)}
}

// A method or id the fast ways take reads as encoding/json reads it.
func TestPlainStringsAndIDsAsEncodingJSON(t *testing.T) {
	for _, raw := range []string{`"tools/call"`, `"a b"`, `"\u0070"`, `"é"`, `"<"`, `""`, `1`, `"1"`, `0`, `-0`, `-5`, `123456789012345`, `1234567890123456789`, `1.0`, `1e3`, `"a&b"`, `"x\"y"`, `null`, `true`, `{"a":1}`} {
		var want string
		wantOK := json.Unmarshal([]byte(raw), &want) == nil
		if got, ok := plainString([]byte(raw)); ok && (!wantOK || got != want) {
			t.Errorf("plainString(%s) = %q, encoding/json %q (%v)", raw, got, want, wantOK)
		}
		slow := func() string {
			var v any
			if json.Unmarshal([]byte(raw), &v) != nil || v == nil {
				return ""
			}
			b, _ := json.Marshal(v)
			return "s\x00" + string(b)
		}()
		if got := idKey("s", json.RawMessage(raw)); got != slow {
			t.Errorf("idKey(%s) = %q, by decoding %q", raw, got, slow)
		}
	}
	if !plainID([]byte(`42`)) || !plainID([]byte(`"req-1"`)) || plainID([]byte(`1234567890123456789`)) {
		t.Error("plainID does not take the plain ids (or takes a long one)")
	}
}

// A tool call's answer, put together around its result, is the line
// json.Encoder writes: ids of each kind, HTML characters, multibyte text,
// structured content of a Go value and of raw JSON, an error result.
func TestEncodeLineAsEncoder(t *testing.T) {
	type out struct {
		Text  string         `json:"text"`
		Count int            `json:"count"`
		More  map[string]any `json:"more,omitempty"`
	}
	results := []any{
		mcp.NewToolResultStructured(out{Text: "a <b> & \"c\" é😀\u2028", Count: 3, More: map[string]any{"z": []int{1}, "a": nil}}, "summary <x> & é"),
		*mcp.NewToolResultText("plain"),
		mcp.NewToolResultError("failed & <why>"),
		&mcp.CallToolResult{RawStructuredContent: json.RawMessage(` { "k" : [1, 2] } `), Content: []mcp.Content{mcp.NewTextContent("t")}},
		// Written straight (marshalCallToolResult) or by MarshalJSON: no
		// content, several of each kind, an error with structured
		// content, a typed nil, the members only MarshalJSON writes.
		&mcp.CallToolResult{},
		&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewImageContent("aGk=", "image/png"), mcp.NewTextContent("<b>")}},
		&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("e")}, StructuredContent: map[string]any{"error": map[string]any{"code": "X", "m": "<&>"}}, IsError: true},
		&mcp.CallToolResult{StructuredContent: (*out)(nil)},
		&mcp.CallToolResult{Result: mcp.Result{Meta: &mcp.Meta{AdditionalFields: map[string]any{"k": 1}}}, Content: []mcp.Content{mcp.NewTextContent("m")}},
		&mcp.CallToolResult{Result: mcp.Result{ResultType: "complete"}, StructuredContent: out{Text: "r"}},
	}
	for _, id := range []any{int64(7), "req-<1>", 2.5} {
		for i, r := range results {
			msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), r)
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(msg); err != nil {
				t.Fatal(err)
			}
			got, err := encodeLine(msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want.String() {
				t.Errorf("result %d, id %v:\n got %s\nwant %s", i, id, got, want.String())
			}
		}
	}
}
