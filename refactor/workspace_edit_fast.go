package refactor

// The WorkspaceEdit most renames answer, decoded without reflection: a
// documentChanges of TextDocumentEdits, each a text document (uri,
// version) and edits (range, newText), strings without escapes, numbers
// plain integers. encoding/json took 50-65 us for gopls's 1.2 KB answer
// renaming a method of zap's logger.go (under load), on the way from the
// answer to the preview; this takes a fraction of that. Anything else (an
// escape, another member, a file operation, a null, a duplicate member,
// bytes that are not UTF-8) is left to encoding/json: the fast path gives
// what json.Unmarshal gives, or nothing.

import (
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// decodeTextEditsFast is json.Unmarshal(raw, &we) for a WorkspaceEdit of
// that shape; ok false otherwise (nothing decoded).
func decodeTextEditsFast(raw []byte) (we wireWorkspaceEdit, ok bool) {
	d := fastJSON{b: raw}
	ok = d.object(func(key string) bool {
		if key != "documentChanges" || we.DocumentChanges != nil {
			return false
		}
		we.DocumentChanges = []wireDocumentChange{}
		return d.array(func() bool {
			dc, ok := d.textDocumentEdit()
			we.DocumentChanges = append(we.DocumentChanges, dc)
			return ok
		})
	})
	if !ok || we.DocumentChanges == nil {
		return wireWorkspaceEdit{}, false
	}
	d.space()
	if d.i != len(d.b) {
		return wireWorkspaceEdit{}, false
	}
	return we, true
}

// fastJSON reads b from i.
type fastJSON struct {
	b []byte
	i int
}

func (d *fastJSON) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips spaces and reports whether c is next, taken if so.
func (d *fastJSON) next(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// object reads an object, member calls with each key read up to the
// value (the value is member's to read).
func (d *fastJSON) object(member func(key string) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		key, ok := d.str()
		if !ok || !d.next(':') || !member(key) {
			return false
		}
		if d.next('}') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// array reads an array, elem reading each element.
func (d *fastJSON) array(elem func() bool) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.next(']') {
			return true
		}
		if !d.next(',') {
			return false
		}
	}
}

// str reads a string without escapes, of valid UTF-8 and no control
// character (json.Unmarshal would refuse one, or replace bad bytes).
func (d *fastJSON) str() (string, bool) {
	if !d.next('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		}
		d.i++
	}
	return "", false
}

// uint reads a plain non-negative integer below limit (no sign, leading
// zero, fraction or exponent).
func (d *fastJSON) uint(limit uint64) (uint64, bool) {
	d.space()
	start, n := d.i, uint64(0)
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		n = n*10 + uint64(d.b[d.i]-'0')
		d.i++
		if d.i-start > 18 || n >= limit {
			return 0, false
		}
	}
	if d.i == start || d.b[start] == '0' && d.i-start > 1 {
		return 0, false
	}
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	return n, true
}

func (d *fastJSON) position() (p protocol.Position, ok bool) {
	var line, char bool
	ok = d.object(func(key string) bool {
		var v uint64
		var ok bool
		switch {
		case key == "line" && !line:
			v, ok = d.uint(1 << 32)
			p.Line, line = uint32(v), true
		case key == "character" && !char:
			v, ok = d.uint(1 << 32)
			p.Character, char = uint32(v), true
		}
		return ok
	})
	return p, ok && line && char
}

func (d *fastJSON) textEdit() (e wireTextEdit, ok bool) {
	ok = d.object(func(key string) bool {
		switch {
		case key == "newText" && e.NewText == nil:
			s, ok := d.str()
			e.NewText = &s
			return ok
		case key == "range" && e.Range == nil:
			var r protocol.Range
			var start, end bool
			ok := d.object(func(key string) bool {
				var ok bool
				switch {
				case key == "start" && !start:
					r.Start, ok = d.position()
					start = true
				case key == "end" && !end:
					r.End, ok = d.position()
					end = true
				}
				return ok
			})
			e.Range = &r
			return ok && start && end
		}
		return false
	})
	return e, ok && e.NewText != nil && e.Range != nil
}

func (d *fastJSON) textDocumentEdit() (dc wireDocumentChange, ok bool) {
	ok = d.object(func(key string) bool {
		switch {
		case key == "textDocument" && dc.TextDocument == nil:
			td := &wireVersionedDoc{}
			dc.TextDocument = td
			var uri, version bool
			return d.object(func(key string) bool {
				switch {
				case key == "uri" && !uri:
					s, ok := d.str()
					td.URI, uri = protocol.DocumentURI(s), true
					return ok
				case key == "version" && !version:
					v, ok := d.uint(1 << 62)
					n := int64(v)
					td.Version, version = &n, true
					return ok
				}
				return false
			}) && uri && version
		case key == "edits" && dc.Edits == nil:
			dc.Edits = []wireTextEdit{}
			return d.array(func() bool {
				e, ok := d.textEdit()
				dc.Edits = append(dc.Edits, e)
				return ok
			})
		}
		return false
	})
	return dc, ok && dc.TextDocument != nil && dc.Edits != nil
}
