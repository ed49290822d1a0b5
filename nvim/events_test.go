package nvim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// notesSession is an embedded Neovim rooted at a new folder holding
// notes.txt (two lines, no language server), and that file's path.
func notesSession(t *testing.T) (*nvim.Session, string) {
	t.Helper()
	testenv.Require(t, "nvim")
	root := t.TempDir()
	path := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := testenv.Embedded(t, root)
	return s, path
}

// loadBuffer loads path into a buffer, as a plugin would (bufadd,
// bufload), and returns it.
func loadBuffer(t *testing.T, s *nvim.Session, path string) int {
	t.Helper()
	var b int
	if err := s.ExecLua(testenv.Context(t), "local b = vim.fn.bufadd((...)); vim.fn.bufload(b); return b", &b, path); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDiagnosticsEventListMoved: a diagnostics event says whether the set
// of files holding diagnostics moved (the resource list is compared only
// then): a file's first diagnostics and its last going do; new
// diagnostics of a file that had some do not. The diagnostics are set as a
// linter plugin sets them (vim.diagnostic.set in a namespace of its own).
func TestDiagnosticsEventListMoved(t *testing.T) {
	s, path := notesSession(t)
	ctx := testenv.Context(t)

	events := make(chan nvim.Event, 64)
	if err := s.Watch(ctx, false, func(ev nvim.Event) {
		if ev.Kind == nvim.EventDiagnostics {
			events <- ev
		}
	}); err != nil {
		t.Fatal(err)
	}
	b := loadBuffer(t, s, path)
	const set = `local b, messages = ...
local ns = vim.api.nvim_create_namespace('nvbridge_test_lint')
local diags = {}
for i, m in ipairs(messages) do
  diags[i] = { lnum = i - 1, col = 0, message = m }
end
vim.diagnostic.set(ns, b, diags)`
	step := func(name string, messages []string, wantMoved bool) {
		t.Helper()
		if err := s.ExecLua(ctx, set, nil, b, messages); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-events:
			if len(ev.Files) != 1 || ev.Files[0] != path {
				t.Fatalf("%s: event for %v, want %s", name, ev.Files, path)
			}
			if ev.ListMoved != wantMoved {
				t.Fatalf("%s: ListMoved %v, want %v", name, ev.ListMoved, wantMoved)
			}
		case <-ctx.Done():
			t.Fatalf("%s: no diagnostics event", name)
		}
	}
	step("first diagnostic", []string{"first"}, true)
	step("other diagnostics, still some", []string{"second", "third"}, false)
	step("none left", []string{}, true)
	step("the first again", []string{"again"}, true)
}

// TestWatchTexts: with WatchTexts off, a buffer's text change and a
// publish that leaves the set of files holding diagnostics as it was send
// no event (nothing subscribed to them), while a load and a file's first
// diagnostics still do (they may move the resource list), and a buffer
// loaded is not attached to (nvim_buf_attach) for its changes; turned on
// again, it is, and a text change is told.
func TestWatchTexts(t *testing.T) {
	s, path := notesSession(t)
	ctx := testenv.Context(t)

	events := make(chan nvim.Event, 64)
	if err := s.Watch(ctx, false, func(ev nvim.Event) { events <- ev }); err != nil {
		t.Fatal(err)
	}
	if err := s.WatchTexts(ctx, false); err != nil {
		t.Fatal(err)
	}
	// Each step ends with a buffer_list event (a load): the events before
	// it are the step's.
	next := func(name string) []nvim.Event {
		t.Helper()
		var got []nvim.Event
		for {
			select {
			case ev := <-events:
				got = append(got, ev)
				if ev.Kind == nvim.EventBufferList {
					return got
				}
			case <-ctx.Done():
				t.Fatalf("%s: no buffer_list event; got %+v", name, got)
			}
		}
	}
	kinds := func(evs []nvim.Event) (out []string) {
		for _, ev := range evs {
			k := ev.Kind
			if ev.ListMoved {
				k += "+list"
			}
			out = append(out, k)
		}
		return out
	}
	b := loadBuffer(t, s, path)
	if got := kinds(next("load")); slices.Contains(got, nvim.EventBuffer) {
		t.Fatalf("load with texts off: events %v, want no %s", got, nvim.EventBuffer)
	}
	attached := func() bool {
		t.Helper()
		var ok bool
		if err := s.ExecLua(ctx, "return require('nvbridge.extensions').state.attached[...] ~= nil", &ok, b); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if attached() {
		t.Fatal("a buffer loaded with texts off is attached to for its changes")
	}
	const lint = `local b, messages, text = ...
local ns = vim.api.nvim_create_namespace('nvbridge_test_lint')
local diags = {}
for i, m in ipairs(messages) do
  diags[i] = { lnum = i - 1, col = 0, message = m }
end
vim.diagnostic.set(ns, b, diags)
vim.api.nvim_buf_set_lines(b, 0, 1, false, { text })
local other = select(4, ...)
vim.schedule(function() vim.fn.bufload(vim.fn.bufadd(other)) end)`
	n := 0
	step := func(name string, messages []string, text string) []string {
		t.Helper()
		// Another file's load ends the step (its buffer_list event),
		// scheduled after the change: its event comes in a flush of its
		// own, after the change's (which tells its kinds in any order).
		n++
		other := filepath.Join(filepath.Dir(path), fmt.Sprintf("other%d.txt", n))
		if err := os.WriteFile(other, []byte("other\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.ExecLua(ctx, lint, nil, b, messages, text, other); err != nil {
			t.Fatal(err)
		}
		return kinds(next(name))
	}
	if got := step("first diagnostic", []string{"first"}, "uno"); !slices.Contains(got, nvim.EventDiagnostics+"+list") || slices.Contains(got, nvim.EventBuffer) {
		t.Fatalf("first diagnostic and a text change, texts off: events %v, want diagnostics+list and no buffer", got)
	}
	if got := step("other diagnostics", []string{"second", "third"}, "eins"); slices.Contains(got, nvim.EventDiagnostics) || slices.Contains(got, nvim.EventBuffer) {
		t.Fatalf("other diagnostics and a text change, texts off: events %v, want neither buffer nor diagnostics", got)
	}
	if err := s.WatchTexts(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !attached() {
		t.Fatal("texts on: the buffer loaded while they were off is not followed")
	}
	if got := step("texts on", []string{"fourth"}, "one"); !slices.Contains(got, nvim.EventDiagnostics) || !slices.Contains(got, nvim.EventBuffer) {
		t.Fatalf("other diagnostics and a text change, texts on: events %v, want buffer and diagnostics", got)
	}
}
