package edit

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nvbridge/nvbridge/preview"
)

// bufModel is a Neovim buffer as far as planBuffer cares: lines, 'eol', and
// whether it has no lines at all.
type bufModel struct {
	lines []string
	eol   bool
	empty bool
}

func modelOf(d preview.Document) bufModel {
	if len(d.Lines) == 0 {
		return bufModel{lines: []string{""}, empty: true}
	}
	return bufModel{lines: slices.Clone(d.Lines), eol: d.FinalNewline}
}

// apply runs a plan the way apply.lua does, failing on anything
// nvim_buf_set_text would reject.
func (m *bufModel) apply(t testing.TB, p bufferPlan) {
	t.Helper()
	prev := [2]int{1 << 30, 0}
	for i, op := range p.Ops {
		if op.SR < 0 || op.ER >= len(m.lines) || op.ER < op.SR || (op.SR == op.ER && op.EC < op.SC) ||
			op.SC > len(m.lines[op.SR]) || op.EC > len(m.lines[op.ER]) {
			t.Fatalf("op %d %+v out of range of %q", i, op, m.lines)
		}
		if op.ER > prev[0] || (op.ER == prev[0] && op.EC > prev[1]) {
			t.Fatalf("op %d %+v is not before the previous one (%v)", i, op, prev)
		}
		prev = [2]int{op.SR, op.SC}
		repl := strings.Split(op.Text, "\n")
		repl[0] = m.lines[op.SR][:op.SC] + repl[0]
		repl[len(repl)-1] += m.lines[op.ER][op.EC:]
		m.lines = slices.Concat(m.lines[:op.SR], repl, m.lines[op.ER+1:])
		m.empty = false
	}
	if p.Clear {
		m.lines, m.empty = []string{""}, true
	}
	if p.TrimTail {
		n := len(m.lines)
		if n < 2 || m.lines[n-1] != "" {
			t.Fatalf("trim_tail on %q", m.lines)
		}
		m.lines = m.lines[:n-1]
	}
	if p.EOL != nil {
		m.eol = *p.EOL
	}
}

// checkPlan plans edits, runs the plan on the model and compares with
// preview.Apply, requiring Neovim's canonical form (no trailing empty line
// standing for a final newline).
func checkPlan(t testing.TB, doc preview.Document, edits []preview.TextEdit) {
	t.Helper()
	sorted, err := preview.Minimize(doc, edits)
	if err != nil {
		return // invalid edits are preview's business
	}
	after, err := preview.Apply(doc, sorted)
	if err != nil {
		t.Fatalf("Apply after Minimize: %v", err)
	}
	p := planBuffer(doc, sorted, after)
	m := modelOf(doc)
	m.apply(t, p)
	want := modelOf(after)
	fail := func(what string) {
		t.Fatalf("%s\ndoc %q final=%v\nedits %v\nplan %+v\nwant lines %q eol=%v empty=%v\ngot  lines %q eol=%v empty=%v",
			what, doc.Lines, doc.FinalNewline, sorted, p, want.lines, want.eol, want.empty, m.lines, m.eol, m.empty)
	}
	if !slices.Equal(m.lines, want.lines) {
		fail("lines differ")
	}
	if !want.empty && m.eol != want.eol {
		fail("eol differs")
	}
	if want.empty && !m.empty && len(doc.Lines) > 0 {
		fail("not emptied")
	}
	if p.LineCount != len(m.lines) {
		fail(fmt.Sprintf("LineCount %d, model has %d", p.LineCount, len(m.lines)))
	}
}

var linePool = []string{"", "a", "b", "func main() {", "}", "\tx := 1", "日本語", "emoji 😀!", "e\u0301", " ", "a"}
var textPool = []string{"", "X", "\n", "new\n", "two\nlines\n", "part\nial", "日本", "😀", "\n\n", "tail"}

func randomDoc(r *rand.Rand, maxLines int) preview.Document {
	n := r.IntN(maxLines + 1)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = linePool[r.IntN(len(linePool))]
	}
	return preview.Document{Lines: lines, EOL: "\n", FinalNewline: n > 0 && r.IntN(3) != 0}
}

// randomEdits returns up to max non-overlapping edits at character
// boundaries, including the end of the document.
func randomEdits(r *rand.Rand, d preview.Document, maxEdits int) []preview.TextEdit {
	var positions [][2]int
	for l, line := range d.Lines {
		for c := 0; c <= len(line); c++ {
			if c == len(line) || utf8.RuneStart(line[c]) {
				positions = append(positions, [2]int{l, c})
			}
		}
	}
	if d.FinalNewline || len(d.Lines) == 0 {
		positions = append(positions, [2]int{len(d.Lines), 0})
	}
	k := 2 * (1 + r.IntN(maxEdits))
	picked := make([][2]int, 0, k)
	for range k {
		picked = append(picked, positions[r.IntN(len(positions))])
	}
	slices.SortFunc(picked, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	edits := make([]preview.TextEdit, 0, k/2)
	for i := 0; i+1 < len(picked); i += 2 {
		a, b := picked[i], picked[i+1]
		edits = append(edits, preview.TextEdit{StartLine: a[0], StartCol: a[1], EndLine: b[0], EndCol: b[1], NewText: textPool[r.IntN(len(textPool))]})
	}
	r.Shuffle(len(edits), func(i, j int) { edits[i], edits[j] = edits[j], edits[i] })
	return edits
}

func TestPlanBufferRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		d := randomDoc(r, 6)
		checkPlan(t, d, randomEdits(r, d, 4))
	}
}

func TestPlanBufferCases(t *testing.T) {
	doc := func(s string) preview.Document { return preview.ParseDocument(s) }
	e := func(sl, sc, el, ec int, text string) preview.TextEdit {
		return preview.TextEdit{StartLine: sl, StartCol: sc, EndLine: el, EndCol: ec, NewText: text}
	}
	cases := []struct {
		name  string
		doc   preview.Document
		edits []preview.TextEdit
	}{
		{"append after final newline", doc("a\nb\n"), []preview.TextEdit{e(2, 0, 2, 0, "c\n")}},
		{"append without newline", doc("a\nb\n"), []preview.TextEdit{e(2, 0, 2, 0, "c")}},
		{"delete last line", doc("a\nb\n"), []preview.TextEdit{e(1, 0, 2, 0, "")}},
		{"remove final newline", doc("a\nb\n"), []preview.TextEdit{e(1, 1, 2, 0, "")}},
		{"add final newline", doc("a\nb"), []preview.TextEdit{e(1, 1, 1, 1, "\n")}},
		{"replace last line of unterminated file with terminated", doc("a\nb"), []preview.TextEdit{e(1, 0, 2, 0, "c\n")}},
		{"adjacent edits reaching the end", doc("a\nb\nc\n"), []preview.TextEdit{e(1, 0, 2, 0, "X\n"), e(2, 0, 3, 0, "")}},
		{"insertion before deleted tail", doc("a\nb\n"), []preview.TextEdit{e(0, 1, 0, 1, "!"), e(1, 0, 2, 0, "")}},
		{"empty file gets content", doc(""), []preview.TextEdit{e(0, 0, 0, 0, "x\ny\n")}},
		{"delete everything", doc("a\nb\n"), []preview.TextEdit{e(0, 0, 2, 0, "")}},
		{"newline-only file", doc("\n"), []preview.TextEdit{e(1, 0, 1, 0, "z\n")}},
		{"unicode", doc("héllo 世界 🎉\n"), []preview.TextEdit{e(0, 7, 0, 13, "World")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkPlan(t, c.doc, c.edits) })
	}
}

func TestLineEdits(t *testing.T) {
	doc := func(s string) preview.Document { return preview.ParseDocument(s) }
	cases := []struct {
		name    string
		content string
		edits   []LineEdit
		want    string
		err     string
	}{
		{"replace one", "a\nb\nc\n", []LineEdit{{2, 2, "B"}}, "a\nB\nc\n", ""},
		{"replace with trailing newline", "a\nb\nc\n", []LineEdit{{2, 2, "B\n"}}, "a\nB\nc\n", ""},
		{"insert before", "a\nb\n", []LineEdit{{2, 1, "x\ny"}}, "a\nx\ny\nb\n", ""},
		{"append", "a\nb\n", []LineEdit{{3, 2, "c"}}, "a\nb\nc\n", ""},
		{"append to unterminated", "a\nb", []LineEdit{{3, 2, "c"}}, "a\nb\nc", ""},
		{"replace unterminated last", "a\nb", []LineEdit{{2, 2, "B"}}, "a\nB", ""},
		{"delete unterminated last", "a\nb", []LineEdit{{2, 2, ""}}, "a", ""},
		{"delete all unterminated", "a\nb", []LineEdit{{1, 2, ""}}, "", ""},
		{"delete lines", "a\nb\nc\n", []LineEdit{{1, 2, ""}}, "c\n", ""},
		{"empty line", "a\nb\n", []LineEdit{{2, 1, "\n"}}, "a\n\nb\n", ""},
		{"several, numbered against the original", "1\n2\n3\n4\n", []LineEdit{{4, 4, "four"}, {1, 0, "zero"}, {2, 3, ""}}, "zero\n1\nfour\n", ""},
		{"into empty file", "", []LineEdit{{1, 0, "first"}}, "first\n", ""},
		{"crlf text", "a\r\nb\r\n", []LineEdit{{1, 1, "x\r\ny\r\n"}}, "x\r\ny\r\nb\r\n", ""},
		{"past the end", "a\n", []LineEdit{{2, 2, "x"}}, "", "only 1 lines"},
		{"start 0", "a\n", []LineEdit{{0, 1, "x"}}, "", "at least 1"},
		{"end before start-1", "a\nb\n", []LineEdit{{2, 0, "x"}}, "", "before line_start-1"},
		{"overlap", "a\nb\nc\n", []LineEdit{{1, 2, "x"}, {2, 3, "y"}}, "", "overlap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := doc(c.content)
			edits, err := lineTextEdits(d, "f.txt", c.edits)
			var after preview.Document
			if err == nil {
				after, err = preview.Apply(d, edits)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(after.Bytes()); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			checkPlan(t, d, edits)
		})
	}
}

func TestReplaceEdits(t *testing.T) {
	one, two := 1, 2
	cases := []struct {
		name    string
		content string
		r       Replacement
		want    string
		found   int
		err     string
	}{
		{"all", "foo bar foo\nfoo\n", Replacement{Old: "foo", New: "baz"}, "baz bar baz\nbaz\n", 3, ""},
		{"unique", "a foo b\n", Replacement{Old: "foo", New: "x", Count: &one}, "a x b\n", 1, ""},
		{"ambiguous", "foo foo\n", Replacement{Old: "foo", New: "x", Count: &one}, "", 0, "AMBIGUOUS"},
		{"fewer than count", "foo\n", Replacement{Old: "foo", New: "x", Count: &two}, "", 0, "RESOURCE_NOT_FOUND"},
		{"none", "bar\n", Replacement{Old: "foo", New: "x"}, "", 0, "RESOURCE_NOT_FOUND"},
		{"multiline", "a\nb\nc\n", Replacement{Old: "a\nb", New: "ab"}, "ab\nc\n", 1, ""},
		{"unicode", "héllo 世界 🎉\n", Replacement{Old: "世界", New: "world"}, "héllo world 🎉\n", 1, ""},
		{"regex groups", "x := f(1)\ny := f(22)\n", Replacement{Old: `f\((\d+)\)`, New: "g($1)", Regex: true}, "x := g(1)\ny := g(22)\n", 2, ""},
		{"regex multiline anchors", "a\nb\n", Replacement{Old: `(?m)^`, New: "> ", Regex: true}, "> a\n> b\n> ", 3, ""},
		{"bad regex", "a\n", Replacement{Old: `(`, Regex: true}, "", 0, "INVALID_PARAMETER"},
		{"crlf", "a\r\nb\r\n", Replacement{Old: "a\r\nb", New: "c"}, "c\r\n", 1, ""},
		{"empty old", "a\n", Replacement{Old: ""}, "", 0, "INVALID_PARAMETER"},
		// maxMatches is 5 below.
		{"as many as the limit", "a a a a a\n", Replacement{Old: "a", New: "b"}, "b b b b b\n", 5, ""},
		{"more than the limit", "a a a a a a\n", Replacement{Old: "a", New: "b"}, "", 0, `INVALID_PARAMETER: "a" occurs 6 times in f.txt; one change makes at most 5 edits`},
		{"regex, more than the limit", "a a a a a a a\n", Replacement{Old: "a", New: "b", Regex: true}, "", 0, `INVALID_PARAMETER: pattern "a" occurs more than 5 times in f.txt; one change makes at most 5 edits`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := preview.ParseDocument(c.content)
			edits, matches, err := replaceEdits(d, "f.txt", c.r, 5)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(edits) != c.found || len(matches) != c.found {
				t.Fatalf("%d edits and %d matches, want %d", len(edits), len(matches), c.found)
			}
			after, err := preview.Apply(d, edits)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(after.Bytes()); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// Only the first maxListed matches are listed (their positions are worked
// out), with the right positions; every match is replaced.
func TestReplaceEditsListsTheFirstMatches(t *testing.T) {
	var content strings.Builder
	for i := range 2 * maxListed {
		fmt.Fprintf(&content, "é%d x é x\n", i)
	}
	d := preview.ParseDocument(content.String())
	edits, matches, err := replaceEdits(d, "f.txt", Replacement{Old: "x", New: "y"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(edits) != 4*maxListed || len(matches) != maxListed {
		t.Fatalf("%d edits and %d matches listed, want %d and %d", len(edits), len(matches), 4*maxListed, maxListed)
	}
	for i, m := range matches {
		line := i/2 + 1
		col := len([]rune(fmt.Sprintf("é%d ", line-1)))
		if i%2 == 1 {
			col += len([]rune("x é "))
		}
		if m.Line != line || m.Column != col || m.Text != "x" {
			t.Fatalf("match %d is %+v, want line %d column %d", i, m, line, col)
		}
	}
	_, _, err = replaceEdits(d, "f.txt", Replacement{Old: "x", New: "y", Count: new(int)}, 0)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("and %d more", 3*maxListed)) {
		t.Fatalf("count check: %v, want the first %d matches and how many more", err, maxListed)
	}
}

// Every op costs Neovim (nvim_buf_set_text, and apply.lua's checks) the
// length of the lines it touches: many edits on one line are merged so that
// no row is touched by more than maxOpsPerRow ops (issue 8: 40,000 matches
// on one 1 MB line).
func TestPlanBufferBoundsOpsPerRow(t *testing.T) {
	line := strings.Repeat("a-é-", 1000)
	for _, final := range []bool{true, false} {
		doc := preview.Document{Lines: []string{"first", line, line, "last"}, EOL: "\n", FinalNewline: final}
		var edits []preview.TextEdit
		for row := 1; row <= 2; row++ {
			for col := 0; col < len(line); col += len("a-é-") {
				edits = append(edits, preview.TextEdit{StartLine: row, StartCol: col, EndLine: row, EndCol: col + 1, NewText: "AB"})
			}
		}
		// One edit joining the two long lines, among the others.
		edits = append(edits, preview.TextEdit{StartLine: 1, StartCol: len(line) - 1, EndLine: 2, EndCol: 0, NewText: "\n\n"})
		checkPlan(t, doc, edits)
		sorted, _ := preview.Minimize(doc, edits)
		after, _ := preview.Apply(doc, sorted)
		p := planBuffer(doc, sorted, after)
		perRow := map[int]int{}
		for _, op := range p.Ops {
			for r := op.SR; r <= op.ER; r++ {
				perRow[r]++
			}
		}
		for r, n := range perRow {
			if n > maxOpsPerRow {
				t.Fatalf("final=%v: %d ops touch row %d (at most %d)", final, n, r, maxOpsPerRow)
			}
		}
	}
}

// Many small edits per line, checked against preview.Apply.
func TestPlanBufferRandomDense(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	for range 3000 {
		d := randomDoc(r, 3)
		checkPlan(t, d, randomEdits(r, d, 3*maxOpsPerRow))
	}
}

// A line edit (a whole line and its line break replaced by a line and its
// break) is planned as an op within its row: Neovim then replaces text in
// one row, and apply.lua checks one row and splits no text.
func TestPlanBufferWholeLineEditsStayInTheirRows(t *testing.T) {
	for _, final := range []bool{true, false} {
		doc := preview.Document{Lines: []string{"one", "two", "three", "four"}, EOL: "\n", FinalNewline: final}
		edits := []preview.TextEdit{
			{StartLine: 0, EndLine: 1, NewText: "ONE\n"},
			{StartLine: 1, EndLine: 2, NewText: "TWO\n"}, // adjacent: no run to merge
			{StartLine: 2, StartCol: 2, EndLine: 3, NewText: "REE\nand more\n"},
		}
		checkPlan(t, doc, edits)
		sorted, _ := preview.Minimize(doc, edits)
		after, _ := preview.Apply(doc, sorted)
		p := planBuffer(doc, sorted, after)
		want := []bufOp{
			{SR: 2, SC: 2, ER: 2, EC: 5, Text: "REE\nand more"},
			{SR: 1, SC: 0, ER: 1, EC: 3, Text: "TWO"},
			{SR: 0, SC: 0, ER: 0, EC: 3, Text: "ONE"},
		}
		if !slices.Equal(p.Ops, want) {
			t.Fatalf("final=%v: ops %+v, want %+v", final, p.Ops, want)
		}
	}
}
