package lsp

// The files a change's diagnostics delta compares: touched ones, their
// importers (through other files too), a touched Go package's files; not
// the others.

import (
	"os"
	"path/filepath"
	"testing"
)

func TestChangeScope(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":             "module example.com/m\n\ngo 1.22\n",
		"a/a.go":             "package a\n\nfunc A() int { return 1 }\n",
		"a/a2.go":            "package a\n\nfunc A2() int { return A() }\n",
		"b/b.go":             "package b\n\nimport \"example.com/m/a\"\n\nfunc B() int { return a.A() }\n",
		"c/c.go":             "package c\n\nimport \"example.com/m/b\"\n\nfunc C() int { return b.B() }\n",
		"d/d.go":             "package d\n\nimport \"fmt\"\n\nfunc D() { fmt.Println() }\n",
		"py/pkg/__init__.py": "",
		"py/pkg/mod.py":      "def f():\n    return 1\n",
		"py/pkg/user.py":     "from .mod import f\n",
		"py/pkg/other.py":    "import os\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	s := newChangeScope(dir, []string{abs("a/a.go"), abs("py/pkg/mod.py")})
	for rel, want := range map[string]bool{
		"a/a.go": true, "a/a2.go": true, "b/b.go": true, "c/c.go": true, "d/d.go": false,
		"py/pkg/user.py": true, "py/pkg/other.py": false,
	} {
		if got := s.affects(abs(rel)); got != want {
			t.Errorf("affects(%s) = %v, want %v", rel, got, want)
		}
	}
}
