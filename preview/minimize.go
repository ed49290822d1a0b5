package preview

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

const (
	// smallEditLines: an edit touching at most this many old lines and
	// producing at most this many new lines is kept as it is; bigger ones
	// (a formatter's whole-document replacement) are worth a line diff.
	smallEditLines = 3

	// diffTimeout bounds one line diff. Past it go-diff returns a correct but
	// coarser diff, which is still a valid (just less minimal) edit set.
	diffTimeout = time.Second

	// maxDiffLines keeps go-diff's line-to-rune encoding in range (it panics
	// past about 1.1 million distinct lines); beyond it we keep the edits.
	maxDiffLines = 1_000_000

	// maxJointEdits: a cluster of at most this many edits, one of them
	// large, is line-diffed as a whole (edits sharing a line may undo each
	// other's changes). A bigger one is minimised edit by edit: go-diff
	// costs O(N·D), D being about the number of edits, and 200,000
	// multi-line replacements chained by the lines they share (each from
	// one line's end to the next one's start) ran into its timeout twice
	// per preview and came back as a coarse diff.
	maxJointEdits = 16
)

// Minimize returns edits equivalent to the given ones (applied to doc they
// give the same document) in which no edit rewrites lines that do not
// change. Edits sharing a line form a cluster; a cluster of small edits
// passes through unchanged, and a cluster containing a large edit is
// replaced by whole-line edits of just the changed lines, from a line diff
// (sergi/go-diff) of its old and new lines. The result is sorted.
func Minimize(doc Document, edits []TextEdit) ([]TextEdit, error) {
	t := newText(doc)
	spans, err := validate(t, edits)
	if err != nil {
		return nil, err
	}
	minimized := t.minimize(spans)
	out := make([]TextEdit, len(minimized))
	for i, s := range minimized {
		if s.index >= 0 {
			out[i] = edits[s.index] // passed through: exactly as given
		} else {
			out[i] = s.edit()
		}
	}
	return out, nil
}

// minimize works on validated spans; spans it makes have index -1.
func (t text) minimize(spans []span) []span {
	isLarge := func(s span) bool {
		return s.end.line-s.start.line+1 > smallEditLines || strings.Count(s.text, "\n")+1 > smallEditLines
	}
	if !slices.ContainsFunc(spans, isLarge) {
		return spans // the usual case: nothing to do
	}
	var out []span
	forEachCluster(spans, func(cluster []span) {
		switch {
		case !slices.ContainsFunc(cluster, isLarge):
			out = append(out, cluster...)
		case len(cluster) <= maxJointEdits:
			out = t.lineDiff(out, cluster)
		default:
			for _, s := range cluster {
				if isLarge(s) {
					out = t.spanDiff(out, s)
				} else {
					out = append(out, s)
				}
			}
		}
	})
	return out
}

// spanDiff appends edits with the same effect as s alone, from a line diff
// of the text s replaces and its new text. That old text is a text of its
// own whose extended lines are the pieces of t's lines between s's ends;
// the edits found there are moved back to t's positions (its first line
// starts at s's start column). They stay within s, so the edits beside s
// keep their places.
func (t text) spanDiff(out []span, s span) []span {
	pieces := make([]string, 0, s.end.line-s.start.line+1)
	for l := s.start.line; l <= s.end.line; l++ {
		piece := t.line(l)
		if l == s.end.line {
			piece = piece[:s.end.col]
		}
		if l == s.start.line {
			piece = piece[s.start.col:]
		}
		pieces = append(pieces, piece)
	}
	sub := text{lines: pieces}
	from := len(out)
	out = sub.lineDiff(out, []span{{pos{0, 0}, sub.endPos(), s.text, -1}})
	at := func(p pos) pos {
		if p.line == 0 {
			p.col += s.start.col
		}
		p.line += s.start.line
		return p
	}
	for i := from; i < len(out); i++ {
		out[i].start, out[i].end = at(out[i].start), at(out[i].end)
	}
	return out
}

// forEachCluster calls f with each maximal run of spans that share lines.
func forEachCluster(spans []span, f func([]span)) {
	for i := 0; i < len(spans); {
		j, last := i+1, spans[i].end.line
		for j < len(spans) && spans[j].start.line <= last {
			last = spans[j].end.line
			j++
		}
		f(spans[i:j])
		i = j
	}
}

// lineDiff appends to out line edits with the same effect as the cluster.
func (t text) lineDiff(out []span, cluster []span) []span {
	first, last := cluster[0].start.line, cluster[len(cluster)-1].end.line
	oldLines := t.block(first, last)
	newLines := t.rewrite(first, last, cluster)

	// Common leading and trailing lines are unchanged; go-diff would find
	// them too, but trimming here keeps its input (and the rune limit) small.
	pre := 0
	for pre < len(oldLines) && pre < len(newLines) && oldLines[pre] == newLines[pre] {
		pre++
	}
	suf := 0
	for suf < len(oldLines)-pre && suf < len(newLines)-pre && oldLines[len(oldLines)-1-suf] == newLines[len(newLines)-1-suf] {
		suf++
	}
	oldMid := oldLines[pre : len(oldLines)-suf]
	newMid := newLines[pre : len(newLines)-suf]
	base := first + pre // extended line of oldMid[0]

	emit := func(oldFrom, oldTo, newFrom, newTo int) {
		out = append(out, t.lineEdit(base+oldFrom, base+oldTo, newMid[newFrom:newTo], first))
	}
	if len(oldMid) == 0 || len(newMid) == 0 || len(oldMid)+len(newMid) > maxDiffLines || !shareALine(oldMid, newMid) {
		if len(oldMid) > 0 || len(newMid) > 0 {
			emit(0, len(oldMid), 0, len(newMid))
		}
		return out
	}

	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	// Every line gets a "\n" so that go-diff sees whole lines; lineEdit
	// accounts for the one after the document's last line not existing.
	a, b, _ := dmp.DiffLinesToRunes(joinTerminated(oldMid), joinTerminated(newMid))
	oi, ni := 0, 0         // old and new lines consumed so far
	oStart, nStart := 0, 0 // where the pending change started
	for _, d := range dmp.DiffMainRunes(a, b, false) {
		n := utf8.RuneCountInString(d.Text) // one rune per line
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			if oi > oStart || ni > nStart {
				emit(oStart, oi, nStart, ni)
			}
			oi += n
			ni += n
			oStart, nStart = oi, ni
		case diffmatchpatch.DiffDelete:
			oi += n
		case diffmatchpatch.DiffInsert:
			ni += n
		}
	}
	if oi > oStart || ni > nStart {
		emit(oStart, oi, nStart, ni)
	}
	return out
}

// lineEdit makes the span replacing extended lines [from, to) with newLines,
// as if every line were followed by "\n". Only the last extended line has no
// "\n" after it; a change reaching it is shifted onto real characters.
// blockFirst is the first line the change may touch.
func (t text) lineEdit(from, to int, newLines []string, blockFirst int) span {
	newText := joinTerminated(newLines)
	if to < t.count() {
		return span{pos{from, 0}, pos{to, 0}, newText, -1}
	}
	end := t.endPos()
	if from == to {
		// Insertion after the missing "\n": it needs a real one first.
		return span{end, end, "\n" + newText[:len(newText)-1], -1}
	}
	if newText != "" {
		// Replace through the end of the document; the new text's final
		// "\n" stands for the missing one.
		return span{pos{from, 0}, end, newText[:len(newText)-1], -1}
	}
	// Pure deletion to the end: delete from the end of the line before, so
	// that line becomes the (unterminated) last one. The new text of the
	// block ends in "\n" in this model, so the deletion cannot start the
	// block and from-1 is in it.
	if from <= blockFirst {
		panic("preview: deletion to the end of the document starts its block")
	}
	return span{pos{from - 1, len(t.line(from - 1))}, end, "", -1}
}

// joinTerminated joins lines, each followed by "\n".
func joinTerminated(lines []string) string {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// shareALine reports whether any line of b is also in a. When none is (a
// complete rewrite), the diff is one replacement, and go-diff would spend
// O(N*D) time, up to its timeout, finding that out.
func shareALine(a, b []string) bool {
	seen := make(map[string]struct{}, len(a))
	for _, l := range a {
		seen[l] = struct{}{}
	}
	for _, l := range b {
		if _, ok := seen[l]; ok {
			return true
		}
	}
	return false
}
