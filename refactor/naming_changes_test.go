package refactor

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/workspace"
)

// TestNamingFilesStampsWhatChanged: a rename's scan after another stamps
// no file nothing happened to since (the root's notifications say so),
// and sees the file another process rewrote between the two at once,
// to the same size with its modification time put back (no stamp of
// the granularity's could tell it): it alone is stamped.
func TestNamingFilesStampsWhatChanged(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	root := writeTree(t, map[string]string{
		"go.mod":   "module example.com/m\n",
		"a/a.go":   "package a\n\nfunc Zed() {}\n",
		"b/b.go":   "package b\n\nvar y = 1\n",
		"b/c.go":   "package b\n\nvar z = 2\n",
		"c/d/e.go": "package d\n\nvar w = 3\n",
	})
	var stamps atomic.Int64
	stamp := stampPath
	stampPath = func(abs string, follow bool) (workspace.Stamp, bool) {
		stamps.Add(1)
		return stamp(abs, follow)
	}
	defer func() { stampPath = stamp }()
	naming := func() string {
		t.Helper()
		var got []string
		for _, f := range namingFiles(root, lang.Go, "Zed").files {
			got = append(got, f.rel)
		}
		return strings.Join(got, " ")
	}
	if got := naming(); got != "a/a.go" {
		t.Fatalf("first scan: %q, want a/a.go", got)
	}
	stamps.Store(0)
	if got := naming(); got != "a/a.go" {
		t.Fatalf("second scan: %q, want a/a.go", got)
	}
	if n := stamps.Load(); n != 0 {
		t.Errorf("the second scan stamped %d files, though nothing happened to any", n)
	}
	runShell(t, filepath.Join(root.Dir(), "b"), "cp -p b.go ref && printf 'package b\\n\\nvar Zed=1\\n' > b.go && touch -r ref b.go && rm ref")
	stamps.Store(0)
	if got := naming(); got != "a/a.go b/b.go" {
		t.Fatalf("after another process rewrote b/b.go to name Zed: %q, want a/a.go b/b.go", got)
	}
	if n := stamps.Load(); n != 1 {
		t.Errorf("the scan after b/b.go changed stamped %d files, want 1 (b/b.go)", n)
	}
}
