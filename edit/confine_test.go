package edit_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/preview"
)

// outsideDir is a folder outside the workspace ($OUTSIDE of issue 8), with
// files whose content and existence the tests check stay as they were.
type outsideDir struct {
	t     *testing.T
	dir   string
	files map[string]string // name -> content ("" = must not exist)
}

func newOutside(t *testing.T, files map[string]string) *outsideDir {
	t.Helper()
	o := &outsideDir{t: t, dir: t.TempDir(), files: files}
	for name, content := range files {
		if content == "" {
			continue
		}
		if err := os.WriteFile(o.path(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

func (o *outsideDir) path(name string) string { return filepath.Join(o.dir, name) }

// untouched fails unless every outside file still has its content (or
// still does not exist).
func (o *outsideDir) untouched() {
	o.t.Helper()
	for name, want := range o.files {
		b, err := os.ReadFile(o.path(name))
		switch {
		case want == "" && err == nil:
			o.t.Errorf("outside file %s was created: %q", name, b)
		case want == "" && !os.IsNotExist(err):
			o.t.Errorf("outside file %s: %v", name, err)
		case want != "" && err != nil:
			o.t.Errorf("outside file %s: %v", name, err)
		case want != "" && string(b) != want:
			o.t.Errorf("outside file %s was written: %q, want %q", name, b, want)
		}
	}
	entries, _ := os.ReadDir(o.dir)
	if len(entries) != countExisting(o.files) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		o.t.Errorf("the outside folder holds %v", names)
	}
}

func countExisting(files map[string]string) int {
	n := 0
	for _, c := range files {
		if c != "" {
			n++
		}
	}
	return n
}

func (v *env) symlink(target, rel string) {
	v.t.Helper()
	if err := os.MkdirAll(filepath.Dir(v.abs(rel)), 0o755); err != nil {
		v.t.Fatal(err)
	}
	if err := os.Symlink(target, v.abs(rel)); err != nil {
		v.t.Fatal(err)
	}
}

// swapDirForLink replaces the (emptied) folder rel by a symlink to target.
func (v *env) swapForLink(rel, target string) {
	v.t.Helper()
	if err := os.RemoveAll(v.abs(rel)); err != nil {
		v.t.Fatal(err)
	}
	v.symlink(target, rel)
}

func isLink(t *testing.T, p string) bool {
	t.Helper()
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// TestWritesStayInRoot: the repros of issue 8 ("Writes escape the root")
// and the other aliases a file system offers, for create, edit, save,
// delete and rename. Every refusal leaves the outside files as they were.
func TestWritesStayInRoot(t *testing.T) {
	out := newOutside(t, map[string]string{
		"pwned.txt": "", "pwned2.txt": "", "new.txt": "", "made.txt": "", "hop.txt": "",
		"target.txt": "outside target\n", "doomed.txt": "outside doomed\n", "a.txt": "outside a\n",
		"hard.txt": "outside hard\n", "saved.txt": "outside saved\n",
	})
	v := newEnv(t, map[string]string{
		"victim.txt":     "victim\n",
		"victim2.txt":    "victim two\n",
		"sub/keep.txt":   "keep\n",
		"swap/file.txt":  "file\n",
		"loaded.txt":     "loaded\n",
		"del/doomed.txt": "inside doomed\n",
		"ren/a.txt":      "inside a\n",
		"plain.txt":      "plain\n",
	})

	t.Run("dangling link created by apply_patch", func(t *testing.T) {
		v.symlink(out.path("pwned.txt"), "evil")
		_, err := v.e.ApplyPatch(v.ctx, "--- /dev/null\n+++ b/evil\n@@ -0,0 +1 @@\n+pwned\n", edit.Options{Save: true})
		wantCode(t, err, apierr.InvalidParameter)
		out.untouched()
		if !isLink(t, v.abs("evil")) {
			t.Error("the link was replaced")
		}
	})

	t.Run("rename onto a dangling link", func(t *testing.T) {
		v.symlink(out.path("pwned2.txt"), "evil2")
		_, err := v.e.ApplyPatch(v.ctx, "diff --git a/victim.txt b/evil2\nsimilarity index 100%\nrename from victim.txt\nrename to evil2\n", edit.Options{Save: true})
		wantCode(t, err, apierr.InvalidParameter)
		out.untouched()
		if v.disk("victim.txt") != "victim\n" {
			t.Errorf("the source = %q", v.disk("victim.txt"))
		}
	})

	t.Run("link to a link, dot-dot after a link, /proc/self/root", func(t *testing.T) {
		v.symlink("hop2", "hop1")
		v.symlink(out.path("hop.txt"), "hop2")
		v.symlink("sub", "sublink")
		for _, p := range []string{"hop1", "sublink/../../" + filepath.Base(out.dir) + "/made.txt", "/proc/self/root" + out.path("made.txt")} {
			_, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
				{Kind: preview.OpCreate, Path: p, Edits: []preview.TextEdit{te(0, 0, 0, 0, "x\n")}},
			}}, edit.Options{Save: true})
			wantCode(t, err, apierr.InvalidParameter)
			_, err = v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{
				{Kind: preview.OpRename, Path: "victim2.txt", NewPath: p},
			}}, edit.Options{Save: true})
			wantCode(t, err, apierr.InvalidParameter)
		}
		out.untouched()
		if v.disk("victim2.txt") != "victim two\n" {
			t.Errorf("the source = %q", v.disk("victim2.txt"))
		}
	})

	// The file system changes between preview and apply; checkedBy says
	// whether Go's re-check before the Neovim call runs ("go") or only the
	// Lua guard in the writing call ("lua").
	for _, checkedBy := range []string{"go", "lua"} {
		t.Run("swapped after preview, checked by "+checkedBy, func(t *testing.T) {
			if checkedBy == "lua" {
				v.e.SkipRecheck(true)
				defer v.e.SkipRecheck(false)
			}
			preview1 := func(cs preview.Changeset) string {
				t.Helper()
				res, err := v.e.Submit(v.ctx, cs, edit.Options{Preview: true})
				if err != nil {
					t.Fatal(err)
				}
				return res.ChangesetID
			}
			dir := "sw_" + checkedBy

			// A folder swapped for a symlink: the new file would land outside.
			v.write(dir+"/a/keep.txt", "keep\n")
			id := preview1(preview.Changeset{Files: []preview.FileChange{
				{Kind: preview.OpCreate, Path: dir + "/a/new.txt", Edits: []preview.TextEdit{te(0, 0, 0, 0, "new\n")}},
			}})
			v.swapForLink(dir+"/a", out.dir)
			_, err := v.e.ApplyStored(v.ctx, id, true)
			wantCode(t, err, apierr.InvalidParameter)
			out.untouched()

			// A folder that did not exist at preview, created as a link.
			id = preview1(preview.Changeset{Files: []preview.FileChange{
				{Kind: preview.OpCreate, Path: dir + "/b/made.txt", Edits: []preview.TextEdit{te(0, 0, 0, 0, "made\n")}},
			}})
			v.symlink(out.dir, dir+"/b")
			_, err = v.e.ApplyStored(v.ctx, id, true)
			wantCode(t, err, apierr.InvalidParameter)
			out.untouched()

			// A file (not loaded) replaced by a symlink to an outside file.
			v.write(dir+"/c.txt", "c\n")
			id = preview1(preview.Changeset{Files: []preview.FileChange{fileChange(dir+"/c.txt", te(0, 0, 0, 1, "C"))}})
			v.swapForLink(dir+"/c.txt", out.path("target.txt"))
			_, err = v.e.ApplyStored(v.ctx, id, true)
			wantCode(t, err, apierr.InvalidParameter)
			out.untouched()

			// A loaded file replaced by a symlink to an outside file.
			v.write(dir+"/d.txt", "d\n")
			v.open(dir + "/d.txt")
			id = preview1(preview.Changeset{Files: []preview.FileChange{fileChange(dir+"/d.txt", te(0, 0, 0, 1, "D"))}})
			v.swapForLink(dir+"/d.txt", out.path("target.txt"))
			_, err = v.e.ApplyStored(v.ctx, id, true)
			wantCode(t, err, apierr.InvalidParameter)
			out.untouched()

			// A deletion whose folder became a link to a folder outside
			// holding a file of the same name.
			v.write(dir+"/e/doomed.txt", "inside doomed\n")
			id = preview1(preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpDelete, Path: dir + "/e/doomed.txt"}}})
			v.swapForLink(dir+"/e", out.dir)
			_, err = v.e.ApplyStored(v.ctx, id, true)
			wantCode(t, err, apierr.InvalidParameter)
			out.untouched()

			// A rename whose source folder became a link: saving would
			// remove the outside file of the same name.
			v.write(dir+"/f/a.txt", "inside a\n")
			id = preview1(preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpRename, Path: dir + "/f/a.txt", NewPath: dir + "/renamed.txt"}}})
			v.swapForLink(dir+"/f", out.dir)
			_, err = v.e.ApplyStored(v.ctx, id, true)
			wantCode(t, err, apierr.InvalidParameter)
			out.untouched()
			if v.disk(dir+"/renamed.txt") != "<missing>" {
				t.Error("the rename target was written")
			}
		})
	}

	t.Run("save_buffer after the file became a link", func(t *testing.T) {
		v.write("sv/x.txt", "x\n")
		if _, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("sv/x.txt", te(0, 0, 0, 1, "X"))}}, edit.Options{}); err != nil {
			t.Fatal(err)
		}
		v.swapForLink("sv/x.txt", out.path("saved.txt"))
		for _, force := range []bool{false, true} {
			_, err := v.e.Save(v.ctx, "sv/x.txt", force)
			wantCode(t, err, apierr.InvalidParameter)
		}
		out.untouched()
	})

	t.Run("hard link to a file outside", func(t *testing.T) {
		if err := os.Link(out.path("hard.txt"), v.abs("hard.txt")); err != nil {
			t.Skipf("no hard links here: %v", err) // same file system: both are under the test's temp dir
		}
		_, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("hard.txt", te(0, 0, 0, 7, "INSIDE"))}}, edit.Options{Save: true})
		wantCode(t, err, apierr.PreconditionFailed)
		out.untouched()
		// Edited without saving, then save_buffer: refused too.
		if _, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("hard.txt", te(0, 0, 0, 7, "INSIDE"))}}, edit.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, force := range []bool{false, true} {
			_, err = v.e.Save(v.ctx, "hard.txt", force)
			wantCode(t, err, apierr.PreconditionFailed)
		}
		out.untouched()
		// Deleting the inside name leaves the outside file alone: allowed.
		if _, err := v.e.DiscardBuffer(v.ctx, "hard.txt", true); err != nil {
			t.Fatal(err)
		}
		if _, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpDelete, Path: "hard.txt"}}}, edit.Options{}); err != nil {
			t.Fatal(err)
		}
		out.untouched()
	})

	t.Run("an ordinary edit still saves", func(t *testing.T) {
		if _, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("plain.txt", te(0, 0, 0, 5, "PLAIN"))}}, edit.Options{Save: true}); err != nil {
			t.Fatal(err)
		}
		if got := v.disk("plain.txt"); got != "PLAIN\n" {
			t.Errorf("plain.txt = %q", got)
		}
	})
}

// TestChangedOnDiskByContent: a file rewritten outside at the same size
// with its mtime put back (cp -p, rsync, tar, git checkouts) is a change on
// disk; apply and save refuse with CONFLICT and the outside change stays.
func TestChangedOnDiskByContent(t *testing.T) {
	v := newEnv(t, map[string]string{"same/a.txt": "alpha\n", "same/b.txt": "bravo\n", "same/c.txt": "charlie\n"})
	rewrite := func(rel, content string) {
		t.Helper()
		fi, err := os.Stat(v.abs(rel))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(content)) != fi.Size() {
			t.Fatalf("not the same size")
		}
		v.write(rel, content)
		if err := os.Chtimes(v.abs(rel), time.Now(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if fi2, _ := os.Stat(v.abs(rel)); !fi2.ModTime().Equal(fi.ModTime()) || fi2.Size() != fi.Size() {
			t.Fatal("mtime not put back")
		}
	}

	t.Run("apply_changeset with save", func(t *testing.T) {
		v.open("same/a.txt")
		res, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("same/a.txt", te(0, 0, 0, 5, "ALPHA"))}}, edit.Options{Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		rewrite("same/a.txt", "OUTSI\n")
		_, err = v.e.ApplyStored(v.ctx, res.ChangesetID, true)
		wantCode(t, err, apierr.Conflict)
		if got := v.disk("same/a.txt"); got != "OUTSI\n" {
			t.Errorf("disk = %q", got)
		}
	})

	t.Run("save_buffer", func(t *testing.T) {
		if _, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("same/b.txt", te(0, 0, 0, 5, "BRAVO"))}}, edit.Options{}); err != nil {
			t.Fatal(err)
		}
		rewrite("same/b.txt", "OUTSI\n")
		_, err := v.e.Save(v.ctx, "same/b.txt", false)
		wantCode(t, err, apierr.Conflict)
		if got := v.disk("same/b.txt"); got != "OUTSI\n" {
			t.Errorf("disk = %q", got)
		}
	})

	t.Run("a buffer with unsaved changes conflicts on the next request", func(t *testing.T) {
		v.write("same/d.txt", "delta\n")
		v.userEdit("same/d.txt", 0, "user's delta")
		rewrite("same/d.txt", "OUTSI\n")
		_, err := v.s.OpenBuffer(v.ctx, v.abs("same/d.txt"), true)
		wantCode(t, err, apierr.Conflict)
		if got := v.buffer("same/d.txt"); got.Text != "user's delta\n" || !got.Modified {
			t.Errorf("buffer = %+v", got)
		}
	})

	t.Run("apply_changeset without save", func(t *testing.T) {
		// Nothing reaches the disk, so the stat key is compared, not the
		// content; the rewrite moved the ctime (no tool puts it back), so
		// the buffer is found changed all the same.
		v.write("same/e.txt", "echo\n")
		v.open("same/e.txt")
		res, err := v.e.Submit(v.ctx, preview.Changeset{Files: []preview.FileChange{fileChange("same/e.txt", te(0, 0, 0, 4, "ECHO"))}}, edit.Options{Preview: true})
		if err != nil {
			t.Fatal(err)
		}
		rewrite("same/e.txt", "OUTS\n")
		_, err = v.e.ApplyStored(v.ctx, res.ChangesetID, false)
		wantCode(t, err, apierr.Conflict)
		if got := v.disk("same/e.txt"); got != "OUTS\n" {
			t.Errorf("disk = %q", got)
		}
		if got := v.buffer("same/e.txt").Text; got != "OUTS\n" {
			t.Errorf("buffer = %q", got)
		}
	})

	t.Run("an unmodified buffer is reloaded", func(t *testing.T) {
		v.open("same/c.txt")
		rewrite("same/c.txt", "OUTSIDE\n")
		v.open("same/c.txt")
		if got := v.buffer("same/c.txt").Text; got != "OUTSIDE\n" {
			t.Errorf("buffer = %q", got)
		}
	})
}

// TestFolderErrors: a folder named where a file is expected, and dangling
// links to folders, give structured errors (issue 8, "Smaller").
func TestFolderErrors(t *testing.T) {
	out := newOutside(t, map[string]string{"x.txt": ""})
	v := newEnv(t, map[string]string{"dir/in.txt": "in\n", "afile": "a file\n"})
	v.symlink(v.abs("nothere"), "dlink")               // dangling, to a folder inside
	v.symlink(filepath.Join(out.dir, "gone"), "olink") // dangling, to a folder outside

	_, err := v.client.ReadLines(v.ctx, "dir", 0, 0)
	wantCode(t, err, apierr.InvalidParameter)
	_, err = v.e.Save(v.ctx, "dir", false)
	wantCode(t, err, apierr.InvalidParameter)
	_, err = v.e.DiscardBuffer(v.ctx, "dir", false)
	wantCode(t, err, apierr.InvalidParameter)

	_, err = v.client.ReadLines(v.ctx, "dlink/x.txt", 0, 0)
	wantCode(t, err, apierr.ResourceNotFound)
	_, err = v.client.ReadLines(v.ctx, "olink/x.txt", 0, 0)
	wantCode(t, err, apierr.InvalidParameter)

	create := func(path string) (edit.Result, error) {
		return v.e.ApplyPatch(v.ctx, "--- /dev/null\n+++ b/"+path+"\n@@ -0,0 +1 @@\n+x\n", edit.Options{Save: true})
	}
	_, err = create("olink/x.txt")
	wantCode(t, err, apierr.InvalidParameter)
	_, err = create("afile/x.txt")
	wantCode(t, err, apierr.InvalidParameter)
	// Through a dangling link to a folder inside the root: the file is
	// created where the link points (the diff names the real path).
	res, err := create("dlink/x.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || !res.Files[0].Saved || res.Files[0].Path != "nothere/x.txt" || v.disk("nothere/x.txt") != "x\n" {
		t.Errorf("create through a dangling link inside: %+v", res.Files)
	}
	out.untouched()
}

// TestDiscardInAttachedNeovim: discard_buffer in the user's own Neovim
// refuses (CONFLICT) to throw away edits the user typed, unless force; the
// user's :write is recorded, so nvbridge then saves without a false
// conflict.
func TestDiscardInAttachedNeovim(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := testenv.Listening(t, root)
	s, _ := testenv.Attached(t, addr, root)
	e := edit.NewEngine(s)
	ctx := testenv.Context(t)
	user := func(code string) {
		t.Helper()
		if err := s.ExecLua(ctx, code, nil, filepath.Join(root, "mine.txt")); err != nil {
			t.Fatal(err)
		}
	}
	// The user opens the file and types.
	user(`vim.cmd.edit(vim.fn.fnameescape(...)); vim.api.nvim_buf_set_lines(0, 0, 1, true, { 'typed by the user' })`)
	_, err = e.DiscardBuffer(ctx, "mine.txt", false)
	wantCode(t, err, apierr.Conflict)
	var lines []string
	if err := s.ExecLua(ctx, `return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, true)`, &lines, filepath.Join(root, "mine.txt")); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != "typed by the user" {
		t.Fatalf("the refused discard changed the user's buffer: %q", lines)
	}
	// The user saves with :write; nvbridge's edit and save then go through.
	user(`vim.cmd('silent write')`)
	if _, err := e.Submit(ctx, preview.Changeset{Files: []preview.FileChange{fileChange("mine.txt", te(0, 0, 0, 5, "TYPED"))}}, edit.Options{Save: true}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(root, "mine.txt"))
	if string(b) != "TYPED by the user\n" {
		t.Fatalf("disk = %q", b)
	}
	// force discards the user's edits.
	user(`vim.api.nvim_buf_set_lines(vim.fn.bufnr(...), 0, 1, true, { 'again' })`)
	if r, err := e.DiscardBuffer(ctx, "mine.txt", true); err != nil || !r.Discarded {
		t.Fatalf("discard with force: %+v, %v", r, err)
	}
}
