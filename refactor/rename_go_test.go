package refactor_test

import (
	"go/format"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/refactor"
)

// TestRenameUnsavedLine: a rename is asked with its open in one call to
// Neovim from the line as the disk holds it; when the buffer holds
// another text there (an unsaved edit), nothing is sent in that call and
// the rename goes on from the buffer's line, prepareRename asked after
// it: the symbol is the buffer's, the edit is of the buffer's text, and a
// position prepareRename refuses is still refused as such.
func TestRenameUnsavedLine(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	engine := edit.NewEngine(s)
	info, err := client.Info(ctx, "orders/orders.go", true)
	if err != nil {
		t.Fatal(err)
	}
	old := preview.ParseDocument(*info.Content)
	const line = "func Process(o Order) (Total, error) {" // line 33
	if old.Lines[32] != line {
		t.Fatalf("orders.go:33 is %q", old.Lines[32])
	}
	// Unsaved: the line gets a comment that names Process too.
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "orders/orders.go", Old: old, Edits: []preview.TextEdit{
		{StartLine: 32, StartCol: len(line), EndLine: 32, EndCol: len(line), NewText: " // Process: buffer only"},
	}}}}
	if _, err := engine.Submit(ctx, cs, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	plan, err := refactor.Rename(ctx, client, refactor.RenameRequest{File: "orders/orders.go", Target: lsp.Target{Line: 33, Column: refInt(5)}, NewName: "Handle"})
	if err != nil {
		t.Fatal(err)
	}
	if plan.OldName != "Process" || plan.At.Line != 33 || plan.At.Column != 5 || plan.At.EndColumn != 12 {
		t.Errorf("renamed %q at %+v, want Process at 33:5-12", plan.OldName, plan.At)
	}
	var after string
	for _, fc := range plan.Changeset.Files {
		if fc.Path == "orders/orders.go" {
			doc, err := preview.Apply(fc.Old, fc.Edits)
			if err != nil {
				t.Fatal(err)
			}
			after = doc.Text()
		}
	}
	if !strings.Contains(after, "\nfunc Handle(o Order) (Total, error) { // Process: buffer only\n") {
		t.Errorf("orders.go after the rename:\n%s", after)
	}
	// The comment on that line: prepareRename answers null.
	_, err = refactor.Rename(ctx, client, refactor.RenameRequest{File: "orders/orders.go", Target: lsp.Target{Line: 33, Column: refInt(len(line) + 5)}, NewName: "Handle"})
	wantRefactorCode(t, "comment", err, apierr.PreconditionFailed, "gopls", "cannot be renamed")
}

// TestRenameFormats: a rename's preview is gofmt-clean where the files
// were: a field renamed longer realigns its struct, while its uses
// elsewhere (a composite literal on one line, a selector in a call) are
// left as the server renamed them, gofmt keeping them too.
func TestRenameFormats(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	plan, err := refactor.Rename(ctx, client, refactor.RenameRequest{File: "orders/orders.go", Target: lsp.Target{Line: 18, Symbol: "ID"}, NewName: "Identifier"})
	if err != nil {
		t.Fatal(err)
	}
	after := map[string]string{}
	for _, fc := range plan.Changeset.Files {
		doc, err := preview.Apply(fc.Old, fc.Edits)
		if err != nil {
			t.Fatal(err)
		}
		after[fc.Path] = doc.Text()
		if out, err := format.Source([]byte(after[fc.Path])); err != nil || string(out) != after[fc.Path] {
			t.Errorf("%s is not gofmt-clean after the rename (%v):\n%s", fc.Path, err, after[fc.Path])
		}
	}
	if !strings.Contains(after["orders/orders.go"], "type Order struct {\n\tIdentifier string\n\tCustomer   string\n\tLines      []Line\n}") {
		t.Errorf("orders.go:\n%s", after["orders/orders.go"])
	}
	if !strings.Contains(after["main.go"], "orders.Order{Identifier: \"A-1\"") || !strings.Contains(after["orders/format.go"], "Normalize(o.Identifier)") {
		t.Errorf("uses not renamed: %v", plan.Files)
	}
}
