package lsp

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"go.lsp.dev/protocol"
)

// TestDecodeReadReplyAsJSON: read.lua's answer decodes as encoding/json
// decodes it, for the shapes read.lua writes (escapes of every kind in the
// lines, null results, error answers, an answer that sent nothing) and for
// shapes it does not (names in other case, duplicates, null members,
// broken JSON), which the scanner leaves to encoding/json.
func TestDecodeReadReplyAsJSON(t *testing.T) {
	const clients = `"clients":[{"root_dir":"\/tmp\/m\/zap","initialized":true,"name":"gopls","id":1,"methods":{"textDocument\/definition":true,"textDocument\/hover":true},"offset_encoding":"utf-16"}]`
	const buffer = `"buffer":{"state":"same","eol":true,"bufnr":2,"fileformat":"unix","modified":false,"changedtick":2,"filetype":"go","line_count":363}`
	cases := map[string]string{
		"definition":    `{"answers":[{"result":[{"range":{"end":{"character":12,"line":32},"start":{"character":5,"line":32}},"uri":"file:\/\/\/tmp\/o.go"}]}],"lines":{"file:\/\/\/tmp\/o.go":{"32":"func Process(o Order) (Total, error) {","33":"\tif len(o.Lines) == 0 {"}},"client":1,"line":"\tif ce := log.check(InfoLevel, msg); ce != nil {",` + clients + `,` + buffer + `}`,
		"escapes":       `{"answers":[{"result":{"contents":{"kind":"markdown","value":"a\nb\t\"c\" \\ \/ \u00e9 \ud83d\ude00 😀 \u0001"}}},{"result":null}],"lines":{},"client":3,"line":"x := \"😀é𝄞\"\t\r\b\f",` + clients + `,` + buffer + `}`,
		"error answer":  `{"answers":[{"err":{"code":"OPERATION_FAILED","message":"gopls: no identifier found","remediation":"move"}}],"lines":{},"client":1,"line":"x",` + clients + `,` + buffer + `}`,
		"unsent":        `{"unsent":"line",` + buffer + `,"line":null,"clients":null}`,
		"no methods":    `{"unsent":"no server","clients":[{"root_dir":null,"name":"x","id":2,"methods":{},"offset_encoding":"utf-8"}],"line":"","buffer":{"bufnr":1}}`,
		"spaces":        " {\n \"answers\" : [ { \"result\" : [ ] } ] ,\t\"lines\" : { } , \"client\" : 7 , " + clients + " , " + buffer + " } \n",
		"other case":    `{"Answers":[{"result":1}],"client":1}`,
		"inner case":    `{"answers":[{"Result":1}],"buffer":{"BUFNR":4},"client":1}`,
		"duplicates":    `{"client":1,"client":2,"lines":{"u":{"1":"a"},"u":{"2":"b"}},"answers":[{"result":1}],"answers":[{"result":2},{"result":3}]}`,
		"null members":  `{"answers":null,"lines":null,"client":null,"unsent":null,"line":null,"clients":null,"buffer":null}`,
		"null lines":    `{"lines":{"u":null},"answers":[{"result":null,"err":null}]}`,
		"unknown":       `{"answers":[{"result":1,"extra":{"a":[1,2,{"b":null}]}}],"more":[true,false,-1.5e3],"client":1}`,
		"skipped names": `{"answers":[{"result":{"a\nb":1,"\u00e9\t":[{"x\/y":null,"":{}}]}}],"lines":{"file:\/\/\/a b.go":{"0":"\tx\n","1":"\r\b\f\\\/"}},"client":1}`,
		"negative":      `{"client":-1}`,
		"float":         `{"client":1.5}`,
		"broken":        `{"answers":[{"result":1}],"client":1`,
		"trailing":      `{"client":1} x`,
		"not object":    `[1,2]`,
		"bad escape":    `{"line":"\x"}`,
	}
	scanned := map[string]bool{"definition": true, "escapes": true, "error answer": true, "unsent": true, "no methods": true, "spaces": true, "null lines": true, "unknown": true, "skipped names": true}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			var want readReply
			wantErr := json.Unmarshal([]byte(raw), &want)
			var got readReply
			gotErr := decodeReadReply([]byte(raw), &got, &clientsMemo{})
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
			}
			if wantErr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded\n%#v\nencoding/json\n%#v", got, want)
			}
			// read.lua's own shapes are the scanner's, not left to
			// encoding/json.
			if scanned[name] && !scanReadReply([]byte(raw), &readReply{}, &clientsMemo{}) {
				t.Error("read.lua's shape was left to encoding/json")
			}
		})
	}
}

// TestClientsMemo: the same servers' text decodes once and is reused; other
// text is decoded anew.
func TestClientsMemo(t *testing.T) {
	var m clientsMemo
	a := []byte(`[{"id":1,"name":"gopls","methods":{"textDocument/hover":true},"offset_encoding":"utf-16"}]`)
	first, err := m.decode(a)
	if err != nil || len(first) != 1 || !first[0].Methods["textDocument/hover"] {
		t.Fatalf("%+v %v", first, err)
	}
	again, err := m.decode(append([]byte(nil), a...))
	if err != nil || &again[0] != &first[0] {
		t.Fatalf("the same text was decoded again: %p %p %v", &again[0], &first[0], err)
	}
	other, err := m.decode([]byte(`[{"id":2,"name":"pyright","methods":{},"offset_encoding":"utf-16"}]`))
	if err != nil || len(other) != 1 || other[0].Name != "pyright" || len(other[0].Methods) != 0 {
		t.Fatalf("%+v %v", other, err)
	}
	if _, err := m.decode([]byte(`[{"id":"x"}]`)); err == nil {
		t.Fatal("a server with a string id decoded")
	}
}

// FuzzScanReadReply: whatever the scanner takes from an answer, encoding/json
// takes too, with the same result (what it refuses goes there anyway).
func FuzzScanReadReply(f *testing.F) {
	f.Add(`{"answers":[{"result":[{"uri":"file:\/\/\/a.go"}]}],"lines":{"file:\/\/\/a.go":{"1":"\tx"}},"client":1,"line":"\ty","clients":[{"id":1,"name":"g","methods":{"m":true},"offset_encoding":"utf-16","root_dir":null}],"buffer":{"bufnr":2,"modified":false,"filetype":"go"}}`)
	f.Add(`{"unsent":"line","line":null,"clients":null,"buffer":{"state":"same","eol":true}}`)
	f.Add(`{"answers":[{"err":{"code":"X","message":"m \u00e9"}},{"result":null}]}`)
	f.Add(`{"answers":[{"result":{"a\nb":{"\t":[]}}}],"lines":{"u\/v":{"1":"\t\r\n\b\f"}},"line":"\tx\\"}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var fast readReply
		if !scanReadReply([]byte(raw), &fast, &clientsMemo{}) {
			return
		}
		var std readReply
		if err := json.Unmarshal([]byte(raw), &std); err != nil {
			t.Fatalf("the scanner took what encoding/json refuses (%v): %q", err, raw)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q\nscanner:       %#v\nencoding/json: %#v", raw, fast, std)
		}
	})
}

// BenchmarkDecodeReadReply: a find_definition's answer from read.lua (on
// zap): its names and most of its strings read without a copy.
func BenchmarkDecodeReadReply(b *testing.B) {
	raw := []byte(`{"answers":[{"result":[{"range":{"end":{"character":21,"line":130},"start":{"character":16,"line":130}},"uri":"file:\/\/\/tmp\/m\/zap\/logger.go"}]}],"lines":{"file:\/\/\/tmp\/m\/zap\/logger.go":{"130":"func (log *Logger) Sugar() *SugaredLogger {"}},"client":1,"line":"func (log *Logger) Sugar() *SugaredLogger {","clients":[{"root_dir":"\/tmp\/m\/zap","initialized":true,"name":"gopls","id":1,"methods":{"textDocument\/definition":true},"offset_encoding":"utf-16"}],"buffer":{"state":"same","eol":true,"bufnr":2,"fileformat":"unix","modified":false,"changedtick":2,"filetype":"go","line_count":363}}`)
	var memo clientsMemo
	b.ReportAllocs()
	for b.Loop() {
		var reply readReply
		if err := decodeReadReply(raw, &reply, &memo); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCharacterAt: the place of the position's character in params as
// json.Marshal writes them, for each read's params; 0 when the position is
// not there once as written (another line, a character not 0, written
// twice), never a place inside a string.
func TestCharacterAt(t *testing.T) {
	at := protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: `file:///a/"position":{"line":7,"character":0}.go`},
		Position:     protocol.Position{Line: 7},
	}
	for _, p := range []any{
		protocol.DefinitionParams{TextDocumentPositionParams: at},
		protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}},
		protocol.HoverParams{TextDocumentPositionParams: at},
	} {
		params, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		i := characterAt(params, 7)
		if i <= 0 || params[i] != '0' {
			t.Fatalf("%T: %d in %s", p, i, params)
		}
		spliced := string(params[:i]) + "123" + string(params[i+1:])
		var back protocol.TextDocumentPositionParams
		if err := json.Unmarshal([]byte(spliced), &back); err != nil || back.Position.Character != 123 || back.TextDocument.URI != at.TextDocument.URI {
			t.Fatalf("%T: %s: %+v, %v", p, spliced, back, err)
		}
		if n := characterAt(params, 8); n != 0 {
			t.Errorf("%T, another line: %d", p, n)
		}
	}
	for _, params := range []string{
		`{"position":{"line":7,"character":3}}`,
		`{"position":{"line":7,"character":0},"other":{"position":{"line":7,"character":0}}}`,
		`{"textDocument":{"uri":"x\"position\":{\"line\":7,\"character\":0}"}}`,
	} {
		if n := characterAt([]byte(params), 7); n != 0 {
			t.Errorf("%s: %d", params, n)
		}
	}
}

// TestBeyondNavigation: a read sends the methods its servers are
// described with beyond the navigation ones, once each, none for the
// usual reads.
func TestBeyondNavigation(t *testing.T) {
	if got := beyondNavigation(protocol.MethodTextDocumentDefinition); got != nil {
		t.Errorf("definition: %v", got)
	}
	if got := beyondNavigation(protocol.MethodTextDocumentHover, []string{protocol.MethodTextDocumentDefinition}, nil); got != nil {
		t.Errorf("hover: %v", got)
	}
	got := beyondNavigation(protocol.MethodTextDocumentPrepareCallHierarchy, nil,
		[]string{protocol.MethodCallHierarchyIncomingCalls, protocol.MethodCallHierarchyOutgoingCalls},
		[]string{protocol.MethodCallHierarchyIncomingCalls, protocol.MethodTextDocumentRename})
	if want := []string{protocol.MethodCallHierarchyIncomingCalls, protocol.MethodCallHierarchyOutgoingCalls, protocol.MethodTextDocumentRename}; !slices.Equal(got, want) {
		t.Errorf("calls: %v, want %v", got, want)
	}
}

// TestReadParamsAsMarshal: a read's params written as json.Marshal writes
// them, with the place of the character characterAt finds, for each kind
// of params and URIs JSON writes as they are or escapes; params of other
// kinds, with a token or a character, go to json.Marshal.
func TestReadParamsAsMarshal(t *testing.T) {
	token := protocol.NewProgressToken("t")
	for _, u := range []protocol.DocumentURI{
		"file:///tmp/nvbridge-readsab-1/m/zap/logger.go",
		"file:///tmp/a%20b/%C3%BC%F0%9F%98%80.go",
		"file:///tmp/a&b<c>.go",
		`file:///tmp/q"uote\.go`,
		"file:///tmp/ü.go",
		"file:///tmp/\u2028.go",
		"file:///tmp/\x01.go",
		"",
	} {
		for _, line := range []int{0, 7, 1 << 20} {
			at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: protocol.Position{Line: uint32(line)}}
			for _, p := range []any{
				protocol.DefinitionParams{TextDocumentPositionParams: at},
				protocol.HoverParams{TextDocumentPositionParams: at},
				protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}},
				protocol.ReferenceParams{TextDocumentPositionParams: at},
				protocol.DefinitionParams{TextDocumentPositionParams: at, WorkDoneProgressParams: protocol.WorkDoneProgressParams{WorkDoneToken: token}},
				protocol.HoverParams{TextDocumentPositionParams: at, WorkDoneProgressParams: protocol.WorkDoneProgressParams{WorkDoneToken: token}},
				protocol.ReferenceParams{TextDocumentPositionParams: at, PartialResultParams: protocol.PartialResultParams{PartialResultToken: token}},
				protocol.TypeDefinitionParams{TextDocumentPositionParams: at},
				protocol.RenameParams{TextDocumentPositionParams: at, NewName: "newName"},
				protocol.RenameParams{TextDocumentPositionParams: at, NewName: ""},
				protocol.RenameParams{TextDocumentPositionParams: at, NewName: "größe"},
				protocol.RenameParams{TextDocumentPositionParams: at, NewName: `a<b>&"c\`},
				protocol.RenameParams{TextDocumentPositionParams: at, NewName: "a\u2028\x01"},
				protocol.RenameParams{TextDocumentPositionParams: at, NewName: "x", PartialResultParams: protocol.PartialResultParams{PartialResultToken: token}},
				at,
			} {
				want, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				got, n, bare, err := readParams(p, line)
				if err != nil || got != string(want) || n != characterAt(want, line) {
					t.Errorf("%T %q line %d: %s at %d (%v), json.Marshal %s at %d", p, u, line, got, n, err, want, characterAt(want, line))
				}
				// Bare: the text of the params' TextDocumentPositionParams.
				if plain, _ := json.Marshal(at); bare && got != string(plain) {
					t.Errorf("%T %q line %d: %s said bare, not %s", p, u, line, got, plain)
				}
			}
		}
	}
	// Another line than the params' (never a read's): json.Marshal's, no place.
	at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: "file:///a.go"}, Position: protocol.Position{Line: 3, Character: 2}}
	if got, n, bare, err := readParams(protocol.DefinitionParams{TextDocumentPositionParams: at}, 3); err != nil || n != 0 || bare || got != `{"textDocument":{"uri":"file:///a.go"},"position":{"line":3,"character":2}}` {
		t.Errorf("a character: %s at %d (bare %v), %v", got, n, bare, err)
	}
	// A definition's and a hover's are bare, references' are not.
	at.Position.Character = 0
	for p, want := range map[any]bool{
		protocol.DefinitionParams{TextDocumentPositionParams: at}:           true,
		protocol.HoverParams{TextDocumentPositionParams: at}:                true,
		protocol.ReferenceParams{TextDocumentPositionParams: at}:            false,
		protocol.RenameParams{TextDocumentPositionParams: at, NewName: "n"}: false,
	} {
		if _, _, bare, _ := readParams(p, 3); bare != want {
			t.Errorf("%T: bare %v", p, bare)
		}
	}
}

// TestPositionsOf: a target's character in each offset encoding, one
// character alone when they agree (ASCII before it), and a map when they
// do not (é: 2 bytes, 1 UTF-16 unit; 😀: 4 bytes, 2 units, 1 character).
func TestPositionsOf(t *testing.T) {
	for _, c := range []struct {
		line      string
		b         int
		character int
		positions map[string]int
	}{
		{"\ttotal, err := orders.Process(order)", 22, 22, nil},
		{"x := 1 // é", 5, 5, nil},
		{"é := 1", 3, 3, map[string]int{"utf-8": 3, "utf-16": 2, "utf-32": 2}},
		{"s := \"😀\" + x", 12, 12, map[string]int{"utf-8": 12, "utf-16": 10, "utf-32": 9}},
		{"", 0, 0, nil},
	} {
		character, positions := positionsOf(c.line, c.b)
		if character != c.character || !reflect.DeepEqual(positions, c.positions) {
			t.Errorf("%q at %d: %d %v, want %d %v", c.line, c.b, character, positions, c.character, c.positions)
		}
	}
}
