package edit

import (
	"strings"

	"github.com/nvbridge/nvbridge/preview"
)

// A preview.Document's text is its lines joined by "\n" plus a final "\n"
// when FinalNewline is set; the position (len(Lines), 0) lies after that
// final newline. A Neovim buffer holds the same text differently: its lines,
// and the 'eol' option for the final newline, so that position does not
// exist in it. bufferPlan translates a document's edits into what
// nvim_buf_set_text can do, plus the 'eol' value that completes the text.

// bufOp is one nvim_buf_set_text call: rows and byte columns of the buffer,
// end exclusive; Text is split on "\n" into the replacement lines. It is
// sent to Lua as an array [sr, sc, er, ec, text].
type bufOp struct {
	SR   int `msgpack:",array"`
	SC   int
	ER   int
	EC   int
	Text string
}

// bufferPlan is how one buffer gets from a document to the edited document.
type bufferPlan struct {
	Ops []bufOp // descending: apply in this order
	// Clear: the document becomes empty; remove every line (what an empty
	// file looks like in Neovim) instead of any ops.
	Clear bool
	// TrimTail: after the ops, the last line is empty and stands for a
	// final newline; remove it and set 'eol' (the canonical form).
	TrimTail bool
	// EOL is the new 'eol' value, nil when it does not change.
	EOL *bool
	// LineCount is the buffer's line count afterwards (a check).
	LineCount int
}

// planBuffer converts sorted, validated edits of doc (as preview.Minimize
// returns them) into buffer operations producing after (preview.Apply's
// result for the same edits).
func planBuffer(doc preview.Document, edits []preview.TextEdit, after preview.Document) bufferPlan {
	n := len(doc.Lines)
	p := bufferPlan{LineCount: max(len(after.Lines), 1)}
	setEOL := func(v bool) {
		if n == 0 || v != doc.FinalNewline {
			p.EOL = &v
		}
	}
	switch {
	case len(after.Lines) == 0:
		// No ops, as an empty list (a nil one reaches Lua as vim.NIL, and
		// the apply failed). A cleared buffer still holds one empty line:
		// with 'eol' it would be written "\n", so 'eol' goes off and it is
		// written empty, the text the preview showed.
		p.Clear, p.Ops = n > 0, []bufOp{}
		if p.Clear {
			setEOL(false)
		}
		return p
	case n == 0:
		// An empty buffer holds one empty line: insert the whole text there.
		p.Ops = []bufOp{{Text: strings.Join(after.Lines, "\n")}}
		setEOL(after.FinalNewline)
		return p
	}
	lastLen := len(doc.Lines[n-1])
	// Without a final newline, (n, 0) is the end of the last line.
	norm := func(line, col int) (int, int) {
		if line == n {
			return n - 1, lastLen
		}
		return line, col
	}

	// With a final newline, edits reaching (n, 0) (and the edits adjacent
	// to them) form one tail edit that ends after the final newline.
	tail := len(edits)
	if doc.FinalNewline {
		for tail > 0 && edits[tail-1].EndLine == n {
			tail--
		}
		for tail < len(edits) && tail > 0 &&
			edits[tail-1].EndLine == edits[tail].StartLine && edits[tail-1].EndCol == edits[tail].StartCol {
			tail--
		}
	}
	ops := make([]bufOp, 0, len(edits))
	for _, e := range edits[:tail] {
		sr, sc := norm(e.StartLine, e.StartCol)
		er, ec := norm(e.EndLine, e.EndCol)
		if sr == er && sc == ec && e.NewText == "" {
			continue
		}
		text := e.NewText
		if ec == 0 && er > sr && strings.HasSuffix(text, "\n") {
			// A whole-line edit (a line edit's: (l, 0)-(l+1, 0), its new
			// line with its line break): the break it replaces is the one
			// it ends with, so both can stay. The op then ends at the end
			// of row l: Neovim replaces text within one row (no line taken
			// out and another put in), and apply.lua checks one row, keeps
			// it for the op's inverse and splits no text (x2 faster for
			// 1,000 line edits in a 100,000-line buffer).
			er, ec, text = er-1, len(doc.Lines[er-1]), text[:len(text)-1]
		}
		ops = append(ops, bufOp{SR: sr, SC: sc, ER: er, EC: ec, Text: text})
	}
	ops = mergeRuns(doc, ops)
	if tail < len(edits) {
		var x strings.Builder
		for _, e := range edits[tail:] {
			x.WriteString(e.NewText)
		}
		ops = append(ops, tailOp(doc, edits[tail].StartLine, edits[tail].StartCol, x.String(), setEOL)...)
	}
	if !doc.FinalNewline && after.FinalNewline {
		// The text now ends in "\n", which the buffer holds as an empty last
		// line; Lua removes it and sets 'eol'.
		p.TrimTail = true
		setEOL(true)
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	p.Ops = ops
	return p
}

// maxOpsPerRow bounds how many ops touch one buffer row. Each op costs
// Neovim the length of the rows it touches (nvim_buf_set_text copies them,
// apply.lua reads them to check the op), so n edits on one long line would
// cost O(n * line length): 40,000 replacements on a 1 MB line never ended.
// A run of at least this many ops chained by shared rows becomes one op
// carrying the unchanged text between them; below it, every edit stays its
// own op, so marks and extmarks between edits stay where they are.
const maxOpsPerRow = 16

// mergeRuns merges runs of ascending ops in which each op starts on the
// row where the previous one ends (see maxOpsPerRow).
func mergeRuns(doc preview.Document, ops []bufOp) []bufOp {
	out := ops[:0]
	for i := 0; i < len(ops); {
		j := i + 1
		for j < len(ops) && ops[j].SR == ops[j-1].ER {
			j++
		}
		if j-i < maxOpsPerRow {
			out = append(out, ops[i:j]...)
			i = j
			continue
		}
		var text strings.Builder
		for k := i; k < j; k++ {
			if k > i {
				text.WriteString(doc.Lines[ops[k].SR][ops[k-1].EC:ops[k].SC])
			}
			text.WriteString(ops[k].Text)
		}
		out = append(out, bufOp{SR: ops[i].SR, SC: ops[i].SC, ER: ops[j-1].ER, EC: ops[j-1].EC, Text: text.String()})
		i = j
	}
	return out
}

// tailOp converts the edit replacing everything from (sl, sc) to the end of
// doc (after its final newline) with x. In text terms the document is B+"\n"
// where B is the buffer's text, and the result T' = prefix + x must become
// B' (+ "\n" when 'eol' is set).
func tailOp(doc preview.Document, sl, sc int, x string, setEOL func(bool)) []bufOp {
	n := len(doc.Lines)
	endR, endC := n-1, len(doc.Lines[n-1])
	if sl == n {
		// A pure insertion after the final newline: keep that newline as a
		// line break in the buffer.
		if x == "" {
			return nil
		}
		if strings.HasSuffix(x, "\n") {
			x = x[:len(x)-1]
		} else {
			setEOL(false)
		}
		return []bufOp{{SR: endR, SC: endC, ER: endR, EC: endC, Text: "\n" + x}}
	}
	switch {
	case strings.HasSuffix(x, "\n"):
		return []bufOp{{SR: sl, SC: sc, ER: endR, EC: endC, Text: x[:len(x)-1]}}
	case x != "":
		setEOL(false)
		return []bufOp{{SR: sl, SC: sc, ER: endR, EC: endC, Text: x}}
	case sc == 0 && sl > 0:
		// Whole lines deleted through the end: the line before stays
		// terminated.
		return []bufOp{{SR: sl - 1, SC: len(doc.Lines[sl-1]), ER: endR, EC: endC}}
	default:
		setEOL(false)
		if sl == endR && sc == endC {
			return nil // only the final newline goes
		}
		return []bufOp{{SR: sl, SC: sc, ER: endR, EC: endC}}
	}
}
