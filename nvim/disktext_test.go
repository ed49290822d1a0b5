package nvim_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// TestSnapshotReadsDiskTexts: the text of a file no buffer holds is read
// from the disk by Snapshot when it is the file's bytes (UTF-8, no BOM:
// Neovim does not copy it into its answer), and sent by Neovim otherwise
// (a BOM, Latin-1); either way it is the text Neovim would show, with the
// fingerprint of the bytes on disk. A file changed between Neovim's read
// and Snapshot's is snapshotted again: the new text with its own
// fingerprint, never one's text with the other's fingerprint.
func TestSnapshotReadsDiskTexts(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	files := map[string]string{
		"utf8.go":    "package x\n\nvar s = \"é😀\"\n",
		"empty.txt":  "",
		"nul.txt":    "a\x00b\n",
		"bom.txt":    "\xef\xbb\xbfhi\n",
		"latin1.txt": "caf\xe9\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	want := map[string]struct {
		text    string
		bomb    bool
		fromGo  bool
		encoded string
	}{
		"utf8.go":    {files["utf8.go"], false, true, "utf-8"},
		"empty.txt":  {"", false, true, "utf-8"},
		"nul.txt":    {"a\x00b\n", false, true, "utf-8"},
		"bom.txt":    {"hi\n", true, false, "utf-8"},
		"latin1.txt": {"café\n", false, false, "latin1"},
	}
	for name, w := range want {
		read0, again0 := nvim.DiskTextCounts(s)
		path := filepath.Join(root, name)
		snap, err := s.Snapshot(ctx, []string{path}, nvim.SnapshotOptions{})
		if err != nil || len(snap) != 1 || snap[0].Err != nil {
			t.Fatalf("%s: snapshot %+v, %v", name, snap, err)
		}
		f := snap[0]
		if f.Text != w.text || f.Bomb != w.bomb || f.FileEncoding != w.encoded || f.Loaded || !f.Exists {
			t.Errorf("%s: text %q bomb %v encoding %q (loaded %v, exists %v); want %q %v %q", name, f.Text, f.Bomb, f.FileEncoding, f.Loaded, f.Exists, w.text, w.bomb, w.encoded)
		}
		if fp := nvim.Fingerprint([]byte(files[name])); f.Fingerprint != fp {
			t.Errorf("%s: fingerprint %s, the disk's is %s", name, f.Fingerprint, fp)
		}
		read, again := nvim.DiskTextCounts(s)
		if (read > read0) != w.fromGo || again != again0 {
			t.Errorf("%s: read from the disk by Snapshot: %v (again %d), want %v", name, read > read0, again-again0, w.fromGo)
		}
	}

	// Changed between Neovim's read and Snapshot's.
	path := filepath.Join(root, "utf8.go")
	changed := "package x\n\nvar s = \"changed\"\n"
	restore := nvim.SetReadDiskText(func(p string) ([]byte, error) {
		if err := os.WriteFile(p, []byte(changed), 0o644); err != nil {
			return nil, err
		}
		return os.ReadFile(p)
	})
	defer restore()
	read0, again0 := nvim.DiskTextCounts(s)
	snap, err := s.Snapshot(ctx, []string{path}, nvim.SnapshotOptions{})
	if err != nil || len(snap) != 1 || snap[0].Err != nil {
		t.Fatalf("changed file: snapshot %+v, %v", snap, err)
	}
	if snap[0].Text != changed || snap[0].Fingerprint != nvim.Fingerprint([]byte(changed)) {
		t.Errorf("changed file: text %q, fingerprint %s; want %q with %s", snap[0].Text, snap[0].Fingerprint, changed, nvim.Fingerprint([]byte(changed)))
	}
	if read, again := nvim.DiskTextCounts(s); read != read0 || again != again0+1 {
		t.Errorf("changed file: %d read by Snapshot, %d sent again; want 0 and 1", read-read0, again-again0)
	}
}
