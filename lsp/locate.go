package lsp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

// Target is where a tool points in a document: a 1-based line and either a
// 0-based column in characters or the name of a symbol on that line (agents
// rarely know columns).
type Target struct {
	Line   int
	Column *int
	Symbol string
}

// Point is a resolved position: 0-based line, byte and character columns,
// and the line's text (needed to convert to any LSP encoding).
type Point struct {
	Line int
	Byte int
	Char int
	Text string
}

// In returns the point as an LSP position in enc.
func (p Point) In(enc preview.Encoding) protocol.Position {
	return protocol.Position{Line: uint32(p.Line), Character: uint32(preview.ByteToUnits(p.Text, p.Byte, enc))}
}

// Locate validates a target against the document's current text.
func (c *Client) Locate(ctx context.Context, doc *Document, t Target) (Point, error) {
	if err := checkLine(doc, t); err != nil {
		return Point{}, err
	}
	lines, err := c.Session.Lines(ctx, doc.Buffer.Bufnr, t.Line-1, t.Line)
	if err != nil {
		return Point{}, err
	}
	if len(lines) != 1 {
		return Point{}, apierr.Errorf(apierr.Conflict, "retry", "line %d of %s changed while reading it", t.Line, doc.Rel)
	}
	return locateOn(doc, t, lines[0])
}

func checkLine(doc *Document, t Target) error {
	if t.Line < 1 || t.Line > doc.Buffer.LineCount {
		return apierr.Errorf(apierr.InvalidParameter,
			"lines are 1-based; read_file shows the numbered lines",
			"line %d is outside %s (1-%d)", t.Line, doc.Rel, doc.Buffer.LineCount)
	}
	return nil
}

// locateOn finds target t on text, the text of its line.
func locateOn(doc *Document, t Target, text string) (Point, error) {
	switch {
	case t.Symbol != "":
		cols := symbolColumns(text, t.Symbol)
		if len(cols) == 0 {
			return Point{}, apierr.Errorf(apierr.ResourceNotFound,
				"check the line number (read_file shows the numbered lines) or pass column instead",
				"%q does not occur as a whole word on line %d of %s: %q", t.Symbol, t.Line, doc.Rel, text)
		}
		if len(cols) > 1 && t.Column == nil {
			chars := make([]int, len(cols))
			for i, b := range cols {
				chars[i] = preview.ByteToChar(text, b)
			}
			return Point{}, apierr.Errorf(apierr.Ambiguous,
				"pass column as well to pick one occurrence",
				"%q occurs %d times on line %d of %s (columns %v)", t.Symbol, len(cols), t.Line, doc.Rel, chars).
				WithDetails(map[string]any{"columns": chars})
		}
		b := cols[0]
		if t.Column != nil {
			want, err := preview.CharToByte(text, *t.Column)
			if err != nil {
				return Point{}, badColumn(doc, t, err)
			}
			b = -1
			for _, c := range cols {
				if c <= want && want <= c+len(t.Symbol) {
					b = c
				}
			}
			if b < 0 {
				return Point{}, apierr.Errorf(apierr.InvalidParameter, "pass either a column or a symbol that agree",
					"%q does not occur at column %d of line %d", t.Symbol, *t.Column, t.Line)
			}
		}
		return Point{Line: t.Line - 1, Byte: b, Char: preview.ByteToChar(text, b), Text: text}, nil
	case t.Column != nil:
		b, err := preview.CharToByte(text, *t.Column)
		if err != nil {
			return Point{}, badColumn(doc, t, err)
		}
		return Point{Line: t.Line - 1, Byte: b, Char: *t.Column, Text: text}, nil
	}
	return Point{}, apierr.New(apierr.InvalidParameter, "neither column nor symbol was given",
		"pass symbol (the name on that line) or column (0-based, in characters)")
}

func badColumn(doc *Document, t Target, err error) error {
	return apierr.Errorf(apierr.InvalidParameter, "columns are 0-based and counted in characters",
		"line %d of %s: %v", t.Line, doc.Rel, err)
}

// symbolColumns returns the byte offsets where name occurs in line as a whole
// word (not inside a longer identifier).
func symbolColumns(line, name string) []int {
	var out []int
	for start := 0; start <= len(line)-len(name); {
		i := strings.Index(line[start:], name)
		if i < 0 {
			break
		}
		at := start + i
		before, _ := utf8.DecodeLastRuneInString(line[:at])
		after, _ := utf8.DecodeRuneInString(line[at+len(name):])
		if (at == 0 || !isIdent(before)) && (at+len(name) == len(line) || !isIdent(after)) {
			out = append(out, at)
		}
		start = at + max(1, len(name))
	}
	return out
}

func isIdent(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// Location is a range in a file as tools report it: 1-based lines, 0-based
// character columns, the source line as context. A location a server gave
// with a non-file URI (untitled:, jdt://, deno:) has URI set and no File;
// its columns are then the server's own units (there is no text to convert
// them with).
type Location struct {
	File             string `json:"file,omitempty"`
	URI              string `json:"uri,omitempty"`
	Line             int    `json:"line"`
	Column           int    `json:"column"`
	EndLine          int    `json:"end_line" brief:"omit"`
	EndColumn        int    `json:"end_column" brief:"omit"`
	Context          string `json:"context,omitempty" brief:"omit"`
	OutsideWorkspace bool   `json:"outside_workspace,omitempty"`
	// Sensitive: the file is one the workspace policy protects (.env,
	// keys, .git/...): its text is not shown and nvbridge will not open it.
	Sensitive bool `json:"sensitive,omitempty"`
}

// SensitiveNote stands for the source line of a location in a sensitive file.
const SensitiveNote = "[sensitive file: content not shown; see --allow-sensitive]"

// ToolLocations converts server locations (in enc) to tool locations,
// reading each line's text to convert columns exactly.
func (c *Client) ToolLocations(ctx context.Context, enc preview.Encoding, locs []protocol.Location) ([]Location, error) {
	return c.toolLocationsWith(ctx, enc, locs, nil)
}

// toolLocationsWith is ToolLocations where known already holds the lines
// of the loaded buffers (linesWith; nil: Lines reads them).
func (c *Client) toolLocationsWith(ctx context.Context, enc preview.Encoding, locs []protocol.Location, known map[string]map[int]string) ([]Location, error) {
	wanted := map[string][]int{}
	addLocationLines(wanted, locs)
	texts, err := c.linesWith(ctx, known, wanted)
	if err != nil {
		return nil, err
	}
	return c.toolLocationsFrom(texts, enc, locs), nil
}

// toolLocationsKnown is ToolLocations for locations about pos, using the
// line pos was located on as already read: a range on that line (a hover's,
// the symbol's own) costs no other round trip to Neovim.
func (c *Client) toolLocationsKnown(ctx context.Context, pos position, locs []protocol.Location) ([]Location, error) {
	for _, l := range locs {
		if PathOf(l.URI) != pos.doc.Path || int(l.Range.Start.Line) != pos.point.Line || int(l.Range.End.Line) != pos.point.Line {
			return c.ToolLocations(ctx, pos.server.OffsetEncoding, locs)
		}
	}
	texts := map[string]map[int]string{pos.doc.Path: {pos.point.Line: pos.point.Text}}
	return c.toolLocationsFrom(texts, pos.server.OffsetEncoding, locs), nil
}

// addLocationLines adds to wanted the lines converting locs needs (each
// range's first and last line).
func addLocationLines(wanted map[string][]int, locs []protocol.Location) {
	for _, l := range locs {
		p := PathOf(l.URI)
		wanted[p] = append(wanted[p], int(l.Range.Start.Line), int(l.Range.End.Line))
	}
}

// toolLocationsFrom converts locs with the line texts already read.
func (c *Client) toolLocationsFrom(texts map[string]map[int]string, enc preview.Encoding, locs []protocol.Location) []Location {
	root := c.Session.Root()
	out := make([]Location, 0, len(locs))
	for _, l := range locs {
		p := PathOf(l.URI)
		if p == "" {
			out = append(out, Location{
				URI:              string(l.URI),
				Line:             int(l.Range.Start.Line) + 1,
				Column:           int(l.Range.Start.Character),
				EndLine:          int(l.Range.End.Line) + 1,
				EndColumn:        int(l.Range.End.Character),
				OutsideWorkspace: true,
			})
			continue
		}
		start := texts[p][int(l.Range.Start.Line)]
		end := texts[p][int(l.Range.End.Line)]
		loc := Location{
			File:             root.Rel(p),
			Line:             int(l.Range.Start.Line) + 1,
			Column:           preview.UnitsToChar(start, int(l.Range.Start.Character), enc),
			EndLine:          int(l.Range.End.Line) + 1,
			EndColumn:        preview.UnitsToChar(end, int(l.Range.End.Character), enc),
			Context:          strings.TrimSpace(start),
			OutsideWorkspace: !root.Contains(p),
		}
		if root.Sensitive(p) {
			loc.Sensitive, loc.Context = true, SensitiveNote
			loc.Column, loc.EndColumn = int(l.Range.Start.Character), int(l.Range.End.Character)
		}
		out = append(out, loc)
	}
	return out
}

// ToolRange converts one range inside doc's buffer.
func (c *Client) ToolRange(ctx context.Context, enc preview.Encoding, u protocol.DocumentURI, r protocol.Range) (Location, error) {
	locs, err := c.ToolLocations(ctx, enc, []protocol.Location{{URI: u, Range: r}})
	if err != nil {
		return Location{}, err
	}
	return locs[0], nil
}

// ToolRangeAt is ToolRange for a range of doc about pt (located in doc,
// its line read then): a range on pt's line costs no other round trip to
// Neovim.
func (c *Client) ToolRangeAt(ctx context.Context, enc preview.Encoding, doc *Document, pt Point, r protocol.Range) (Location, error) {
	locs, err := c.toolLocationsKnown(ctx, position{doc: doc, server: Server{OffsetEncoding: enc}, point: pt}, []protocol.Location{{URI: doc.URI, Range: r}})
	if err != nil {
		return Location{}, err
	}
	return locs[0], nil
}

// SortLocations orders by file, then position, and drops exact duplicates.
func SortLocations(locs []Location) []Location {
	slices.SortStableFunc(locs, func(a, b Location) int {
		return cmp.Or(strings.Compare(a.File, b.File), strings.Compare(a.URI, b.URI), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	out := locs[:0]
	for i, l := range locs {
		if i > 0 && l == locs[i-1] {
			continue
		}
		out = append(out, l)
	}
	return out
}

// DecodeLocations decodes the union answer of definition-like requests:
// null, Location, Location[] or LocationLink[] (go.lsp.dev/protocol decodes
// only Location[]).
func DecodeLocations(raw json.RawMessage) ([]protocol.Location, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || bytes.Equal(raw, []byte("{}")) {
		return nil, nil
	}
	if locs, ok := scanLocations(raw); ok {
		return locs, nil
	}
	return decodeLocationsStd(raw)
}

// decodeLocationsStd is DecodeLocations by encoding/json, for a non-empty
// answer.
func decodeLocationsStd(raw []byte) ([]protocol.Location, error) {
	type either struct {
		URI                  protocol.DocumentURI `json:"uri"`
		Range                *protocol.Range      `json:"range"`
		TargetURI            protocol.DocumentURI `json:"targetUri"`
		TargetSelectionRange *protocol.Range      `json:"targetSelectionRange"`
		TargetRange          *protocol.Range      `json:"targetRange"`
	}
	var items []either
	if raw[0] == '{' {
		var one either
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		items = []either{one}
	} else if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("decode locations: %w", err)
	}
	out := make([]protocol.Location, 0, len(items))
	for _, it := range items {
		switch {
		case it.Range != nil:
			out = append(out, protocol.Location{URI: it.URI, Range: *it.Range})
		case it.TargetSelectionRange != nil:
			out = append(out, protocol.Location{URI: it.TargetURI, Range: *it.TargetSelectionRange})
		case it.TargetRange != nil:
			out = append(out, protocol.Location{URI: it.TargetURI, Range: *it.TargetRange})
		}
	}
	return out, nil
}

func lineRangeError(doc *Document, start, end int) error {
	return apierr.Errorf(apierr.InvalidParameter, "lines are 1-based and inclusive; get_buffer_info gives line_count",
		"lines %d-%d are outside %s (1-%d)", start, end, doc.Rel, doc.Buffer.LineCount)
}

// position is a document, the server that will answer about it and the
// point a tool named in it.
type position struct {
	doc    *Document
	server Server
	point  Point
	// unanalysed says why the answer may be partial: the wait for the
	// server's first analysis of the file was cut short ("" when not).
	unanalysed string
}

// params returns the LSP position parameters for p in its server's encoding.
func (p position) params() protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: p.doc.URI},
		Position:     p.point.In(p.server.OffsetEncoding),
	}
}

// symbol is the identifier at the point ("" when the point is not on one).
func (p position) symbol() string { return IdentifierAt(p.point.Text, p.point.Byte) }

// where renders the point for messages: file:line:column (1-based line,
// 0-based column, as tools speak).
func (p position) where() string {
	return p.doc.Rel + ":" + strconv.Itoa(p.point.Line+1) + ":" + strconv.Itoa(p.point.Char)
}

// resolve opens file, picks the server for method (the capability is
// checked before anything is sent) and locates the target. unsupportedHint
// is the remediation given when no attached server offers method.
func (c *Client) resolve(ctx context.Context, file string, t Target, method, unsupportedHint string) (position, error) {
	return c.resolveAlso(ctx, file, t, method, unsupportedHint, nil)
}

// resolveAlso is resolve with the servers' support of the also methods
// known too (asked at the same position after method).
func (c *Client) resolveAlso(ctx context.Context, file string, t Target, method, unsupportedHint string, also []string) (position, error) {
	// The open, the wait for the servers and the target's line: one round
	// trip to Neovim.
	doc, line, err := c.openAt(ctx, file, max(t.Line-1, -1), slices.Concat(positionMethods(method), also))
	if err != nil {
		return position{}, err
	}
	return c.positionIn(ctx, doc, line, t, method, unsupportedHint)
}

// positionIn is resolve once doc is open and line is the text of t's line
// (nil: the buffer has no such line).
func (c *Client) positionIn(ctx context.Context, doc *Document, line *string, t Target, method, unsupportedHint string) (position, error) {
	server, err := serverFor(doc, method, unsupportedHint)
	if err != nil {
		return position{}, err
	}
	if err := checkLine(doc, t); err != nil {
		return position{}, err
	}
	if line == nil {
		return position{}, apierr.Errorf(apierr.Conflict, "retry", "line %d of %s changed while reading it", t.Line, doc.Rel)
	}
	pt, err := locateOn(doc, t, *line)
	if err != nil {
		return position{}, err
	}
	return c.positionOn(ctx, doc, server, pt)
}

// locateIn opens file and locates t in it, in one round trip to Neovim
// (resolve without choosing a server: a compound tool then asks several).
func (c *Client) locateIn(ctx context.Context, file string, t Target) (*Document, Point, error) {
	doc, line, err := c.openAt(ctx, file, max(t.Line-1, -1), navigationMethods)
	if err != nil {
		return nil, Point{}, err
	}
	if err := checkLine(doc, t); err != nil {
		return nil, Point{}, err
	}
	if line == nil {
		return nil, Point{}, apierr.Errorf(apierr.Conflict, "retry", "line %d of %s changed while reading it", t.Line, doc.Rel)
	}
	pt, err := locateOn(doc, t, *line)
	if err != nil {
		return nil, Point{}, err
	}
	return doc, pt, nil
}

// positionFor is the position of pt in doc for method: the server that
// offers it (checked before anything is sent), after its first analysis of
// the file.
func (c *Client) positionFor(ctx context.Context, doc *Document, pt Point, method, unsupportedHint string) (position, error) {
	server, err := serverFor(doc, method, unsupportedHint)
	if err != nil {
		return position{}, err
	}
	return c.positionOn(ctx, doc, server, pt)
}

func (c *Client) positionOn(ctx context.Context, doc *Document, server Server, pt Point) (position, error) {
	ready, err := c.awaitAnalysis(ctx, doc.Buffer.Bufnr, server)
	if err != nil {
		return position{}, err
	}
	pos := position{doc: doc, server: server, point: pt}
	if !ready {
		pos.unanalysed = fmt.Sprintf("%s had not finished analysing %s when asked (no diagnostics published within the wait): the answer may be partial; retry",
			server.Name, doc.Rel)
	}
	return pos, nil
}

// IdentifierAt returns the identifier touching byte offset b of line (b
// inside it, at its start or just past its end), "" when there is none.
func IdentifierAt(line string, b int) string {
	if b < 0 || b > len(line) {
		return ""
	}
	start := identStart(line, b)
	end := b
	for end < len(line) {
		r, size := utf8.DecodeRuneInString(line[end:])
		if !isIdent(r) {
			break
		}
		end += size
	}
	return line[start:end]
}

// identStart returns the byte where the identifier containing byte b
// starts (b itself when b is not in one).
func identStart(line string, b int) int {
	if b > len(line) {
		b = len(line)
	}
	for b > 0 {
		r, size := utf8.DecodeLastRuneInString(line[:b])
		if !isIdent(r) {
			break
		}
		b -= size
	}
	return b
}
