package workspace_test

// A cached tree is the tree a walk gives now: after a file is created,
// deleted or renamed, a folder added, or a .gitignore edited, TreeCached
// answers what Tree answers; unchanged, it answers without walking.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/workspace"
)

var cacheOpt = workspace.TreeOptions{MaxDepth: workspace.MaxTreeDepth, MaxEntries: workspace.MaxTreeEntries}

func put(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func treeJSON(t *testing.T, tr workspace.Tree) string {
	t.Helper()
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTreeCachedFollowsChanges(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	dir := t.TempDir()
	put(t, dir, "a.go", "package a\n")
	put(t, dir, "sub/b.go", "package sub\n")
	put(t, dir, "sub/deep/c.go", "package deep\n")
	put(t, dir, ".gitignore", "gen/\n")
	put(t, dir, "gen/g.go", "package gen\n")
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, err := root.TreeCached(".", cacheOpt)
	if err != nil {
		t.Fatal(err)
	}
	again, err := root.TreeCached(".", cacheOpt)
	if err != nil {
		t.Fatal(err)
	}
	if again.Root != first.Root {
		t.Fatal("an unchanged tree was walked again (nothing cached)")
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"file created in a subfolder", func() { put(t, dir, "sub/deep/new.go", "package deep\n") }},
		{"file deleted", func() { os.Remove(filepath.Join(dir, "sub/b.go")) }},
		{"file renamed", func() { os.Rename(filepath.Join(dir, "a.go"), filepath.Join(dir, "z.go")) }},
		{"folder created", func() { put(t, dir, "fresh/f.go", "package fresh\n") }},
		{"a .gitignore created in a subfolder", func() { put(t, dir, "sub/deep/.gitignore", "new.go\n") }},
		{".gitignore edited (same size)", func() { put(t, dir, ".gitignore", "sub/\n") }},
		{"file replaced by a folder", func() {
			os.Remove(filepath.Join(dir, "z.go"))
			put(t, dir, "z.go/inner.go", "package inner\n")
		}},
		{"deep folder removed", func() { os.RemoveAll(filepath.Join(dir, "fresh")) }},
	}
	prev := treeJSON(t, first)
	for _, st := range steps {
		testenv.FileClockTick(t, dir)
		st.change()
		got, err := root.TreeCached(".", cacheOpt)
		if err != nil {
			t.Fatal(err)
		}
		want, err := root.Tree(".", cacheOpt)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := treeJSON(t, got), treeJSON(t, want); g != w || g == prev {
			t.Fatalf("%s: cached tree\n%s\nwant\n%s\n(before: %s)", st.name, g, w, prev)
		}
		prev = treeJSON(t, got)
	}
}

// A walk made while its folders were being changed (within the racy
// margin) is not kept: the next call walks again.
func TestTreeCachedKeepsNoRacyWalk(t *testing.T) {
	dir := t.TempDir()
	put(t, dir, "a.go", "package a\n")
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	first, err := root.TreeCached(".", cacheOpt)
	if err != nil {
		t.Fatal(err)
	}
	again, err := root.TreeCached(".", cacheOpt)
	if err != nil {
		t.Fatal(err)
	}
	if again.Root == first.Root {
		t.Fatal("a walk of folders changed just before it was kept")
	}
}

// Concurrent callers (run with -race) get the tree a walk gives.
func TestTreeCachedConcurrent(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	dir := t.TempDir()
	for _, f := range []string{"a.go", "b/b.go", "b/c/c.go", "d/d.go"} {
		put(t, dir, f, "package x\n")
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := root.Tree(".", cacheOpt)
	if err != nil {
		t.Fatal(err)
	}
	w := treeJSON(t, want)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got, err := root.TreeCached(".", cacheOpt)
				if err != nil {
					errs <- err.Error()
					return
				}
				if b, _ := json.Marshal(got); string(b) != w {
					errs <- string(b)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("concurrent TreeCached: %s, want %s", e, w)
	}
}
