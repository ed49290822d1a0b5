package lsp

import (
	"reflect"
	"strings"
	"testing"
)

// A definition answer as Neovim hands it over (vim.json: "\/" in every
// URI), and a LocationLink list as some servers send.
const (
	locationsSeed = `[{"uri":"file:\/\/\/m\/zap\/logger.go","range":{"start":{"line":61,"character":5},"end":{"line":61,"character":11}}},{"range":{"end":{"character":9,"line":3},"start":{"character":2,"line":3}},"uri":"file:\/\/\/m\/é 🙂.go"}]`
	linksSeed     = `[{"originSelectionRange":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}},"targetUri":"file:\/\/\/a.ts","targetRange":{"start":{"line":0,"character":0},"end":{"line":9,"character":1}},"targetSelectionRange":{"start":{"line":2,"character":9},"end":{"line":2,"character":12}}},{"targetUri":"file:\/\/\/b.ts","targetRange":{"start":{"line":4,"character":0},"end":{"line":4,"character":3}}}]`
)

func TestScanLocationsReadsWhatServersSend(t *testing.T) {
	for _, raw := range []string{locationsSeed, linksSeed, `{"uri":"file:\/\/\/a.go","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":3}}}`, `[]`} {
		fast, ok := scanLocations([]byte(raw))
		if !ok {
			t.Fatalf("the one-pass decoder refused a server's answer (every read would take the slow path): %s", raw)
		}
		std, err := decodeLocationsStd([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%s:\none pass:      %v\nencoding/json: %v", raw, fast, std)
		}
	}
	locs, _ := DecodeLocations([]byte(locationsSeed))
	if len(locs) != 2 || locs[0].URI != "file:///m/zap/logger.go" || locs[0].Range.Start.Line != 61 || locs[1].URI != "file:///m/é 🙂.go" || locs[1].Range.End.Character != 9 {
		t.Fatalf("decoded %v", locs)
	}
	links, _ := DecodeLocations([]byte(linksSeed))
	if len(links) != 2 || links[0].URI != "file:///a.ts" || links[0].Range.Start.Character != 9 || links[1].Range.End.Line != 4 {
		t.Fatalf("decoded %v", links)
	}
}

func TestDecodeLocationsLeavesTheUnexpectedToEncodingJSON(t *testing.T) {
	loc := `{"uri":"file:///a.go","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":1}}}`
	for _, raw := range []string{
		loc, `[` + loc + `]`, `[` + loc + `,` + loc + `]`,
		`{"other":1}`, `[{}]`, `[{"originSelectionRange":null}]`,
		`[` + strings.Replace(loc, `"uri"`, `"URI"`, 1) + `]`, // keys match in any case
		`[` + strings.Replace(loc, `"range":{`, `"range":null,"x":{`, 1) + `]`,
		`[` + strings.Replace(loc, `file:///a.go`, `file:///\u00e9.go`, 1) + `]`,
		`[` + loc + `,null]`,
		`[` + strings.Replace(loc, `"uri"`, `"uri":"file:///b.go","uri"`, 1) + `]`, // the last wins
		`[{"range":{"start":{"line":1}},"range":{"end":{"line":2}}}]`,              // merged
		`[` + strings.Replace(loc, `"line":1,`, `"line":-1,`, 1) + `]`,             // refused by both
		`[` + strings.Replace(loc, `"line":1,`, `"line":4294967296,`, 1) + `]`,
		`[` + strings.Replace(loc, `"line":1,`, `"line":1.0,`, 1) + `]`,
		`[`, `[` + loc, loc + ` x`, `"s"`, `[1]`,
	} {
		got, err := DecodeLocations([]byte(raw))
		want, wantErr := decodeLocationsStd([]byte(raw))
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ngot  %v, %v\nwant %v, %v", raw, got, err, want, wantErr)
		}
	}
}

// FuzzScanLocations: whatever the one-pass decoder accepts, encoding/json
// accepts too, with the same result.
func FuzzScanLocations(f *testing.F) {
	f.Add(locationsSeed)
	f.Add(linksSeed)
	f.Add(`{"uri":"x","range":{}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		// As DecodeLocations hands it over.
		raw = strings.TrimSpace(raw)
		if raw == "" {
			return
		}
		fast, ok := scanLocations([]byte(raw))
		if !ok {
			return
		}
		std, err := decodeLocationsStd([]byte(raw))
		if err != nil {
			t.Fatalf("one pass accepted what encoding/json refuses (%v): %q", err, raw)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q\none pass:      %v\nencoding/json: %v", raw, fast, std)
		}
	})
}
