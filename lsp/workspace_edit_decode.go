package lsp

// Decoding a WorkspaceEdit (a rename's answer, a code action's edit) in
// one pass. encoding/json validated the answer, then decoded it by
// reflection: some 40 us of CPU for a rename's nine edits, on the way
// from the server's answer to the preview. As for the call hierarchy and
// the locations (calls_decode.go, locations_decode.go), anything the
// scanner does not expect (a null where a value is wanted, a key given
// twice or spelled in another case, a snippet, an escape it does not
// decode, a number that is not an integer) hands the answer to
// encoding/json, so the result is always the one encoding/json gives.

import (
	"encoding/json"
	"strconv"

	"go.lsp.dev/protocol"
)

// WorkspaceEditWire is a WorkspaceEdit as servers send it, decoded as
// encoding/json decodes it into these types. documentChanges is decoded
// entry by entry: go.lsp.dev/protocol would turn file operations into
// empty TextDocumentEdits (API-NOTES §4).
type WorkspaceEditWire struct {
	Changes         map[protocol.DocumentURI][]TextEditWire `json:"changes"`
	DocumentChanges []DocumentChangeWire                    `json:"documentChanges"`
}

// TextEditWire is a TextEdit, an AnnotatedTextEdit (the annotation is not
// kept) or a SnippetTextEdit.
type TextEditWire struct {
	Range   *protocol.Range `json:"range"`
	NewText *string         `json:"newText"`
	Snippet json.RawMessage `json:"snippet"`
}

// DocumentChangeWire is an entry of documentChanges: a TextDocumentEdit
// (no kind) or a file operation (create, rename, delete).
type DocumentChangeWire struct {
	Kind         string               `json:"kind"`
	TextDocument *TextDocumentWire    `json:"textDocument"`
	Edits        []TextEditWire       `json:"edits"`
	URI          protocol.DocumentURI `json:"uri"`
	OldURI       protocol.DocumentURI `json:"oldUri"`
	NewURI       protocol.DocumentURI `json:"newUri"`
	Options      FileOptionsWire      `json:"options"`
}

// TextDocumentWire is an OptionalVersionedTextDocumentIdentifier.
type TextDocumentWire struct {
	URI     protocol.DocumentURI `json:"uri"`
	Version *int64               `json:"version"`
}

// FileOptionsWire are a file operation's options, of any kind.
type FileOptionsWire struct {
	Overwrite         bool `json:"overwrite"`
	IgnoreIfExists    bool `json:"ignoreIfExists"`
	Recursive         bool `json:"recursive"`
	IgnoreIfNotExists bool `json:"ignoreIfNotExists"`
}

// DecodeWorkspaceEdit decodes raw (not null) as json.Unmarshal decodes it
// into a WorkspaceEditWire, with its error.
func DecodeWorkspaceEdit(raw []byte) (WorkspaceEditWire, error) {
	if we, ok := scanWorkspaceEdit(raw); ok {
		return we, nil
	}
	var we WorkspaceEditWire
	err := json.Unmarshal(raw, &we)
	return we, err
}

// scanWorkspaceEdit is DecodeWorkspaceEdit in one pass; false hands raw
// to encoding/json.
func scanWorkspaceEdit(raw []byte) (WorkspaceEditWire, bool) {
	s := &jsonScan{b: raw}
	var we WorkspaceEditWire
	var seen once
	ok := s.object(func(key string) bool {
		switch key {
		case "changes":
			if !seen.first(0) {
				return false
			}
			if s.literal("null") {
				return true
			}
			we.Changes = map[protocol.DocumentURI][]TextEditWire{}
			return s.object(func(u string) bool {
				if _, dup := we.Changes[protocol.DocumentURI(u)]; dup {
					return false
				}
				edits, ok := s.textEdits()
				we.Changes[protocol.DocumentURI(u)] = edits
				return ok
			})
		case "documentChanges":
			if !seen.first(1) {
				return false
			}
			if s.literal("null") {
				return true
			}
			// An empty list is not nil, as encoding/json makes it.
			we.DocumentChanges = []DocumentChangeWire{}
			return s.array(func() bool {
				var dc DocumentChangeWire
				ok := s.documentChange(&dc)
				we.DocumentChanges = append(we.DocumentChanges, dc)
				return ok
			})
		}
		return !knownElsewhere(key, "changes", "documentChanges") && s.skip()
	})
	if !ok {
		return WorkspaceEditWire{}, false
	}
	s.space()
	return we, s.eof()
}

// once tells the first sight of each of an object's members (by number)
// from a second: a member given twice goes to encoding/json, which merges
// some and replaces others.
type once uint16

func (o *once) first(member int) bool {
	bit := once(1) << member
	if *o&bit != 0 {
		return false
	}
	*o |= bit
	return true
}

// textEdits reads a list of text edits (null: nil).
func (s *jsonScan) textEdits() ([]TextEditWire, bool) {
	if s.literal("null") {
		return nil, true
	}
	out := []TextEditWire{}
	var cells editCells
	ok := s.array(func() bool {
		var e TextEditWire
		ok := s.textEdit(&e, &cells)
		out = append(out, e)
		return ok
	})
	return out, ok
}

// editCells are where a list's edits keep their ranges and new texts (a
// TextEditWire points at them), taken a few at a time, and the last new
// text read: a rename's every edit has the same, made once. Three
// allocations an edit were two thirds of a rename's nine edits' (on the
// way from the server's answer to the preview).
type editCells struct {
	ranges []protocol.Range
	texts  []string
	last   []byte
	text   string
}

const cellsAtOnce = 8

func (c *editCells) rangeCell() *protocol.Range {
	if len(c.ranges) == cap(c.ranges) {
		c.ranges = make([]protocol.Range, 0, cellsAtOnce)
	}
	c.ranges = c.ranges[:len(c.ranges)+1]
	return &c.ranges[len(c.ranges)-1]
}

func (c *editCells) textCell(text string) *string {
	if len(c.texts) == cap(c.texts) {
		c.texts = make([]string, 0, cellsAtOnce)
	}
	c.texts = append(c.texts, text)
	return &c.texts[len(c.texts)-1]
}

// newText reads a string as str does, the last one read again when its
// bytes are the same (neither escaped).
func (s *jsonScan) newText(c *editCells) (string, bool) {
	s.space()
	if c.last != nil && s.i < len(s.b) && s.b[s.i] == '"' {
		if end := s.i + 1 + len(c.last); end < len(s.b) && s.b[end] == '"' && string(s.b[s.i+1:end]) == string(c.last) {
			s.i = end + 1
			return c.text, true
		}
	}
	start := s.i
	text, ok := s.str()
	if ok && s.i-start == len(text)+2 {
		// Not escaped: its bytes are its text's.
		c.last, c.text = s.b[start+1:s.i-1], text
	}
	return text, ok
}

// textEdit reads a TextEdit or an AnnotatedTextEdit (its range and new
// text kept in cells); a snippet goes to encoding/json.
func (s *jsonScan) textEdit(e *TextEditWire, cells *editCells) bool {
	var seen once
	return s.object(func(key string) bool {
		switch key {
		case "range":
			if !seen.first(0) {
				return false
			}
			if s.literal("null") {
				return true
			}
			e.Range = cells.rangeCell()
			return s.rangeOf(e.Range)
		case "newText":
			if !seen.first(1) {
				return false
			}
			if s.literal("null") {
				return true
			}
			text, ok := s.newText(cells)
			e.NewText = cells.textCell(text)
			return ok
		case "snippet":
			return false
		}
		return !knownElsewhere(key, "range", "newText", "snippet") && s.skip()
	})
}

// documentChange reads an entry of documentChanges.
func (s *jsonScan) documentChange(dc *DocumentChangeWire) bool {
	var seen once
	str := func(member int, v *protocol.DocumentURI) bool {
		if !seen.first(member) {
			return false
		}
		text, ok := s.str()
		*v = protocol.DocumentURI(text)
		return ok
	}
	return s.object(func(key string) bool {
		switch key {
		case "kind":
			if !seen.first(0) {
				return false
			}
			v, ok := s.str()
			dc.Kind = v
			return ok
		case "textDocument":
			if !seen.first(1) {
				return false
			}
			if s.literal("null") {
				return true
			}
			dc.TextDocument = &TextDocumentWire{}
			return s.textDocument(dc.TextDocument)
		case "edits":
			if !seen.first(2) {
				return false
			}
			v, ok := s.textEdits()
			dc.Edits = v
			return ok
		case "uri":
			return str(3, &dc.URI)
		case "oldUri":
			return str(4, &dc.OldURI)
		case "newUri":
			return str(5, &dc.NewURI)
		case "options":
			return seen.first(6) && s.fileOptions(&dc.Options)
		}
		return !knownElsewhere(key, "kind", "textDocument", "edits", "uri", "oldUri", "newUri", "options") && s.skip()
	})
}

// textDocument reads {"uri": uri, "version": integer | null}.
func (s *jsonScan) textDocument(td *TextDocumentWire) bool {
	var seen once
	return s.object(func(key string) bool {
		switch key {
		case "uri":
			if !seen.first(0) {
				return false
			}
			v, ok := s.str()
			td.URI = protocol.DocumentURI(v)
			return ok
		case "version":
			if !seen.first(1) {
				return false
			}
			if s.literal("null") {
				return true
			}
			v, ok := s.int64()
			td.Version = &v
			return ok
		}
		return !knownElsewhere(key, "uri", "version") && s.skip()
	})
}

// fileOptions reads a file operation's options (booleans).
func (s *jsonScan) fileOptions(o *FileOptionsWire) bool {
	var seen once
	return s.object(func(key string) bool {
		var v *bool
		member := 0
		switch key {
		case "overwrite":
			v, member = &o.Overwrite, 0
		case "ignoreIfExists":
			v, member = &o.IgnoreIfExists, 1
		case "recursive":
			v, member = &o.Recursive, 2
		case "ignoreIfNotExists":
			v, member = &o.IgnoreIfNotExists, 3
		default:
			return !knownElsewhere(key, "overwrite", "ignoreIfExists", "recursive", "ignoreIfNotExists") && s.skip()
		}
		if !seen.first(member) {
			return false
		}
		b, ok := s.boolean()
		*v = b
		return ok
	})
}

// int64 reads a number that is an integer fitting in 64 bits (a sign,
// but no fraction or exponent: encoding/json refuses those for an
// integer).
func (s *jsonScan) int64() (int64, bool) {
	s.space()
	start := s.i
	if !s.number() {
		return 0, false
	}
	v, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	return v, err == nil
}
