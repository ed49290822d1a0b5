package lsp

// Decoding callHierarchy/incomingCalls and outgoingCalls answers, the
// requests a call hierarchy walk sends by the dozen. encoding/json read
// each answer four times (validate and decode the list, then validate and
// decode every item again to keep its raw JSON), a third of a walk's Go
// CPU, which competes with the server for the machine's cores. scanCalls
// reads an answer once, item spans included; anything it does not expect
// (a shape, a key spelled in another case, an escape it does not decode)
// hands the answer to encoding/json, so the result is always the one
// encoding/json gives.

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// hierCall is one call of an incomingCalls or outgoingCalls answer: the
// item at its other end ("from" or "to") and the call sites.
type hierCall struct {
	item   hierItem
	ranges []protocol.Range
}

// decodeCalls decodes an incomingCalls (field "from") or outgoingCalls
// (field "to") answer; null, [] and {} (how vim.json encodes an empty
// table) are no calls.
func decodeCalls(raw json.RawMessage, field string) ([]hierCall, error) {
	if calls, err := scanCalls(raw, field); err == nil {
		return calls, nil
	}
	return decodeCallsStd(raw, field)
}

// decodeCallsStd is decodeCalls by encoding/json.
func decodeCallsStd(raw json.RawMessage, field string) ([]hierCall, error) {
	var wire []struct {
		From       json.RawMessage  `json:"from"`
		To         json.RawMessage  `json:"to"`
		FromRanges []protocol.Range `json:"fromRanges"`
	}
	if err := decodeList(raw, &wire); err != nil {
		return nil, err
	}
	out := make([]hierCall, 0, len(wire))
	for _, w := range wire {
		itemRaw := w.From
		if field == "to" {
			itemRaw = w.To
		}
		it, err := decodeHierItem(itemRaw)
		if err != nil {
			return nil, err
		}
		out = append(out, hierCall{item: it, ranges: w.FromRanges})
	}
	return out, nil
}

// errUnexpected sends an answer to encoding/json (never shown: that
// decoder's own error is).
var errUnexpected = errors.New("not the expected shape")

// scanCalls is decodeCalls in one pass, for the shapes servers send.
func scanCalls(raw []byte, field string) ([]hierCall, error) {
	s := &jsonScan{b: raw}
	// decodeList's empty answers: null, and {} as written (not "{ }").
	if s.literal("null") || s.literal("{}") {
		return s.end([]hierCall{})
	}
	out := []hierCall{}
	if !s.array(func() bool {
		call, ok := s.call(field)
		out = append(out, call)
		return ok
	}) {
		return nil, errUnexpected
	}
	return s.end(out)
}

// jsonScan reads JSON from b at i. Its readers skip white space before
// what they read and report false, leaving i anywhere, on anything else.
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScan) eof() bool { return s.i >= len(s.b) }

// byte consumes c if it comes next.
func (s *jsonScan) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal consumes word (null, true, false, {}) if it comes next.
func (s *jsonScan) literal(word string) bool {
	s.space()
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// end returns v when nothing but white space is left.
func (s *jsonScan) end(v []hierCall) ([]hierCall, error) {
	s.space()
	if !s.eof() {
		return nil, errUnexpected
	}
	return v, nil
}

// object reads an object, calling member for each key with the scanner at
// its value; member reads the value and reports whether it could.
func (s *jsonScan) object(member func(key string) bool) bool {
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return true
	}
	for {
		key, ok := s.key()
		if !ok || !s.byte(':') || !member(key) {
			return false
		}
		if s.byte(',') {
			continue
		}
		return s.byte('}')
	}
}

// key reads a member's name as str does; a name the decoders here look
// for (memberName) is that constant, not a copy: a read's answer has
// some twenty members, a string allocated for each.
func (s *jsonScan) key() (string, bool) {
	s.space()
	start := s.i
	if s.byte('"') {
		for i := s.i; i < len(s.b) && s.b[i] >= 0x20 && s.b[i] < 0x80 && s.b[i] != '\\'; i++ {
			if s.b[i] == '"' {
				if name, ok := memberName(s.b[s.i:i]); ok {
					s.i = i + 1
					return name, true
				}
				break
			}
		}
	}
	s.i = start
	return s.str()
}

// memberName is the constant of a member name the decoders of this
// package switch on (a name missing here is read all the same, into a
// string of its own): a switch, which the compiler makes a search by
// length then bytes, where a map hashed every key (a rename's nine edits:
// some 80 keys, a fifth of their decoding).
func memberName(b []byte) (string, bool) {
	switch string(b) {
	// read.lua's answer (read_decode.go) and a buffer's state
	case "answers":
		return "answers", true
	case "result":
		return "result", true
	case "err":
		return "err", true
	case "lines":
		return "lines", true
	case "client":
		return "client", true
	case "unsent":
		return "unsent", true
	case "line":
		return "line", true
	case "clients":
		return "clients", true
	case "buffer":
		return "buffer", true
	case "bufnr":
		return "bufnr", true
	case "changedtick":
		return "changedtick", true
	case "line_count":
		return "line_count", true
	case "modified":
		return "modified", true
	case "eol":
		return "eol", true
	case "filetype":
		return "filetype", true
	case "fileformat":
		return "fileformat", true
	case "state":
		return "state", true
	// positions, ranges, locations and location links
	case "character":
		return "character", true
	case "start":
		return "start", true
	case "end":
		return "end", true
	case "uri":
		return "uri", true
	case "range":
		return "range", true
	case "targetUri":
		return "targetUri", true
	case "targetRange":
		return "targetRange", true
	case "targetSelectionRange":
		return "targetSelectionRange", true
	case "originSelectionRange":
		return "originSelectionRange", true
	// call hierarchy items and calls
	case "name":
		return "name", true
	case "detail":
		return "detail", true
	case "kind":
		return "kind", true
	case "selectionRange":
		return "selectionRange", true
	case "from":
		return "from", true
	case "to":
		return "to", true
	case "fromRanges":
		return "fromRanges", true
	case "tags":
		return "tags", true
	case "data":
		return "data", true
	// workspace edits
	case "changes":
		return "changes", true
	case "documentChanges":
		return "documentChanges", true
	case "textDocument":
		return "textDocument", true
	case "version":
		return "version", true
	case "edits":
		return "edits", true
	case "newText":
		return "newText", true
	case "oldUri":
		return "oldUri", true
	case "newUri":
		return "newUri", true
	case "options":
		return "options", true
	}
	return "", false
}

// array reads an array, calling elem for each element with the scanner at
// it; elem reads the element and reports whether it could.
func (s *jsonScan) array(elem func() bool) bool {
	if !s.byte('[') {
		return false
	}
	if s.byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.byte(',') {
			continue
		}
		return s.byte(']')
	}
}

// str reads a string. Escapes other than \/ (which vim.json writes in
// every URI), \", \\ and the control characters' short forms (\t: a
// line of source) are left to encoding/json (\u).
func (s *jsonScan) str() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	start := s.i
	escaped := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			text := s.b[start:s.i]
			s.i++
			if !escaped {
				if !utf8.Valid(text) {
					return "", false
				}
				return string(text), true
			}
			return unescape(text)
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return "", false
			}
			switch s.b[s.i+1] {
			case '/', '"', '\\', 'b', 'f', 'n', 'r', 't':
			default:
				return "", false
			}
			escaped = true
			s.i += 2
		case c < 0x20:
			return "", false
		default:
			s.i++
		}
	}
	return "", false
}

// unescape decodes the \/, \", \\, \b, \f, \n, \r and \t of a string's
// text (a line of source sent back by vim.json has its tabs so).
func unescape(text []byte) (string, bool) {
	if !utf8.Valid(text) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\\' {
			i++
			switch c = text[i]; c {
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			}
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// uint reads a number that is a non-negative integer fitting in 32 bits.
func (s *jsonScan) uint() (uint32, bool) {
	s.space()
	start := s.i
	if !s.number() {
		return 0, false
	}
	var n uint64
	for _, c := range s.b[start:s.i] {
		// A sign, a fraction or an exponent: encoding/json refuses it
		// for an unsigned integer.
		if c < '0' || c > '9' {
			return 0, false
		}
		if n = n*10 + uint64(c-'0'); n > math.MaxUint32 {
			return 0, false
		}
	}
	return uint32(n), true
}

// skip reads any value.
func (s *jsonScan) skip() bool {
	s.space()
	if s.eof() {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.skipStr()
	case c == '{':
		return s.skipObject()
	case c == '[':
		return s.array(s.skip)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		return s.number()
	}
}

// skipObject reads an object without decoding its names.
func (s *jsonScan) skipObject() bool {
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return true
	}
	for {
		if !s.skipStr() || !s.byte(':') || !s.skip() {
			return false
		}
		if s.byte(',') {
			continue
		}
		return s.byte('}')
	}
}

// skipStr reads a string without decoding it: any escape JSON has, no
// control character.
func (s *jsonScan) skipStr() bool {
	if !s.byte('"') {
		return false
	}
	b := s.b
	for i := s.i; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if i+1 >= len(b) {
				return false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+5 >= len(b) {
					return false
				}
				for _, h := range b[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				i += 5
			default:
				return false
			}
		}
	}
	return false
}

// number reads a number as JSON writes it.
func (s *jsonScan) number() bool {
	b, i := s.b, s.i
	digits := func() int {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch n := digits(); {
	case n == 0:
		return false
	case n > 1 && b[i-n] == '0':
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	s.i = i
	return true
}

// position reads {"line": n, "character": n}.
func (s *jsonScan) position(p *protocol.Position) bool {
	return s.object(func(key string) bool {
		var ok bool
		switch key {
		case "line":
			p.Line, ok = s.uint()
		case "character":
			p.Character, ok = s.uint()
		default:
			ok = !knownElsewhere(key, "line", "character") && s.skip()
		}
		return ok
	})
}

// rangeOf reads {"start": position, "end": position}.
func (s *jsonScan) rangeOf(r *protocol.Range) bool {
	return s.object(func(key string) bool {
		switch key {
		case "start":
			return s.position(&r.Start)
		case "end":
			return s.position(&r.End)
		}
		return !knownElsewhere(key, "start", "end") && s.skip()
	})
}

// item reads a call hierarchy item, keeping its raw JSON.
func (s *jsonScan) item(it *hierItem) bool {
	s.space()
	start := s.i
	ok := s.object(func(key string) bool {
		switch key {
		case "name":
			v, ok := s.str()
			it.Name = v
			return ok
		case "detail":
			v, ok := s.str()
			it.Detail = v
			return ok
		case "uri":
			v, ok := s.str()
			it.URI = protocol.DocumentURI(v)
			return ok
		case "kind":
			v, ok := s.uint()
			it.Kind = protocol.SymbolKind(v)
			return ok
		case "range":
			return s.rangeOf(&it.Range)
		case "selectionRange":
			return s.rangeOf(&it.SelectionRange)
		}
		return !knownElsewhere(key, "name", "detail", "uri", "kind", "range", "selectionRange") && s.skip()
	})
	if ok {
		it.raw = append(json.RawMessage(nil), s.b[start:s.i]...)
	}
	return ok
}

// call reads {"from"|"to": item, "fromRanges": [range...]}; the item of
// the other end, if present, is skipped.
func (s *jsonScan) call(field string) (hierCall, bool) {
	var call hierCall
	seen := false
	ok := s.object(func(key string) bool {
		switch key {
		case field:
			if seen { // a repeated key: encoding/json keeps the last
				return false
			}
			seen = true
			return s.item(&call.item)
		case "fromRanges":
			// Empty, not nil, for []; a repeated key replaces the list:
			// as with encoding/json.
			call.ranges = []protocol.Range{}
			return s.array(func() bool {
				var r protocol.Range
				ok := s.rangeOf(&r)
				call.ranges = append(call.ranges, r)
				return ok
			})
		}
		return !knownElsewhere(key, "from", "to", "fromRanges") && s.skip()
	})
	return call, ok && seen
}

// knownElsewhere: encoding/json matches keys case-insensitively, so a key
// that is one of names in another case is not simply skipped.
func knownElsewhere(key string, names ...string) bool {
	for _, n := range names {
		if key != n && strings.EqualFold(key, n) {
			return true
		}
	}
	return false
}
