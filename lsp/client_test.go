package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestDefinitionThroughNeovim(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	doc, err := client.Open(ctx, "main.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].Name != "gopls" {
		t.Fatalf("servers = %+v, want gopls", doc.Servers)
	}
	pt, err := client.Locate(ctx, doc, lsp.Target{Line: 27, Symbol: "Process"})
	if err != nil {
		t.Fatal(err)
	}
	server, err := doc.ServerFor(protocol.MethodTextDocumentDefinition)
	if err != nil {
		t.Fatal(err)
	}
	var raw json.RawMessage
	params := protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc.URI}, Position: pt.In(server.OffsetEncoding)}}
	if err := client.Request(ctx, doc, server, protocol.MethodTextDocumentDefinition, params, &raw); err != nil {
		t.Fatal(err)
	}
	locs, err := lsp.DecodeLocations(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := client.ToolLocations(ctx, server.OffsetEncoding, locs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].File != "orders/orders.go" || got[0].Line != 33 || got[0].Column != 5 {
		t.Fatalf("definition = %+v, want orders/orders.go:33:5", got)
	}
}

// TestEmbeddedServersSendNoSemanticTokens: the servers nvbridge starts in
// its headless Neovim are not asked for semantic tokens (Neovim asks on
// every attach and after every change; nothing shows them).
func TestEmbeddedServersSendNoSemanticTokens(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)

	const record = `_G.nvbridge_test_sent = {}
vim.api.nvim_create_autocmd('LspRequest', { callback = function(ev)
  local r = ev.data and ev.data.request
  if r and r.type == 'pending' then table.insert(_G.nvbridge_test_sent, r.method) end
end })`
	if err := s.ExecLua(ctx, record, nil); err != nil {
		t.Fatal(err)
	}
	doc, err := client.Open(ctx, "main.go")
	if err != nil {
		t.Fatal(err)
	}
	// A request after the open: Neovim has run what the attach scheduled
	// (its semantic tokens request is scheduled right after attaching).
	if _, err := client.Hover(ctx, "main.go", lsp.Target{Line: 27, Symbol: "Process"}); err != nil {
		t.Fatal(err)
	}
	// nvbridge's own requests go through the client's RPC connection, which
	// runs no LspRequest autocmd (lua/nvbridge/async.lua): the recorder's
	// own check is a request made as Neovim's features make theirs.
	const probe = `local b = vim.fn.bufnr((...))
vim.lsp.buf_request_sync(b, 'textDocument/documentSymbol', { textDocument = { uri = vim.uri_from_bufnr(b) } }, 10000)`
	if err := s.ExecLua(ctx, probe, nil, doc.Path); err != nil {
		t.Fatal(err)
	}
	var state struct {
		Provider bool     `json:"provider"`
		Declared bool     `json:"declared"`
		Sent     []string `json:"sent"`
	}
	const inspect = `local c = vim.lsp.get_client_by_id(...)
return vim.json.encode({
  provider = c.server_capabilities.semanticTokensProvider ~= nil,
  declared = vim.tbl_get(c.config.capabilities, 'textDocument', 'semanticTokens') ~= nil,
  sent = _G.nvbridge_test_sent,
})`
	var raw string
	if err := s.ExecLua(ctx, inspect, &raw, doc.Servers[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(raw), &state); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if state.Provider || state.Declared {
		t.Errorf("semantic tokens: server provider kept %v, client declares them %v; want neither", state.Provider, state.Declared)
	}
	probed := false
	for _, m := range state.Sent {
		if strings.HasPrefix(m, "textDocument/semanticTokens") {
			t.Errorf("Neovim sent %s; requests: %v", m, state.Sent)
		}
		probed = probed || m == protocol.MethodTextDocumentDocumentSymbol
	}
	if !probed {
		t.Fatalf("the recorder saw no documentSymbol request (it records nothing?): %v", state.Sent)
	}
}
