package lsp

// The files a change's diagnostics delta compares: touched ones, their
// importers (through other files too), a touched Go package's files; not
// the others.

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/lang"
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

// TestChangeScopeAffected: the workspace files a pulled delta asks about
// (and counts, for test files): a package is its folder, so a file of an
// importing package that does not itself import the touched one is in (a
// declaration of the package may have a touched package's type); the
// importers' importers too; not a package that imports none of them, nor
// testdata. The fingerprint moves when a file scanned changes.
func TestChangeScopeAffected(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"a/a.go":          "package a\n\nfunc A() int { return 1 }\n",
		"a/a_test.go":     "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) { _ = A() }\n",
		"b/b.go":          "package b\n\nimport \"example.com/m/a\"\n\nvar V = a.A()\n",
		"b/b2.go":         "package b\n\nfunc B() int { return V }\n",
		"b/b_test.go":     "package b\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { _ = B() }\n",
		"c/c.go":          "package c\n\nimport \"example.com/m/b\"\n\nfunc C() int { return b.B() }\n",
		"d/d.go":          "package d\n\nimport \"fmt\"\n\nfunc D() { fmt.Println() }\n",
		"d/d_test.go":     "package d\n\nimport \"testing\"\n\nfunc TestD(t *testing.T) {}\n",
		"testdata/x.go":   "package x\n\nimport \"example.com/m/a\"\n\nvar X = a.A()\n",
		"e/test/e.go":     "package test\n\nimport \"example.com/m/a\"\n\nvar E = a.A()\n",
		"py/pkg/user.py":  "from .mod import f\n",
		"notes/readme.md": "a\n",
		// An external test package imports a; its package does not (zap's
		// zapcore: zapcore_test imports zap, which imports zapcore), nor
		// does g, which imports f.
		"f/f.go":          "package f\n\nfunc F() int { return 2 }\n",
		"f/f_ext_test.go": "package f_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/a\"\n\t\"example.com/m/f\"\n)\n\nfunc TestF(t *testing.T) { _ = a.A() + f.F() }\n",
		"g/g.go":          "package g\n\nimport \"example.com/m/f\"\n\nvar G = f.F()\n",
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
	got, print, ok := newChangeScope(dir, []string{abs("a/a.go")}).affected(lang.Go)
	if !ok || print == "" {
		t.Fatalf("affected: ok %v, print %q", ok, print)
	}
	var rels []string
	for _, p := range got {
		r, _ := filepath.Rel(dir, p)
		rels = append(rels, filepath.ToSlash(r))
	}
	want := []string{"a/a.go", "a/a_test.go", "b/b.go", "b/b2.go", "b/b_test.go", "c/c.go", "e/test/e.go", "f/f_ext_test.go"}
	if strings.Join(rels, " ") != strings.Join(want, " ") {
		t.Fatalf("affected %v, want %v", rels, want)
	}
	tests := 0
	for _, p := range got {
		if testFileOf(lang.Go, p) {
			tests++
		}
	}
	if tests != 3 {
		t.Fatalf("%d test files in %v, want 3 (a Go file in a folder named test is not one)", tests, rels)
	}
	_, again, _ := newChangeScope(dir, []string{abs("a/a.go")}).affected(lang.Go)
	if again != print {
		t.Fatalf("the fingerprint moved with nothing changed")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(abs("d/d.go"), later, later); err != nil {
		t.Fatal(err)
	}
	if _, moved, _ := newChangeScope(dir, []string{abs("a/a.go")}).affected(lang.Go); moved == print {
		t.Fatalf("the fingerprint did not move when d/d.go changed")
	}
}

// TestChangeScopeMemo: a client's scopes keep the last answer: the same
// touched files with nothing changed on disk reuse it without reading a
// file; a file added (or changed) anywhere in the workspace, or other
// touched files, find the scope again.
func TestChangeScopeMemo(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a/a.go": "package a\n\nfunc A() int { return 1 }\n",
		"b/b.go": "package b\n\nimport \"example.com/m/a\"\n\nvar V = a.A()\n",
		"c/c.go": "package c\n\nfunc C() int { return 3 }\n",
	}
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, text := range files {
		write(rel, text)
	}
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	var memo atomic.Pointer[scopeRecord]
	scope := func(touched string) (*changeScope, []string) {
		s := newChangeScope(dir, []string{abs(touched)})
		s.memo = &memo
		got, _, ok := s.affected(lang.Go)
		if !ok {
			t.Fatal("affected: not ok")
		}
		var rels []string
		for _, p := range got {
			r, _ := filepath.Rel(dir, p)
			rels = append(rels, filepath.ToSlash(r))
		}
		return s, rels
	}
	first, got := scope("a/a.go")
	if strings.Join(got, " ") != "a/a.go b/b.go" || first.reads == 0 {
		t.Fatalf("first: %v, %d files read", got, first.reads)
	}
	again, got := scope("a/a.go")
	if strings.Join(got, " ") != "a/a.go b/b.go" || again.reads != 0 {
		t.Fatalf("again: %v, %d files read (want the memo's answer, none read)", got, again.reads)
	}
	other, got := scope("c/c.go")
	if strings.Join(got, " ") != "c/c.go" || other.reads == 0 {
		t.Fatalf("other touched files: %v, %d files read", got, other.reads)
	}
	scope("a/a.go")
	write("d/d.go", "package d\n\nimport \"example.com/m/b\"\n\nvar D = b.V\n")
	added, got := scope("a/a.go")
	if strings.Join(got, " ") != "a/a.go b/b.go d/d.go" || added.reads == 0 {
		t.Fatalf("after d/d.go was added: %v, %d files read", got, added.reads)
	}
}
