package preview

import (
	"fmt"
	"strings"
)

// PatchMismatchError says why a hunk does not fit the document.
type PatchMismatchError struct {
	Path     string // the patch's NewPath
	Hunk     int    // 1-based; 0 when the file as a whole does not fit
	Header   string // the hunk's @@ line
	Line     int    // 1-based document line of the first mismatch; 0 if none in particular
	Expected string // the patch's line, when Line > 0
	Actual   string // the document's line, when Line > 0
	Msg      string
}

func (e *PatchMismatchError) Error() string {
	s := fmt.Sprintf("patch for %s: ", e.Path)
	if e.Hunk > 0 {
		s += fmt.Sprintf("hunk %d (%s): ", e.Hunk, e.Header)
	}
	if e.Line > 0 {
		s += fmt.Sprintf("line %d: expected %q, found %q: ", e.Line, e.Expected, e.Actual)
	}
	return s + e.Msg
}

// EditsFor checks the patch's hunks against doc and returns line-granular
// edits that perform them, sorted. Context and removed lines must match
// exactly, including whether the last line ends with a newline; a hunk may be
// found at an offset from its stated line (nearest first, later hunks after
// earlier ones), as patch does, but there is no fuzz. Errors are
// *PatchMismatchError.
//
// A patch whose every line ends in "\r" (a diff of a CRLF file) applies to a
// CRLF document, whose Lines hold no "\r"; so does a patch without them.
func (p FilePatch) EditsFor(doc Document) ([]TextEdit, error) {
	t := newText(doc)
	realCount, lastNoEOL := t.realCount(), t.lastUnterminated()
	fail := func(hunk int, h Hunk, format string, args ...any) error {
		return &PatchMismatchError{Path: p.NewPath, Hunk: hunk, Header: h.header(), Msg: fmt.Sprintf(format, args...)}
	}
	if p.IsNew && realCount > 0 {
		return nil, &PatchMismatchError{Path: p.NewPath, Msg: "the patch creates the file but it exists and is not empty"}
	}
	stripCR := doc.eol() == "\r\n" && p.linesEndInCR()

	// matchAt returns the index in old of the first line that does not match
	// the document at line at, or -1.
	matchAt := func(at int, old []diffLine) int {
		for k, l := range old {
			i := at + k
			if i >= realCount || t.lines[i] != l.text || (lastNoEOL && i == realCount-1) != l.noEOL {
				return k
			}
		}
		return -1
	}

	edits := make([]TextEdit, 0, len(p.Hunks))
	next := 0 // hunks apply in order and do not overlap
	for i, h := range p.Hunks {
		n := i + 1
		old, newLines, err := h.sides(stripCR)
		if err != nil {
			return nil, fail(n, h, "%v", err)
		}
		if len(old) != h.OldCount || len(newLines) != h.NewCount {
			return nil, fail(n, h, "the hunk has %d old and %d new lines but its header counts %d and %d", len(old), len(newLines), h.OldCount, h.NewCount)
		}
		want := h.OldStart - 1 // 0-based first old line
		if len(old) == 0 {
			want = h.OldStart // an empty range starts after the stated line
		}
		lo, hi := next, realCount-len(old)
		at := -1
		if len(old) == 0 {
			switch {
			case want < lo || want > realCount:
				return nil, fail(n, h, "inserts after line %d, outside lines %d..%d", want, lo, realCount)
			case want == realCount && lastNoEOL:
				return nil, fail(n, h, "inserts after the last line, which has no newline; the hunk must replace that line")
			}
			at = want
		} else {
			for d := 0; want+d <= hi || want-d >= lo; d++ {
				if a := want + d; a >= lo && a <= hi && matchAt(a, old) < 0 {
					at = a
					break
				}
				if a := want - d; d > 0 && a >= lo && a <= hi && matchAt(a, old) < 0 {
					at = a
					break
				}
			}
		}
		if at < 0 {
			// Report the first difference where the hunk says it applies.
			at0 := max(lo, min(want, hi))
			k := matchAt(at0, old)
			e := &PatchMismatchError{Path: p.NewPath, Hunk: n, Header: h.header(), Line: at0 + k + 1, Expected: old[k].text}
			switch i := at0 + k; {
			case i >= realCount:
				e.Actual = "<end of file>"
				e.Msg = fmt.Sprintf("the file has only %d lines", realCount)
			case t.lines[i] != old[k].text:
				e.Actual = t.lines[i]
				e.Msg = "context or removed line differs"
			case old[k].noEOL:
				e.Actual = t.lines[i]
				e.Msg = `the patch says this is the last line, without a newline, but the file goes on`
			default:
				e.Actual = t.lines[i]
				e.Msg = "the file's last line has no newline at end but the patch has one"
			}
			if want < lo && hi >= 0 && want >= 0 && want <= hi && matchAt(want, old) < 0 {
				e.Msg += fmt.Sprintf("; it matches at line %d, which is before the end of the previous hunk: hunks must be in file order and not overlap", want+1)
			} else if hi >= lo {
				e.Msg += "; the hunk matches nowhere else in the file either"
			}
			return nil, e
		}
		end := at + len(old)
		if len(newLines) > 0 && newLines[len(newLines)-1].noEOL && end < realCount {
			return nil, fail(n, h, "the last new line has no newline at end, but the file goes on after the hunk")
		}
		edits = appendRuns(edits, h, stripCR, at, realCount, len(doc.Lines))
		next = end
	}
	if p.IsDelete {
		after, err := Apply(doc, edits)
		if err != nil {
			return nil, err
		}
		if len(after.Lines) > 0 {
			return nil, &PatchMismatchError{Path: p.NewPath, Msg: fmt.Sprintf("the patch deletes the file but leaves %d lines of it", len(after.Lines))}
		}
	}
	return edits, nil
}

// appendRuns appends one edit per run of removed and added lines of a hunk
// whose old lines start at document line at: its context lines are known
// to be unchanged, so they are never rewritten (and never need diffing
// again). An edit reaching the last real line ends at the end of the
// document (line n), whatever ends it.
func appendRuns(edits []TextEdit, h Hunk, stripCR bool, at, realCount, n int) []TextEdit {
	oldAt := at // document line of the next old line
	var runStart int
	var runNew []diffLine
	inRun := false
	flush := func() {
		if !inRun {
			return
		}
		e := TextEdit{StartLine: runStart, EndLine: oldAt, NewText: joinDiffLines(runNew)}
		if oldAt == realCount {
			e.EndLine = n
		}
		edits = append(edits, e)
		inRun, runNew = false, runNew[:0]
	}
	for _, l := range h.Lines {
		if l.Op == ' ' {
			flush()
			oldAt++
			continue
		}
		if !inRun {
			inRun, runStart = true, oldAt
		}
		switch l.Op {
		case '-':
			oldAt++
		case '+':
			d := diffLine{l.Text, l.NoNewline}
			if stripCR && !l.NoNewline {
				d.text = strings.TrimSuffix(d.text, "\r")
			}
			runNew = append(runNew, d)
		}
	}
	flush()
	return edits
}

// linesEndInCR reports whether every terminated line of the patch ends in
// "\r" (and there is one).
func (p FilePatch) linesEndInCR() bool {
	seen := false
	for _, h := range p.Hunks {
		for _, l := range h.Lines {
			if l.NoNewline {
				continue
			}
			if !strings.HasSuffix(l.Text, "\r") {
				return false
			}
			seen = true
		}
	}
	return seen
}

// sides splits a hunk into its old and new lines.
func (h Hunk) sides(stripCR bool) (old, newLines []diffLine, err error) {
	for i, l := range h.Lines {
		d := diffLine{l.Text, l.NoNewline}
		if stripCR && !l.NoNewline {
			d.text = strings.TrimSuffix(d.text, "\r")
		}
		switch l.Op {
		case ' ':
			old = append(old, d)
			newLines = append(newLines, d)
		case '-':
			old = append(old, d)
		case '+':
			newLines = append(newLines, d)
		default:
			return nil, nil, fmt.Errorf("line %d of the hunk has op %q", i+1, l.Op)
		}
	}
	for _, side := range [][]diffLine{old, newLines} {
		for _, d := range side[:max(len(side)-1, 0)] {
			if d.noEOL {
				return nil, nil, fmt.Errorf(`"\ No newline at end of file" follows %q, which is not the last line`, d.text)
			}
		}
	}
	return old, newLines, nil
}

func joinDiffLines(lines []diffLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
		if !l.noEOL {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
