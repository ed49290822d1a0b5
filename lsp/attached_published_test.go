package lsp_test

import (
	"testing"

	gonvim "github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestAttachedPublishedBeforeConnect: a buffer the user opened, and gopls
// diagnosed, before nvbridge connected answers its first navigation call
// without waiting for a publish that already happened (issue 12: hover
// took 10 s, the diagnostics wait's bound). A wait that missed the earlier
// publish would run into its bound and mark the answer incomplete. The
// user's client is not named gopls, so the published-before-connect
// record (bridge.lua: setup), not lang.AnswersAfterOpen, is what answers.
func TestAttachedPublishedBeforeConnect(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	addr := testenv.Listening(t, root, testenv.UserLSPConfig(t, "user-gopls")...)
	user, err := gonvim.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	const openAndAwait = `local rel, ms = ...
local published = false
local orig = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
  if result and result.uri:sub(-#rel) == rel then published = true end
  return orig(err, result, ctx, config)
end
vim.cmd.edit(rel)
local ok = vim.wait(ms, function() return published end, 20)
vim.lsp.handlers['textDocument/publishDiagnostics'] = orig
return ok`
	var published bool
	if err := user.ExecLua(openAndAwait, &published, "orders/orders.go", int(testenv.Timeout().Milliseconds())); err != nil || !published {
		t.Fatalf("gopls did not publish orders/orders.go in the user's Neovim: %v", err)
	}
	_, client := testenv.Attached(t, addr, root)
	ctx := testenv.Context(t)
	res, err := client.Definition(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Incomplete != "" || res.Count != 1 || res.Server != "user-gopls" {
		t.Fatalf("first call on a buffer published before connecting: count %d, server %s, incomplete %q", res.Count, res.Server, res.Incomplete)
	}
}
