package lsp

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// String is for test failures.
func (c hierCall) String() string {
	return fmt.Sprintf("%s %s %v %v %s", c.item.Name, c.item.URI, c.item.SelectionRange, c.ranges, c.item.raw)
}

// An outgoingCalls answer as Neovim hands it over (vim.json: "\/" in every
// URI), with what servers add: data, tags, a detail, an item at the other
// end, several call sites.
const callsSeed = `[{"to":{"name":"String","kind":6,"detail":"go.uber.org\/zap\/buffer • buffer.go","uri":"file:\/\/\/m\/zap\/buffer\/buffer.go","range":{"start":{"line":92,"character":17},"end":{"line":92,"character":23}},"selectionRange":{"start":{"line":92,"character":17},"end":{"line":92,"character":23}},"tags":[1],"data":{"k":[1.5e3,-2,true,false,null,"x\"y\\z"]}},"fromRanges":[{"start":{"line":300,"character":9},"end":{"line":300,"character":15}},{"start":{"line":310,"character":4},"end":{"line":310,"character":10}}]},` +
	`{"from":{"name":"other","kind":12,"uri":"file:\/\/\/a.go","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"selectionRange":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}},"to":{"name":"Ünïcödé 🙂","kind":12,"uri":"file:\/\/\/m\/é.go","range":{"start":{"line":1,"character":2},"end":{"line":3,"character":4}},"selectionRange":{"start":{"line":1,"character":5},"end":{"line":1,"character":9}}},"fromRanges":[]}]`

func TestScanCallsReadsWhatServersSend(t *testing.T) {
	for _, field := range []string{"to", "from"} {
		raw := callsSeed
		if field == "from" {
			// Incoming: the same items under "from", the other end gone.
			raw = strings.ReplaceAll(strings.ReplaceAll(callsSeed, `"from":{"name":"other"`, `"other":{"name":"other"`), `"to":`, `"from":`)
		}
		fast, err := scanCalls([]byte(raw), field)
		if err != nil {
			t.Fatalf("%s: the one-pass decoder refused a server's answer (every walk would take the slow path): %v", field, err)
		}
		std, err := decodeCallsStd([]byte(raw), field)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%s:\none pass:     %v\nencoding/json: %v", field, fast, std)
		}
		if len(fast) != 2 || fast[0].item.URI != "file:///m/zap/buffer/buffer.go" || fast[1].item.Name != "Ünïcödé 🙂" || len(fast[0].ranges) != 2 {
			t.Fatalf("%s: decoded %v", field, fast)
		}
	}
}

func TestDecodeCallsLeavesTheUnexpectedToEncodingJSON(t *testing.T) {
	item := `{"name":"f","kind":12,"uri":"file:///a.go","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}},"selectionRange":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}}}`
	for _, raw := range []string{
		`null`, `{}`, ` [] `, // no calls
		`[{"to":` + item + `,"fromRanges":null}]`,                               // null list
		`[{"to":` + strings.Replace(item, `"kind":12`, `"kind":12.0`, 1) + `}]`, // SymbolKind is a float
		`[{"to":` + strings.Replace(item, `"name":"f"`, `"Name":"f"`, 1) + `}]`, // keys match in any case
		`[{"to":` + strings.Replace(item, `"name":"f"`, `"name":"\u0066\n"`, 1) + `}]`,
		`[{"to":` + item + `,"to":` + strings.Replace(item, `"f"`, `"g"`, 1) + `}]`, // the last wins
		`[{"to":` + item + `,"fromRanges":[{"start":{"line":1}}],"fromRanges":[]}]`,
		`[{"to":` + strings.Replace(item, `"line":1,`, `"line":-1,`, 1) + `}]`, // refused by both
		`[{"to":` + strings.Replace(item, `"line":1,`, `"line":4294967296,`, 1) + `}]`,
		`{ }`, `[`, `[{"from":` + item + `}]`, `[null]`, `[{"to":` + item + `}] x`,
	} {
		got, err := decodeCalls([]byte(raw), "to")
		want, wantErr := decodeCallsStd([]byte(raw), "to")
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %v, %v\nwant %v, %v", raw, got, err, want, wantErr)
		}
	}
}

// FuzzScanCalls: whatever the one-pass decoder accepts, encoding/json
// accepts too, with the same result (what it refuses goes there anyway).
func FuzzScanCalls(f *testing.F) {
	f.Add(callsSeed)
	f.Add(`[{"from":{"name":"f","kind":12,"uri":"file:///a.go","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}},"selectionRange":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}}},"fromRanges":[{"start":{"line":3,"character":2},"end":{"line":3,"character":3}}]}]`)
	f.Add(`{}`)
	f.Add(`[{"to":{"kind":0e1}}]`)
	f.Fuzz(func(t *testing.T, raw string) {
		for _, field := range []string{"from", "to"} {
			fast, err := scanCalls([]byte(raw), field)
			if err != nil {
				continue
			}
			std, err := decodeCallsStd([]byte(raw), field)
			if err != nil {
				t.Fatalf("%s: one pass accepted what encoding/json refuses (%v): %q", field, err, raw)
			}
			if !reflect.DeepEqual(fast, std) {
				t.Fatalf("%s: %q\none pass:      %v\nencoding/json: %v", field, raw, fast, std)
			}
		}
	})
}
