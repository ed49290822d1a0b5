package edit_test

import (
	"context"
	"os"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

// TestPlannedOnOld: a change computed against the snapshot's own text
// (its Old is that text's document, as a rename's changeset makes it) is
// planned on that document as it is, not split again (its lines are
// Old's); an Old of another text is refused as a conflict, as before.
func TestPlannedOnOld(t *testing.T) {
	text := "package a\n\nvar x = 1\n"
	v := newEnv(t, map[string]string{"a.go": text})
	old := preview.ParseBuffer(text, false)
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "a.go", Old: old,
		Edits: []preview.TextEdit{{StartLine: 2, StartCol: 4, EndLine: 2, EndCol: 5, NewText: "y"}}}}}
	before, err := v.e.PlannedOn(v.ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || len(before[0].Lines) != len(old.Lines) || &before[0].Lines[0] != &old.Lines[0] {
		t.Fatalf("planned on %+v, not on the change's own document %+v", before, old)
	}
	cs.Files[0].Old = preview.ParseBuffer("package a\n\nvar x = 2\n", false)
	if _, err := v.e.PlannedOn(v.ctx, cs); apierr.As(err).Code != apierr.Conflict {
		t.Fatalf("planned on another text: %v, want a conflict", err)
	}
}

// TestPlannedAtResolved: a change of the path the call resolved already
// (workspace.WithResolved: a rename's file) is planned there, not
// resolved again; without it, the path is resolved. Told apart by a
// folder reached through a symlink, which Resolve follows: the carried
// path is the link's, kept as it is.
func TestPlannedAtResolved(t *testing.T) {
	text := "package a\n\nvar x = 1\n"
	v := newEnv(t, map[string]string{"real/a.go": text})
	if err := os.Symlink("real", v.abs("link")); err != nil {
		t.Fatal(err)
	}
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "link/a.go",
		Edits: []preview.TextEdit{{StartLine: 2, StartCol: 4, EndLine: 2, EndCol: 5, NewText: "y"}}}}}
	for _, c := range []struct {
		ctx  context.Context
		want string
	}{
		{workspace.WithResolved(v.ctx, v.abs("link/a.go")), v.abs("link/a.go")},
		{workspace.WithResolved(v.ctx, v.abs("real/b.go")), v.abs("real/a.go")},
		{v.ctx, v.abs("real/a.go")},
	} {
		paths, err := v.e.PlannedPaths(c.ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 1 || paths[0] != c.want {
			t.Fatalf("planned at %q, want %s", paths, c.want)
		}
	}
}
