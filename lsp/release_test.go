package lsp_test

import (
	"slices"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestReleaseAfterRequests: a read that loads a file beyond the buffers
// nvbridge keeps loaded for reading (g:nvbridge_max_loaded) releases the
// oldest one after its requests are sent: the server reads didOpen, the
// requests, then the didClose of the released file. A didClose before them
// held them up (gopls handles messages in order: it starts re-diagnosing
// the closed file's package, and with verboseWorkDoneProgress first asks
// the client for a progress token).
func TestReleaseAfterRequests(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	if err := s.ExecLua(ctx, `vim.g.nvbridge_max_loaded = 1`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Hover(ctx, "orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"}); err != nil {
		t.Fatal(err)
	}
	// What the client sends from now on, in order: method and file.
	if err := s.ExecLua(ctx, `
local c = vim.lsp.get_clients({ name = 'gopls' })[1]
_G.release_test_sent = {}
local function record(method, params)
  local doc = type(params) == 'table' and type(params.textDocument) == 'table' and params.textDocument.uri
  table.insert(_G.release_test_sent, method .. ' ' .. (doc and vim.fs.basename(vim.uri_to_fname(doc)) or ''))
end
local notify, request = c.rpc.notify, c.rpc.request
c.rpc.notify = function(method, params, ...)
  record(method, params)
  return notify(method, params, ...)
end
c.rpc.request = function(method, params, ...)
  record(method, params)
  return request(method, params, ...)
end`, nil); err != nil {
		t.Fatal(err)
	}
	h, err := client.Hover(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"})
	if err != nil {
		t.Fatal(err)
	}
	if !h.Found {
		t.Fatalf("no hover for Process in main.go: %+v", h)
	}
	var st struct {
		Sent   []string `msgpack:"sent"`
		Loaded bool     `msgpack:"loaded"`
	}
	if err := s.ExecLua(ctx, `
local b = vim.fn.bufnr(...)
return { sent = _G.release_test_sent, loaded = b > 0 and vim.api.nvim_buf_is_loaded(b) }`, &st, root+"/orders/orders.go"); err != nil {
		t.Fatal(err)
	}
	opened := slices.Index(st.Sent, "textDocument/didOpen main.go")
	hover := slices.Index(st.Sent, "textDocument/hover main.go")
	closed := slices.Index(st.Sent, "textDocument/didClose orders.go")
	if opened < 0 || hover < 0 || closed < 0 {
		t.Fatalf("sent %q: want main.go's didOpen and hover, and orders.go's didClose (released: max_loaded 1)", st.Sent)
	}
	if !(opened < hover && hover < closed) {
		t.Errorf("sent %q: want main.go's didOpen, its hover, then orders.go's didClose", st.Sent)
	}
	if st.Loaded {
		t.Error("orders/orders.go is still loaded: max_loaded 1 releases it")
	}
}
