package nvim_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// TestSpliceLines checks the splice against the plain model (split, replace,
// join) on random texts and changes, and that a delta that does not fit
// the text is refused.
func TestSpliceLines(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "é", "😀 x", "line", "\t"}
	randomLines := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = words[r.IntN(len(words))] + fmt.Sprint(r.IntN(3))
			if r.IntN(5) == 0 {
				out[i] = ""
			}
		}
		return out
	}
	join := func(lines []string, nl string, eol bool) string {
		s := strings.Join(lines, nl)
		if eol {
			s += nl
		}
		return s
	}
	for i := range 5000 {
		nl := []string{"\n", "\r\n"}[r.IntN(2)]
		eol := r.IntN(2) == 0
		base := randomLines(1 + r.IntN(8))
		first := r.IntN(len(base) + 1)
		oldEnd := first + r.IntN(len(base)-first+1)
		repl := randomLines(r.IntN(4))
		want := append(append(append([]string{}, base[:first]...), repl...), base[oldEnd:]...)
		if len(want) == 0 {
			continue // a buffer always has a line
		}
		d := nvim.LineDelta{First: first, OldEnd: oldEnd, BaseCount: len(base), Lines: repl}
		got, ok := nvim.SpliceLines(join(base, nl, eol), nl, eol, d, len(want))
		if !ok || got != join(want, nl, eol) {
			t.Fatalf("case %d: %q with %+v (nl %q, eol %v): got %q, %v; want %q", i, base, d, nl, eol, got, ok, join(want, nl, eol))
		}
	}
	refused := []struct {
		name, text string
		eol        bool
		d          nvim.LineDelta
		count      int
	}{
		{"base count too high", "a\nb\n", true, nvim.LineDelta{First: 0, OldEnd: 1, BaseCount: 3, Lines: []string{"x"}}, 3},
		{"base count too low", "a\nb\nc\n", true, nvim.LineDelta{First: 0, OldEnd: 1, BaseCount: 2, Lines: []string{"x"}}, 2},
		{"result count wrong", "a\nb\n", true, nvim.LineDelta{First: 0, OldEnd: 1, BaseCount: 2, Lines: []string{"x", "y"}}, 2},
		{"eol without a final newline", "a\nb", true, nvim.LineDelta{First: 0, OldEnd: 1, BaseCount: 2, Lines: []string{"x"}}, 2},
		{"range past the end", "a\nb\n", true, nvim.LineDelta{First: 1, OldEnd: 3, BaseCount: 2, Lines: []string{"x"}}, 0},
		{"range reversed", "a\nb\n", true, nvim.LineDelta{First: 2, OldEnd: 1, BaseCount: 2}, 3},
	}
	for _, c := range refused {
		if got, ok := nvim.SpliceLines(c.text, "\n", c.eol, c.d, c.count); ok {
			t.Errorf("%s: spliced to %q", c.name, got)
		}
	}
}

// TestSnapshotSplicesLineChanges: once a large buffer's text is cached, a
// snapshot after the user's edits is made from the lines Neovim says
// changed, and is the buffer's text exactly, through replaced, inserted and
// deleted lines, multibyte text, a change spanning lines, undo and the last
// line; a reload or an option that shapes the bytes makes it read whole.
func TestSnapshotSplicesLineChanges(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	var text strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	path := filepath.Join(root, "big.txt")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	if _, err := client.Info(ctx, "big.txt", false); err != nil {
		t.Fatal(err)
	}
	lua := func(code string, args ...any) {
		t.Helper()
		if err := s.ExecLua(ctx, code, nil, append([]any{bufnr(t, s, path)}, args...)...); err != nil {
			t.Fatal(err)
		}
	}
	// check snapshots the buffer and compares with its lines read whole;
	// spliced says whether the snapshot must have come from the delta.
	check := func(step string, spliced bool) {
		t.Helper()
		before, _ := nvim.TextCacheCounts(s)
		snap, err := s.Snapshot(ctx, []string{path}, nvim.SnapshotOptions{})
		if err != nil || len(snap) != 1 || snap[0].Err != nil {
			t.Fatalf("%s: snapshot %+v, %v", step, snap, err)
		}
		want := strings.Join(bufferLines(t, s, path), "\n")
		var eol bool
		if err := s.ExecLua(ctx, "return vim.bo[(...)].eol", &eol, bufnr(t, s, path)); err != nil {
			t.Fatal(err)
		}
		if eol {
			want += "\n"
		}
		if snap[0].Text != want {
			t.Fatalf("%s: the snapshot is not the buffer's text (%d vs %d bytes)", step, len(snap[0].Text), len(want))
		}
		if after, _ := nvim.TextCacheCounts(s); (after > before) != spliced {
			t.Fatalf("%s: spliced %v, want %v", step, after > before, spliced)
		}
	}
	check("first read", false)
	check("unchanged", false)
	const setLines = "local b, s, e, lines = ...; vim.api.nvim_buf_set_lines(b, s, e, false, lines)"
	lua(setLines, 5, 6, []string{"changed é 😀"})
	check("one line replaced", true)
	lua(setLines, 100, 100, []string{"new 1", "new 2", "new 3"})
	lua(setLines, 90, 91, []string{})
	check("lines inserted after a line deleted", true)
	lua(setLines, 200, 211, []string{})
	lua(setLines, 150, 151, []string{"a", "b"})
	check("a change above lines deleted", true)
	lua(setLines, 50, 51, []string{"c"})
	lua(setLines, 60, 61, []string{"d", "e", "f"})
	check("a change below another", true)
	lua("local b, sr, sc, er, ec, lines = ...; vim.api.nvim_buf_set_text(b, sr, sc, er, ec, lines)", 300, 2, 305, 3, []string{"X", "Y"})
	check("a change spanning lines", true)
	lua("vim.api.nvim_buf_call((...), function() vim.cmd('silent undo') end)")
	check("undo", true)
	n := len(bufferLines(t, s, path))
	lua(setLines, n-1, n, []string{"last", "after last"})
	check("the last line", true)
	lua(setLines, n-1, n+1, []string{})
	check("the last lines deleted", true)
	lua(setLines, 10, 11, []string{"near the top"})
	lua(setLines, 15000, 15001, []string{"near the end"})
	check("changes far apart (most of the buffer between them)", false)
	lua(setLines, 20, 21, []string{"again"})
	check("after a whole read", true)
	discard(t, s, path)
	check("reloaded", false)
	lua(setLines, 40, 41, []string{"after the reload"})
	check("a change after the reload", true)
	lua("vim.bo[(...)].eol = false")
	check("eol changed", false)
	lua(setLines, 30, 31, []string{"eol off"})
	check("a change with eol off", true)
}

// TestAppliedTextIsKnown: applying a stored preview tells the text cache
// the buffer's new text, so the next snapshot of a large buffer reads
// nothing back (neither whole nor its changed lines); apply pauses the
// line tracking while it edits, and a change the user makes afterwards is
// spliced again from the lines it changed.
func TestAppliedTextIsKnown(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	var text strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	path := filepath.Join(root, "big.txt")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	if _, err := client.Info(ctx, "big.txt", false); err != nil {
		t.Fatal(err)
	}
	e := edit.NewEngine(s)
	// snap snapshots the buffer, compares it with its lines read whole,
	// and says how it was made.
	snap := func(step string) (spliced, fetched bool) {
		t.Helper()
		s0, f0 := nvim.TextCacheCounts(s)
		got, err := s.Snapshot(ctx, []string{path}, nvim.SnapshotOptions{})
		if err != nil || len(got) != 1 || got[0].Err != nil {
			t.Fatalf("%s: snapshot %+v, %v", step, got, err)
		}
		if want := strings.Join(bufferLines(t, s, path), "\n") + "\n"; got[0].Text != want {
			t.Fatalf("%s: the snapshot is not the buffer's text (%d vs %d bytes)", step, len(got[0].Text), len(want))
		}
		s1, f1 := nvim.TextCacheCounts(s)
		return s1 > s0, f1 > f0
	}
	snap("first read")
	edits := []edit.LineEdit{}
	for line := 19000; line >= 10; line -= 1000 {
		edits = append(edits, edit.LineEdit{LineStart: line, LineEnd: line, NewText: fmt.Sprintf("edited %d é", line)})
	}
	res, err := e.EditLines(ctx, "big.txt", edits, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ApplyStored(ctx, res.ChangesetID, false); err != nil {
		t.Fatal(err)
	}
	if spliced, fetched := snap("after the apply"); spliced || fetched {
		t.Fatalf("after the apply the snapshot was spliced %v, read whole %v: the cache did not know the applied text", spliced, fetched)
	}
	if err := s.ExecLua(ctx, "local b = ...; vim.api.nvim_buf_set_lines(b, 5, 6, false, {'typed'})", nil, bufnr(t, s, path)); err != nil {
		t.Fatal(err)
	}
	if spliced, _ := snap("a change after the apply"); !spliced {
		t.Fatal("a change after the apply was not spliced: the line tracking did not resume")
	}
}

// TestAppliedTextIsPlannedFromItsLines: after an apply, a snapshot that
// takes a parse (SnapshotOptions.Parsed) gets the applied text as the
// lines it was made of, and the text itself is never made (joining 100,000
// lines to split them again was most of a preview's own time). Once a
// reader needs the text it is made, and stands for the parse from then on;
// the next change planned from the lines applies exactly.
func TestAppliedTextIsPlannedFromItsLines(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	var text strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	path := filepath.Join(root, "big.txt")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	if _, err := client.Info(ctx, "big.txt", false); err != nil {
		t.Fatal(err)
	}
	e := edit.NewEngine(s)
	apply := func(step string, from int) {
		t.Helper()
		var edits []edit.LineEdit
		for line := from; line <= 20000; line += 1000 {
			edits = append(edits, edit.LineEdit{LineStart: line, LineEnd: line, NewText: fmt.Sprintf("%s %d é", step, line)})
		}
		res, err := e.EditLines(ctx, "big.txt", edits, edit.Options{Preview: true})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if _, err := e.ApplyStored(ctx, res.ChangesetID, false); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	snap := func(step string, parsed bool) nvim.FileSnapshot {
		t.Helper()
		got, err := s.Snapshot(ctx, []string{path}, nvim.SnapshotOptions{Parsed: parsed})
		if err != nil || len(got) != 1 || got[0].Err != nil {
			t.Fatalf("%s: snapshot %+v, %v", step, got, err)
		}
		return got[0]
	}
	apply("first", 7)
	want := bufferLines(t, s, path)
	f := snap("after the apply", true)
	doc, ok := f.Parsed.(preview.Document)
	if f.Text != "" || !ok {
		t.Fatalf("after the apply a snapshot taking a parse got %d bytes of text and a %T", len(f.Text), f.Parsed)
	}
	if !slices.Equal(doc.Lines, want) || !doc.FinalNewline {
		t.Fatal("the parse is not the buffer's lines")
	}
	// A second change planned from those lines, then its text read.
	apply("second", 9)
	want = bufferLines(t, s, path)
	if f := snap("a reader of the text", false); f.Parsed != nil || f.Text != strings.Join(want, "\n")+"\n" {
		t.Fatalf("a snapshot without Parsed got a %T and not the buffer's text", f.Parsed)
	}
	if f := snap("once the text is made", true); f.Parsed != nil || f.Text != strings.Join(want, "\n")+"\n" {
		t.Fatalf("once made, the text was not what a snapshot taking a parse got (%T)", f.Parsed)
	}
}

// TestAppliedCRLinesAreStillRefused: an apply that leaves a unix buffer
// with every line ending in a carriage return (which would read back as a
// CRLF text with shorter lines) is not handed out as its lines: the next
// change is refused, as it is for such a buffer read from Neovim.
func TestAppliedCRLinesAreStillRefused(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	var text strings.Builder
	text.WriteString("first\n")
	for i := 2; i <= 20000; i++ {
		fmt.Fprintf(&text, "line %d\r\n", i)
	}
	path := filepath.Join(root, "cr.txt")
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	if _, err := client.Info(ctx, "cr.txt", false); err != nil {
		t.Fatal(err)
	}
	var ff string
	if err := s.ExecLua(ctx, "return vim.bo[vim.fn.bufnr((...))].fileformat", &ff, path); err != nil || ff != "unix" {
		t.Fatalf("fileformat %q, %v: the test needs a unix buffer", ff, err)
	}
	e := edit.NewEngine(s)
	if _, err := e.EditLines(ctx, "cr.txt", []edit.LineEdit{{LineStart: 1, LineEnd: 1, NewText: "first\r"}}, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Snapshot(ctx, []string{path}, nvim.SnapshotOptions{Parsed: true})
	if err != nil || len(got) != 1 {
		t.Fatalf("snapshot %+v, %v", got, err)
	}
	if got[0].Err == nil || got[0].Err.Code != "UNSUPPORTED" {
		t.Fatalf("a unix buffer whose every line ends in CR was not refused: %+v (parse %T)", got[0].Err, got[0].Parsed)
	}
}

// TestAllLinesEndInCR: a unix buffer reads as CRLF only when every line
// ends in a carriage return (the first line answers most texts).
func TestAllLinesEndInCR(t *testing.T) {
	cases := map[string]bool{
		"":              false,
		"a":             false,
		"\n":            false,
		"\r\n":          true,
		"a\r\nb\r\n":    true,
		"a\r\nb\r\nc":   true, // the last line is not terminated
		"a\r\nb\nc\r\n": false,
		"a\nb\r\n":      false,
		"a\r\r\nb\r\n":  true,
		"\r\n\r\n\n":    false,
	}
	for text, want := range cases {
		if got := nvim.AllLinesEndInCR(text); got != want {
			t.Errorf("AllLinesEndInCR(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestSnapshotKeepsSmallTexts: a snapshot keeps the texts of small loaded
// buffers too (from SmallTextMin bytes, the last MaxSmallTexts of them), so
// the same buffer snapshotted again unchanged is not sent again; every
// snapshot is still the buffer's text, after an edit, past the bound, when
// a call keeps more texts than the bound before taking the others, and
// when the texts Neovim was told of are gone once it answers.
func TestSnapshotKeepsSmallTexts(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	n := nvim.MaxSmallTexts + 5
	paths := make([]string, n+1)
	for i := range paths {
		var text strings.Builder
		for l := 0; text.Len() < 2*nvim.SmallTextMin; l++ {
			fmt.Fprintf(&text, "file %d line %d é 😀\n", i, l)
		}
		name := fmt.Sprintf("f%02d.txt", i)
		if i == n {
			name, text = "tiny.txt", strings.Builder{}
			text.WriteString("below the small texts' size\n")
		}
		paths[i] = filepath.Join(root, name)
		if err := os.WriteFile(paths[i], []byte(text.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	// Every file stays loaded (nvbridge keeps 20 it opened by default).
	if err := s.ExecLua(ctx, "vim.g.nvbridge_max_loaded = 100", nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if _, err := client.Info(ctx, filepath.Base(p), false); err != nil {
			t.Fatal(err)
		}
	}
	// snap snapshots ps, checks each is its buffer's text, and returns how
	// many were taken from the cache.
	snap := func(step string, ps ...string) int64 {
		t.Helper()
		before, _ := nvim.TextCacheTaken(s)
		got, err := s.Snapshot(ctx, ps, nvim.SnapshotOptions{})
		if err != nil || len(got) != len(ps) {
			t.Fatalf("%s: snapshot %d files: %v", step, len(got), err)
		}
		for i, f := range got {
			want := strings.Join(bufferLines(t, s, ps[i]), "\n") + "\n"
			if f.Err != nil || f.Text != want {
				t.Fatalf("%s: %s: the snapshot is not the buffer's text (%v): %q", step, ps[i], f.Err, f.Text)
			}
		}
		after, small := nvim.TextCacheTaken(s)
		if small > nvim.MaxSmallTexts {
			t.Fatalf("%s: %d small texts kept, more than %d", step, small, nvim.MaxSmallTexts)
		}
		return after - before
	}
	if got := snap("first read", paths[0]); got != 0 {
		t.Fatalf("first read: %d taken from the cache", got)
	}
	if got := snap("unchanged", paths[0]); got != 1 {
		t.Fatalf("unchanged: %d taken from the cache, want 1", got)
	}
	if err := s.ExecLua(ctx, "vim.api.nvim_buf_set_lines(..., 2, 3, false, {'changed ü'})", nil, bufnr(t, s, paths[0])); err != nil {
		t.Fatal(err)
	}
	if got := snap("edited", paths[0]); got != 0 {
		t.Fatalf("edited: %d taken from the cache", got)
	}
	if got := snap("unchanged after the edit", paths[0]); got != 1 {
		t.Fatalf("unchanged after the edit: %d taken, want 1", got)
	}
	snap("tiny", paths[n])
	if got := snap("tiny again", paths[n]); got != 0 {
		t.Fatalf("a text under SmallTextMin was kept: %d taken", got)
	}
	// More small texts than the bound: the least recently used go.
	snap("all", paths[1:n]...)
	if got := snap("the first of all again", paths[1]); got != 0 {
		t.Fatalf("the least recently used small text was kept past the bound: %d taken", got)
	}
	// The texts known first, then one to keep: keeping it must not evict
	// one this call has yet to take.
	kept := paths[n-nvim.MaxSmallTexts : n]
	snap("the last ones", kept...)
	if got := snap("a new one before the kept ones", append([]string{paths[0]}, kept...)...); got != int64(len(kept)) {
		t.Fatalf("a new one before the kept ones: %d taken, want %d", got, len(kept))
	}
	restore := nvim.EvictAfterSnapshot()
	defer restore()
	if got := snap("evicted once Neovim answered", kept...); got != 0 {
		t.Fatalf("evicted once Neovim answered: %d taken", got)
	}
}

// TestReadSnapshotThenNothingSent: a read that sends nothing (no server
// for the file) takes no snapshot: got is called once, with nil, and the
// read answers as ReadThen does.
func TestReadSnapshotThenNothingSent(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	path := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(path, []byte("first line é\nsecond\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	calls := 0
	var got *nvim.ReadSnapshot
	raw, err := s.ReadSnapshotThen(ctx, nvim.ReadSpec{Path: path, Line: 0, Text: "first line é", Character: 1,
		Method: "textDocument/definition", Params: `{"textDocument":{"uri":"file://` + path + `"},"position":{"line":0,"character":1}}`},
		nil, func(r *nvim.ReadSnapshot) { calls++; got = r })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"unsent":"no server"`) {
		t.Fatalf("the read was not left unsent for want of a server: %s", raw)
	}
	if calls != 1 || got != nil {
		t.Fatalf("got called %d times, with %v; want once with nil", calls, got)
	}
}
