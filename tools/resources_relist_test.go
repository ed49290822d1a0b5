package tools

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/preview"
)

// TestRelistReadsNeovimWhenItReported: the resource list compared after a
// change of nvbridge's own (a changeset previewed) takes Neovim's part as
// last read, without a call to Neovim, and lists the changeset; once
// Neovim reports a change of its own (a buffer loaded, by another client
// of that Neovim), the next comparison reads Neovim again and lists the
// buffer beside the changeset.
func TestRelistReadsNeovimWhenItReported(t *testing.T) {
	testenv.Require(t, "nvim")
	root := testenv.CopySample(t, "go")
	s, lspClient := testenv.Embedded(t, root)
	env := NewEnv(s, lspClient, t.Logf)
	t.Cleanup(env.Close)
	ctx := testenv.Context(t)
	w := newWatcher(env, &resourceSet{env: env})
	w.srv = server.NewMCPServer("t", "1")
	if err := s.Watch(ctx, false, w.onEvent); err != nil {
		t.Fatal(err)
	}
	reads := func() int {
		n := 0
		for _, e := range s.Trace() {
			if e.Kind == "rpc" && strings.Contains(e.Text, "extensions.listed") {
				n++
			}
		}
		return n
	}
	const buffer = "nvbridge://buffer/orders/orders.go"

	w.compareListed()
	if n := reads(); n != 1 {
		t.Fatalf("the first comparison read Neovim %d times, want 1", n)
	}
	if w.listed[buffer] {
		t.Fatalf("%s listed before anything loaded it", buffer)
	}

	res, err := env.Edit.Submit(ctx, preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "text/normalize.go",
		Edits: []preview.TextEdit{{StartLine: 0, EndLine: 0, NewText: "// previewed\n"}}}}}, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	changeset := prefixChangeset + res.ChangesetID
	w.compareListed()
	if n := reads(); n != 1 {
		t.Errorf("the comparison after a preview read Neovim (%d reads in all), though it reported no change", n)
	}
	if !w.listed[changeset] {
		t.Fatalf("%s not listed after its preview: %v", changeset, w.listed)
	}

	// Loaded by another client of the same Neovim: nvbridge hears of it
	// only by Neovim's event.
	if err := s.ExecLua(ctx, `vim.fn.bufload(vim.fn.bufadd(...))`, nil, filepath.Join(root, "orders", "orders.go")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testenv.Timeout())
	for !w.neovimStale.Load() {
		if time.Now().After(deadline) {
			t.Fatal("Neovim's event for the loaded buffer never came")
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.compareListed()
	if n := reads(); n != 2 {
		t.Errorf("the comparison after Neovim's event read Neovim %d times in all, want 2", n)
	}
	if !w.listed[buffer] || !w.listed[changeset] {
		t.Fatalf("after the buffer loaded, listed %v, want %s and %s", w.listed, buffer, changeset)
	}
}
