package syntax_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/syntax"
)

// embedded starts a real headless Neovim (no language servers: the root
// has no markers) with the parsers `make deps` built.
func embedded(t *testing.T) *nvim.Session {
	t.Helper()
	s, _ := testenv.Embedded(t, t.TempDir())
	return s
}

func remediation(err error) string {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Remediation
	}
	return ""
}

func code(err error) apierr.Code {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

const pySrc = `import os

def greet(name, *, loud=False):
    """Say hello."""
    msg = "héllo " + name
    return msg.upper() if loud else msg

@staticmethod
def twice(x):
    return x * 2

s = "é😀"; r = greet(s, loud=twice(1) > 1)
`

// TestPythonQuery: captures from the real Python parser, with byte
// positions (the é and the emoji before the call count in bytes).
func TestPythonQuery(t *testing.T) {
	s := embedded(t)
	ctx := testenv.Context(t)
	if got := s.Parsers()["python"]; got != "nvbridge" {
		t.Fatalf("python parser: %q, want nvbridge (all: %v)", got, s.Parsers())
	}
	src := syntax.Text("python", pySrc)
	matches, err := syntax.Query(ctx, s, src, `(function_definition name: (identifier) @name parameters: (parameters) @params) @def`, syntax.QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) != 2 {
		t.Fatalf("%d matches, want 2: %+v", len(matches), matches)
	}
	if n := matches[0].Get("name"); n == nil || n.Text != "greet" || n.StartRow != 2 || n.StartCol != 4 {
		t.Errorf("first name: %v", n)
	}
	if p := matches[0].Get("params"); p == nil || p.Text != "(name, *, loud=False)" {
		t.Errorf("params: %v", p)
	}
	if n := matches[1].Get("name"); n == nil || n.Text != "twice" {
		t.Errorf("second name: %v", n)
	}

	calls, err := syntax.Captures(ctx, s, src, `(call function: (identifier) @fn)`, "fn", 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range calls {
		names = append(names, c.Text)
	}
	if strings.Join(names, ",") != "greet,twice" {
		t.Fatalf("called: %v", names)
	}
	// `s = "é😀"; r = ` is 18 bytes (é 2, 😀 4) but 14 characters.
	if calls[0].StartRow != 11 || calls[0].StartCol != 18 {
		t.Errorf("greet call at %d:%d, want 11:18 (bytes)", calls[0].StartRow, calls[0].StartCol)
	}
	if got := pySrc[calls[0].StartByte:calls[0].EndByte]; got != "greet" {
		t.Errorf("byte offsets give %q", got)
	}

	// Rows narrow the search.
	row := 9
	only, err := syntax.Query(ctx, s, src, `(return_statement) @r`, syntax.QueryOptions{StartRow: &row})
	if err != nil {
		t.Fatal(err)
	}
	if len(only) != 1 || only[0].Get("r").Text != "return x * 2" {
		t.Errorf("returns from row 9: %+v", only)
	}
}

// TestEnclosingCallAndDeclaration: the call around a position, with its
// arguments; the declaration with its decorator or export.
func TestEnclosingCallAndDeclaration(t *testing.T) {
	s := embedded(t)
	ctx := testenv.Context(t)
	py := syntax.Text("python", pySrc)

	// On "twice" inside greet(...): the inner call.
	call, err := syntax.EnclosingCall(ctx, s, py, 11, strings.Index(strings.Split(pySrc, "\n")[11], "twice")+1)
	if err != nil {
		t.Fatal(err)
	}
	if call == nil || call.Text != "twice(1)" || call.Child("function").Text != "twice" {
		t.Fatalf("inner call: %v", call)
	}
	// On "greet": the outer call and its arguments.
	call, err = syntax.EnclosingCall(ctx, s, py, 11, 20)
	if err != nil {
		t.Fatal(err)
	}
	args := call.Child("arguments").NamedChildren()
	if len(args) != 2 || args[0].Text != "s" || args[1].Type != "keyword_argument" || args[1].Text != "loud=twice(1) > 1" {
		t.Fatalf("outer call's arguments: %v", args)
	}
	// Outside any call.
	if call, err = syntax.EnclosingCall(ctx, s, py, 0, 3); err != nil || call != nil {
		t.Fatalf("no call at import: %v %v", call, err)
	}

	// Inside twice's body: its decorated definition.
	decl, err := syntax.EnclosingDeclaration(ctx, s, py, 9, 11)
	if err != nil {
		t.Fatal(err)
	}
	if decl == nil || decl.Type != "decorated_definition" || !strings.HasPrefix(decl.Text, "@staticmethod\ndef twice") {
		t.Fatalf("declaration: %v", decl)
	}
	fn, err := syntax.EnclosingFunction(ctx, s, py, 5, 8)
	if err != nil {
		t.Fatal(err)
	}
	if fn.Child("name").Text != "greet" || len(fn.Child("body").NamedChildren()) != 3 {
		t.Fatalf("function: %v / body %v", fn.Child("name"), fn.Child("body"))
	}

	const ts = `export function area(w: number, h: number): number {
  return w * h;
}
const total = area(2, new Box(3).h) + Math.max(1, 2);
`
	src := syntax.Text("typescript", ts)
	decl, err = syntax.EnclosingDeclaration(ctx, s, src, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if decl.Type != "export_statement" || !strings.HasPrefix(decl.Text, "export function area") {
		t.Fatalf("ts declaration: %v", decl)
	}
	call, err = syntax.EnclosingCall(ctx, s, src, 3, 23) // in "new Box(3)"
	if err != nil {
		t.Fatal(err)
	}
	if call.Type != "new_expression" || call.Text != "new Box(3)" {
		t.Fatalf("new expression: %v", call)
	}
	call, err = syntax.EnclosingCall(ctx, s, src, 3, 14)
	if err != nil {
		t.Fatal(err)
	}
	if call.Type != "call_expression" || call.Child("function").Text != "area" || len(call.Child("arguments").NamedChildren()) != 2 {
		t.Fatalf("area call: %v", call)
	}
}

// TestTSXAndJavaScript: .tsx and .js files parse with the tsx grammar.
func TestTSXAndJavaScript(t *testing.T) {
	s := embedded(t)
	ctx := testenv.Context(t)
	const tsx = `export const App = () => <div onClick={() => go(1)}>{label("x")}</div>;
`
	src, err := syntax.ForFile("web/App.tsx", tsx)
	if err != nil || src.Lang != "tsx" {
		t.Fatalf("ForFile: %+v %v", src, err)
	}
	calls, err := syntax.Captures(ctx, s, src, `(call_expression function: (identifier) @fn)`, "fn", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].Text != "go" || calls[1].Text != "label" {
		t.Fatalf("tsx calls: %v", calls)
	}
	errs, err := syntax.Errors(ctx, s, src, 10)
	if err != nil || len(errs) != 0 {
		t.Fatalf("tsx errors: %v %v", errs, err)
	}
	js, _ := syntax.ForFile("lib/x.mjs", "export default function f() { return g(); }\n")
	if js.Lang != "tsx" {
		t.Fatalf("js language: %q", js.Lang)
	}
	if _, err := syntax.ForFile("main.go", "package main"); code(err) != apierr.Unsupported {
		t.Fatalf("Go: %v", err)
	}
}

// TestSyntaxErrorsAndBadInput: broken text reports where; a bad query, an
// unknown language and a buffer that is not loaded are structured errors,
// and the session still works after them.
func TestSyntaxErrorsAndBadInput(t *testing.T) {
	s := embedded(t)
	ctx := testenv.Context(t)
	errs, err := syntax.Errors(ctx, s, syntax.Text("python", "def f(:\n    return 1\n"), 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) == 0 || errs[0].StartRow != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if errs, err := syntax.Errors(ctx, s, syntax.Text("python", pySrc), 5); err != nil || len(errs) != 0 {
		t.Fatalf("clean source: %v %v", errs, err)
	}
	if _, err := syntax.Query(ctx, s, syntax.Text("python", "x"), `(no_such_node) @x`, syntax.QueryOptions{}); code(err) != apierr.InvalidParameter {
		t.Fatalf("bad query: %v", err)
	}
	if _, err := syntax.Query(ctx, s, syntax.Text("cobol", "x"), `(x) @x`, syntax.QueryOptions{}); code(err) != apierr.Unsupported || !strings.Contains(remediation(err), "make deps") {
		t.Fatalf("unknown language: %v", err)
	}
	if _, err := syntax.Errors(ctx, s, syntax.Source{Lang: "python", Bufnr: 9999}, 1); code(err) != apierr.ResourceNotFound {
		t.Fatalf("unloaded buffer: %v", err)
	}
	// A buffer's current text, not the disk's.
	var bufnr int
	if err := s.ExecLua(ctx, `local b = vim.api.nvim_create_buf(false, true)
vim.api.nvim_buf_set_lines(b, 0, -1, false, ...)
return b`, &bufnr, []string{"def f():", "    return g(1)"}); err != nil {
		t.Fatal(err)
	}
	calls, err := syntax.Captures(ctx, s, syntax.Source{Lang: "python", Bufnr: bufnr}, `(call) @c`, "c", 0)
	if err != nil || len(calls) != 1 || calls[0].Text != "g(1)" || calls[0].StartRow != 1 {
		t.Fatalf("buffer calls: %v %v", calls, err)
	}
}

// TestAttachedKeepsUserParser: attached to a user's Neovim that has its own
// Python parser on the runtimepath, nvbridge leaves it (not loaded, not
// replaced) and registers only TypeScript; a Neovim without one gets ours.
func TestAttachedKeepsUserParser(t *testing.T) {
	parsers := testenv.ParserDir(t)
	user := t.TempDir()
	if err := os.MkdirAll(filepath.Join(user, "parser"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(parsers, "python.so"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "parser", "python.so"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	addr := testenv.Listening(t, root, "--cmd", "set rtp^="+user)
	s, _ := testenv.Attached(t, addr, root)
	ctx := testenv.Context(t)
	if got := s.Parsers(); got["python"] != "user" || got["typescript"] != "nvbridge" || got["tsx"] != "nvbridge" || got["lua"] != "user" {
		t.Fatalf("attached parsers: %v", got)
	}
	var loaded bool
	if err := s.ExecLua(ctx, `return vim._ts_has_language('python')`, &loaded); err != nil || loaded {
		t.Fatalf("the user's python parser was loaded or replaced at attach: %v %v", loaded, err)
	}
	// Asked for, the user's parser serves the query.
	calls, err := syntax.Captures(ctx, s, syntax.Text("python", "f(1)\n"), `(call) @c`, "c", 0)
	if err != nil || len(calls) != 1 {
		t.Fatalf("query with the user's parser: %v %v", calls, err)
	}
	var path string
	if err := s.ExecLua(ctx, `return vim.api.nvim_get_runtime_file('parser/python.so', false)[1]`, &path); err != nil || !strings.HasPrefix(path, user) {
		t.Fatalf("python parser on the runtimepath: %q %v", path, err)
	}

	bare := testenv.Listening(t, root)
	s2, _ := testenv.Attached(t, bare, root)
	if got := s2.Parsers(); got["python"] != "nvbridge" {
		t.Fatalf("attached without a user parser: %v", got)
	}
	if _, err := syntax.Captures(ctx, s2, syntax.Text("python", "f(1)\n"), `(call) @c`, "c", 0); err != nil {
		t.Fatal(err)
	}
}
