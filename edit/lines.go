package edit

import (
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
)

// LineEdit replaces whole lines: LineStart..LineEnd (1-based, inclusive)
// with NewText. LineEnd = LineStart-1 inserts before LineStart (LineStart
// may be one past the last line: append). NewText "" deletes the lines;
// otherwise it is the new lines' text, a single trailing "\n" being optional
// ("\n" alone is one empty line).
type LineEdit struct {
	LineStart, LineEnd int
	NewText            string
}

// lineTextEdits converts line edits, all numbered against doc as it is,
// into text edits. Overlaps are left to preview.Validate.
func lineTextEdits(doc preview.Document, rel string, edits []LineEdit) ([]preview.TextEdit, error) {
	n := len(doc.Lines)
	out := make([]preview.TextEdit, 0, len(edits))
	for i, e := range edits {
		bad := func(format string, args ...any) error {
			return apierr.Errorf(apierr.InvalidParameter,
				"lines are 1-based and inclusive, numbered as the file is now (read_file shows them); line_end = line_start-1 inserts",
				"edits[%d] (lines %d-%d of %s): %s", i, e.LineStart, e.LineEnd, rel, fmt.Sprintf(format, args...))
		}
		switch {
		case e.LineStart < 1:
			return nil, bad("line_start must be at least 1")
		case e.LineEnd < e.LineStart-1:
			return nil, bad("line_end is before line_start-1")
		case e.LineEnd > n:
			return nil, bad("the file has only %d lines", n)
		case e.LineStart > n+1:
			return nil, bad("the file has only %d lines (line_start may be at most %d, to append)", n, n+1)
		}
		text := strings.ReplaceAll(e.NewText, "\r\n", "\n")
		var lines []string
		if text != "" {
			lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		}
		out = append(out, lineRangeEdit(doc, e.LineStart-1, e.LineEnd, lines))
	}
	return out, nil
}

// lineRangeEdit replaces lines [from, to) (0-based) of doc with lines,
// keeping the document's final newline (or its absence) as it is.
func lineRangeEdit(doc preview.Document, from, to int, lines []string) preview.TextEdit {
	n := len(doc.Lines)
	joined := strings.Join(lines, "\n")
	if to < n || doc.FinalNewline || n == 0 {
		// Every replaced line is terminated (or the file is empty).
		text := ""
		if len(lines) > 0 {
			text = joined + "\n"
		}
		return preview.TextEdit{StartLine: from, EndLine: to, NewText: text}
	}
	// The range reaches the unterminated last line: the new last line stays
	// unterminated.
	last := len(doc.Lines[n-1])
	switch {
	case from == n: // append after the last line
		if len(lines) == 0 {
			return preview.TextEdit{StartLine: n - 1, StartCol: last, EndLine: n - 1, EndCol: last}
		}
		return preview.TextEdit{StartLine: n - 1, StartCol: last, EndLine: n - 1, EndCol: last, NewText: "\n" + joined}
	case len(lines) > 0:
		return preview.TextEdit{StartLine: from, EndLine: n - 1, EndCol: last, NewText: joined}
	case from > 0: // delete through the end: the line before becomes the last
		return preview.TextEdit{StartLine: from - 1, StartCol: len(doc.Lines[from-1]), EndLine: n - 1, EndCol: last}
	default: // delete everything
		return preview.TextEdit{EndLine: n - 1, EndCol: last}
	}
}
