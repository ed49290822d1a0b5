package lsp

// read.lua's answer, decoded in one pass. encoding/json took a read's
// answer (about a kilobyte: the answer, the buffer, the servers and their
// methods) in tens of microseconds, scanning it twice and building the
// same servers' method maps on every read; here the scanner walks it once,
// keeps the answer's raw parts as slices of it, and decodes the servers
// only when they differ from the last read's. Anything of another shape
// goes to encoding/json, which decides.

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/nvbridge/nvbridge/nvim"
)

// clientsMemo is the servers of the last read's answer: their JSON as
// read.lua wrote it and what it decodes to (shared, never changed).
type clientsMemo struct {
	mu      sync.Mutex
	raw     string
	servers []serverWire
}

// decode decodes a servers list, reusing the last one when raw is the
// same text.
func (m *clientsMemo) decode(raw []byte) ([]serverWire, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.raw != "" && m.raw == string(raw) {
		return m.servers, nil
	}
	var out []serverWire
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	m.raw, m.servers = string(raw), out
	return out, nil
}

// decodeReadReply decodes read.lua's answer into reply as json.Unmarshal
// would (the raw parts are slices of raw, which the caller does not reuse).
func decodeReadReply(raw []byte, reply *readReply, memo *clientsMemo) error {
	if scanReadReply(raw, reply, memo) {
		return nil
	}
	*reply = readReply{}
	return json.Unmarshal(raw, reply)
}

// scanReadReply is decodeReadReply for the shape read.lua writes; false
// for anything else.
func scanReadReply(raw []byte, reply *readReply, memo *clientsMemo) bool {
	s := &jsonScan{b: raw}
	ok := s.object(func(key string) bool {
		switch key {
		case "answers":
			return s.answers(&reply.Answers)
		case "chained":
			return s.answers(&reply.Chained)
		case "lines":
			if s.literal("null") {
				reply.Lines = nil
				return true
			}
			if reply.Lines == nil {
				reply.Lines = map[string]map[string]string{}
			}
			return s.object(func(uri string) bool {
				if s.literal("null") {
					reply.Lines[uri] = nil
					return true
				}
				texts := map[string]string{}
				reply.Lines[uri] = texts
				return s.object(func(n string) bool {
					text, ok := s.text()
					texts[n] = text
					return ok
				})
			})
		case "client":
			n, ok := s.uint()
			reply.Client = int(n)
			return ok
		case "unsent":
			var ok bool
			reply.Unsent, ok = s.text()
			return ok
		case "line":
			if s.literal("null") {
				reply.Line = nil
				return true
			}
			text, ok := s.text()
			reply.Line = &text
			return ok
		case "clients":
			span := s.raw()
			if span == nil {
				return false
			}
			if string(span) == "null" {
				reply.Clients = nil
				return true
			}
			servers, err := memo.decode(span)
			reply.Clients = servers
			return err == nil
		case "buffer":
			return s.bufferState(&reply.Buffer)
		}
		return s.other(key, "answers", "chained", "lines", "client", "unsent", "line", "clients", "buffer")
	})
	if !ok {
		return false
	}
	s.space()
	return s.eof()
}

// answers reads a list of read.lua's answers ({result} or {err}) into
// list (nil for null).
func (s *jsonScan) answers(list *[]readAnswerWire) bool {
	*list = nil
	if s.literal("null") {
		return true
	}
	*list = make([]readAnswerWire, 0, 1)
	return s.array(func() bool {
		var a readAnswerWire
		ok := s.object(func(key string) bool {
			switch key {
			case "result":
				a.Result = s.raw()
				return a.Result != nil
			case "err":
				span := s.raw()
				if span == nil {
					return false
				}
				a.Err = nil
				if string(span) != "null" {
					var e nvim.LuaError
					if json.Unmarshal(span, &e) != nil {
						return false
					}
					a.Err = &e
				}
				return true
			}
			return s.other(key, "result", "err")
		})
		*list = append(*list, a)
		return ok
	})
}

// readAnswerWire is one of read.lua's answers.
type readAnswerWire = struct {
	Result json.RawMessage `json:"result"`
	Err    *nvim.LuaError  `json:"err"`
}

// raw reads any value and returns its text (nil when there is none).
func (s *jsonScan) raw() []byte {
	s.space()
	start := s.i
	if !s.skip() {
		return nil
	}
	return s.b[start:s.i:s.i]
}

// text reads a string with any escape (those str leaves alone go to
// encoding/json, for this string only).
func (s *jsonScan) text() (string, bool) {
	s.space()
	start := s.i
	if str, ok := s.str(); ok {
		return str, true
	}
	s.i = start
	if !s.byte('"') {
		return "", false
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			var str string
			if json.Unmarshal(s.b[start:s.i], &str) != nil {
				return "", false
			}
			return str, true
		}
		s.i++
	}
	return "", false
}

// bufferState reads a buffer's state (buffers.state).
func (s *jsonScan) bufferState(b *nvim.BufferState) bool {
	if s.literal("null") {
		return true
	}
	return s.object(func(key string) bool {
		var ok bool
		var n uint32
		switch key {
		case "bufnr":
			n, ok = s.uint()
			b.Bufnr = int(n)
		case "changedtick":
			n, ok = s.uint()
			b.ChangedTick = int(n)
		case "line_count":
			n, ok = s.uint()
			b.LineCount = int(n)
		case "modified":
			b.Modified, ok = s.boolean()
		case "eol":
			b.EOL, ok = s.boolean()
		case "filetype":
			b.Filetype, ok = s.text()
		case "fileformat":
			b.FileFormat, ok = s.text()
		case "state":
			b.State, ok = s.text()
		default:
			ok = s.other(key, "bufnr", "changedtick", "line_count", "modified", "eol", "filetype", "fileformat", "state")
		}
		return ok
	})
}

// other skips the value of a key that is none of known, and reports false
// for one that encoding/json would take for one of them (it matches names
// in any case): that answer is its to decode.
func (s *jsonScan) other(key string, known ...string) bool {
	for _, k := range known {
		if strings.EqualFold(key, k) {
			return false
		}
	}
	return s.skip()
}

// boolean reads true or false.
func (s *jsonScan) boolean() (bool, bool) {
	if s.literal("true") {
		return true, true
	}
	return false, s.literal("false")
}
