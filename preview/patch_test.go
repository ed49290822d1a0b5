package preview

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParseRealGitDiff makes changes in a real repository, parses
// `git diff --cached -M` (default quoting of non-ASCII names, CRLF content,
// missing final newlines, a rename with edits, new, empty and deleted files)
// and checks each file patch turns the committed content into the new one.
func TestParseRealGitDiff(t *testing.T) {
	git := tool(t, "git")
	repo := t.TempDir()
	run(t, repo, nil, git, "init", "-q")
	run(t, repo, nil, git, "config", "user.email", "t@example.com")
	run(t, repo, nil, git, "config", "user.name", "t")
	before := map[string]string{
		"plain.txt":       "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n",
		"crlf.txt":        "a\r\nb\r\nc\r\n",
		"nonl.txt":        "x\ny",
		"日本/ファイル.txt":     "日本語\nテキスト\n",
		"with space.txt":  "s\n",
		"gone.txt":        "bye\n",
		"moved/before.go": "package m\n\nfunc A() {}\n\nfunc B() {}\n\nfunc C() {}\n",
	}
	after := map[string]string{
		"plain.txt":      "zero\none\ntwo\nthree\nfour\n5\nsix\nseven\neight\nnine\nten\neleven\n",
		"crlf.txt":       "a\r\nB\r\nc\r\nd\r\n",
		"nonl.txt":       "x\ny\nz",
		"日本/ファイル.txt":    "日本語\n文章\n",
		"with space.txt": "S\n",
		"moved/after.go": "package m\n\nfunc A() {}\n\nfunc B2() {}\n\nfunc C() {}\n",
		"new.txt":        "fresh\n",
		"empty.txt":      "",
		"nonl-to-nl.txt": "",
	}
	for name, content := range before {
		writeFile(t, filepath.Join(repo, name), []byte(content))
	}
	run(t, repo, nil, git, "add", "-A")
	run(t, repo, nil, git, "commit", "-qm", "before")
	for name := range before {
		os.Remove(filepath.Join(repo, name))
	}
	delete(after, "nonl-to-nl.txt")
	for name, content := range after {
		writeFile(t, filepath.Join(repo, name), []byte(content))
	}
	run(t, repo, nil, git, "add", "-A")
	diff := run(t, repo, nil, git, "diff", "--cached", "-M")

	patches, err := ParsePatch(diff)
	if err != nil {
		t.Fatalf("ParsePatch: %v\n%s", err, diff)
	}
	seen := map[string]bool{}
	for _, p := range patches {
		old := Document{Lines: []string{}}
		if !p.IsNew {
			content, ok := before[p.OldPath]
			if !ok {
				t.Fatalf("patch names unknown old file %q", p.OldPath)
			}
			old = doc(content)
		}
		edits, err := p.EditsFor(old)
		if err != nil {
			t.Fatalf("%s: %v", p.NewPath, err)
		}
		got := string(mustApply(t, old, edits).Bytes())
		if want := after[p.NewPath]; got != want || p.IsDelete && got != "" {
			t.Errorf("%s: got %q, want %q", p.NewPath, got, want)
		}
		seen[p.NewPath] = true
		switch p.NewPath {
		case "moved/after.go":
			if !p.IsRename || p.OldPath != "moved/before.go" {
				t.Errorf("rename parsed as %+v", p)
			}
		case "gone.txt":
			if !p.IsDelete {
				t.Errorf("delete parsed as %+v", p)
			}
		case "new.txt", "empty.txt":
			if !p.IsNew {
				t.Errorf("creation parsed as %+v", p)
			}
		}
	}
	for _, name := range []string{"plain.txt", "crlf.txt", "nonl.txt", "日本/ファイル.txt", "with space.txt", "gone.txt", "moved/after.go", "new.txt", "empty.txt"} {
		if !seen[name] {
			t.Errorf("no patch for %s in\n%s", name, diff)
		}
	}
}

// TestParseDiffU parses `diff -ru` output: timestamps after tabs, "Only in"
// lines between files, names without a/ b/.
func TestParseDiffU(t *testing.T) {
	diffCmd := tool(t, "diff")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "old/x.txt"), []byte("1\n2\n3\n"))
	writeFile(t, filepath.Join(dir, "new/x.txt"), []byte("1\ntwo\n3"))
	writeFile(t, filepath.Join(dir, "old/only-old.txt"), []byte("o\n"))
	writeFile(t, filepath.Join(dir, "old/y.txt"), []byte("a\n"))
	writeFile(t, filepath.Join(dir, "new/y.txt"), []byte("b\n"))
	out := run(t, dir, []int{1}, diffCmd, "-ru", "old", "new")
	patches, err := ParsePatch(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(patches) != 2 || patches[0].OldPath != "old/x.txt" || patches[0].NewPath != "new/x.txt" || patches[1].OldPath != "old/y.txt" {
		t.Fatalf("parsed %+v from\n%s", patches, out)
	}
	edits, err := patches[0].EditsFor(doc("1\n2\n3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(mustApply(t, doc("1\n2\n3\n"), edits).Bytes()); got != "1\ntwo\n3" {
		t.Errorf("got %q", got)
	}
}

func TestParsePatchShapes(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []FilePatch
	}{
		{"git, ,1 omitted, section text after @@",
			"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@ func x()\n-a\n+b\n",
			[]FilePatch{{OldPath: "f", NewPath: "f", Hunks: []Hunk{{1, 1, 1, 1, []HunkLine{{'-', "a", false}, {'+', "b", false}}}}}}},
		{"commit message and signature around it",
			"From abc Mon\nSubject: [PATCH] x\n\n---\n f | 2 +-\n\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n",
			[]FilePatch{{OldPath: "f", NewPath: "f", Hunks: []Hunk{{1, 1, 1, 1, []HunkLine{{'-', "a", false}, {'+', "b", false}}}}}}},
		{"no newline markers in the middle and at the end",
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n\\ No newline at end of file\n",
			[]FilePatch{{OldPath: "f", NewPath: "f", Hunks: []Hunk{{1, 1, 1, 1, []HunkLine{{'-', "a", true}, {'+', "a", true}}}}}}},
		{"blank line is empty context",
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",
			[]FilePatch{{OldPath: "f", NewPath: "f", Hunks: []Hunk{{1, 3, 1, 3, []HunkLine{{' ', "a", false}, {' ', "", false}, {'-', "b", false}, {'+', "c", false}}}}}}},
		{"CRLF patch text: headers tolerate \\r, lines keep it",
			"diff --git a/f b/f\r\n--- a/f\r\n+++ b/f\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n",
			[]FilePatch{{OldPath: "f", NewPath: "f", Hunks: []Hunk{{1, 1, 1, 1, []HunkLine{{'-', "a\r", false}, {'+', "b\r", false}}}}}}},
		{"new empty file, names from the diff --git line",
			"diff --git a/dir/e f.txt b/dir/e f.txt\nnew file mode 100644\nindex 0000000..e69de29\n",
			[]FilePatch{{OldPath: "dir/e f.txt", NewPath: "dir/e f.txt", IsNew: true}}},
		{"quoted names",
			"diff --git \"a/\\346\\227\\245.txt\" \"b/\\346\\227\\245.txt\"\n--- \"a/\\346\\227\\245.txt\"\n+++ \"b/\\346\\227\\245.txt\"\n@@ -1 +1 @@\n-x\n+y\n",
			[]FilePatch{{OldPath: "日.txt", NewPath: "日.txt", Hunks: []Hunk{{1, 1, 1, 1, []HunkLine{{'-', "x", false}, {'+', "y", false}}}}}}},
		{"pure rename",
			"diff --git a/a b/b\nsimilarity index 100%\nrename from a\nrename to b\n",
			[]FilePatch{{OldPath: "a", NewPath: "b", IsRename: true}}},
		{"mode change only",
			"diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n",
			[]FilePatch{{OldPath: "s.sh", NewPath: "s.sh"}}},
		{"deletion via /dev/null in plain diff",
			"--- a/f\t2024-01-01 00:00:00\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
			[]FilePatch{{OldPath: "f", NewPath: "f", IsDelete: true, Hunks: []Hunk{{1, 1, 0, 0, []HunkLine{{'-', "a", false}}}}}}},
		{"two hunks, two files",
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n@@ -9,0 +10 @@\n+c\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n",
			[]FilePatch{
				{OldPath: "f", NewPath: "f", Hunks: []Hunk{{1, 1, 1, 1, []HunkLine{{'-', "a", false}, {'+', "b", false}}}, {9, 0, 10, 1, []HunkLine{{'+', "c", false}}}}},
				{OldPath: "g", NewPath: "g", Hunks: []Hunk{{1, 1, 1, 1, []HunkLine{{'-', "x", false}, {'+', "y", false}}}}},
			}},
		{"nothing", "just words\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParsePatch(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, c.want, equalFilePatch) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func equalFilePatch(a, b FilePatch) bool {
	return a.OldPath == b.OldPath && a.NewPath == b.NewPath && a.IsNew == b.IsNew && a.IsDelete == b.IsDelete &&
		a.IsRename == b.IsRename && slices.EqualFunc(a.Hunks, b.Hunks, func(x, y Hunk) bool {
		return x.OldStart == y.OldStart && x.OldCount == y.OldCount && x.NewStart == y.NewStart && x.NewCount == y.NewCount && slices.Equal(x.Lines, y.Lines)
	})
}

func TestParsePatchErrors(t *testing.T) {
	cases := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"hunk without header", "hello\n@@ -1 +1 @@\n-a\n+b\n", 2, "without a ---/+++"},
		{"malformed hunk header", "--- a/f\n+++ b/f\n@@ -1,x +1 @@\n", 3, "malformed hunk header"},
		{"hunk cut short by EOF", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n", 3, "ends after 2 old and 1 new lines"},
		{"hunk cut short by another file", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\ndiff --git a/g b/g\n", 3, "ends after 1 old"},
		{"more removed lines than counted", "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n-b\n+c\n", 5, "beyond hunk"},
		{"extra line after a complete hunk", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n+c\n", 6, "not counted by its header"},
		{"marker first", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline at end of file\n-a\n+b\n", 4, "before any line"},
		{"binary", "diff --git a/b b/b\nindex 1..2\nBinary files a/b and b/b differ\n", 3, "binary"},
		{"git binary patch", "diff --git a/b b/b\nindex 1..2\nGIT binary patch\nliteral 5\n", 3, "binary"},
		{"copy", "diff --git a/a b/c\ncopy from a\ncopy to c\n", 2, "copies"},
		{"bad quoted name", "--- \"a/x\n+++ b/x\n", 1, "unterminated"},
		{"both /dev/null", "--- /dev/null\n+++ /dev/null\n", 2, "both sides"},
		{"unsplittable git names", "diff --git nonsense\nnew file mode 100644\n", 3, "file name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePatch(c.in)
			var se *PatchSyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *PatchSyntaxError", err)
			}
			if se.Line != c.line || !strings.Contains(se.Msg, c.msg) {
				t.Errorf("got line %d %q, want line %d containing %q", se.Line, se.Msg, c.line, c.msg)
			}
		})
	}
}

func TestEditsFor(t *testing.T) {
	twelve := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	cases := []struct {
		name, old, patch, want string
	}{
		{"at the stated line", twelve, "@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n", strings.Replace(twelve, "5\n", "five\n", 1)},
		{"found 3 lines later", twelve, "@@ -1,3 +1,3 @@\n 4\n-5\n+five\n 6\n", strings.Replace(twelve, "5\n", "five\n", 1)},
		{"found 2 lines earlier", twelve, "@@ -9,3 +9,3 @@\n 6\n-7\n+seven\n 8\n", strings.Replace(twelve, "7\n", "seven\n", 1)},
		{"second hunk offset like the first", twelve, "@@ -2,3 +2,3 @@\n 1\n-2\n+two\n 3\n@@ -10,3 +10,3 @@\n 8\n-9\n+nine\n 10\n",
			"1\ntwo\n3\n4\n5\n6\n7\n8\nnine\n10\n11\n12\n"},
		{"pure insertion without context", "a\nb\n", "@@ -1,0 +2 @@\n+x\n", "a\nx\nb\n"},
		{"insertion at the start", "a\n", "@@ -0,0 +1 @@\n+x\n", "x\na\n"},
		{"insertion at the end", "a\n", "@@ -1,0 +2 @@\n+x\n", "a\nx\n"},
		{"into an empty file", "", "@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n", "x\ny"},
		{"delete everything", "a\nb\n", "@@ -1,2 +0,0 @@\n-a\n-b\n", ""},
		{"add final newline", "a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\nb\n"},
		{"remove final newline", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n", "a\nb"},
		{"remove the unterminated last line", "a\nb", "@@ -1,2 +1 @@\n a\n-b\n\\ No newline at end of file\n", "a\n"},
		{"CRLF document, patch with \\r", "a\r\nb\r\nc\r\n", "@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n", "a\r\nB\r\nc\r\n"},
		{"CRLF document, patch without \\r", "a\r\nb\r\nc\r\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "a\r\nB\r\nc\r\n"},
		{"LF document keeps \\r it has", "a\r\nb\n", "@@ -1,2 +1,2 @@\n a\r\n-b\n+c\n", "a\r\nc\n"},
		{"unicode", "日本語\n😀\n", "@@ -1,2 +1,2 @@\n 日本語\n-😀\n+e\u0301\n", "日本語\ne\u0301\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps, err := ParsePatch("--- a/f\n+++ b/f\n" + c.patch)
			if err != nil {
				t.Fatal(err)
			}
			old := doc(c.old)
			edits, err := ps[0].EditsFor(old)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(mustApply(t, old, edits).Bytes()); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestEditsForMismatch(t *testing.T) {
	cases := []struct {
		name, old, patch string
		hunk, line       int
		expected, actual string
		msg              string
	}{
		{"changed context", "a\nb\nc\n", "@@ -1,3 +1,3 @@\n a\n-B\n+x\n c\n", 1, 2, "B", "b", "differs"},
		{"second hunk", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "@@ -1 +1 @@\n-1\n+one\n@@ -8 +8 @@\n-eight\n+8\n", 2, 8, "eight", "8", "matches nowhere else"},
		{"past the end", "a\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", 1, 2, "b", "<end of file>", "only 1 lines"},
		{"file lacks the final newline", "a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", 1, 2, "b", "b", "no newline at end"},
		{"patch says no newline, file goes on", "a\nb\nc\n", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n", 1, 2, "b", "b", "goes on"},
		{"CRLF patch for an LF file", "a\nb\n", "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n", 1, 1, "a\r", "a", "differs"},
		{"hunks out of order", "1\n2\n3\n4\n5\n", "@@ -4 +4 @@\n-4\n+x\n@@ -2 +2 @@\n-2\n+y\n", 2, 5, "2", "5", "file order"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps, err := ParsePatch("--- a/f\n+++ b/f\n" + c.patch)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ps[0].EditsFor(doc(c.old))
			var me *PatchMismatchError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want *PatchMismatchError", err)
			}
			if me.Path != "f" || me.Hunk != c.hunk || me.Line != c.line || me.Expected != c.expected || me.Actual != c.actual || !strings.Contains(me.Msg, c.msg) {
				t.Errorf("got %+v\nwant hunk %d line %d expected %q actual %q msg ~ %q", me, c.hunk, c.line, c.expected, c.actual, c.msg)
			}
			if !strings.Contains(err.Error(), "hunk ") || !strings.Contains(err.Error(), "@@") {
				t.Errorf("error text %q should name the hunk", err)
			}
		})
	}
}

func TestEditsForRefusals(t *testing.T) {
	cases := []struct {
		name, old, patch, msg string
	}{
		{"create over content", "a\n", "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n", "exists"},
		{"delete leaving lines", "a\nb\n", "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "leaves 1 lines"},
		{"insert after unterminated last line", "a", "--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+x\n", "no newline"},
		{"insert beyond the end", "a\n", "--- a/f\n+++ b/f\n@@ -5,0 +6 @@\n+x\n", "outside"},
		{"no-newline new line mid-file", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+x\n\\ No newline at end of file\n", "goes on"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps, err := ParsePatch(c.patch)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ps[0].EditsFor(doc(c.old)); err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err = %v, want one containing %q", err, c.msg)
			}
		})
	}
	// A hand-built hunk whose counts disagree with its lines.
	p := FilePatch{NewPath: "f", Hunks: []Hunk{{1, 2, 1, 1, []HunkLine{{'-', "a", false}, {'+', "b", false}}}}}
	if _, err := p.EditsFor(doc("a\n")); err == nil || !strings.Contains(err.Error(), "header counts") {
		t.Errorf("err = %v, want a count mismatch", err)
	}
	p = FilePatch{NewPath: "f", Hunks: []Hunk{{1, 2, 1, 2, []HunkLine{{'-', "a", true}, {'-', "b", false}, {'+', "x", false}, {'+', "y", false}}}}}
	if _, err := p.EditsFor(doc("a\nb\n")); err == nil || !strings.Contains(err.Error(), "not the last line") {
		t.Errorf("err = %v, want a misplaced marker", err)
	}
}

// TestEditsForDeleteAndCreate covers the whole-file patches UnifiedDiff makes.
func TestEditsForDeleteAndCreate(t *testing.T) {
	for _, content := range []string{"", "a\n", "a\nb", "x\r\ny\r\n"} {
		old := doc(content)
		diff, err := UnifiedDiff(Changeset{Files: []FileChange{
			{Kind: OpDelete, Path: "d", Old: old},
			{Kind: OpCreate, Path: "c", Old: Document{Lines: []string{}, EOL: old.EOL}, Edits: []TextEdit{{0, 0, 0, 0, joined(old)}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := ParsePatch(diff)
		if err != nil || len(ps) != 2 {
			t.Fatalf("%v %+v\n%s", err, ps, diff)
		}
		del, err := ps[0].EditsFor(old)
		if err != nil || len(mustApply(t, old, del).Bytes()) != 0 {
			t.Errorf("%q: delete gives %v %v", content, del, err)
		}
		empty := Document{Lines: []string{}, EOL: old.EOL}
		create, err := ps[1].EditsFor(empty)
		if err != nil || !bytes.Equal(mustApply(t, empty, create).Bytes(), old.Bytes()) {
			t.Errorf("%q: create gives %v %v", content, create, err)
		}
	}
}

// A hunk's context lines are known unchanged: EditsFor gives one edit per
// run of removed and added lines, never one replacing the whole hunk (which
// Minimize then had to diff again: a hunk of 40,000 changes between context
// lines took go-diff's whole time bound).
func TestEditsForOneEditPerChange(t *testing.T) {
	old := doc("1\n2\n3\n4\n5\n6\n7\n")
	ps, err := ParsePatch("--- a/f\n+++ b/f\n@@ -1,7 +1,7 @@\n 1\n-2\n+two\n 3\n-4\n-5\n+four-five\n+and\n 6\n 7\n")
	if err != nil {
		t.Fatal(err)
	}
	edits, err := ps[0].EditsFor(old)
	if err != nil {
		t.Fatal(err)
	}
	want := []TextEdit{{1, 0, 2, 0, "two\n"}, {3, 0, 5, 0, "four-five\nand\n"}}
	if !slices.Equal(edits, want) {
		t.Fatalf("edits %v, want %v", edits, want)
	}
	if got := string(mustApply(t, old, edits).Bytes()); got != "1\ntwo\n3\nfour-five\nand\n6\n7\n" {
		t.Fatalf("got %q", got)
	}
}
