package preview

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzParsePatch: ParsePatch never panics, and whatever it accepts,
// EditsFor either rejects or turns into edits that Apply accepts, on a
// document made of the hunks' own old lines (so that they mostly match).
func FuzzParsePatch(f *testing.F) {
	golden, _ := filepath.Glob(filepath.Join("testdata", "*.diff"))
	for _, g := range golden {
		if b, err := os.ReadFile(g); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n\\ No newline at end of file\n+c\n")
	f.Add("diff --git \"a/\\346\\227\\245\" b/x\nrename from a\nrename to b\n--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		patches, err := ParsePatch(text)
		if err != nil {
			return
		}
		for _, p := range patches {
			old := hunkOldText(p)
			for _, d := range []Document{ParseDocument(old), {Lines: []string{}}, ParseDocument(strings.ReplaceAll(old, "\n", "\r\n"))} {
				edits, err := p.EditsFor(d)
				if err != nil {
					continue
				}
				if _, err := Apply(d, edits); err != nil {
					t.Fatalf("EditsFor gave edits Apply rejects: %v\nedits %v\npatch %q", err, edits, text)
				}
			}
		}
	})
}

// hunkOldText is the old lines of all hunks, one after the other.
func hunkOldText(p FilePatch) string {
	var b strings.Builder
	for _, h := range p.Hunks {
		for _, l := range h.Lines {
			if l.Op == '+' {
				continue
			}
			b.WriteString(l.Text)
			if !l.NoNewline {
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// FuzzRoundTrip: for any content and any valid edits derived from script,
// UnifiedDiff -> ParsePatch -> EditsFor -> Apply gives what Apply gives, and
// so does Apply of Minimize's edits.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte{2, 0, 0, 1, 1, 5, 3, 3, 2, 7})
	f.Add([]byte(""), []byte{1, 0, 0, 4})
	f.Add([]byte("x\r\ny\r\nz"), []byte{3, 1, 2, 2, 2, 9, 0, 0, 0, 3, 5, 6})
	f.Add([]byte("日本語\ne\u0301\n😀"), []byte{2, 0, 1, 2, 7, 3, 1, 1, 1, 0})
	f.Add([]byte("a\r\nb\n\xff\n"), []byte{4, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, content, script []byte) {
		if len(content) > 4096 || len(script) > 256 {
			return
		}
		d := ParseDocument(string(content))
		edits := editsFromScript(d, script)
		roundTrip(t, d, edits)
		minimized, err := Minimize(d, edits)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustApply(t, d, minimized).Bytes(), mustApply(t, d, edits).Bytes(); !bytes.Equal(a, b) {
			t.Fatalf("minimized edits %v give %q, edits %v give %q", minimized, a, edits, b)
		}
	})
}

// editsFromScript derives valid, non-overlapping edits of d from bytes.
func editsFromScript(d Document, script []byte) []TextEdit {
	next := func() int {
		if len(script) == 0 {
			return 0
		}
		b := script[0]
		script = script[1:]
		return int(b)
	}
	k := next() % 8
	ps := make([][2]int, 2*k)
	for i := range ps {
		l := next() % (len(d.Lines) + 1)
		if l == len(d.Lines) {
			ps[i] = [2]int{l, 0}
			continue
		}
		cols := boundaries(d.Lines[l])
		ps[i] = [2]int{l, cols[next()%len(cols)]}
	}
	slices.SortFunc(ps, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	edits := make([]TextEdit, k)
	for i := range edits {
		text := textPool[next()%len(textPool)]
		if n := next(); n%4 == 0 { // raw bytes from the script: anything goes
			n = min(n%16, len(script))
			text, script = string(script[:n]), script[n:]
		}
		edits[i] = TextEdit{ps[2*i][0], ps[2*i][1], ps[2*i+1][0], ps[2*i+1][1], text}
	}
	return edits
}
