package lsp_test

import (
	"encoding/json"
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
