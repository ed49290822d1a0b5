package preview

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenScenarios are rendered to testdata/<name>.diff. Each golden file
// starts with "# " lines saying what it pins (git apply skips them as
// garbage before the first "diff --git").
var goldenScenarios = []struct {
	name, pins string
	cs         Changeset
}{
	{"edit_one_line", "a change inside one line renders as whole -/+ lines with 3 lines of context each side",
		edit("f.txt", numbered(20), TextEdit{9, 5, 9, 7, "TEN"})},
	{"edit_gap6_one_hunk", "two changes 6 unchanged lines apart share one hunk (git's and diff's 2*context rule)",
		edit("f.txt", numbered(20), TextEdit{4, 0, 4, 4, "LINE"}, TextEdit{11, 0, 11, 4, "LINE"})},
	{"edit_gap7_two_hunks", "two changes 7 unchanged lines apart get separate hunks; the second hunk's new start accounts for the first's delta",
		edit("f.txt", numbered(20), TextEdit{4, 0, 5, 0, "one\ntwo\n"}, TextEdit{12, 0, 12, 4, "LINE"})},
	{"edit_insert_at_start", "insertion before line 1: no context before, new start 1",
		edit("f.txt", numbered(5), TextEdit{0, 0, 0, 0, "first\n"})},
	{"edit_insert_at_end_of_document", "insertion at (len(Lines), 0) appends after the final newline",
		edit("f.txt", numbered(5), TextEdit{5, 0, 5, 0, "appended\n"})},
	{"edit_delete_everything", "deleting all text: new range +0,0",
		edit("f.txt", numbered(4), TextEdit{0, 0, 4, 0, ""})},
	{"edit_no_final_newline_both", "the unterminated last line changes and stays unterminated: marker after both - and +",
		edit("f.txt", doc("a\nb\nc"), TextEdit{2, 0, 2, 1, "C"})},
	{"edit_add_final_newline", "inserting \\n at the end of an unterminated last line: marker only after the - line",
		edit("f.txt", doc("a\nb\nc"), TextEdit{2, 1, 2, 1, "\n"})},
	{"edit_remove_final_newline", "deleting from the end of the last line to (len(Lines), 0) removes the final newline",
		edit("f.txt", doc("a\nb\nc\n"), TextEdit{2, 1, 3, 0, ""})},
	{"edit_unterminated_context", "a change near an unterminated last line that stays unchanged: the marker follows a context line",
		edit("f.txt", doc("a\nb\nc"), TextEdit{0, 0, 0, 1, "A"})},
	{"edit_crlf", "a CRLF document: every rendered line, old and new, ends in \\r\\n",
		edit("f.txt", doc("one\r\ntwo\r\nthree\r\n"), TextEdit{1, 0, 1, 3, "TWO\nand a half"})},
	{"edit_crlf_no_final_newline", "CRLF without a final newline: the last line has no \\r and gets the marker",
		edit("f.txt", doc("one\r\ntwo"), TextEdit{1, 3, 1, 3, "!"})},
	{"edit_unicode", "CJK, emoji and a combining mark: byte columns at rune boundaries, bytes kept exactly",
		edit("f.txt", doc("日本語のテキスト\nemoji 😀 here\ne\u0301 combining\n"),
			TextEdit{0, 3, 0, 6, "本"}, TextEdit{1, 6, 1, 10, "🙂"}, TextEdit{2, 1, 2, 3, ""})},
	{"edit_empty_file_gets_content", "an empty existing file gets two lines: -0,0",
		edit("f.txt", doc(""), TextEdit{0, 0, 0, 0, "x\ny\n"})},
	{"edit_adjacent_lines", "small edits on adjacent lines render as one block of - then +, not interleaved",
		edit("f.txt", numbered(9), TextEdit{3, 0, 3, 4, "L"}, TextEdit{4, 0, 4, 4, "L"}, TextEdit{5, 0, 5, 4, "L"})},
	{"edit_whole_document_replacement", "a formatter's whole-document replacement is minimised to the two changed lines",
		edit("f.txt", numbered(30), TextEdit{0, 0, 30, 0, strings.Replace(strings.Replace(joined(numbered(30)), "line 7\n", "line seven\n", 1), "line 25\n", "", 1)})},
	{"noop_file_omitted", "a file whose edits change nothing is left out, like git; the other file renders",
		Changeset{Files: []FileChange{
			{Kind: OpEdit, Path: "same.txt", Old: doc("a\nb\n"), Edits: []TextEdit{{0, 0, 0, 1, "a"}}},
			{Kind: OpEdit, Path: "changed.txt", Old: doc("a\nb\n"), Edits: []TextEdit{{1, 0, 1, 1, "B"}}},
		}}},
	{"create_file", "a new file: new file mode, --- /dev/null, @@ -0,0 +1,N @@",
		Changeset{Files: []FileChange{{Kind: OpCreate, Path: "dir/new.go", Old: doc(""), Edits: []TextEdit{{0, 0, 0, 0, "package dir\n\nfunc F() {}\n"}}}}}},
	{"create_empty_file", "an empty new file: header lines only, as git prints it",
		Changeset{Files: []FileChange{{Kind: OpCreate, Path: "empty.txt", Old: doc("")}}}},
	{"create_no_final_newline", "a new file without a final newline",
		Changeset{Files: []FileChange{{Kind: OpCreate, Path: "n.txt", Old: doc(""), Edits: []TextEdit{{0, 0, 0, 0, "a\nb"}}}}}},
	{"delete_file", "a deleted file: deleted file mode, +++ /dev/null, @@ -1,N +0,0 @@",
		Changeset{Files: []FileChange{{Kind: OpDelete, Path: "old.txt", Old: doc("a\nb\nc\n")}}}},
	{"delete_empty_file", "deleting an empty file: header lines only",
		Changeset{Files: []FileChange{{Kind: OpDelete, Path: "empty.txt", Old: doc("")}}}},
	{"delete_no_final_newline", "deleting a file without a final newline: marker after its last line",
		Changeset{Files: []FileChange{{Kind: OpDelete, Path: "n.txt", Old: doc("a\nb")}}}},
	{"rename_pure", "a rename without edits: similarity index 100% and no ---/+++",
		Changeset{Files: []FileChange{{Kind: OpRename, Path: "a/old.go", NewPath: "b/new.go", Old: doc("x\n")}}}},
	{"rename_with_edits", "a rename with an edit: similarity estimate, rename from/to, then ---/+++ with both names",
		Changeset{Files: []FileChange{{Kind: OpRename, Path: "r.txt", NewPath: "r2.txt", Old: doc("l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"), Edits: []TextEdit{{5, 0, 5, 2, "X"}}}}}},
	{"path_with_space", "a name with a space: unquoted, ---/+++ lines end with a tab (as git does)",
		edit("my file.txt", doc("a\n"), TextEdit{0, 0, 0, 1, "b"})},
	{"path_quoted", "names with a tab and a quote are C-quoted everywhere, as git does; a name with a space also gets the tab after its ---/+++ label",
		Changeset{Files: []FileChange{{Kind: OpRename, Path: "tab\there.txt", NewPath: `say "hi".txt`, Old: doc("a\n"), Edits: []TextEdit{{0, 0, 0, 1, "b"}}}}}},
	{"multi_file", "a changeset of an edit, a creation, a deletion and a rename, in the given order",
		Changeset{Files: []FileChange{
			{Kind: OpEdit, Path: "main.go", Old: doc("package main\n\nfunc main() {\n}\n"), Edits: []TextEdit{{2, 13, 2, 13, "\n\tprintln(\"hi\")"}}},
			{Kind: OpCreate, Path: "util.go", Old: doc(""), Edits: []TextEdit{{0, 0, 0, 0, "package main\n"}}},
			{Kind: OpDelete, Path: "legacy.go", Old: doc("package main\n// old\n")},
			{Kind: OpRename, Path: "doc.txt", NewPath: "docs/readme.txt", Old: doc("hello\n")},
		}}},
}

// edit is a one-file OpEdit changeset.
func edit(path string, d Document, edits ...TextEdit) Changeset {
	return Changeset{Files: []FileChange{{Kind: OpEdit, Path: path, Old: d, Edits: edits}}}
}

// TestUnifiedDiffGolden renders each scenario, compares it with its golden
// file (rewritten with -update), has git apply it, and parses it back.
func TestUnifiedDiffGolden(t *testing.T) {
	for _, sc := range goldenScenarios {
		t.Run(sc.name, func(t *testing.T) {
			diff, err := UnifiedDiff(sc.cs)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", sc.name+".diff")
			content := "# " + sc.name + ": " + sc.pins + "\n" + diff
			if *update {
				if err := os.WriteFile(golden, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./preview -update)", err)
			}
			if string(want) != content {
				t.Errorf("%s differs from the golden file (run with -update if intended)\ngot:\n%s\nwant:\n%s", golden, content, want)
			}
			gitApplyCheck(t, sc.cs, diff)
			checkParsesBack(t, sc.cs, content)
		})
	}
}

// checkParsesBack parses a rendered changeset and checks each file patch
// turns the old documents into what Apply makes of them.
func checkParsesBack(t *testing.T, cs Changeset, diff string) {
	t.Helper()
	patches, err := ParsePatch(diff)
	if err != nil {
		t.Fatalf("ParsePatch: %v", err)
	}
	var rendered []FileChange // the files that appear in the diff
	for _, fc := range cs.Files {
		if fc.Kind != OpEdit || !bytes.Equal(mustApply(t, fc.Old, fc.Edits).Bytes(), fc.Old.Bytes()) {
			rendered = append(rendered, fc)
		}
	}
	if len(patches) != len(rendered) {
		t.Fatalf("parsed %d file patches, want %d", len(patches), len(rendered))
	}
	for i, fc := range rendered {
		p := patches[i]
		newPath := fc.Path
		if fc.Kind == OpRename {
			newPath = fc.NewPath
		}
		if p.OldPath != fc.Path || p.NewPath != newPath || p.IsNew != (fc.Kind == OpCreate) ||
			p.IsDelete != (fc.Kind == OpDelete) || p.IsRename != (fc.Kind == OpRename) {
			t.Errorf("file %d parsed as %+v, want %s %q -> %q", i, p, fc.Kind, fc.Path, newPath)
		}
		edits, err := p.EditsFor(fc.Old)
		if err != nil {
			t.Fatalf("EditsFor: %v", err)
		}
		got, want := mustApply(t, fc.Old, edits), mustApply(t, fc.Old, fc.Edits)
		if fc.Kind == OpDelete {
			want = Document{}
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("file %d: patch gives %q, want %q", i, got.Bytes(), want.Bytes())
		}
	}
}

// TestGitApplyRandomChangesets renders random multi-file changesets and has
// git apply them: one git run per 40-file changeset.
func TestGitApplyRandomChangesets(t *testing.T) {
	tool(t, "git")
	r := rand.New(rand.NewPCG(5, 6))
	names := []string{"f%d.txt", "dir/sub/f%d.go", "日本/f%d.md", "with space %d.txt"}
	for batch := range 8 {
		var cs Changeset
		for i := range 40 {
			fc := FileChange{Path: fmt.Sprintf(names[r.IntN(len(names))], i), Old: randomDocument(r, 30)}
			switch k := r.IntN(10); {
			case k < 6:
				fc.Kind = OpEdit
			case k < 7:
				fc.Kind, fc.Old = OpCreate, Document{Lines: []string{}, EOL: fc.Old.EOL}
			case k < 8:
				fc.Kind = OpDelete
			default:
				fc.Kind, fc.NewPath = OpRename, fmt.Sprintf("renamed/%d.txt", i)
			}
			if fc.Kind != OpDelete {
				fc.Edits = randomEdits(r, fc.Old, 6)
			}
			cs.Files = append(cs.Files, fc)
		}
		t.Run(fmt.Sprint(batch), func(t *testing.T) {
			diff, err := UnifiedDiff(cs)
			if err != nil {
				t.Fatal(err)
			}
			gitApplyCheck(t, cs, diff)
			checkParsesBack(t, cs, diff)
		})
	}
}

func TestUnifiedDiffErrors(t *testing.T) {
	cases := []struct {
		name string
		fc   FileChange
		want string
	}{
		{"empty path", FileChange{Kind: OpEdit, Old: doc("a\n")}, "empty path"},
		{"absolute path", FileChange{Kind: OpEdit, Path: "/etc/passwd", Old: doc("a\n")}, "absolute"},
		{"unclean path", FileChange{Kind: OpEdit, Path: "a/../b", Old: doc("a\n")}, "not clean"},
		{"escaping path", FileChange{Kind: OpEdit, Path: "../b", Old: doc("a\n")}, "not clean"},
		{"rename without new path", FileChange{Kind: OpRename, Path: "a", Old: doc("a\n")}, "new path: empty path"},
		{"create over content", FileChange{Kind: OpCreate, Path: "a", Old: doc("x\n")}, "must be empty"},
		{"delete with edits", FileChange{Kind: OpDelete, Path: "a", Old: doc("x\n"), Edits: []TextEdit{{0, 0, 0, 0, "y"}}}, "no edits"},
		{"unknown kind", FileChange{Kind: OpKind(9), Path: "a", Old: doc("x\n")}, "unknown kind"},
		{"invalid edit", FileChange{Kind: OpEdit, Path: "a", Old: doc("x\n"), Edits: []TextEdit{{5, 0, 5, 0, "y"}}}, "out_of_range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := UnifiedDiff(Changeset{Files: []FileChange{{Kind: OpEdit, Path: "ok.txt", Old: doc("a\n")}, c.fc}})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "file 1") {
				t.Errorf("err = %v, want one about file 1 containing %q", err, c.want)
			}
		})
	}
}

// TestRewriteLine: the diff's line made of the edits within one line
// (rewriteLine, a rename's every edit) is the line rewrite makes of them,
// and one whose text breaks the line is left to rewrite.
func TestRewriteLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	texts := []string{"", "x", "renamed", "é", "a\nb"}
	for range 2000 {
		line := strings.Repeat("ab日c", rng.IntN(4))
		var cols []int
		for i := 0; i <= len(line); i++ {
			if !insideRune(line, i) {
				cols = append(cols, i)
			}
		}
		var cluster []span
		at := 0
		for range 1 + rng.IntN(4) {
			i := at + rng.IntN(len(cols)-at)
			j := i + rng.IntN(len(cols)-i)
			cluster = append(cluster, span{pos{1, cols[i]}, pos{1, cols[j]}, texts[rng.IntN(len(texts))], len(cluster)})
			at = j
		}
		tx := text{lines: []string{"before", line, "after"}}
		buf := []byte("kept")
		buf, got, ok := rewriteLine(buf, line, cluster)
		breaks := slices.ContainsFunc(cluster, func(s span) bool { return strings.Contains(s.text, "\n") })
		if ok == breaks {
			t.Fatalf("%q %v: ok %v", line, cluster, ok)
		}
		if string(buf[:4]) != "kept" {
			t.Fatalf("%q %v: the buffer's bytes before were written: %q", line, cluster, buf)
		}
		if want := tx.rewrite(1, 1, cluster); ok && (len(want) != 1 || got != want[0]) {
			t.Fatalf("%q %v: %q, rewrite makes %q", line, cluster, got, want)
		}
	}
}
