package edit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
)

// TestLanguageServerSeesEdit: edits applied by the engine reach gopls
// through Neovim's didChange (the buffers stay attached): definitions move
// with the inserted lines, and a new type error is diagnosed, without any
// save. A file gopls did not have open is loaded and attached by the apply.
func TestLanguageServerSeesEdit(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	v := newEnvAt(t, testenv.CopySample(t, "go"), nil)
	mainDoc, err := v.client.Open(v.ctx, "main.go")
	if err != nil {
		t.Fatal(err)
	}
	definition := func() lsp.Location {
		t.Helper()
		pt, err := v.client.Locate(v.ctx, mainDoc, lsp.Target{Line: 27, Symbol: "Process"})
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		server, err := v.client.RequestFor(v.ctx, mainDoc, protocol.MethodTextDocumentDefinition, protocol.DefinitionParams{
			TextDocumentPositionParams: protocol.TextDocumentPositionParams{
				TextDocument: protocol.TextDocumentIdentifier{URI: mainDoc.URI}, Position: pt.In(mainDoc.Servers[0].OffsetEncoding)}}, &raw)
		if err != nil {
			t.Fatal(err)
		}
		locs, err := lsp.DecodeLocations(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.client.ToolLocations(v.ctx, server.OffsetEncoding, locs)
		if err != nil || len(got) != 1 {
			t.Fatalf("definition: %+v, %v", got, err)
		}
		return got[0]
	}
	if d := definition(); d.File != "orders/orders.go" || d.Line != 33 {
		t.Fatalf("definition before the edit: %+v", d)
	}
	if v.buffer("orders/orders.go").Loaded {
		t.Fatal("orders.go is loaded already; the test wants the engine to load it")
	}

	// Three lines after the package clause of a file that is not loaded.
	res, err := v.e.EditLines(v.ctx, "orders/orders.go", []edit.LineEdit{
		{LineStart: 2, LineEnd: 1, NewText: "\n// Inserted by nvbridge.\n// So is this."},
	}, edit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Applied || !res.Files[0].IsModified {
		t.Fatalf("result %+v", res)
	}
	if d := definition(); d.File != "orders/orders.go" || d.Line != 36 {
		t.Fatalf("definition after inserting 3 lines: %+v, want orders/orders.go:36", d)
	}

	// A type error in main.go is diagnosed from the buffer's text.
	if _, err := v.e.EditLines(v.ctx, "main.go", []edit.LineEdit{
		{LineStart: 17, LineEnd: 16, NewText: "\tvar broken int = \"not a number\""},
	}, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	diags, fresh, err := v.client.Diagnostics(v.ctx, mainDoc)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range diags {
		if d.Line == 17 && strings.Contains(d.Message, "cannot use") {
			found = true
		}
	}
	if !fresh.Complete || !found {
		t.Fatalf("diagnostics (complete=%v: %s) do not show the new error on line 17: %+v", fresh.Complete, fresh.Why, diags)
	}
	if got := v.disk("main.go"); strings.Contains(got, "broken") {
		t.Fatal("the edit reached the disk without save")
	}
}
