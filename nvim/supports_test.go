package nvim_test

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestSupportsAsNeovim: nvbridge's check of whether a server supports a
// method (_compat.supports, which on Neovim 0.10 skips the look for a
// dynamic registration when none is registered for the method) answers as
// Neovim's own client.supports_method for every LSP method Neovim knows,
// before and after the server registers a method dynamically.
func TestSupportsAsNeovim(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	if _, err := client.Definition(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"}); err != nil {
		t.Fatal(err)
	}
	// Every method with Neovim's answer and nvbridge's, as "method=neovim/nvbridge"
	// for each that differ, and how many were compared and found supported.
	const compare = `
local b = vim.fn.bufnr((...))
local compat = require('nvbridge._compat')
local client = vim.lsp.get_clients({ bufnr = b })[1]
local methods = getmetatable(vim.lsp.protocol.Methods) and getmetatable(vim.lsp.protocol.Methods).__index or vim.lsp.protocol.Methods
local differ, n, yes, no = {}, 0, 0, 0
for _, method in pairs(methods) do
  local want = client.supports_method(method, { bufnr = b }) and true or false
  if compat.has_011 then
    want = client:supports_method(method, b) and true or false
  end
  local got = compat.supports(client, method, b) and true or false
  n = n + 1
  if want then yes = yes + 1 else no = no + 1 end
  if got ~= want then
    table.insert(differ, method .. '=' .. tostring(want) .. '/' .. tostring(got))
  end
end
return { differ = differ, n = n, yes = yes, no = no }`
	type verdict struct {
		Differ []string `msgpack:"differ"`
		N      int      `msgpack:"n"`
		Yes    int      `msgpack:"yes"`
		No     int      `msgpack:"no"`
	}
	check := func(stage string) verdict {
		t.Helper()
		var v verdict
		if err := s.ExecLua(ctx, compare, &v, root+"/main.go"); err != nil {
			t.Fatal(err)
		}
		if len(v.Differ) > 0 || v.N < 50 {
			t.Fatalf("%s: %d methods compared, these differ (neovim/nvbridge): %v", stage, v.N, v.Differ)
		}
		return v
	}
	before := check("gopls as it started")
	if before.Yes == 0 || before.No == 0 {
		t.Fatalf("gopls supports %d and lacks %d of the methods: the comparison needs both", before.Yes, before.No)
	}
	// A dynamic registration of a method gopls lacks statically (it may
	// register it for go files only): Neovim's answer then comes from it.
	const register = `
local b = vim.fn.bufnr((...))
local client = vim.lsp.get_clients({ bufnr = b })[1]
client.capabilities.textDocument.declaration = vim.tbl_extend('force', client.capabilities.textDocument.declaration or {}, { dynamicRegistration = true })
client.dynamic_capabilities:register({
  { id = 'nvbridge-test-go', method = 'textDocument/declaration', registerOptions = { documentSelector = { { language = 'go' } } } },
  { id = 'nvbridge-test-py', method = 'textDocument/linkedEditingRange', registerOptions = { documentSelector = { { language = 'python' } } } },
})
return client.supports_method('textDocument/declaration', { bufnr = b })`
	var declared bool
	if err := s.ExecLua(ctx, register, &declared, root+"/main.go"); err != nil {
		t.Fatal(err)
	}
	if !declared {
		t.Fatal("after registering textDocument/declaration for go files, Neovim says gopls does not support it")
	}
	check("after dynamic registrations")
}
