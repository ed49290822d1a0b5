package lang

import (
	"strings"
	"testing"
)

func TestLookups(t *testing.T) {
	for _, tc := range []struct{ file, ft, want string }{
		{"orders/orders.go", "go", "go"},
		{"shop/orders.py", "python", "python"},
		{"shop/types.pyi", "", "python"},
		{"src/a.tsx", "typescriptreact", "typescript"},
		{"src/a.mjs", "javascript", "typescript"},
		{"src/geometry.c", "c", "c"},
		{"include/geometry.h", "", "c"},
		{"lua/nvbridge/bridge.lua", "lua", "lua"},
		{"src/main.rs", "rust", "rust"},
	} {
		if l := ForFile(tc.file); l == nil || l.Name != tc.want {
			t.Errorf("ForFile(%q) = %v, want %s", tc.file, l, tc.want)
		}
		if tc.ft != "" {
			if l := ForFiletype(tc.ft); l == nil || l.Name != tc.want {
				t.Errorf("ForFiletype(%q) = %v, want %s", tc.ft, l, tc.want)
			}
		}
	}
	if ForFile("README.md") != nil || ForFile("Makefile") != nil || ForFiletype("markdown") != nil || ForFiletype("") != nil {
		t.Error("unknown files and filetypes have no language")
	}
	if l := ByName("c"); l == nil || l.DisplayName() != "C" {
		t.Errorf("ByName(c) = %v", l)
	}
	if (*Language)(nil).DisplayName() != "this language" {
		t.Error("nil language's display name")
	}
}

func TestServerSpecs(t *testing.T) {
	specs := ServerSpecs()
	byName := map[string]ServerSpec{}
	for _, s := range specs {
		if s.Name == "" || len(s.Cmd) == 0 || len(s.Filetypes) == 0 {
			t.Errorf("incomplete spec %+v", s)
		}
		byName[s.Name] = s
	}
	for name, marker := range map[string]string{"gopls": "go.mod", "pyright": "pyproject.toml",
		"typescript-language-server": "tsconfig.json", "clangd": "compile_commands.json", "rust-analyzer": "Cargo.toml"} {
		s, ok := byName[name]
		if !ok || !contains(s.Markers, marker) {
			t.Errorf("spec %s = %+v, want marker %s", name, s, marker)
		}
	}
	if !contains(byName["gopls"].Filetypes, "gomod") || !contains(byName["clangd"].Filetypes, "cpp") {
		t.Error("servers get their language's filetypes")
	}
	if byName["pyright"].Settings == nil || byName["typescript-language-server"].InitOptions == nil {
		t.Error("settings and init options travel with the spec")
	}
	if l := ServerLanguage("clangd"); l == nil || l.Name != "c" {
		t.Errorf("ServerLanguage(clangd) = %v", l)
	}
}

func TestFileConventions(t *testing.T) {
	for file, want := range map[string]bool{
		"orders/orders_test.go": true, "orders/orders.go": false, "tests/helpers.go": true,
		"shop/test_orders.py": true, "shop/orders_test.py": true, "shop/testing.py": false,
		"src/orders.test.ts": true, "src/orders.spec.jsx": true, "src/orders.ts": false,
		"src/__tests__/x.ts": true, "tests/test_geometry.c": true, "src/geometry_test.c": true, "src/geometry.c": false,
	} {
		if IsTestFile(file) != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", file, !want, want)
		}
	}
	for _, tc := range []struct {
		file, name, decl, kind string
		want                   bool
	}{
		{"a.go", "Process", "func Process()", "function", true},
		{"a.go", "process", "func process()", "function", false},
		{"a.py", "_private", "def _private():", "function", false},
		{"a.py", "public", "def public():", "function", true},
		{"a.ts", "f", "export function f() {", "function", true},
		{"a.ts", "g", "function g() {", "function", false},
		{"a.ts", "m", "private m() {", "method", false},
		{"a.ts", "n", "n() {", "method", true},
		{"a.c", "area", "double area(struct shape s) {", "function", true},
		{"a.c", "helper", "static int helper(void) {", "function", false},
		{"a.txt", "_x", "", "", false},
		{"a.txt", "x", "", "", true},
		{"a.go", "", "", "", false},
	} {
		if got := IsExported(tc.file, tc.name, tc.decl, tc.kind); got != tc.want {
			t.Errorf("IsExported(%s, %s, %q) = %v, want %v", tc.file, tc.name, tc.decl, got, tc.want)
		}
	}
	for rel, want := range map[string]string{
		"orders/orders.go": "orders", "main.go": ".", "shop/orders.py": "shop.orders", "shop/__init__.py": "shop",
		"src/orders.ts": "src/orders", "src/geometry.c": "src/geometry",
	} {
		if got := PackageOf(rel); got != want {
			t.Errorf("PackageOf(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestAnswersAfterOpen(t *testing.T) {
	// gopls answers from the opened text and waits for its own load;
	// the others are waited for (their first answers are partial), and so
	// is a name no spec declares (a user's own client in attached mode).
	for name, want := range map[string]bool{"gopls": true, "pyright": false, "typescript-language-server": false, "clangd": false, "user-gopls": false} {
		if got := AnswersAfterOpen(name); got != want {
			t.Errorf("AnswersAfterOpen(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestTreeSitterFor: the tree-sitter language of a file by its extension.
func TestTreeSitterFor(t *testing.T) {
	for file, want := range map[string]string{
		"a/b.py": "python", "x.pyi": "python", "src/app.ts": "typescript", "m.MTS": "typescript",
		"c.cts": "typescript", "App.tsx": "tsx", "lib.js": "tsx", "x.jsx": "tsx", "y.mjs": "tsx",
		"main.c": "c", "init.lua": "lua", "main.go": "", "README": "", "notes.txt": "",
	} {
		if got := TreeSitterFor(file); got != want {
			t.Errorf("TreeSitterFor(%q) = %q, want %q", file, got, want)
		}
	}
	if got := strings.Join(TreeSitterLanguages(), ","); got != "c,lua,python,tsx,typescript" {
		t.Errorf("TreeSitterLanguages: %s", got)
	}
}

// TestForTreeSitter: a tree-sitter language names the registry's language
// that parses with it (TSX and TypeScript both TypeScript's), whose
// grammar the syntax layer reads; C's parser has no grammar described.
func TestForTreeSitter(t *testing.T) {
	for ts, want := range map[string]*Language{"python": Python, "typescript": TypeScript, "tsx": TypeScript, "c": C, "cobol": nil} {
		if got := ForTreeSitter(ts); got != want {
			t.Errorf("ForTreeSitter(%q) = %v, want %v", ts, got, want)
		}
	}
	if Python.Grammar == nil || TypeScript.Grammar == nil || C.Grammar != nil {
		t.Errorf("grammars: python %v, typescript %v, c %v", Python.Grammar, TypeScript.Grammar, C.Grammar)
	}
}

// TestRenameAsPrepared: gopls's rename stands for its prepareRename on
// any line but a package clause (whose placeholder is the package's path);
// a server without RenameAsPrepared, by name or client name, never does.
func TestRenameAsPrepared(t *testing.T) {
	cases := []struct {
		client, line string
		want         bool
	}{
		{"gopls", "func (log *Logger) check(lvl zapcore.Level, msg string) *zapcore.CheckedEntry {", true},
		{"gopls", "\tgreeting := \"héllo 世界 🎉 \" + name", true},
		{"gopls", "package widgets", false},
		{"gopls", "package widgets // import \"example.com/shop/widgets\"", false},
		{"pyright", "def check(self):", false},
		{"clangd", "void luaD_throw (lua_State *L, int errcode) {", false},
		{"nosuchserver", "x := 1", false},
	}
	for _, c := range cases {
		if got := RenameAsPrepared(c.client, c.line); got != c.want {
			t.Errorf("RenameAsPrepared(%q, %q) = %v, want %v", c.client, c.line, got, c.want)
		}
	}
	if !Go.RenamesAsPrepared() || Python.RenamesAsPrepared() {
		t.Errorf("RenamesAsPrepared: Go %v, Python %v", Go.RenamesAsPrepared(), Python.RenamesAsPrepared())
	}
}
