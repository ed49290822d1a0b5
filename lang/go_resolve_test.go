package lang

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestGoResolveReadsGoModOnce: a scope resolving the imports of files in
// several folders of one module reads its go.mod once (each folder
// below asked for its own first), and resolves as before.
func TestGoResolveReadsGoModOnce(t *testing.T) {
	root := t.TempDir()
	for rel, text := range map[string]string{
		"go.mod":       "module example.com/m\n",
		"main.go":      "package main\n",
		"a/b/b.go":     "package b\n",
		"a/b/c/c.go":   "package c\n",
		"lib/lib.go":   "package lib\n",
		"lib/x/x.go":   "package x\n",
		"notdir/go.go": "package notdir\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reads := map[string]int{}
	read := readGoMod
	readGoMod = func(p string) ([]byte, error) {
		rel, _ := filepath.Rel(root, p)
		reads[filepath.ToSlash(rel)]++
		return read(p)
	}
	defer func() { readGoMod = read }()
	s := NewScope(root)
	resolve := func(from, path string) []string {
		return goResolve(s, filepath.Join(root, filepath.FromSlash(from)), Import{Path: path})
	}
	lib := []string{filepath.Join(root, "lib")}
	for _, from := range []string{"main.go", "a/b/c/c.go", "a/b/b.go", "lib/x/x.go"} {
		if got := resolve(from, "example.com/m/lib"); !reflect.DeepEqual(got, lib) {
			t.Errorf("from %s: %v, want %v", from, got, lib)
		}
		if got := resolve(from, "example.com/m/missing"); got != nil {
			t.Errorf("from %s, a missing package: %v", from, got)
		}
		if got := resolve(from, "fmt"); got != nil {
			t.Errorf("from %s, the standard library: %v", from, got)
		}
	}
	want := map[string]int{"go.mod": 1, "a/b/c/go.mod": 1, "a/b/go.mod": 1, "a/go.mod": 1, "lib/go.mod": 1, "lib/x/go.mod": 1}
	if !reflect.DeepEqual(reads, want) {
		t.Errorf("go.mod reads %v, want each once: %v", reads, want)
	}
}
