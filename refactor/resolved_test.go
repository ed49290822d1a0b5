package refactor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

// TestChangesetTakesResolved: an edit naming the path a call resolved
// already (workspace.WithResolved: the file a rename was asked in, resolved when
// it was opened) takes that resolution, not resolving it again; an edit
// naming any other path is resolved. Told apart by a folder reached
// through a symlink, which Resolve follows: the carried resolution is
// the link's path, kept as it is.
func TestChangesetTakesResolved(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(root, "real", f), []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	_, client := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	edit := func(rel string) []wsOp {
		raw := json.RawMessage(fmt.Sprintf(`{"changes":{%q:[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":3}},"newText":"two"}]}}`,
			string(uri.File(filepath.Join(root, rel)))))
		ops, err := decodeWorkspaceEdit(raw)
		if err != nil {
			t.Fatal(err)
		}
		return ops
	}
	carried := workspace.WithResolved(ctx, filepath.Join(root, "link", "a.txt"))
	for _, c := range []struct {
		rel, want string
	}{
		{"link/a.txt", "link/a.txt"}, // carried
		{"link/b.txt", "real/b.txt"}, // another path: resolved
	} {
		cs, err := changesetOf(carried, client, preview.UTF16, edit(c.rel))
		if err != nil {
			t.Fatal(err)
		}
		if len(cs.Files) != 1 || cs.Files[0].Path != c.want {
			t.Fatalf("an edit of %s: %+v, want one change of %s", c.rel, cs.Files, c.want)
		}
	}
	// Without the carried resolution, the link is followed.
	cs, err := changesetOf(ctx, client, preview.UTF16, edit("link/a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs.Files) != 1 || cs.Files[0].Path != "real/a.txt" {
		t.Fatalf("an edit of link/a.txt, nothing carried: %+v, want one change of real/a.txt", cs.Files)
	}
}

// TestAheadTakesResolved: what a rename starts before the server's answer
// (ahead.locate, ahead.start) reads the file it was asked in where the
// read resolved it in this call (lsp.RenameThen's path), not resolving it
// again. Told apart as above: the path carried through the link is kept
// as it is, where Resolve would follow the link.
func TestAheadTakesResolved(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package real\n\nfunc Aim() int { return 1 }\n"
	if err := os.WriteFile(filepath.Join(root, "real", "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	_, client := testenv.Embedded(t, root)
	ctx := nvim.WithSnapshotMemo(testenv.Context(t))
	line := "func Aim() int { return 1 }"
	pt := lsp.Point{Line: 2, Byte: len("func A"), Char: len("func A"), Text: line}
	carried := filepath.Join(root, "link", "a.go")
	var h ahead
	h.start(ctx, client, "link/a.go", carried, pt)
	h.wait()
	if h.rel != "link/a.go" {
		t.Fatalf("the snapshot ahead is of %q, want the carried link/a.go", h.rel)
	}
	if got := h.formatKeeps("link/a.go", preview.ParseDocument(src)); got == nil {
		t.Fatal("no FormatKeeps ahead for the carried path's text")
	}
	// The disk's text parsed ahead is the carried path's: told apart by
	// a carried path whose text is not the named file's.
	other := "package real\n\nfunc Aim() int { return 2 }\n"
	if err := os.WriteFile(filepath.Join(root, "real", "b.go"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	var o ahead
	o.locate(ctx, client.Session.Root(), "real/a.go", filepath.Join(root, "real", "b.go"), pt)
	if o.disk == nil || o.disk().text != other {
		t.Fatalf("the disk's text ahead was not read from the carried path")
	}
	// The files naming the name come from the same look ahead.
	names := o.naming("Aim")
	if names == nil {
		t.Fatal("no files naming Aim looked for ahead")
	}
	if n := <-names; n.name != "Aim" || n.unknown {
		t.Fatalf("files naming Aim: %+v", n)
	}
}
