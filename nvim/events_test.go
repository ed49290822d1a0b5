package nvim_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// TestDiagnosticsEventListMoved: a diagnostics event says whether the set
// of files holding diagnostics moved (the resource list is compared only
// then): a file's first diagnostics and its last going do; new
// diagnostics of a file that had some do not. The diagnostics are set as a
// linter plugin sets them (vim.diagnostic.set in a namespace of its own).
func TestDiagnosticsEventListMoved(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	path := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	events := make(chan nvim.Event, 64)
	if err := s.Watch(ctx, false, func(ev nvim.Event) {
		if ev.Kind == nvim.EventDiagnostics {
			events <- ev
		}
	}); err != nil {
		t.Fatal(err)
	}
	var b int
	if err := s.ExecLua(ctx, "local b = vim.fn.bufadd((...)); vim.fn.bufload(b); return b", &b, path); err != nil {
		t.Fatal(err)
	}
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
