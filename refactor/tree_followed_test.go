package refactor

import (
	"os/exec"
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
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", script, err, out)
		}
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
