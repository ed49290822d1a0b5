package edit_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/preview"
)

// TestFileOperations: create, rename (with an edit) and delete in one
// changeset; the preferred state of each before and after, and the refusals.
func TestFileOperations(t *testing.T) {
	v := newEnv(t, map[string]string{
		"ops/old_name.txt": "package ops\n\nconst Name = \"old\"\n",
		"ops/doomed.txt":   "bye\n",
		"ops/keep.txt":     "keep\n",
		"ops/taken.txt":    "taken\n",
	})
	v.open("ops/doomed.txt")
	cs := preview.Changeset{Files: []preview.FileChange{
		{Kind: preview.OpCreate, Path: "ops/sub/new.txt", Edits: []preview.TextEdit{te(0, 0, 0, 0, "brand\nnew\n")}},
		{Kind: preview.OpRename, Path: "ops/old_name.txt", NewPath: "ops/new_name.txt", Edits: []preview.TextEdit{te(2, 14, 2, 17, "new")}},
		{Kind: preview.OpDelete, Path: "ops/doomed.txt"},
	}}
	res, err := v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "file_operations", "create (in a new folder), rename with an edit, delete", res.Diff)
	gitApplyCheck(t, v.root, "file_operations")

	t.Run("refusals", func(t *testing.T) {
		refuse := func(code apierr.Code, fcs ...preview.FileChange) {
			t.Helper()
			_, err := v.e.Submit(v.ctx, preview.Changeset{Files: fcs}, edit.Options{Preview: true})
			wantCode(t, err, code)
		}
		refuse(apierr.Conflict, preview.FileChange{Kind: preview.OpCreate, Path: "ops/keep.txt"})
		refuse(apierr.Conflict, preview.FileChange{Kind: preview.OpRename, Path: "ops/keep.txt", NewPath: "ops/taken.txt"})
		refuse(apierr.ResourceNotFound, preview.FileChange{Kind: preview.OpDelete, Path: "ops/ghost.txt"})
		v.userEdit("ops/keep.txt", 0, "unsaved")
		refuse(apierr.PreconditionFailed, preview.FileChange{Kind: preview.OpDelete, Path: "ops/keep.txt"})
		refuse(apierr.InvalidParameter, preview.FileChange{Kind: preview.OpEdit, Path: "../outside.txt"})
		refuse(apierr.InvalidParameter, preview.FileChange{Kind: preview.OpEdit, Path: "ops"})
		// Deleting the target first makes the rename legal.
		if _, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
			{Kind: preview.OpDelete, Path: "ops/taken.txt"},
			{Kind: preview.OpRename, Path: "ops/old_name.txt", NewPath: "ops/taken.txt"},
		}}, edit.Options{Preview: true}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("apply and save", func(t *testing.T) {
		res, err := v.e.ApplyStored(v.ctx, res.ChangesetID, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Files {
			if f.Op != "delete" && !f.Saved {
				t.Errorf("%s not saved: %+v", f.Path, f)
			}
		}
		if got := v.disk("ops/sub/new.txt"); got != "brand\nnew\n" {
			t.Errorf("created file = %q", got)
		}
		if got := v.disk("ops/old_name.txt"); got != "<missing>" {
			t.Errorf("old name still on disk: %q", got)
		}
		if got := v.disk("ops/new_name.txt"); got != "package ops\n\nconst Name = \"new\"\n" {
			t.Errorf("renamed file = %q", got)
		}
		if got := v.disk("ops/doomed.txt"); got != "<missing>" {
			t.Errorf("deleted file = %q", got)
		}
		if v.buffer("ops/doomed.txt").Loaded {
			t.Error("the deleted file's buffer is still loaded")
		}
		if b := v.buffer("ops/new_name.txt"); !b.Loaded || b.Modified {
			t.Errorf("renamed buffer %+v", b)
		}
	})

	t.Run("rename without save moves the file when saved", func(t *testing.T) {
		_, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
			{Kind: preview.OpRename, Path: "ops/new_name.txt", NewPath: "ops/final.txt"},
		}}, edit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v.disk("ops/new_name.txt") == "<missing>" || v.disk("ops/final.txt") != "<missing>" {
			t.Fatal("the rename reached the disk before a save")
		}
		d, err := v.e.Diff(v.ctx, "ops/final.txt")
		if err != nil {
			t.Fatal(err)
		}
		if !d.HasChanges || !strings.Contains(d.Diff, "rename from ops/new_name.txt") {
			t.Errorf("get_buffer_diff of the renamed buffer:\n%+v", d)
		}
		if _, err := v.e.Save(v.ctx, "ops/final.txt", false); err != nil {
			t.Fatal(err)
		}
		if v.disk("ops/new_name.txt") != "<missing>" || v.disk("ops/final.txt") != "package ops\n\nconst Name = \"new\"\n" {
			t.Fatalf("after save: old %q, new %q", v.disk("ops/new_name.txt"), v.disk("ops/final.txt"))
		}
	})
}
