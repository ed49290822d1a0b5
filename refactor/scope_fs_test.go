package refactor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nvbridge/nvbridge/workspace"
)

// TestScopeReadsKeptUntilChanged: the go.mod files and package folders a
// scan's import resolution reads are read once while nothing happens to
// them, and read again once another process changes them: a go.mod
// rewritten to the same size with its modification time put back, one
// created where there was none, a package folder created, removed and
// replaced by a file; a go.mod that is a symlink is read every time.
func TestScopeReadsKeptUntilChanged(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod":   "module example.com/m\n",
		"sub/a.go": "package sub\n",
		"lib/b.go": "package lib\n",
	})
	dir := root.Dir()
	reads, lstats := map[string]int{}, map[string]int{}
	read, lstat := scopeReadFile, scopeLstat
	scopeReadFile = func(p string) ([]byte, error) {
		r, _ := filepath.Rel(dir, p)
		reads[filepath.ToSlash(r)]++
		return read(p)
	}
	scopeLstat = func(p string) (os.FileInfo, error) {
		r, _ := filepath.Rel(dir, p)
		lstats[filepath.ToSlash(r)]++
		return lstat(p)
	}
	defer func() { scopeReadFile, scopeLstat = read, lstat }()
	changes := fileChanges(dir)
	fs := func() followedFS { return followedFS{changes: changes, at: changes.Begin()} }
	sh := func(script string) {
		t.Helper()
		runShell(t, dir, script)
	}
	file := func(rel string) string {
		t.Helper()
		data, err := fs().ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			if os.IsNotExist(err) {
				return "(none)"
			}
			t.Fatal(err)
		}
		return string(data)
	}
	isDir := func(rel string) bool { return fs().IsDir(filepath.Join(dir, filepath.FromSlash(rel))) }
	check := func(what string, got, want any, n, wantN int) {
		t.Helper()
		if got != want || n != wantN {
			t.Fatalf("%s: %v after %d reads, want %v after %d", what, got, n, want, wantN)
		}
	}

	check("go.mod", file("go.mod"), "module example.com/m\n", reads["go.mod"], 1)
	check("go.mod again", file("go.mod"), "module example.com/m\n", reads["go.mod"], 1)
	sh("cp -p go.mod ref && printf 'module example.com/x\\n' > go.mod && touch -r ref go.mod && rm ref")
	check("go.mod rewritten", file("go.mod"), "module example.com/x\n", reads["go.mod"], 2)
	check("go.mod again", file("go.mod"), "module example.com/x\n", reads["go.mod"], 2)

	check("sub/go.mod", file("sub/go.mod"), "(none)", reads["sub/go.mod"], 1)
	check("sub/go.mod again", file("sub/go.mod"), "(none)", reads["sub/go.mod"], 1)
	sh("printf 'module example.com/sub\\n' > sub/go.mod")
	check("sub/go.mod created", file("sub/go.mod"), "module example.com/sub\n", reads["sub/go.mod"], 2)
	check("sub/go.mod again", file("sub/go.mod"), "module example.com/sub\n", reads["sub/go.mod"], 2)

	check("lib", isDir("lib"), true, lstats["lib"], 1)
	check("lib again", isDir("lib"), true, lstats["lib"], 1)
	check("lib/x", isDir("lib/x"), false, lstats["lib/x"], 1)
	check("lib/x again", isDir("lib/x"), false, lstats["lib/x"], 1)
	sh("mkdir lib/x")
	check("lib/x created", isDir("lib/x"), true, lstats["lib/x"], 2)
	check("lib/x again", isDir("lib/x"), true, lstats["lib/x"], 2)
	sh("rmdir lib/x && touch lib/x")
	check("lib/x a file", isDir("lib/x"), false, lstats["lib/x"], 3)
	sh("rm lib/x && mkdir lib/x")
	check("lib/x a folder again", isDir("lib/x"), true, lstats["lib/x"], 4)
	sh("mv lib lib2")
	check("lib moved away", isDir("lib"), false, lstats["lib"], 2)

	// A symlink's target may change unseen: never kept.
	sh("printf 'module example.com/t\\n' > target.mod && mkdir s && ln -s ../target.mod s/go.mod")
	check("s/go.mod, a symlink", file("s/go.mod"), "module example.com/t\n", reads["s/go.mod"], 1)
	check("s/go.mod again", file("s/go.mod"), "module example.com/t\n", reads["s/go.mod"], 2)
}

// TestNamingFilesSeesGoModChange: a rename's scan after a go.mod changed
// resolves its files' imports by the new module path, not the one the
// scan before read.
func TestNamingFilesSeesGoModChange(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	root := writeTree(t, map[string]string{
		"go.mod":     "module example.com/m\n",
		"auth/a.go":  "package auth\n\nfunc GetAuth() {}\n",
		"use/use.go": "package use\n\nimport \"example.com/m/auth\"\n\nvar x = auth.GetAuth\n",
	})
	want := "auth/a.go []; use/use.go [auth]"
	for range 2 {
		if got := namingDescribed(t, root, "GetAuth"); got != want {
			t.Fatalf("scan: %s\nwant %s", got, want)
		}
	}
	runShell(t, root.Dir(), "cp -p go.mod ref && printf 'module example.com/n\\n' > go.mod && touch -r ref go.mod && rm ref")
	if got, want := namingDescribed(t, root, "GetAuth"), "auth/a.go []; use/use.go []"; got != want {
		t.Fatalf("after go.mod named another module: %s\nwant %s", got, want)
	}
}
