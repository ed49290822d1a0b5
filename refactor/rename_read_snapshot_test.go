package refactor_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/refactor"
)

// TestRenameSnapshotsWithTheRead: a rename preview (a call that keeps its
// snapshots, as rename_symbol's does) takes the snapshot of the file it is
// asked in within the read's own call to Neovim (read.lua, once the request
// went): one round trip to Neovim, where a snapshot of its own made two;
// and the changeset is planned on the buffer's text, unsaved changes
// included, as before.
func TestRenameSnapshotsWithTheRead(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	req := refactor.RenameRequest{File: "orders/orders.go", Target: lsp.Target{Line: 51, Symbol: "IsZero"}, NewName: "Empty"}
	if _, err := refactor.Rename(nvim.WithSnapshotMemo(ctx), client, req); err != nil { // warm
		t.Fatal(err)
	}
	// An unsaved line at the end: the snapshot is the buffer's, not the disk's.
	abs := filepath.Join(root, "orders", "orders.go")
	var b int
	if err := s.ExecLua(ctx, "return vim.fn.bufnr((...))", &b, abs); err != nil || b <= 0 {
		t.Fatalf("no buffer for %s: %v", abs, err)
	}
	if err := s.ExecLua(ctx, "vim.api.nvim_buf_set_lines((...), -1, -1, false, {'// unsaved é 😀'})", nil, b); err != nil {
		t.Fatal(err)
	}
	lines, err := s.Lines(ctx, b, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		before := s.RoundTrips()
		plan, err := refactor.Rename(nvim.WithSnapshotMemo(ctx), client, req)
		if err != nil {
			t.Fatal(err)
		}
		if n := s.RoundTrips() - before; n != 1 {
			t.Fatalf("round %d: the rename preview took %d round trips to Neovim, want 1", round, n)
		}
		var old *preview.Document
		for i, fc := range plan.Changeset.Files {
			if fc.Path == "orders/orders.go" {
				old = &plan.Changeset.Files[i].Old
			}
		}
		if old == nil {
			t.Fatalf("round %d: the changeset does not edit orders/orders.go: %+v", round, plan.Files)
		}
		if got, want := strings.Join(old.Lines, "\n"), strings.Join(lines, "\n"); got != want {
			t.Fatalf("round %d: the changeset is not planned on the buffer's text:\n%s\nwant\n%s", round, got, want)
		}
	}
}
