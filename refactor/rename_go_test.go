package refactor_test

import (
	"encoding/json"
	"go/format"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
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
	// The file asked in, as the call resolved it, for the changeset
	// engine (workspace.WithResolved).
	if want, err := client.Session.Root().Resolve("orders/orders.go"); err != nil || plan.Resolved != want {
		t.Errorf("the plan carries %q as resolved, want %q (%v)", plan.Resolved, want, err)
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

// TestRenameAsPrepared: gopls renames as its prepareRename would have it
// (lang.RenameAsPrepared), so a rename is asked without prepareRename
// and takes where it stands and the old name from its edit at the
// position: the same range as prepareRename gives (multibyte lines
// included) and the same name.
func TestRenameAsPrepared(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	cases := []struct {
		file   string
		target lsp.Target
		to     string
		old    string
	}{
		// name follows é, CJK and an emoji (char 29, UTF-16 30, byte 37).
		{"text/unicode.go", lsp.Target{Line: 15, Symbol: "name"}, "who", "name"},
		{"widgets/widget.go", lsp.Target{Line: 7, Symbol: "Widget"}, "Gadget", "Widget"},
		{"orders/orders.go", lsp.Target{Line: 18, Symbol: "ID"}, "Identifier", "ID"},
		{"orders/orders.go", lsp.Target{Line: 33, Symbol: "Process"}, "Handle", "Process"},
	}
	for _, tc := range cases {
		plan, err := refactor.Rename(ctx, client, refactor.RenameRequest{File: tc.file, Target: tc.target, NewName: tc.to})
		if err != nil {
			t.Fatalf("%s:%d %s: %v", tc.file, tc.target.Line, tc.target.Symbol, err)
		}
		// The same rename with prepareRename asked beside it.
		a, err := client.RenameAtThen(ctx, tc.file, tc.target, tc.to, true, nil)
		if err != nil || !a.Prepared || a.PrepareErr != nil {
			t.Fatalf("%s:%d: prepareRename: asked %v, %v, %v", tc.file, tc.target.Line, a.Prepared, err, a.PrepareErr)
		}
		var p struct {
			Range       protocol.Range `json:"range"`
			Placeholder string         `json:"placeholder"`
		}
		if err := json.Unmarshal(a.Prepare, &p); err != nil {
			t.Fatalf("prepareRename answered %s: %v", a.Prepare, err)
		}
		want, err := client.ToolRangeAt(ctx, a.Server.OffsetEncoding, a.Doc, a.Point, p.Range)
		if err != nil {
			t.Fatal(err)
		}
		if plan.At != want || plan.OldName != p.Placeholder || plan.OldName != tc.old {
			t.Errorf("%s:%d %s: the rename stands at %+v as %q; prepareRename says %+v as %q (want %q)",
				tc.file, tc.target.Line, tc.target.Symbol, plan.At, plan.OldName, want, p.Placeholder, tc.old)
		}
	}
}

// TestRenameSnapshotsAhead: within a call that keeps its snapshots for
// the plan (a refactoring tool's), the file a rename is asked in is
// snapshotted in the read's own call once its request is on its way
// (read.lua), and not again once the server has answered: the edit's
// changeset reads that snapshot, and asks Neovim only for the other files
// the edit changes.
func TestRenameSnapshotsAhead(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := nvim.WithSnapshotMemo(testenv.Context(t))
	// Loaded and analysed first: the rename is then one read.
	if _, err := refactor.Rename(testenv.Context(t), client, refactor.RenameRequest{File: "orders/orders.go", Target: lsp.Target{Line: 33, Symbol: "Process"}, NewName: "Handle"}); err != nil {
		t.Fatal(err)
	}
	mark := len(s.Trace())
	plan, err := refactor.Rename(ctx, client, refactor.RenameRequest{File: "orders/orders.go", Target: lsp.Target{Line: 33, Symbol: "Process"}, NewName: "Handle"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 4 {
		t.Fatalf("renamed in %v", plan.Files)
	}
	var order []string
	for _, e := range s.Trace()[mark:] {
		switch {
		case strings.Contains(e.Text, "textDocument/rename") && strings.Contains(e.Text, "→"):
			order = append(order, "asked")
		case strings.HasPrefix(e.Text, "nvbridge.snapshot.files(") && strings.Contains(e.Text, " with read #"):
			order = append(order, "snapshot with the read")
		case strings.HasPrefix(e.Text, "nvbridge.snapshot.files("):
			order = append(order, "snapshot "+strings.TrimPrefix(strings.Fields(e.Text)[0], "nvbridge.snapshot.files(["))
		}
	}
	// orders.go was snapshotted with the read, the three other files the
	// edit changes after the answer.
	if want := "asked snapshot with the read snapshot 3"; strings.Join(order, " ") != want {
		t.Errorf("exchanges: %q, want %q", strings.Join(order, " "), want)
	}
}
