package nvim_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestSettledBuffersEndByEvents: a loaded buffer that agreed with its file
// is passed over by the requests on other files without Neovim being asked
// about it (lua/nvbridge/settled.lua) until an event ends that: its text
// changed, it was unloaded, it was renamed (its file changing on disk is
// TestReconcileWatchedFiles). Each step checks first that the buffer
// stands, so that it tests the event and not a look; once ended, the next
// request elsewhere looks at the buffer again (reconcile runs), as it did
// for every buffer before.
func TestSettledBuffersEndByEvents(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	orders := filepath.Join(root, "orders", "orders.go")

	lua := func(t *testing.T, code string, result any, args ...any) {
		t.Helper()
		if err := s.ExecLua(ctx, code, result, args...); err != nil {
			t.Fatal(err)
		}
	}
	bufnr := func(t *testing.T, path string) int {
		t.Helper()
		var b int
		lua(t, "return vim.fn.bufnr((...))", &b, path)
		return b
	}
	// stands says whether buffer b is passed over on events alone, as the
	// buffer of path.
	stands := func(t *testing.T, b int, path string) bool {
		t.Helper()
		var p string
		lua(t, "return require('nvbridge.settled').path((...)) or ''", &p, b)
		return p == path
	}
	reconciles := func(t *testing.T) int { return testenv.Reconciles(t, s) }
	// elsewhere asks a request on main.go: its open looks at the other
	// loaded buffers.
	elsewhere := func(t *testing.T) {
		t.Helper()
		if _, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"}); err != nil {
			t.Fatal(err)
		}
	}
	// load opens orders.go and asks a request elsewhere: it stands.
	load := func(t *testing.T) int {
		t.Helper()
		if _, err := client.Info(ctx, "orders/orders.go", false); err != nil {
			t.Fatal(err)
		}
		elsewhere(t)
		b := bufnr(t, orders)
		if !stands(t, b, orders) {
			t.Fatal("orders.go does not stand after it agreed with its file: the requests look at it every time")
		}
		return b
	}
	// lookedAtAgain checks that the request elsewhere looks at buffer b
	// again (reconcile runs), after which it stands again.
	lookedAtAgain := func(t *testing.T, b int) {
		t.Helper()
		before := reconciles(t)
		elsewhere(t)
		if reconciles(t) == before {
			t.Fatal("the request elsewhere did not look at orders.go's buffer again")
		}
		if !stands(t, b, orders) {
			t.Fatal("orders.go's buffer does not stand again once looked at")
		}
	}
	// edit puts a line above the buffer's text and marks it unmodified (as
	// a plugin may): the kernel is told nothing.
	edit := func(t *testing.T, b int) {
		t.Helper()
		lua(t, "local b = ...; vim.api.nvim_buf_set_lines(b, 0, 0, false, {'// only in the buffer'}); vim.bo[b].modified = false", nil, b)
	}

	passes := func(t *testing.T) int {
		t.Helper()
		var n int
		lua(t, "return require('nvbridge.buffers').passes", &n)
		return n
	}
	t.Run("nothing moved", func(t *testing.T) {
		// Every buffer stands (or is not a file's): the requests look at
		// none of them, however many are loaded, whatever else happens in
		// the watched directories.
		load(t)
		elsewhere(t) // main.go's own buffer stands from its second request
		before := passes(t)
		elsewhere(t)
		// A file written beside the covered ones, renamed and removed (an
		// editor's swap file, a build's output written atomically): events
		// in orders.go's directory, that end no cover.
		scratch := filepath.Join(root, "orders", "scratch.tmp")
		if err := os.WriteFile(scratch, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(scratch, scratch+".2"); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(scratch + ".2"); err != nil {
			t.Fatal(err)
		}
		elsewhere(t)
		if n := passes(t) - before; n != 0 {
			t.Fatalf("the requests elsewhere looked at every buffer %d time(s) while nothing moved", n)
		}
	})
	t.Run("a buffer loaded after", func(t *testing.T) {
		// Loaded by the user (or a plugin) while the requests passed the
		// buffers over: the next request looks at it, and a change of its
		// file on disk reaches it.
		load(t)
		elsewhere(t)
		payment := filepath.Join(root, "payment", "payment.go")
		var b int
		lua(t, "local b = vim.fn.bufadd((...)); vim.fn.bufload(b); return b", &b, payment)
		if err := os.WriteFile(payment, []byte("package payment // changed on disk\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		elsewhere(t)
		var first string
		lua(t, "return vim.api.nvim_buf_get_lines((...), 0, 1, false)[1]", &first, b)
		if first != "package payment // changed on disk" {
			t.Fatalf("payment.go's buffer, loaded after the requests stopped looking, begins %q: its file's change on disk did not reach it", first)
		}
	})
	t.Run("lines of a buffer loaded after", func(t *testing.T) {
		// A read's lines come from the buffers loaded when its request
		// went, kept while no buffer was loaded, named, unloaded or wiped:
		// orders.go loaded after, with a change of its own, is one.
		b := load(t)
		lua(t, "vim.cmd.bwipeout({ args = { tostring((...)) }, bang = true })", nil, b)
		elsewhere(t)
		elsewhere(t)
		lua(t, "local b = vim.fn.bufadd((...)); vim.fn.bufload(b); local n = #vim.api.nvim_buf_get_lines(b, 32, 33, false)[1]; vim.api.nvim_buf_set_text(b, 32, n, 32, n, {' // only in the buffer'})", nil, orders)
		defs, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
		if err != nil {
			t.Fatal(err)
		}
		if len(defs.Locations) != 1 || defs.Locations[0].Location.Context != "func Process(o Order) (Total, error) { // only in the buffer" {
			t.Fatalf("the definition shows %+v, want orders.go's line as its buffer loaded after has it", defs.Locations)
		}
		lua(t, "vim.cmd.bwipeout({ args = { tostring(vim.fn.bufnr((...))) }, bang = true })", nil, orders)
	})
	t.Run("its text changed", func(t *testing.T) {
		b := load(t)
		edit(t, b)
		if stands(t, b, orders) {
			t.Fatal("orders.go's buffer still stands after its text changed")
		}
		lookedAtAgain(t, b)
		lua(t, "local b = ...; vim.api.nvim_buf_set_lines(b, 0, 1, false, {}); vim.bo[b].modified = false", nil, b)
	})
	t.Run("unloaded and loaded again", func(t *testing.T) {
		// The callbacks' attachment ends with the unload: the buffer
		// loaded again is attached again, and its next change is told.
		b := load(t)
		lua(t, "vim.cmd.bunload({ args = { tostring((...)) }, bang = true })", nil, b)
		if stands(t, b, orders) {
			t.Fatal("orders.go's buffer still stands once unloaded")
		}
		if load(t) != b {
			t.Fatal("orders.go was loaded again in another buffer")
		}
		edit(t, b)
		if stands(t, b, orders) {
			t.Fatal("orders.go's buffer, loaded again, still stands after its text changed: its change was not told")
		}
		lookedAtAgain(t, b)
	})
	t.Run("renamed", func(t *testing.T) {
		// Renamed to another file: the request elsewhere reconciles the
		// buffer with the file it now names.
		b := load(t)
		other := filepath.Join(root, "orders", "renamed.txt")
		if err := os.WriteFile(other, []byte("the other file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		lua(t, "local b, name = ...; vim.api.nvim_buf_set_name(b, name)", nil, b, other)
		if _, err := client.Info(ctx, "main.go", false); err != nil {
			t.Fatal(err)
		}
		var first string
		lua(t, "return vim.api.nvim_buf_get_lines((...), 0, 1, false)[1]", &first, b)
		if first != "the other file" {
			t.Fatalf("the buffer renamed to renamed.txt begins %q, want that file's text", first)
		}
	})
}
