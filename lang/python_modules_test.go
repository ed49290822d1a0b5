package lang

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPythonModule: module names as Python resolves them, never src.pkg.
func TestPythonModule(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"src/requests/__init__.py": "", "src/requests/auth.py": "",
		"src/ns/pkg/__init__.py": "", "src/ns/pkg/mod.py": "", // a namespace package
		"lib/flat/__init__.py": "", "lib/flat/x.py": "",
		"tests/test_x.py": "", "top.py": "",
	})
	s := NewScope(dir)
	for rel, want := range map[string]string{
		"src/requests/auth.py": "requests.auth", "src/requests/__init__.py": "requests",
		"src/ns/pkg/mod.py": "ns.pkg.mod", "lib/flat/x.py": "flat.x", "tests/test_x.py": "tests.test_x", "top.py": "top",
	} {
		if got := PythonModule(s, filepath.Join(dir, rel)); got != want {
			t.Errorf("PythonModule(%s) = %q, want %q", rel, got, want)
		}
	}
}

func TestParsePythonMin(t *testing.T) {
	for spec, want := range map[string]int{">=3.7": 7, ">=3.10, <4": 10, "~=3.8": 8, ">3.9": 9, "==3.12.*": 12} {
		if got, ok := ParsePythonMin(spec); !ok || got != want {
			t.Errorf("ParsePythonMin(%q) = %d, %v; want %d", spec, got, ok, want)
		}
	}
	dir := writeFiles(t, map[string]string{"pyproject.toml": "[project]\nname = \"x\"\nrequires-python = \">=3.10\"\n"})
	if got, ok := PythonMinVersion(dir); !ok || got != 10 {
		t.Errorf("PythonMinVersion = %d, %v", got, ok)
	}
}

// TestProjectIndent: the formatter's settings first, then what the files
// show.
func TestProjectIndent(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  Indent
	}{
		{"editorconfig", map[string]string{".editorconfig": "root = true\n[*]\nindent_style = space\nindent_size = 4\n[*.{ts,tsx}]\nindent_size = 2\n"}, Indent{Width: 2, From: ".editorconfig"}},
		{"biome", map[string]string{"biome.json": "{\n // comment\n \"formatter\": {\"indentStyle\": \"space\", \"indentWidth\": 2}}"}, Indent{Width: 2, From: "biome.json"}},
		{"biome tabs by default", map[string]string{"biome.json": "{}"}, Indent{Width: 2, Tabs: true, From: "biome.json"}},
		{"prettier", map[string]string{"package.json": "{\"prettier\": {\"tabWidth\": 4}}"}, Indent{Width: 4, From: "package.json prettier"}},
		{"inferred", map[string]string{"src/a.ts": "export function f() {\n  if (x) {\n    y();\n  }\n}\n"}, Indent{Width: 2, From: "inferred from src/a.ts"}},
	}
	for _, c := range cases {
		got, ok := ProjectIndent(writeFiles(t, c.files), TypeScript)
		if !ok || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, ok, c.want)
		}
	}
	// C: .clang-format's C/C++ section, its style's width, then inference;
	// TypeScript never reads it.
	cfiles := []struct {
		name  string
		files map[string]string
		want  Indent
	}{
		{"kernel", map[string]string{".clang-format": "BasedOnStyle: LLVM\nIndentWidth: 8\nUseTab: Always\n"}, Indent{Width: 8, Tabs: true, From: ".clang-format"}},
		{"style width", map[string]string{"_clang-format": "BasedOnStyle: WebKit # four\n"}, Indent{Width: 4, From: "_clang-format"}},
		{"C++ section", map[string]string{".clang-format": "---\nLanguage: JavaScript\nIndentWidth: 8\n---\nLanguage: Cpp\nBasedOnStyle: Google\n"}, Indent{Width: 2, From: ".clang-format"}},
		{"editorconfig first", map[string]string{".clang-format": "IndentWidth: 8\n", ".editorconfig": "[*.c]\nindent_style = space\nindent_size = 3\n"}, Indent{Width: 3, From: ".editorconfig"}},
	}
	for _, c := range cfiles {
		got, ok := ProjectIndent(writeFiles(t, c.files), C)
		if !ok || got != c.want {
			t.Errorf("C %s: %+v, %v; want %+v", c.name, got, ok, c.want)
		}
	}
	if got, ok := ProjectIndent(writeFiles(t, map[string]string{".clang-format": "IndentWidth: 8\n", "a.ts": "f() {\n  x;\n}\n"}), TypeScript); !ok || got.Width != 2 {
		t.Errorf("TypeScript read .clang-format: %+v", got)
	}
}
