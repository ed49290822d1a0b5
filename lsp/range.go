package lsp

// Ranges in tool positions (RangeSpec) located in a document.

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

// RangeSpec is a range as tools give it: a start target and an optional end
// (1-based line, 0-based character column, exclusive). A missing start
// column means the line's first non-blank character; a missing end column
// the end of the end line (trailing blanks excluded); EndLine 0 means the
// range is the start position alone.
type RangeSpec struct {
	Start     Target
	EndLine   int
	EndColumn *int
}

// LocateSpan validates a range against the document's current text.
func (c *Client) LocateSpan(ctx context.Context, doc *Document, r RangeSpec) (Span, error) {
	start, err := c.locateLoose(ctx, doc, r.Start, false)
	if err != nil {
		return Span{}, err
	}
	if r.EndLine == 0 && r.EndColumn == nil {
		return Span{Start: start, End: start}, nil
	}
	endLine := r.EndLine
	if endLine == 0 {
		endLine = r.Start.Line
	}
	end, err := c.locateLoose(ctx, doc, Target{Line: endLine, Column: r.EndColumn}, true)
	if err != nil {
		return Span{}, err
	}
	if end.Line < start.Line || (end.Line == start.Line && end.Byte < start.Byte) {
		return Span{}, apierr.Errorf(apierr.InvalidParameter, "the end must not come before the start",
			"the range %d:%d-%d:%d of %s ends before it starts", start.Line+1, start.Char, end.Line+1, end.Char, doc.Rel)
	}
	return Span{Start: start, End: end}, nil
}

// locateLoose is Locate where a target with neither column nor symbol
// means the line's first non-blank character (atEnd: the end of its last
// non-blank character).
func (c *Client) locateLoose(ctx context.Context, doc *Document, t Target, atEnd bool) (Point, error) {
	if t.Column != nil || t.Symbol != "" {
		return c.Locate(ctx, doc, t)
	}
	zero := 0
	pt, err := c.Locate(ctx, doc, Target{Line: t.Line, Column: &zero})
	if err != nil {
		return Point{}, err
	}
	if atEnd {
		pt.Byte = len(strings.TrimRightFunc(pt.Text, unicode.IsSpace))
	} else {
		pt.Byte = len(pt.Text) - len(strings.TrimLeftFunc(pt.Text, unicode.IsSpace))
	}
	pt.Char = preview.ByteToChar(pt.Text, pt.Byte)
	return pt, nil
}

func (s Span) Where(doc *Document) string {
	if s.Start == s.End {
		return fmt.Sprintf("%s:%d:%d", doc.Rel, s.Start.Line+1, s.Start.Char)
	}
	return fmt.Sprintf("%s:%d:%d-%d:%d", doc.Rel, s.Start.Line+1, s.Start.Char, s.End.Line+1, s.End.Char)
}

// Location returns the span as a tool location in doc.
func (s Span) Location(doc *Document) Location {
	return Location{File: doc.Rel, Line: s.Start.Line + 1, Column: s.Start.Char, EndLine: s.End.Line + 1,
		EndColumn: s.End.Char, Context: strings.TrimSpace(s.Start.Text)}
}
