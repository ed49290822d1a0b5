package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
)

// HoverResult answers get_hover_info.
type HoverResult struct {
	Symbol string `json:"symbol,omitempty"`
	From   string `json:"from"`
	Server string `json:"server"`
	// Found is false when the server had nothing to say about the position.
	Found bool `json:"found"`
	// Kind is "markdown" or "plaintext".
	Kind     string `json:"kind,omitempty"`
	Contents string `json:"contents"`
	// Range is what the hover describes (usually the identifier), when the
	// server gives it.
	Range *Location `json:"range,omitempty"`
	// Withholding: Kind and Contents are left out when the symbol is
	// declared in a sensitive file (Found stays true: the server answered).
	Withholding
}

// Hover returns the server's hover text for t in file (textDocument/hover),
// unless the symbol is declared in a sensitive file: where it is declared
// (textDocument/definition) is asked together with the hover.
func (c *Client) Hover(ctx context.Context, file string, t Target) (HoverResult, error) {
	// Where the symbol is declared is asked with the hover, of the same
	// server when it can say (checkDeclaration's choice).
	a, err := c.read(ctx, file, t, readRequest{method: protocol.MethodTextDocumentHover,
		also: []string{protocol.MethodTextDocumentDefinition},
		params: func(at protocol.TextDocumentPositionParams) any {
			return protocol.HoverParams{TextDocumentPositionParams: at}
		}})
	if err != nil {
		return HoverResult{}, err
	}
	pos := a.pos
	raw, err := DecodeHover(a.raw)
	if err != nil {
		return HoverResult{}, undecodable(pos.server, protocol.MethodTextDocumentHover, err)
	}
	h, err := c.hoverFrom(ctx, pos, raw)
	if err != nil || !h.Found {
		return h, err
	}
	var w Withholding
	if a.also == nil {
		w = c.checkDeclaration(ctx, pos)
	} else {
		at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: pos.doc.URI},
			Position: pos.point.In(pos.server.OffsetEncoding)}
		var locs []protocol.Location
		err := a.also[0].err
		if err == nil {
			if locs, err = DecodeLocations(a.also[0].raw); err != nil {
				err = undecodable(pos.server, protocol.MethodTextDocumentDefinition, err)
			}
		}
		w = c.disclose(ctx, pos.doc, pos.server, at, pos.symbol(), locs, err)
	}
	if e := apierr.FromContext(ctx, "the request", "retry with a larger timeout; the language server may still be loading the workspace"); e != nil {
		return HoverResult{}, e
	}
	return h.withhold(w), nil
}

// withhold leaves the text out as w says.
func (h HoverResult) withhold(w Withholding) HoverResult {
	h.Withholding = w
	if w.withholds() {
		h.Kind, h.Contents = "", ""
	}
	return h
}

// hoverAt asks for the hover at pos (the server's text as it is: Hover
// and understand_symbol check where the symbol is declared).
func (c *Client) hoverAt(ctx context.Context, pos position) (HoverResult, error) {
	params := protocol.HoverParams{TextDocumentPositionParams: pos.params()}
	h, err := requestAs(ctx, c, pos.doc, pos.server, protocol.MethodTextDocumentHover, params, DecodeHover)
	if err != nil {
		return HoverResult{}, err
	}
	return c.hoverFrom(ctx, pos, h)
}

// hoverFrom shapes the hover answer h at pos.
func (c *Client) hoverFrom(ctx context.Context, pos position, h Hover) (HoverResult, error) {
	out := HoverResult{Symbol: pos.symbol(), From: pos.where(), Server: pos.server.Name,
		Found: strings.TrimSpace(h.Value) != "", Kind: h.Kind, Contents: h.Value}
	if !out.Found {
		out.Kind = ""
		out.Contents = ""
	}
	if h.Range != nil && out.Found {
		loc, err := c.toolLocationsKnown(ctx, pos, []protocol.Location{{URI: pos.doc.URI, Range: *h.Range}})
		if err != nil {
			return HoverResult{}, err
		}
		out.Range = &loc[0]
	}
	return out, nil
}

// Hover is a decoded hover answer.
type Hover struct {
	Kind  string // "markdown" or "plaintext"
	Value string
	Range *protocol.Range
}

// DecodeHover decodes a textDocument/hover answer: null, or {contents,
// range?} where contents is a MarkupContent, a MarkedString (a markdown
// string or {language, value}) or a MarkedString[]. MarkedStrings become
// markdown, code blocks fenced with their language.
func DecodeHover(raw json.RawMessage) (Hover, error) {
	if h, ok := scanHover(raw); ok {
		return h, nil
	}
	return decodeHoverStd(raw)
}

// scanHover is DecodeHover in one pass for the answer servers send, a
// MarkupContent and a range (encoding/json read the contents twice, and
// with them the whole documentation of the symbol); false for anything
// else, which decodeHoverStd decides (other shapes, names in another case,
// a member given twice).
func scanHover(raw []byte) (Hover, bool) {
	s := &jsonScan{b: raw}
	var h Hover
	var kind, value string
	var contents, hasKind, hasValue, hasRange bool
	ok := s.object(func(key string) bool {
		switch key {
		case "contents":
			if contents {
				return false
			}
			contents = true
			return s.object(func(key string) bool {
				var ok bool
				switch key {
				case "kind":
					if hasKind {
						return false
					}
					hasKind = true
					kind, ok = s.text()
				case "value":
					if hasValue {
						return false
					}
					hasValue = true
					value, ok = s.text()
				default:
					ok = !strings.EqualFold(key, "language") && !knownElsewhere(key, "kind", "value") && s.skip()
				}
				return ok
			})
		case "range":
			if hasRange {
				return false
			}
			hasRange = true
			if s.literal("null") {
				return true
			}
			h.Range = &protocol.Range{}
			return s.rangeOf(h.Range)
		}
		return !knownElsewhere(key, "contents", "range") && s.skip()
	})
	if !ok || !hasKind {
		return Hover{}, false
	}
	s.space()
	if !s.eof() {
		return Hover{}, false
	}
	h.Kind, h.Value = kind, strings.TrimSpace(value)
	if h.Kind != "plaintext" {
		h.Kind = "markdown"
	}
	return h, true
}

// decodeHoverStd is DecodeHover by encoding/json.
func decodeHoverStd(raw json.RawMessage) (Hover, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return Hover{}, nil
	}
	var wire struct {
		Contents json.RawMessage `json:"contents"`
		Range    *protocol.Range `json:"range"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		return Hover{}, fmt.Errorf("decode hover: %w", err)
	}
	h := Hover{Range: wire.Range}
	contents := bytes.TrimSpace(wire.Contents)
	switch {
	case len(contents) == 0 || bytes.Equal(contents, []byte("null")):
		return h, nil
	case contents[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(contents, &items); err != nil {
			return Hover{}, fmt.Errorf("decode hover contents: %w", err)
		}
		parts := make([]string, 0, len(items))
		for _, it := range items {
			s, err := markedString(it)
			if err != nil {
				return Hover{}, err
			}
			if strings.TrimSpace(s) != "" {
				parts = append(parts, s)
			}
		}
		h.Kind, h.Value = "markdown", strings.Join(parts, "\n\n")
	case contents[0] == '{':
		var mc struct {
			Kind     *string `json:"kind"`
			Value    string  `json:"value"`
			Language *string `json:"language"`
		}
		if err := json.Unmarshal(contents, &mc); err != nil {
			return Hover{}, fmt.Errorf("decode hover contents: %w", err)
		}
		if mc.Kind != nil { // MarkupContent
			h.Kind, h.Value = *mc.Kind, mc.Value
			if h.Kind != "plaintext" {
				h.Kind = "markdown"
			}
			break
		}
		s, err := markedString(contents)
		if err != nil {
			return Hover{}, err
		}
		h.Kind, h.Value = "markdown", s
	default:
		s, err := markedString(contents)
		if err != nil {
			return Hover{}, err
		}
		h.Kind, h.Value = "markdown", s
	}
	h.Value = strings.TrimSpace(h.Value)
	return h, nil
}

// markedString renders a MarkedString: a markdown string, or a
// {language, value} code block.
func markedString(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("decode marked string: %w", err)
		}
		return s, nil
	}
	var code struct {
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if err := json.Unmarshal(raw, &code); err != nil {
		return "", fmt.Errorf("decode marked string: %w", err)
	}
	return "```" + code.Language + "\n" + strings.TrimRight(code.Value, "\n") + "\n```", nil
}
