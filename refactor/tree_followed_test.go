package refactor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/workspace"
)

// TestProjectTreeFollowed: a rename's scan after another, nothing having
// happened under the root, lists the language's files from the tree the
// last scan confirmed, without checking its stamps; whatever another
// process does under the root (a file created in a folder, one removed, a
// folder made with a file in it, a .gitignore rewritten to the same size
// with its modification time put back), the next scan's list shows it. A
// tree with a .gitignore that is a symlink is checked by its stamps on
// every scan.
func TestProjectTreeFollowed(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	root := writeTree(t, map[string]string{
		"go.mod":     "module example.com/m\n",
		".gitignore": "gen.go\n",
		"a/a.go":     "package a\n",
		"b/b.go":     "package b\n",
		"b/gen.go":   "package b\n",
	})
	dir := root.Dir()
	checks := 0
	cached := treeCached
	treeCached = func(r workspace.Root) (workspace.Tree, error) {
		checks++
		return cached(r)
	}
	defer func() { treeCached = cached }()
	changes := fileChanges(dir)
	list := func() string {
		t.Helper()
		tree, err := projectTree(root, changes, changes.Begin())
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(languageFilesOf(tree, nil, lang.Go), " ")
	}
	step := func(what, want string, wantChecks int) {
		t.Helper()
		checks = 0
		if got := list(); got != want || checks != wantChecks {
			t.Fatalf("%s: %q after %d checks by the stamps, want %q after %d", what, got, checks, want, wantChecks)
		}
	}
	sh := func(script string) {
		t.Helper()
		runShell(t, dir, script)
	}
	step("first", "a/a.go b/b.go", 2)
	step("again, nothing changed", "a/a.go b/b.go", 0)
	sh("printf 'package a\\n' > a/c.go")
	step("a file created", "a/a.go a/c.go b/b.go", 2)
	step("again", "a/a.go a/c.go b/b.go", 0)
	sh("rm b/b.go")
	step("a file removed", "a/a.go a/c.go", 2)
	step("again", "a/a.go a/c.go", 0)
	sh("mkdir -p d/e && printf 'package e\\n' > d/e/e.go")
	step("a folder made", "a/a.go a/c.go d/e/e.go", 2)
	step("again", "a/a.go a/c.go d/e/e.go", 0)
	sh("printf 'package e\\n' > d/e/f.go")
	step("a file created in the new folder", "a/a.go a/c.go d/e/e.go d/e/f.go", 2)
	sh("cp -p .gitignore ref && printf 'c.go\\n' > .gitignore && touch -r ref .gitignore && rm ref")
	step(".gitignore rewritten", "a/a.go b/gen.go d/e/e.go d/e/f.go", 2)
	step("again", "a/a.go b/gen.go d/e/e.go d/e/f.go", 0)
	sh("mv .gitignore real.ignore && ln -s real.ignore .gitignore")
	step(".gitignore a symlink", "a/a.go b/gen.go d/e/e.go d/e/f.go", 1)
	step("again, by its stamps", "a/a.go b/gen.go d/e/e.go d/e/f.go", 1)
}

// TestFollowedByTheirChanges: what was kept at a moment of one Changes
// (the tree, a go.mod read) is not taken at another's moment, which says
// nothing of what the first saw (a root followed again after its Changes
// was closed: the new one's moments start again from the first).
func TestFollowedByTheirChanges(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	root := writeTree(t, map[string]string{
		"go.mod": "module example.com/m\n",
		"a/a.go": "package a\n",
	})
	dir := root.Dir()
	first := workspace.NewChanges(dir)
	defer first.Close()
	list := func(c *workspace.Changes) string {
		t.Helper()
		tree, err := projectTree(root, c, c.Begin())
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(languageFilesOf(tree, nil, lang.Go), " ")
	}
	goMod := filepath.Join(dir, "go.mod")
	read := func(c *workspace.Changes) string {
		t.Helper()
		data, err := followedFS{changes: c, at: c.Begin()}.ReadFile(goMod)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got := list(first); got != "a/a.go" {
		t.Fatalf("first: %q", got)
	}
	if got := read(first); got != "module example.com/m\n" {
		t.Fatalf("first go.mod: %q", got)
	}
	runShell(t, dir, "printf 'package a\\n' > a/b.go && printf 'module example.com/n\\n' > go.mod")
	// Another Changes of the root, watching its folders, at its first
	// moment (as the first's was when it kept them).
	second := workspace.NewChanges(dir)
	defer second.Close()
	if !second.WatchDir(filepath.Join(dir, "a")) {
		t.Fatal("a not watched")
	}
	if got := list(second); got != "a/a.go a/b.go" {
		t.Fatalf("by another Changes: %q, want a/b.go too", got)
	}
	if got := read(second); got != "module example.com/n\n" {
		t.Fatalf("go.mod by another Changes: %q", got)
	}
}
