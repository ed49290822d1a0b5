package preview

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unsafe"
)

// OpKind is what a FileChange does to its file.
type OpKind int

const (
	OpEdit   OpKind = iota // edit an existing file
	OpCreate               // create Path; Edits (on an empty Old) give its content
	OpDelete               // delete Path; Old is what is deleted
	OpRename               // rename Path to NewPath, then apply Edits, if any
)

func (k OpKind) String() string {
	switch k {
	case OpEdit:
		return "edit"
	case OpCreate:
		return "create"
	case OpDelete:
		return "delete"
	case OpRename:
		return "rename"
	}
	return "OpKind(" + strconv.Itoa(int(k)) + ")"
}

// FileChange is one file in a changeset.
type FileChange struct {
	Kind    OpKind
	Path    string     // slash-separated, relative to the workspace root
	NewPath string     // OpRename only
	Old     Document   // current content (OpCreate: empty; OpDelete: what is deleted)
	Edits   []TextEdit // on Old: OpEdit, OpCreate (the new content), OpRename (after renaming)
}

// Changeset is a set of file changes previewed and applied together.
type Changeset struct {
	Files []FileChange
}

// contextLines is the context around each change; changes whose gap is at
// most 2*contextLines share a hunk (as in git and GNU diff).
const contextLines = 3

// UnifiedDiff renders the changeset as a git-style unified diff, files in the
// given order. An OpEdit whose edits change nothing renders nothing, like
// git. Hunks come from the edits (after Minimize), not from diffing whole
// files. Paths are quoted like git only when they contain control
// characters, '"' or '\\'; other UTF-8 is written as is (core.quotePath=false).
//
// The similarity index of a rename with edits is an estimate (the share of
// old bytes kept); git apply does not check it.
func UnifiedDiff(cs Changeset) (string, error) {
	var b strings.Builder
	for i, fc := range cs.Files {
		if err := writeFileDiff(&b, fc); err != nil {
			return "", fmt.Errorf("preview: file %d (%s %s): %w", i, fc.Kind, fc.Path, err)
		}
	}
	return b.String(), nil
}

func writeFileDiff(b *strings.Builder, fc FileChange) error {
	if err := checkPath(fc.Path); err != nil {
		return err
	}
	t := newText(fc.Old)
	edits := fc.Edits
	newName := fc.Path
	switch fc.Kind {
	case OpEdit:
	case OpCreate:
		if t.realCount() > 0 {
			return errors.New("a created file's Old document must be empty")
		}
	case OpDelete:
		if len(edits) > 0 {
			return errors.New("a deleted file takes no edits")
		}
		edits = []TextEdit{{EndLine: len(fc.Old.Lines)}} // everything
	case OpRename:
		if err := checkPath(fc.NewPath); err != nil {
			return fmt.Errorf("new path: %w", err)
		}
		newName = fc.NewPath
	default:
		return fmt.Errorf("unknown kind %d", int(fc.Kind))
	}
	spans, err := validate(t, edits)
	if err != nil {
		return err
	}
	changes := t.changes(spans)

	oldQ, newQ := quotePath("a/"+fc.Path), quotePath("b/"+newName)
	minus, plus := oldQ, newQ
	switch fc.Kind {
	case OpEdit:
		if len(changes) == 0 {
			return nil
		}
		b.WriteString("diff --git ")
		b.WriteString(oldQ)
		b.WriteByte(' ')
		b.WriteString(newQ)
		b.WriteByte('\n')
	case OpCreate:
		fmt.Fprintf(b, "diff --git %s %s\nnew file mode 100644\n", oldQ, newQ)
		minus = "/dev/null"
	case OpDelete:
		fmt.Fprintf(b, "diff --git %s %s\ndeleted file mode 100644\n", oldQ, newQ)
		plus = "/dev/null"
	case OpRename:
		fmt.Fprintf(b, "diff --git %s %s\nsimilarity index %d%%\nrename from %s\nrename to %s\n",
			oldQ, newQ, similarity(t, changes, fc.Old.eol()), quotePath(fc.Path), quotePath(newName))
	}
	if len(changes) == 0 {
		return nil // git prints no ---/+++ for an empty new or deleted file or a pure rename
	}
	writeFileName(b, "--- ", minus, fc.Path)
	writeFileName(b, "+++ ", plus, newName)
	t.writeHunks(b, changes, fc.Old.eol())
	return nil
}

// checkPath accepts clean, relative, slash-separated paths.
func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q is absolute; paths are relative to the workspace root", p)
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("path %q is not clean and inside the workspace", p)
	}
	return nil
}

// writeFileName writes a ---/+++ line. Like git, it ends the label of a
// file whose name contains a space with a tab, so that tools which read a
// timestamp after the name know where the name ends.
func writeFileName(b *strings.Builder, marker, label, name string) {
	b.WriteString(marker)
	b.WriteString(label)
	if label != "/dev/null" && strings.Contains(name, " ") {
		b.WriteByte('\t')
	}
	b.WriteByte('\n')
}

// quotePath quotes a name as git does when it must (C-style, octal escapes).
func quotePath(p string) string {
	needs := false
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f || c == '"' || c == '\\' {
			needs = true
			break
		}
	}
	if !needs {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// diffLine is a line as a diff shows it: text, and whether it lacks a newline
// (only ever the last line of a file).
type diffLine struct {
	text  string
	noEOL bool
}

// change replaces old real lines starting at oldStart with new ones.
type change struct {
	oldStart int
	old, new []diffLine
}

func (c change) oldEnd() int { return c.oldStart + len(c.old) }

// changes turns validated spans into line changes: each cluster of edits
// sharing lines becomes its old lines and the new lines it produces, less
// the lines that did not change at either end.
func (t text) changes(spans []span) []change {
	spans = t.minimize(spans)
	out := make([]change, 0, len(spans))
	lastLine := t.count() - 1
	// A change within one line (a rename's every edit) is its line and
	// the line rewriteLine makes, side by side in one slice, the new lines
	// in one buffer (newLinesSize): a slice and a rewrite of their own
	// each made 82 allocations of a rename's nine edits on zap's
	// logger.go (16 now), most of its diff's 9-17 us on the way to the
	// preview.
	var single []diffLine
	var buf []byte
	forEachCluster(spans, func(cluster []span) {
		first, last := cluster[0].start.line, cluster[len(cluster)-1].end.line
		atEnd := last == lastLine
		if first == last && !atEnd {
			if buf == nil {
				buf = make([]byte, 0, t.newLinesSize(spans))
			}
			var nl string
			var ok bool
			if buf, nl, ok = rewriteLine(buf, t.lines[first], cluster); ok {
				if nl == t.lines[first] {
					return
				}
				if single == nil {
					single = make([]diffLine, 0, 2*len(spans))
				}
				k := len(single)
				single = append(single, diffLine{text: t.lines[first]}, diffLine{text: nl})
				// Capped: a change appended to (below) grows into a slice
				// of its own, never into the next change's lines.
				oldL, newL := single[k:k+1:k+1], single[k+1:k+2:k+2]
				if len(out) > 0 && out[len(out)-1].oldEnd() == first {
					prev := &out[len(out)-1]
					prev.old = append(prev.old, oldL...)
					prev.new = append(prev.new, newL...)
				} else {
					out = append(out, change{first, oldL, newL})
				}
				return
			}
		}
		oldL := realLines(t.block(first, last), atEnd)
		newL := realLines(t.rewrite(first, last, cluster), atEnd)
		pre := 0
		for pre < len(oldL) && pre < len(newL) && oldL[pre] == newL[pre] {
			pre++
		}
		suf := 0
		for suf < len(oldL)-pre && suf < len(newL)-pre && oldL[len(oldL)-1-suf] == newL[len(newL)-1-suf] {
			suf++
		}
		oldL, newL = oldL[pre:len(oldL)-suf], newL[pre:len(newL)-suf]
		switch {
		case len(oldL) == 0 && len(newL) == 0:
		case len(out) > 0 && out[len(out)-1].oldEnd() == first+pre:
			// Adjacent to the previous change: one block of - then +, as
			// diff prints it, rather than interleaved ones.
			// Append in place (amortised): copying the run for every
			// change made a run of n adjacent changes cost O(n²). The
			// slices are this change's own (realLines makes them), so
			// growing them into their unused tail overwrites nothing.
			prev := &out[len(out)-1]
			prev.old = append(prev.old, oldL...)
			prev.new = append(prev.new, newL...)
		default:
			out = append(out, change{first + pre, oldL, newL})
		}
	})
	return out
}

// rewriteLine appends to buf line after the spans of cluster, each
// within it, when none of their texts holds a line break (ok false
// otherwise: the text then spans lines, which rewrite makes), and gives
// that line (a string of buf's bytes, never written again: buf is only
// appended to).
func rewriteLine(buf []byte, line string, cluster []span) ([]byte, string, bool) {
	for _, s := range cluster {
		if strings.IndexByte(s.text, '\n') >= 0 {
			return buf, "", false
		}
	}
	from, at := len(buf), 0
	for _, s := range cluster {
		buf = append(buf, line[at:s.start.col]...)
		buf = append(buf, s.text...)
		at = s.end.col
	}
	buf = append(buf, line[at:]...)
	if len(buf) == from {
		return buf, "", true
	}
	return buf, unsafe.String(&buf[from], len(buf)-from), true
}

// newLinesSize bounds the bytes of the lines rewriteLine makes of spans
// (sorted): each line a span starts on and every span's text.
func (t text) newLinesSize(spans []span) int {
	n, last := 0, -1
	for _, s := range spans {
		n += len(s.text)
		if s.start.line != last {
			last = s.start.line
			n += len(t.line(last))
		}
	}
	return n
}

// realLines turns extended lines into diff lines. Only a block that ends the
// document can end in an unterminated line, or in the empty extended line
// after a final newline, which is not a line of the file.
func realLines(block []string, atEnd bool) []diffLine {
	n := len(block)
	if atEnd && block[n-1] == "" {
		n--
		atEnd = false
	}
	out := make([]diffLine, n)
	for i := range n {
		out[i].text = block[i]
	}
	if atEnd {
		out[n-1].noEOL = true
	}
	return out
}

// writeHunks renders changes (sorted, disjoint) as hunks with context from
// the old lines.
func (t text) writeHunks(b *strings.Builder, changes []change, eol string) {
	realCount := t.realCount()
	lastNoEOL := t.lastUnterminated()
	oldLine := func(i int) diffLine {
		return diffLine{t.lines[i], lastNoEOL && i == realCount-1}
	}
	// Group changes into hunks first, to size the output once.
	type hunk struct{ first, last, start, end int } // changes[first..last], old lines [start, end)
	var hunks []hunk
	size := 0
	for i := 0; i < len(changes); {
		j := i
		for j+1 < len(changes) && changes[j+1].oldStart-changes[j].oldEnd() <= 2*contextLines {
			j++
		}
		h := hunk{i, j, max(0, changes[i].oldStart-contextLines), min(realCount, changes[j].oldEnd()+contextLines)}
		hunks = append(hunks, h)
		size += 32
		for k := h.start; k < h.end; k++ {
			size += len(t.lines[k]) + 1 + len(eol)
		}
		for _, c := range changes[i : j+1] {
			for _, l := range c.new {
				size += len(l.text) + 1 + len(eol)
			}
		}
		i = j + 1
	}
	b.Grow(size)

	delta := 0 // new line numbers minus old ones, before the current hunk
	var numBuf [48]byte
	num := numBuf[:0]
	for _, h := range hunks {
		i, j, start, end := h.first, h.last, h.start, h.end
		hunkDelta := 0
		for _, c := range changes[i : j+1] {
			hunkDelta += len(c.new) - len(c.old)
		}
		b.WriteString("@@ -")
		num = appendRange(num[:0], start, end-start)
		b.Write(num)
		b.WriteString(" +")
		num = appendRange(num[:0], start+delta, end-start+hunkDelta)
		b.Write(num)
		b.WriteString(" @@\n")

		at := start
		for _, c := range changes[i : j+1] {
			for ; at < c.oldStart; at++ {
				writeLine(b, ' ', oldLine(at), eol)
			}
			for _, l := range c.old {
				writeLine(b, '-', l, eol)
			}
			for _, l := range c.new {
				writeLine(b, '+', l, eol)
			}
			at = c.oldEnd()
		}
		for ; at < end; at++ {
			writeLine(b, ' ', oldLine(at), eol)
		}
		delta += hunkDelta
	}
}

// appendRange formats a hunk range as git does: "l,n", "l" when n is 1, and
// for an empty range the line before it.
func appendRange(b []byte, start, count int) []byte {
	if count == 0 {
		b = strconv.AppendInt(b, int64(start), 10)
		return append(b, ",0"...)
	}
	b = strconv.AppendInt(b, int64(start+1), 10)
	if count != 1 {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(count), 10)
	}
	return b
}

func writeLine(b *strings.Builder, op byte, l diffLine, eol string) {
	b.WriteByte(op)
	b.WriteString(l.text)
	if l.noEOL {
		b.WriteString("\n\\ No newline at end of file\n")
	} else {
		b.WriteString(eol)
	}
}

// similarity estimates git's similarity index: the percentage of the larger
// of the old and new file that is kept old content.
func similarity(t text, changes []change, eol string) int {
	size := func(ls []diffLine) int {
		n := 0
		for _, l := range ls {
			n += len(l.text)
			if !l.noEOL {
				n += len(eol)
			}
		}
		return n
	}
	oldSize := 0
	for i := range t.realCount() {
		oldSize += len(t.lines[i]) + len(eol)
	}
	if t.lastUnterminated() {
		oldSize -= len(eol)
	}
	removed, added := 0, 0
	for _, c := range changes {
		removed += size(c.old)
		added += size(c.new)
	}
	larger := max(oldSize, oldSize-removed+added)
	if larger == 0 {
		return 100
	}
	return (oldSize - removed) * 100 / larger
}
