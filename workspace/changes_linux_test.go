package workspace_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/nvbridge/nvbridge/workspace"
)

// sh runs script in dir by another process (what nvbridge learns of it,
// it learns from the system).
func sh(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", script, err, out)
	}
}

// TestChangesToldByAnotherProcess: a file confirmed at a moment stays
// unchanged while nothing happens to it (a change of another file aside),
// and is changed once another process wrote it (appended; rewritten to
// the same size with its modification time put back, within any
// timestamp granularity; replaced by a rename; linked; written by another
// link outside the root), its directory moved away and another put in its
// place, or the root replaced; a file outside the root or a symbolic
// link is not watched.
func TestChangesToldByAnotherProcess(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws", "root")
	sub := filepath.Join(root, "pkg", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	f, g, h := filepath.Join(sub, "f.go"), filepath.Join(sub, "g.go"), filepath.Join(root, "h.go")
	for _, p := range []string{f, g, h} {
		if err := os.WriteFile(p, []byte("package sub\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := workspace.NewChanges(root)
	t.Cleanup(c.Close)

	// confirmed is a moment f is watched at (before its stamp would be
	// taken).
	confirmed := func(p string) workspace.Moment {
		t.Helper()
		at := c.Begin()
		if !c.Watch(p) {
			t.Fatalf("%s is not watched (is %s on a local file system?)", p, root)
		}
		return at
	}
	unchanged := func(p string, at workspace.Moment) bool {
		c.Begin()
		return c.Unchanged(p, at)
	}

	at := confirmed(f)
	if !unchanged(f, at) {
		t.Fatal("f changed while nothing happened to it")
	}
	sh(t, sub, "printf 'var G int\\n' >> g.go")
	if !unchanged(f, at) {
		t.Fatal("f changed when g was written")
	}
	sh(t, sub, "printf '// x\\n' >> f.go")
	if unchanged(f, at) {
		t.Fatal("f unchanged after another process appended to it")
	}

	at = confirmed(f)
	if !unchanged(f, at) {
		t.Fatal("f changed from a moment after the append")
	}
	// The same size, the same modification time, at once: only the
	// notification tells it.
	sh(t, sub, "cp -p f.go ref && printf 'package sua\\n// x\\n' > f.go && touch -r ref f.go && rm ref")
	if unchanged(f, at) {
		t.Fatal("f unchanged after another process rewrote it to the same size and time")
	}

	// Replaced by a rename while the old file is still open (its inode
	// lives on: only the directory tells the replacement).
	at = confirmed(f)
	old, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	sh(t, sub, "printf 'package sub\\n' > f.tmp && mv f.tmp f.go")
	if unchanged(f, at) {
		t.Fatal("f unchanged after another process replaced it by a rename")
	}
	old.Close()

	at = confirmed(f)
	sh(t, root, "mv pkg pkg2 && mkdir -p pkg/sub && printf 'package sub\\n' > pkg/sub/f.go")
	if unchanged(f, at) {
		t.Fatal("f unchanged after its directory was moved away and another made in its place")
	}

	at = confirmed(h)
	sh(t, root, "mv h.go h.old && mv h.old h.go")
	if unchanged(h, at) {
		t.Fatal("h unchanged after it was moved away and back")
	}

	at = confirmed(h)
	sh(t, base, "mkdir -p ws2 && mv ws/root ws2/root && mkdir ws/root && printf 'package sub\\n' > ws/root/h.go")
	if unchanged(h, at) {
		t.Fatal("h unchanged after the root was moved away and another made in its place")
	}

	at = confirmed(h)
	sh(t, base, "mv ws ws3 && mkdir -p ws/root && printf 'package sub\\n' > ws/root/h.go")
	if unchanged(h, at) {
		t.Fatal("h unchanged after the root's parent was moved away and another made in its place")
	}

	// Hard links, made after h was confirmed and before, outside the
	// root: a change by the other link is h's.
	outside := t.TempDir()
	at = confirmed(h)
	sh(t, root, "ln h.go "+filepath.Join(outside, "h2.go"))
	if unchanged(h, at) {
		t.Error("h unchanged after a link to it was made")
	}
	at = confirmed(h)
	sh(t, outside, "printf '// x\\n' >> h2.go")
	if unchanged(h, at) {
		t.Error("h unchanged after another process wrote it by its other link, outside the root")
	}
	if c.Watch(filepath.Join(outside, "h2.go")) {
		t.Error("a file outside the root is watched")
	}
	sh(t, root, "ln -s h.go hs.go")
	if c.Watch(filepath.Join(root, "hs.go")) {
		t.Error("a symbolic link is watched (its target's changes are not told to it)")
	}
}

// TestChangesClosed: a closed Changes says nothing is unchanged.
func TestChangesClosed(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "f.go")
	if err := os.WriteFile(f, []byte("package f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := workspace.NewChanges(root)
	at := c.Begin()
	if !c.Watch(f) {
		t.Fatal("f is not watched")
	}
	c.Close()
	c.Begin()
	if c.Unchanged(f, at) {
		t.Fatal("f unchanged by a closed Changes")
	}
}

// TestChangesMomentsOfAnother: a moment of one Changes says nothing to
// another of the same root (one made again after the first was closed,
// whose counts start where the first's did), even for a file both watch
// and nothing changed: a thing kept at the first's moment is confirmed
// again, never taken on the second's word.
func TestChangesMomentsOfAnother(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "f.go")
	if err := os.WriteFile(f, []byte("package f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := workspace.NewChanges(root)
	at := first.Begin()
	if !first.Watch(f) || !first.Unchanged(f, at) {
		t.Fatal("f is not followed by the first")
	}
	first.Close()
	second := workspace.NewChanges(root)
	defer second.Close()
	own := second.Begin()
	if !second.Watch(f) || !second.Unchanged(f, own) {
		t.Fatal("f is not followed by the second")
	}
	if second.Unchanged(f, at) {
		t.Fatal("the second Changes took the first's moment")
	}
}
