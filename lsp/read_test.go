package lsp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestReadReconcilesDisk: a file rewritten on disk after it was opened is
// reloaded before the one-call read sends its request (read.lua opens and
// reconciles first): the target is found on the new text and the server
// answers about it, and the lines shown are the new ones.
func TestReadReconcilesDisk(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	if _, err := client.References(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"}, lsp.ReferencesOptions{IncludeDeclaration: true}); err != nil {
		t.Fatal(err)
	}
	// Two lines above Process: it moves to line 35.
	path := filepath.Join(root, "orders", "orders.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(src), "// Process validates", "// Added on disk.\n// Twice.\n// Process validates", 1)
	if moved == string(src) {
		t.Fatal("the sample's Process comment moved")
	}
	if err := os.WriteFile(path, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	before := s.RoundTrips()
	refs, err := client.References(ctx, "orders/orders.go", lsp.Target{Line: 35, Symbol: "Process"}, lsp.ReferencesOptions{IncludeDeclaration: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.RoundTrips() - before; n != 1 {
		t.Errorf("references after the disk changed took %d round trips, want 1 (the read)", n)
	}
	var decl *lsp.Reference
	for _, f := range refs.Files {
		for i, r := range f.References {
			if f.File == "orders/orders.go" && r.Line == 35 {
				decl = &f.References[i]
			}
			if f.File == "orders/orders.go" && r.Line == 33 {
				t.Errorf("a reference at the old line 33: %+v", r)
			}
		}
	}
	if decl == nil || decl.Column != 5 || decl.Context != "func Process(o Order) (Total, error) {" {
		t.Fatalf("the declaration at orders/orders.go:35:5 with its new line, got %+v in %+v", decl, refs.Files)
	}
	def, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
	if err != nil {
		t.Fatal(err)
	}
	if def.Count != 1 || def.Locations[0].Line != 35 || !strings.HasPrefix(def.Locations[0].Declaration, "func Process(o Order)") {
		t.Fatalf("definition = %+v, want orders/orders.go:35 with its declaration", def.Locations)
	}
}

// emojiSource: a function used on a line of multibyte text, emoji outside
// the Basic Multilingual Plane among them (two UTF-16 units, four bytes,
// one character).
const emojiSource = `package orders

func emojiTarget(s string) int { return len(s) }

var emojiUse = map[string]int{"😀é": emojiTarget("😀é𝄞")}
`

// emojiWorkspace is a copy of the Go sample with orders/emoji.go
// (emojiSource) in it, and that file's line 5, where emojiTarget is used
// after emoji.
func emojiWorkspace(t *testing.T) (root, line string) {
	t.Helper()
	testenv.Require(t, "nvim", "gopls", "go")
	root = testenv.CopySample(t, "go")
	if err := os.WriteFile(filepath.Join(root, "orders", "emoji.go"), []byte(emojiSource), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, strings.Split(emojiSource, "\n")[4]
}

// TestReadMultibytePositions: the one-call read sends the target's
// position in the server's encoding and answers columns in characters, on
// a line of emoji; when the buffer holds another text on that line than
// the disk (unsaved changes), the read goes on from the buffer's line and
// is as exact.
func TestReadMultibytePositions(t *testing.T) {
	root, line := emojiWorkspace(t)
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	col := utf8.RuneCountInString(line[:strings.Index(line, "emojiTarget")])
	target := lsp.Target{Line: 5, Symbol: "emojiTarget"}
	check := func(t *testing.T, col int, wantTrips int64) {
		t.Helper()
		if _, err := client.References(ctx, "orders/emoji.go", target, lsp.ReferencesOptions{IncludeDeclaration: true}); err != nil {
			t.Fatal(err) // warm
		}
		before := s.RoundTrips()
		refs, err := client.References(ctx, "orders/emoji.go", target, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		if n := s.RoundTrips() - before; n != wantTrips {
			t.Errorf("references took %d round trips, want %d", n, wantTrips)
		}
		if refs.Total != 2 || len(refs.Files) != 1 {
			t.Fatalf("references = %+v, want the declaration and the use", refs)
		}
		got := refs.Files[0].References
		if got[0].Line != 3 || got[0].Column != 5 || got[1].Line != 5 || got[1].Column != col || got[1].EndColumn != col+len("emojiTarget") {
			t.Fatalf("references = %+v, want 3:5 and 5:%d-%d", got, col, col+len("emojiTarget"))
		}
		if refs.From != "orders/emoji.go:5:"+strconv.Itoa(col) {
			t.Errorf("from = %q, want orders/emoji.go:5:%d", refs.From, col)
		}
		def, err := client.Definition(ctx, "orders/emoji.go", target)
		if err != nil {
			t.Fatal(err)
		}
		if def.Count != 1 || def.Locations[0].Line != 3 || def.Locations[0].Column != 5 {
			t.Fatalf("definition = %+v, want orders/emoji.go:3:5", def.Locations)
		}
		h, err := client.Hover(ctx, "orders/emoji.go", target)
		if err != nil {
			t.Fatal(err)
		}
		if !h.Found || !strings.Contains(h.Contents, "func emojiTarget(s string) int") || h.Range == nil || h.Range.Column != col {
			t.Fatalf("hover = %+v, want emojiTarget's signature and its range at column %d", h, col)
		}
	}
	t.Run("as on disk", func(t *testing.T) { check(t, col, 1) })
	t.Run("unsaved change on the line", func(t *testing.T) {
		// One more emoji before the use, in the buffer only: the disk's
		// line no longer holds; the read answers with the buffer's line
		// and goes on (the request, then the lines: two more).
		var n int
		code := `local path, text = ...
local b = vim.fn.bufnr(path)
vim.api.nvim_buf_set_lines(b, 4, 5, false, { text })
return b`
		if err := s.ExecLua(ctx, code, &n, filepath.Join(root, "orders", "emoji.go"), strings.Replace(line, `"😀é"`, `"🎉😀é"`, 1)); err != nil {
			t.Fatal(err)
		}
		if n <= 0 {
			t.Fatal("emoji.go has no buffer")
		}
		check(t, col+1, 3)
	})
}

// TestReadErrorAnswers: a server's error answer to the one-call read is a
// structured error (code, message naming the server, remediation), and a
// target the file does not have is the buffer's INVALID_PARAMETER or
// RESOURCE_NOT_FOUND, as before.
func TestReadErrorAnswers(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	// gopls answers implementation on a function that is no method with
	// an error.
	_, err := client.Implementations(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"})
	e := apierr.As(err)
	if err == nil || e.Code != apierr.OperationFailed || !strings.Contains(e.Message, "gopls") || e.Remediation == "" {
		t.Fatalf("implementations of a function: %#v, want OPERATION_FAILED naming gopls with a remediation", err)
	}
	// A type has no call hierarchy: named with the position asked.
	_, err = client.CallHierarchy(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Order"}, lsp.CallHierarchyOptions{Direction: lsp.DirectionIncoming, Depth: 1})
	e = apierr.As(err)
	if err == nil || e.Code != apierr.ResourceNotFound || !strings.Contains(e.Message, "orders/orders.go:33:") || e.Remediation == "" {
		t.Fatalf("call hierarchy of a type: %#v, want RESOURCE_NOT_FOUND at orders/orders.go:33", err)
	}
	for _, c := range []struct {
		target lsp.Target
		code   apierr.Code
	}{
		{lsp.Target{Line: 9999, Symbol: "Process"}, apierr.InvalidParameter},
		{lsp.Target{Line: 33, Symbol: "NoSuchName"}, apierr.ResourceNotFound},
	} {
		_, err := client.References(ctx, "orders/orders.go", c.target, lsp.ReferencesOptions{})
		if e := apierr.As(err); err == nil || e.Code != c.code || e.Remediation == "" {
			t.Errorf("references at %+v: %#v, want %s", c.target, err, c.code)
		}
	}
}

// TestReadPassesUnchangedFiles: once a buffer and its file agree, a read
// of it (and of the other loaded files) reconciles nothing while neither
// its text nor its file moves; a rewrite of the file that keeps its size
// and puts its mtime back (as cp -p, rsync, tar or git do) still moves its
// stat, and the next read answers from the new text.
func TestReadPassesUnchangedFiles(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	reconciles := func() int { return testenv.Reconciles(t, s) }
	refs := func(line int) *lsp.Reference {
		t.Helper()
		r, err := client.References(ctx, "orders/orders.go", lsp.Target{Line: line, Symbol: "Process"}, lsp.ReferencesOptions{IncludeDeclaration: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Files {
			for i, ref := range f.References {
				if f.File == "orders/orders.go" && ref.Context == "func Process(o Order) (Total, error) {" {
					return &f.References[i]
				}
			}
		}
		t.Fatalf("no declaration of Process in %+v", r.Files)
		return nil
	}
	// The first reads load the files and find them in agreement.
	for range 2 {
		refs(33)
		if _, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"}); err != nil {
			t.Fatal(err)
		}
	}
	before := reconciles()
	for range 3 {
		if d := refs(33); d.Line != 33 {
			t.Fatalf("declaration at line %d, want 33", d.Line)
		}
	}
	if n := reconciles() - before; n != 0 {
		t.Errorf("three reads of unchanged files reconciled %d times, want 0", n)
	}
	// One line more at the top, four bytes fewer in Process's comment: the
	// same size, and the mtime put back.
	path := filepath.Join(root, "orders", "orders.go")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	moved := "//x\n" + strings.Replace(string(src), "// Process validates o and computes its total.", "// Process validates o, computes its total", 1)
	if len(moved) != len(src) || moved == "//x\n"+string(src) {
		t.Fatalf("the rewrite is %d bytes, the file %d", len(moved), len(src))
	}
	if err := os.WriteFile(path, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if now, err := os.Stat(path); err != nil || now.Size() != st.Size() || !now.ModTime().Equal(st.ModTime()) {
		t.Fatalf("the rewrite did not keep size and mtime: %v %v", now, err)
	}
	before = reconciles()
	if d := refs(34); d.Line != 34 || d.Column != 5 {
		t.Fatalf("after the rewrite: declaration at %d:%d, want 34:5", d.Line, d.Column)
	}
	if reconciles() == before {
		t.Error("the read after the rewrite reconciled nothing")
	}
}

// TestRenameAtThenLocated: a rename's Located runs before any exchange
// with Neovim, with the position on the disk's line (emoji before it:
// the byte, the character), and Sent after the requests went, with the
// same position, the one the answer stands at; both with the file's path
// as the read resolved it.
func TestRenameAtThenLocated(t *testing.T) {
	root, line := emojiWorkspace(t)
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	b := strings.LastIndex(line, "emojiTarget")
	target := lsp.Target{Line: 5, Symbol: "emojiTarget"}
	// Opened and analysed first: the rename is then one read.
	if _, err := client.RenameAtThen(ctx, "orders/emoji.go", target, "emojiAim", false, nil); err != nil {
		t.Fatal(err)
	}
	var located, sent []lsp.Point
	var paths []string
	var tripsAtLocated int64
	before := s.RoundTrips()
	a, err := client.RenameAtThen(ctx, "orders/emoji.go", target, "emojiAim", false, &lsp.RenameThen{
		Located: func(pt lsp.Point, abs string) {
			located, tripsAtLocated, paths = append(located, pt), s.RoundTrips(), append(paths, abs)
		},
		Sent: func(pt lsp.Point, abs string) { sent, paths = append(sent, pt), append(paths, abs) },
	})
	if err != nil || a.RenameErr != nil {
		t.Fatal(err, a.RenameErr)
	}
	want := lsp.Point{Line: 4, Byte: b, Char: utf8.RuneCountInString(line[:b]), Text: line}
	if len(located) != 1 || located[0] != want || tripsAtLocated != before {
		t.Fatalf("located %+v after %d round trips, want %+v before any", located, tripsAtLocated-before, want)
	}
	if len(sent) != 1 || sent[0] != want || a.Point != want {
		t.Fatalf("sent %+v, answered at %+v; want %+v", sent, a.Point, want)
	}
	// Both are told the file's path as the read resolved it: the
	// document's.
	if len(paths) != 2 || paths[0] != a.Doc.Path || paths[1] != a.Doc.Path {
		t.Fatalf("located and sent at %q, want the document's %q", paths, a.Doc.Path)
	}
	if !strings.Contains(string(a.Rename), `"newText":"emojiAim"`) {
		t.Fatalf("rename answered %s", a.Rename)
	}
}

// escapedSource: a function declared and used in a file whose name its
// URI escapes (a space, '#', '%', a non-ASCII letter).
const escapedSource = `package orders

// Escaped is declared in a file whose URI escapes its name.
func Escaped(n int) int { return n }

var escapedUse = Escaped(1)
`

// TestReadLinesOfEscapedLoadedFile: the lines a definition shows come from
// the buffer that holds its file (unsaved changes included) when the
// file's URI escapes its name, read after read (read.lua keeps each URI's
// file name).
func TestReadLinesOfEscapedLoadedFile(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	name := "a b#%41é.go"
	path := filepath.Join(root, "orders", name)
	if err := os.WriteFile(path, []byte(escapedSource), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	target := lsp.Target{Line: 6, Symbol: "Escaped"}
	def := func(want string) {
		t.Helper()
		before := s.RoundTrips()
		d, err := client.Definition(ctx, "orders/"+name, target)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.RoundTrips() - before; n != 1 {
			t.Errorf("definition took %d round trips, want 1", n)
		}
		if d.Count != 1 || d.Locations[0].File != "orders/"+name || d.Locations[0].Line != 4 || d.Locations[0].Declaration != want {
			t.Fatalf("definition = %+v, want orders/%s:4 declared as %q", d.Locations, name, want)
		}
	}
	def("func Escaped(n int) int { return n }")
	// The declaration's line changed in the buffer only, its start where
	// it was: the definition shows the buffer's line, twice.
	changed := "func Escaped(n int) int { return n + 0 }"
	var b int
	code := `local path, text = ...
local b = vim.fn.bufnr(path)
vim.api.nvim_buf_set_lines(b, 3, 4, false, { text })
return b`
	if err := s.ExecLua(ctx, code, &b, path, changed); err != nil {
		t.Fatal(err)
	}
	if b <= 0 {
		t.Fatalf("%s has no buffer", name)
	}
	def(changed)
	def(changed)
}

// TestReadRequestWithoutInspect: a read's request goes to the server
// without vim.inspect of its payload, which Neovim 0.10's RPC client
// formats for an assert message on every message it sends (about 30 us
// for a definition, ahead of the request); the answers are the same.
func TestReadRequestWithoutInspect(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	target := lsp.Target{Line: 27, Symbol: "Process"}
	if _, err := client.Definition(ctx, "main.go", target); err != nil {
		t.Fatal(err) // the servers ready, the file open
	}
	count := func(code string) {
		t.Helper()
		if err := s.ExecLua(ctx, code, nil); err != nil {
			t.Fatal(err)
		}
	}
	count(`_G.nvbridge_test_inspect = vim.inspect
_G.nvbridge_test_inspected = 0
vim.inspect = function(...)
  _G.nvbridge_test_inspected = _G.nvbridge_test_inspected + 1
  return _G.nvbridge_test_inspect(...)
end`)
	defer count(`vim.inspect = _G.nvbridge_test_inspect`)
	before := s.RoundTrips()
	def, err := client.Definition(ctx, "main.go", target)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.RoundTrips() - before; n != 1 {
		t.Errorf("definition took %d round trips, want 1", n)
	}
	if def.Count != 1 || def.Locations[0].File != "orders/orders.go" || def.Locations[0].Line != 33 {
		t.Fatalf("definition = %+v, want orders/orders.go:33", def.Locations)
	}
	h, err := client.Hover(ctx, "main.go", target)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Found || !strings.Contains(h.Contents, "func orders.Process(o orders.Order)") {
		t.Fatalf("hover = %+v, want Process's signature", h)
	}
	var n int
	if err := s.ExecLua(ctx, "return _G.nvbridge_test_inspected", &n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("a definition and a hover called vim.inspect %d times, want 0", n)
	}
}

// TestReadNavigationMethodsAsLua: read.lua describes a read's servers with
// the navigation methods, which it has (status.navigation_methods) rather
// than with every read: they are lsp's, and the methods beyond them are
// added to them, the shared list left as it is.
func TestReadNavigationMethodsAsLua(t *testing.T) {
	testenv.Require(t, "nvim")
	s, _ := testenv.Embedded(t, t.TempDir())
	var got struct {
		Navigation []string `msgpack:"navigation"`
		Extra      []string `msgpack:"extra"`
		After      []string `msgpack:"after"`
	}
	const code = `local status = require('nvbridge.status')
local navigation = vim.deepcopy(status.position_methods())
local extra = status.position_methods({ 'callHierarchy/incomingCalls' })
return { navigation = navigation, extra = extra, after = status.position_methods(vim.empty_dict()) }`
	if err := s.ExecLua(testenv.Context(t), code, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Navigation, lsp.NavigationMethods) {
		t.Errorf("read.lua's navigation methods %v, lsp's %v", got.Navigation, lsp.NavigationMethods)
	}
	if want := append(slices.Clone(lsp.NavigationMethods), "callHierarchy/incomingCalls"); !slices.Equal(got.Extra, want) {
		t.Errorf("with one more: %v, want %v", got.Extra, want)
	}
	if !slices.Equal(got.After, lsp.NavigationMethods) {
		t.Errorf("after one more: %v", got.After)
	}
}

// spreadSource: a declaration whose signature spans lines.
const spreadSource = `package orders

func Spread(
	a int,
	b int,
) int {
	return a + b
}

var spreadUse = Spread(1, 2)
`

// TestReadBlockOfLoadedFile: a definition's declaration lines come from
// the buffer that holds its file, each of them (read.lua reads a run of
// lines at once), unsaved changes included.
func TestReadBlockOfLoadedFile(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	path := filepath.Join(root, "orders", "spread.go")
	if err := os.WriteFile(path, []byte(spreadSource), 0o644); err != nil {
		t.Fatal(err)
	}
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	def := func(want string) {
		t.Helper()
		before := s.RoundTrips()
		d, err := client.Definition(ctx, "orders/spread.go", lsp.Target{Line: 10, Symbol: "Spread"})
		if err != nil {
			t.Fatal(err)
		}
		if n := s.RoundTrips() - before; n != 1 {
			t.Errorf("definition took %d round trips, want 1", n)
		}
		if d.Count != 1 || d.Locations[0].Line != 3 || d.Locations[0].Declaration != want {
			t.Fatalf("definition = %+v, want orders/spread.go:3 declared as %q", d.Locations, want)
		}
	}
	def("func Spread(\n\ta int,\n\tb int,\n) int {\n\treturn a + b")
	// The declaration's third and fifth lines changed in the buffer only.
	code := `local path = ...
local b = vim.fn.bufnr(path)
vim.api.nvim_buf_set_lines(b, 4, 5, false, { '\tb, c int,' })
vim.api.nvim_buf_set_lines(b, 6, 7, false, { '\treturn a + b + c' })
return b`
	var b int
	if err := s.ExecLua(ctx, code, &b, path); err != nil {
		t.Fatal(err)
	}
	if b <= 0 {
		t.Fatal("spread.go has no buffer")
	}
	def("func Spread(\n\ta int,\n\tb, c int,\n) int {\n\treturn a + b + c")
}
