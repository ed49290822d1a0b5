package refactor

// Table tests of move_symbol's pure pieces: Go import insertion and
// removal, the import cycle check, tsserver end-of-file positions, the
// removal of imports a move left unused, Python's relative modules.

import (
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

func TestMoveAddImports(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"none", "package a\n\nfunc F() {}\n", "package a\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/m/b\"\n)\n\nfunc F() {}\n"},
		{"single line", "package a\n\nimport \"os\"\n", "package a\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n\t\"example.com/m/b\"\n)\n"},
		{"block of std", "package a\n\nimport (\n\t\"os\"\n)\n", "package a\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\n\t\"example.com/m/b\"\n)\n"},
		{"already", "package a\n\nimport (\n\t\"fmt\"\n\n\tbb \"example.com/m/b\"\n)\n", "package a\n\nimport (\n\t\"fmt\"\n\n\tbb \"example.com/m/b\"\n)\n"},
	}
	for _, c := range cases {
		got, names, err := addImports("a.go", c.src, map[string]string{"fmt": "fmt", "example.com/m/b": "b"})
		if err != nil {
			t.Fatal(err)
		}
		// planGoMove gofmt's the result (which sorts each group).
		if f, err := format.Source([]byte(got)); err != nil || string(f) != c.want {
			t.Errorf("%s:\n got %q\nwant %q (%v)", c.name, f, c.want, err)
		}
		if c.name == "already" && names["example.com/m/b"] != "bb" {
			t.Errorf("existing alias not used: %v", names)
		}
	}
	// zap's three groups: a new import joins the group it shares the
	// longest path with, at its sorted place, and no group is reordered.
	zapSrc := "package zap\n\nimport (\n\t\"fmt\"\n\n\t\"go.uber.org/zap/zapcore\"\n\n\t\"go.uber.org/multierr\"\n)\n"
	got, _, err := addImports("sugar.go", zapSrc, map[string]string{"strings": "strings", "go.uber.org/zap/internal/bufferpool": "bufferpool"})
	want := "package zap\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\n\t\"go.uber.org/zap/internal/bufferpool\"\n\t\"go.uber.org/zap/zapcore\"\n\n\t\"go.uber.org/multierr\"\n)\n"
	if err != nil || got != want {
		t.Errorf("zap's groups:\n got %q\nwant %q (%v)", got, want, err)
	}
	// A name taken by another import gets a number.
	got, names, _ := addImports("a.go", "package a\n\nimport \"example.com/x/b\"\n", map[string]string{"example.com/m/b": "b"})
	if names["example.com/m/b"] != "b2" || !strings.Contains(got, "b2 \"example.com/m/b\"") {
		t.Errorf("clash: %v\n%s", names, got)
	}
}

func TestMoveDropUnusedImport(t *testing.T) {
	src := "package a\n\nimport (\n\t\"fmt\"\n\t\"example.com/m/b\"\n)\n\nvar _ = fmt.Sprint\n"
	got, err := dropUnusedImport("a.go", src, "example.com/m/b")
	if err != nil || got != "package a\n\nimport (\n\t\"fmt\"\n)\n\nvar _ = fmt.Sprint\n" {
		t.Errorf("got %q, %v", got, err)
	}
	if got, _ := dropUnusedImport("a.go", src, "fmt"); got != src {
		t.Errorf("a used import was removed: %q", got)
	}
	one := "package a\n\nimport \"example.com/m/b\"\n\nfunc F() {}\n"
	if got, _ := dropUnusedImport("a.go", one, "example.com/m/b"); got != "package a\n\n\nfunc F() {}\n" {
		t.Errorf("single: %q", got)
	}
}

func TestMoveCycle(t *testing.T) {
	in := goMoveInput{
		Files: map[string]string{"a/a.go": "package a\n\nimport \"m/b\"\n", "b/b.go": "package b\n", "b/b_test.go": "package b\n\nimport \"m/c\"\n"},
		Dirs:  map[string][]string{"a": {"a/a.go"}, "b": {"b/b.go", "b/b_test.go"}},
		Graph: map[string][]string{"m/a": {"m/b"}, "m/b": {}, "m/c": {"m/a"}}, TestGraph: map[string][]string{"m/b": {"m/c"}},
		ImportPath: func(d string) string { return "m/" + d },
		Target:     "b/b.go", TargetExists: true,
	}
	if err := checkGoCycle(in, map[string]string{"b/b.go": "package b\n\nimport \"m/a\"\n"}); err == nil || !strings.Contains(err.Error(), "m/b -> m/a -> m/b") {
		t.Errorf("direct cycle: %v", err)
	}
	// b's own tests import c, which imports a: a -> b is fine, but b -> x
	// -> ... -> b through the tests is not.
	in.Graph = map[string][]string{"m/a": {}, "m/b": {}, "m/c": {"m/a"}}
	if err := checkGoCycle(in, map[string]string{"a/a.go": "package a\n\nimport \"m/b\"\n"}); err == nil || !strings.Contains(err.Error(), "own tests") {
		t.Errorf("test cycle: %v", err)
	}
	if err := checkGoCycle(in, map[string]string{"a/a.go": "package a\n"}); err != nil {
		t.Errorf("no cycle: %v", err)
	}
}

func TestMoveTSEndOfFile(t *testing.T) {
	doc := preview.ParseDocument("a\n}\n")
	// tsserver's copy answers (2, 3) for the end of "a\n}\n": past "}".
	if p := (tsLocation{Line: 2, Offset: 3}).lsp(doc); p.Line != 2 || p.Character != 0 {
		t.Errorf("end of file: %+v", p)
	}
	if p := (tsLocation{Line: 2, Offset: 2}).lsp(doc); p.Line != 1 || p.Character != 1 {
		t.Errorf("end of line: %+v", p)
	}
	if p := (tsLocation{Line: 0, Offset: 0}).lsp(preview.Document{}); p.Line != 0 || p.Character != 0 {
		t.Errorf("new file: %+v", p)
	}
}

func TestMoveDropUnusedModuleImports(t *testing.T) {
	ts := lang.TypeScript
	all := func(lang.Import) bool { return true }
	src := "import { a, b } from \"./x\";\nimport * as ns from \"./x\";\nimport { c } from \"./y\";\n\nexport const v = b + c + `${ns}`;\n"
	want := "import { b } from \"./x\";\nimport * as ns from \"./x\";\nimport { c } from \"./y\";\n\nexport const v = b + c + `${ns}`;\n"
	if got := dropUnusedModuleImports(ts, src, all); got != want {
		t.Errorf("ts:\n got %q\nwant %q", got, want)
	}
	// A name mentioned only in a comment stays (never remove what may be used).
	src = "import { a } from \"./x\";\n// a is gone\n"
	if got := dropUnusedModuleImports(ts, src, all); got != src {
		t.Errorf("comment: %q", got)
	}
	py := lang.Python
	src = "import shop.geometry\nfrom shop.geometry import area, perimeter\nfrom shop import measure\n\nprint(measure.area(1), perimeter(2))\n"
	want = "from shop.geometry import perimeter\nfrom shop import measure\n\nprint(measure.area(1), perimeter(2))\n"
	if got := dropUnusedModuleImports(py, src, all); got != want {
		t.Errorf("python:\n got %q\nwant %q", got, want)
	}
}

// keepMovedLayout: tsserver's reprint of moved code undone (zod's
// quotelessJson moved to a new file: an empty first line; a doc comment
// set apart; "{}" printed "{ }"; appended right after the last line).
func TestKeepMovedLayout(t *testing.T) {
	src := "import x from \"y\";\n\n/** Doc. */\nexport const f = (o: any) => {\n  const j = JSON.stringify(o,  null, 2);\n  return j;\n};\n\nexport class K {\n  constructor() {}\n}\n"
	// Lines 2-7 (0-based) go: the comment, the function and the empty line after it.
	deleted := []bool{false, false, true, true, true, true, true, true}
	cases := []struct {
		name, target string
		created      bool
		want         string
	}{
		{"created", "\n/** Doc. */\n\nexport const f = (o: any) => {\n  const j = JSON.stringify(o, null, 2);\n  return j;\n};\n", true,
			"/** Doc. */\nexport const f = (o: any) => {\n  const j = JSON.stringify(o,  null, 2);\n  return j;\n};\n"},
		{"appended", "export function g() {\n  return 1;\n}\n/** Doc. */\nexport const f = (o: any) => {\n    const j = JSON.stringify(o, null, 2);\n    return j;\n};\n", false,
			"export function g() {\n  return 1;\n}\n\n/** Doc. */\nexport const f = (o: any) => {\n  const j = JSON.stringify(o,  null, 2);\n  return j;\n};\n"},
		{"kept code untouched", "export class K {\n  constructor() { }\n}\n", false, "export class K {\n  constructor() { }\n}\n"},
	}
	for _, c := range cases {
		if got := keepMovedLayout(src, deleted, c.target, c.created); got != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}

// A file a move creates takes the line endings of the files it read.
func TestTextsChangesetNewFileEOL(t *testing.T) {
	for _, eol := range []string{"\r\n", "\n"} {
		src := preview.ParseDocument("def f():" + eol + "    return 1" + eol)
		files := moveFiles{docs: map[string]preview.Document{"pkg/a.py": src}, texts: map[string]string{"pkg/a.py": src.Mapper().Text()},
			exists: map[string]bool{"pkg/a.py": true}}
		cs, err := textsChangeset(files, map[string]string{"pkg/a.py": "", "pkg/b.py": "def f():\n    return 1\n"})
		if err != nil {
			t.Fatal(err)
		}
		var created *preview.FileChange
		for i := range cs.Files {
			if cs.Files[i].Kind == preview.OpCreate {
				created = &cs.Files[i]
			}
		}
		if created == nil || created.Path != "pkg/b.py" || created.Old.EOL != eol {
			t.Errorf("%q: created %+v", eol, created)
		}
	}
}

// The imports a TypeScript move adds to its target: names sorted, types
// marked (import type when all are), a type merged with a value of its
// name left unmarked, the target's other imports untouched.
func TestStyleAddedImports(t *testing.T) {
	util := "export type LazyMethodsOf<T> = Partial<T>;\ntype AnyFunc = (...a: any[]) => any;\nexport interface Shape { x: number }\n" +
		"export function claim(): void {}\nexport const defineCached = 1;\nexport type Both = number;\nexport const Both = 2;\n"
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "util.ts"), []byte("// the text before the move\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after := map[string]string{"src/util.ts": util}
	rel := func(abs string) string { r, _ := filepath.Rel(root, abs); return filepath.ToSlash(r) }
	before := "import { z } from \"./z.js\";\n\nexport const version = 4;\n"
	target := "import { z } from \"./z.js\";\nimport { LazyMethodsOf, claim, defineCached, AnyFunc, Both } from \"./util.js\";\nimport { Shape } from './util';\n\nexport const version = 4;\n"
	want := "import { z } from \"./z.js\";\nimport { type AnyFunc, Both, type LazyMethodsOf, claim, defineCached } from \"./util.js\";\nimport type { Shape } from './util';\n\nexport const version = 4;\n"
	// The module is read from after (the move changed it), by its path.
	got := styleAddedImports(filepath.Join(root, "src", "versions.ts"), before, target, after, rel)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
