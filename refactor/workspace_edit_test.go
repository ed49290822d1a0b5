package refactor_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/refactor"
)

// TestChangesetConversion converts hand-written WorkspaceEdits (as servers
// send them) against files Neovim holds, no server needed.
func TestChangesetConversion(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("emoji.txt", "a🎉b\nsecond\n")
	write("crlf.txt", "x\r\ny\r\n")
	write("old.txt", "old content\n")
	write("gone.txt", "bye\n")
	write("exists.txt", "here\n")
	write("again.txt", "before\n")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	u := func(rel string) string { return string(uri.File(filepath.Join(root, rel))) }
	pos := func(l, c int) string { return fmt.Sprintf(`{"line":%d,"character":%d}`, l, c) }
	textEdit := func(sl, sc, el, ec int, text string) string {
		b, _ := json.Marshal(text)
		return fmt.Sprintf(`{"range":{"start":%s,"end":%s},"newText":%s}`, pos(sl, sc), pos(el, ec), b)
	}
	changes := func(rel string, edits ...string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"changes":{%q:[%s]}}`, u(rel), strings.Join(edits, ",")))
	}
	docChanges := func(entries ...string) json.RawMessage {
		return json.RawMessage(`{"documentChanges":[` + strings.Join(entries, ",") + `]}`)
	}
	tde := func(rel string, version string, edits ...string) string {
		return fmt.Sprintf(`{"textDocument":{"uri":%q,"version":%s},"edits":[%s]}`, u(rel), version, strings.Join(edits, ","))
	}

	t.Run("encodings", func(t *testing.T) {
		// "a🎉b": b is at UTF-16 unit 3, UTF-32 code point 2, byte 5.
		for enc, col := range map[preview.Encoding]int{preview.UTF16: 3, preview.UTF32: 2, preview.UTF8: 5} {
			cs, err := refactor.Changeset(ctx, client, enc, changes("emoji.txt", textEdit(0, col, 0, col+1, "B")))
			if err != nil {
				t.Fatalf("%s: %v", enc, err)
			}
			if len(cs.Files) != 1 || len(cs.Files[0].Edits) != 1 || cs.Files[0].Edits[0] != (preview.TextEdit{StartCol: 5, EndCol: 6, NewText: "B"}) {
				t.Fatalf("%s: %+v", enc, cs.Files)
			}
		}
	})

	t.Run("bad edits change nothing", func(t *testing.T) {
		bad := []struct {
			name string
			edit json.RawMessage
			code apierr.Code
			says string
		}{
			{"inside a surrogate pair", changes("emoji.txt", textEdit(0, 2, 0, 2, "x")), apierr.OperationFailed, "inside a character"},
			{"past the end of a line", changes("emoji.txt", textEdit(1, 0, 1, 99, "x")), apierr.OperationFailed, "past the end of line"},
			{"past the last line", changes("emoji.txt", textEdit(5, 0, 5, 0, "x")), apierr.OperationFailed, "past the end of the document"},
			{"overlapping", changes("emoji.txt", textEdit(1, 0, 1, 4, "x"), textEdit(1, 2, 1, 6, "y")), apierr.OperationFailed, "overlap"},
			{"outside the workspace", json.RawMessage(fmt.Sprintf(`{"changes":{%q:[%s]}}`, uri.File("/etc/hostname"), textEdit(0, 0, 0, 0, "x"))), apierr.PreconditionFailed, "outside"},
			{"malformed", json.RawMessage(`{"documentChanges":[{"kind":"explode","uri":"file:///x"}]}`), apierr.OperationFailed, "unknown kind"},
			{"create over an existing file", docChanges(`{"kind":"create","uri":"` + u("exists.txt") + `"}`), apierr.Conflict, "already exists"},
			{"rename onto an existing file", docChanges(`{"kind":"rename","oldUri":"` + u("old.txt") + `","newUri":"` + u("exists.txt") + `"}`), apierr.Conflict, "already exists"},
		}
		for _, c := range bad {
			_, err := refactor.Changeset(ctx, client, preview.UTF16, c.edit)
			if apierr.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.says) {
				t.Errorf("%s: %v, want %s saying %q", c.name, err, c.code, c.says)
			}
		}
	})

	t.Run("versions", func(t *testing.T) {
		if _, err := s.OpenBuffer(ctx, filepath.Join(root, "emoji.txt"), true); err != nil {
			t.Fatal(err)
		}
		// No server has the buffer open: there is no version to compare
		// with, except that a positive one cannot be right. (The real
		// mismatch is in TestRenameThroughGopls.)
		for _, version := range []string{"null", "0"} {
			if _, err := refactor.Changeset(ctx, client, preview.UTF16, docChanges(tde("emoji.txt", version, textEdit(1, 0, 1, 6, "2nd")))); err != nil {
				t.Errorf("version %s: %v", version, err)
			}
		}
		_, err := refactor.Changeset(ctx, client, preview.UTF16, docChanges(tde("emoji.txt", "3", textEdit(1, 0, 1, 6, "2nd"))))
		if apierr.CodeOf(err) != apierr.Conflict || !strings.Contains(err.Error(), "version 3") {
			t.Fatalf("version 3 of an unversioned buffer: %v, want CONFLICT", err)
		}
	})

	t.Run("file operations and sequential edits", func(t *testing.T) {
		we := docChanges(
			`{"kind":"create","uri":"`+u("dir/new.txt")+`"}`,
			tde("dir/new.txt", "null", textEdit(0, 0, 0, 0, "created\r\nfile\n")),
			`{"kind":"rename","oldUri":"`+u("old.txt")+`","newUri":"`+u("renamed.txt")+`"}`,
			tde("renamed.txt", "null", textEdit(0, 0, 0, 3, "new")),
			`{"kind":"delete","uri":"`+u("gone.txt")+`"}`,
			`{"kind":"create","uri":"`+u("exists.txt")+`","options":{"ignoreIfExists":true}}`,
			tde("crlf.txt", "null", textEdit(0, 0, 0, 1, "X")),
			tde("crlf.txt", "null", textEdit(1, 0, 1, 0, "inserted\r\n")), // against the text after the first
		)
		cs, err := refactor.Changeset(ctx, client, preview.UTF16, we)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, fc := range cs.Files {
			kinds = append(kinds, fc.Kind.String()+" "+fc.Path+fc.NewPath)
		}
		if got := strings.Join(kinds, ", "); got != "delete gone.txt, create dir/new.txt, rename old.txtrenamed.txt, edit crlf.txt" {
			t.Fatalf("changes: %s", got)
		}
		// A file deleted, created again and edited: an edit of its whole
		// text to the created one's (the edits of the new file applied,
		// though only one batch edits it).
		again, err := refactor.Changeset(ctx, client, preview.UTF16, docChanges(
			`{"kind":"delete","uri":"`+u("again.txt")+`"}`,
			`{"kind":"create","uri":"`+u("again.txt")+`"}`,
			tde("again.txt", "null", textEdit(0, 0, 0, 0, "after\n")),
		))
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Files) != 1 || again.Files[0].Kind != preview.OpEdit {
			t.Fatalf("deleted and created again: %+v", again.Files)
		}
		if doc, err := preview.Apply(again.Files[0].Old, again.Files[0].Edits); err != nil || doc.Text() != "after\n" {
			t.Fatalf("deleted and created again: %q (%v), want \"after\\n\"", doc.Text(), err)
		}
		e := edit.NewEngine(s)
		res, err := e.Submit(ctx, cs, edit.Options{Save: true})
		if err != nil {
			t.Fatal(err)
		}
		for rel, want := range map[string]string{
			"dir/new.txt": "created\nfile\n", "renamed.txt": "new content\n", "crlf.txt": "X\r\ninserted\r\ny\r\n",
			"old.txt": "<missing>", "gone.txt": "<missing>", "exists.txt": "here\n",
		} {
			got, err := os.ReadFile(filepath.Join(root, rel))
			if os.IsNotExist(err) {
				got = []byte("<missing>")
			}
			if string(got) != want {
				t.Errorf("%s = %q, want %q\n%s", rel, got, want, res.Summary())
			}
		}
	})
}

// TestRenameThroughGopls converts gopls's real rename answer (documentChanges
// with versions) and applies it; the sample still builds. A buffer edited
// after the answer makes the same WorkspaceEdit a CONFLICT.
func TestRenameThroughGopls(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	root := testenv.CopySample(t, "go")
	s, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	doc, err := client.Open(ctx, "orders/orders.go")
	if err != nil {
		t.Fatal(err)
	}
	pt, err := client.Locate(ctx, doc, lsp.Target{Line: 33, Symbol: "Process"})
	if err != nil {
		t.Fatal(err)
	}
	server, err := doc.ServerFor(protocol.MethodTextDocumentRename)
	if err != nil {
		t.Fatal(err)
	}
	var we json.RawMessage
	params := protocol.RenameParams{NewName: "Handle", TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: doc.URI}, Position: pt.In(server.OffsetEncoding)}}
	if err := client.Request(ctx, doc, server, protocol.MethodTextDocumentRename, params, &we); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(we), `"version"`) {
		t.Fatalf("gopls answered without versions: %s", we)
	}
	cs, err := refactor.Changeset(ctx, client, server.OffsetEncoding, we)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Files) != 4 { // orders.go, batch.go, orders_test.go, main.go
		t.Fatalf("%d files changed: %+v", len(cs.Files), cs.Files)
	}
	e := edit.NewEngine(s)
	if _, err := e.Submit(ctx, cs, edit.Options{Save: true}); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "./...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the sample no longer builds: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "main.go")); !strings.Contains(string(b), "orders.Handle(") {
		t.Fatal("main.go does not call orders.Handle")
	}

	// The same answer once the buffer moved on (gopls versioned it 0, the
	// version Neovim opened it with): its version no longer matches.
	if _, err := e.EditLines(ctx, "orders/orders.go", []edit.LineEdit{{LineStart: 2, LineEnd: 1, NewText: "// moved on"}}, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	_, err = refactor.Changeset(ctx, client, server.OffsetEncoding, we)
	if apierr.CodeOf(err) != apierr.Conflict || !strings.Contains(err.Error(), "version 0") {
		t.Fatalf("stale WorkspaceEdit: %v, want CONFLICT naming the version", err)
	}
}
