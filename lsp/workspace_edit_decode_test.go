package lsp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// renameAnswer is a WorkspaceEdit as gopls answers a rename: two files,
// versioned, nine edits.
func renameAnswer() string {
	var es []string
	for i := range 9 {
		es = append(es, fmt.Sprintf(`{"range":{"start":{"line":%d,"character":12},"end":{"line":%d,"character":17}},"newText":"checkR7"}`, 100+i*20, 100+i*20))
	}
	return `{"documentChanges":[{"textDocument":{"version":7,"uri":"file:///w/zap/logger.go"},"edits":[` + strings.Join(es[:7], ",") +
		`]},{"textDocument":{"version":3,"uri":"file:///w/zap/sugar.go"},"edits":[` + strings.Join(es[7:], ",") + `]}]}`
}

// workspaceEdits are answers DecodeWorkspaceEdit must decode as
// encoding/json does; scanned says whether the scanner reads them itself
// (the shapes servers send), the others going to encoding/json.
var workspaceEdits = []struct {
	raw     string
	scanned bool
}{
	{renameAnswer(), true},
	{`{"changes":{"file:///a.go":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},"newText":"two"}],"file:///b%20c.go":[]}}`, true},
	{`{"changes":{},"documentChanges":[]}`, true},
	{`{"changes":null,"documentChanges":null}`, true},
	{`{}`, true},
	{` { "documentChanges" : [ { "kind" : "create" , "uri" : "file:///n.go" , "options" : { "overwrite" : true , "ignoreIfExists" : false } } ] } `, true},
	{`{"documentChanges":[{"kind":"rename","oldUri":"file:///o.go","newUri":"file:///n.go","options":{"overwrite":false,"ignoreIfExists":true}},{"kind":"delete","uri":"file:\/\/\/d","options":{"recursive":true,"ignoreIfNotExists":true}}]}`, true},
	{`{"documentChanges":[{"textDocument":{"uri":"file:///a.go","version":null},"edits":[{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":4}},"newText":"a\tb\n\"c\"\\","annotationId":"x"}]}]}`, true},
	{`{"documentChanges":[{"textDocument":{"uri":"file:///a.go","version":-3},"edits":null}],"changeAnnotations":{"x":{"label":"l","needsConfirmation":true}}}`, true},
	{`{"documentChanges":[{"textDocument":null,"edits":[{"range":null,"newText":null}]}]}`, true},
	{`{"documentChanges":[{"kind":"create","uri":"file:///n.go","extra":[1,2.5,-3e4,{"a":null},"\u00e9"]}]}`, true},
	// Left to encoding/json.
	{`{"documentChanges":[{"textDocument":{"uri":"file:///a.go","version":1.0},"edits":[]}]}`, false},
	{`{"documentChanges":[{"textDocument":{"uri":"file:///a.go","version":99999999999999999999},"edits":[]}]}`, false},
	{`{"Changes":{"file:///a.go":[]}}`, false},
	{`{"changes":{"file:///a.go":[]},"changes":{"file:///b.go":[]}}`, false},
	{`{"changes":{"file:///a.go":[],"file:///a.go":[{"newText":"x"}]}}`, false},
	{`{"documentChanges":[{"kind":"create","uri":"file:///a.go","URI":"file:///b.go"}]}`, false},
	{`{"documentChanges":[{"textDocument":{"uri":"file:///a.go"},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"snippet":{"kind":"snippet","value":"$0"}}]}]}`, false},
	{`{"documentChanges":[{"textDocument":{"uri":"file:///a.go"},"edits":[{"newText":"\u00e9"}]}]}`, false},
	{`{"documentChanges":[{"kind":null}]}`, false},
	{`{"documentChanges":[null]}`, false},
	{`{"documentChanges":[{"options":null}]}`, false},
	{`{"documentChanges":[{"textDocument":{"uri":"file:///a.go"},"edits":[{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}}}]}]}`, false},
	{`{"documentChanges":[{"textDocument":{"uri":"file:///a.go"},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"range":{"start":{"line":1}}}]}]}`, false},
	{`{"documentChanges":{}}`, false},
	{`[]`, false},
	{`{"changes":{}} x`, false},
	{`{"changes":{},}`, false},
	{`{"changes":{"file:///a.go":[{"newText":"x"}]}`, false},
}

// TestDecodeWorkspaceEdit: the scanner's answer is encoding/json's, error
// or not, and it reads the shapes servers send itself.
func TestDecodeWorkspaceEdit(t *testing.T) {
	for _, c := range workspaceEdits {
		var want WorkspaceEditWire
		wantErr := json.Unmarshal([]byte(c.raw), &want)
		got, err := DecodeWorkspaceEdit([]byte(c.raw))
		if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%s: error %v, encoding/json's %v", c.raw, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.raw, got, want)
		}
		scanned, ok := scanWorkspaceEdit([]byte(c.raw))
		if ok != c.scanned {
			t.Errorf("%s: scanned %v, want %v", c.raw, ok, c.scanned)
		}
		if ok && !reflect.DeepEqual(scanned, want) {
			t.Errorf("%s: scanned\n got %+v\nwant %+v", c.raw, scanned, want)
		}
	}
}

// FuzzDecodeWorkspaceEdit: whatever the input, the answer is
// encoding/json's.
func FuzzDecodeWorkspaceEdit(f *testing.F) {
	for _, c := range workspaceEdits {
		f.Add(c.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		scanned, ok := scanWorkspaceEdit([]byte(raw))
		if !ok {
			return
		}
		var want WorkspaceEditWire
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: scanned, but encoding/json refuses it: %v", raw, err)
		}
		if !reflect.DeepEqual(scanned, want) {
			t.Fatalf("%q: scanned\n got %+v\nwant %+v", raw, scanned, want)
		}
	})
}

func BenchmarkDecodeWorkspaceEdit(b *testing.B) {
	raw := []byte(renameAnswer())
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := scanWorkspaceEdit(raw); !ok {
				b.Fatal("not scanned")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var we WorkspaceEditWire
			if err := json.Unmarshal(raw, &we); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDecodeWorkspaceEditOwnCells: the edits scanned share cells of
// ranges and new texts, and a new text read once for all the edits that
// repeat it: each still has a range and a new text of its own (setting
// one changes no other), and a text repeated after an escaped one, or
// after another of the same length, is read as it is.
func TestDecodeWorkspaceEditOwnCells(t *testing.T) {
	texts := []string{"checkR7", "checkR7", `a\"b`, `a\"b`, "checkR7", "checkR8", "checkR8", "", "", "checkR7", "x", "checkR7"}
	var es []string
	for i, text := range texts {
		es = append(es, fmt.Sprintf(`{"range":{"start":{"line":%d,"character":1},"end":{"line":%d,"character":2}},"newText":"%s"}`, i, i, text))
	}
	raw := `{"changes":{"file:///a.go":[` + strings.Join(es, ",") + `]}}`
	we, ok := scanWorkspaceEdit([]byte(raw))
	if !ok {
		t.Fatal("not scanned")
	}
	var want WorkspaceEditWire
	if err := json.Unmarshal([]byte(raw), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(we, want) {
		t.Fatalf("scanned\n got %+v\nwant %+v", we, want)
	}
	edits := we.Changes["file:///a.go"]
	for i := range edits {
		*edits[i].NewText, edits[i].Range.Start.Line = fmt.Sprint("set", i), uint32(1000+i)
	}
	for i, e := range edits {
		if *e.NewText != fmt.Sprint("set", i) || e.Range.Start.Line != uint32(1000+i) {
			t.Fatalf("edit %d: %q at line %d: shares a cell with another", i, *e.NewText, e.Range.Start.Line)
		}
	}
}
