package refactor

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/workspace"
)

// TestNamingFilesKept: a rename's scan after another, nothing having
// happened under the root, is the one kept (not made again), its imports
// resolved again; and whatever another process does to the files (a file
// rewritten to the same size with its modification time put back, a file
// made in a new folder, one removed, an unrelated one written), the next
// scan sees it.
func TestNamingFilesKept(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	root := writeTree(t, map[string]string{
		"go.mod":     "module example.com/m\n",
		"auth/a.go":  "package auth\n\nfunc GetAuth() {}\n",
		"use/use.go": "package use\n\nimport \"example.com/m/auth\"\n\nvar x = auth.GetAuth\n",
		"other/o.go": "package other\n\nvar y = GetAutx\n",
	})
	dir := root.Dir()
	key := namingKey{dir: dir, policy: root.Policy(), lang: lang.Go, name: "GetAuth"}
	scan := func() string { t.Helper(); return namingDescribed(t, root, "GetAuth") }
	want := "auth/a.go []; use/use.go [auth]"
	if got := scan(); got != want {
		t.Fatalf("first scan: %s\nwant %s", got, want)
	}
	// Kept, it is what the next scan gives: a file taken out of it shows.
	keptNamings.Lock()
	s, ok := keptNamings.m[key]
	if ok {
		marked := s
		marked.found = s.found[:1]
		keptNamings.m[key] = marked
	}
	keptNamings.Unlock()
	if !ok || len(s.found) != 2 {
		t.Fatalf("the first scan was not kept: %+v", s)
	}
	if got := scan(); got != "auth/a.go []" {
		t.Fatalf("second scan, nothing changed: %s\nwant the kept scan, a file taken out: auth/a.go []", got)
	}
	keptNamings.Lock()
	keptNamings.m[key] = s
	keptNamings.Unlock()
	if got := scan(); got != want {
		t.Fatalf("third scan, nothing changed: %s\nwant %s", got, want)
	}
	// An index entry dropped (the index's bound): the scan is made again.
	identIndex.Lock()
	e := identIndex.m[identKey{abs: filepath.Join(dir, "use", "use.go"), lang: lang.Go}]
	delete(identIndex.m, identKey{abs: filepath.Join(dir, "use", "use.go"), lang: lang.Go})
	identIndex.Unlock()
	if e == nil {
		t.Fatal("use/use.go had no index entry")
	}
	identIndex.Lock()
	identIndex.bytes -= e.size()
	identIndex.Unlock()
	if got := scan(); got != want {
		t.Fatalf("after use/use.go's index entry was dropped: %s\nwant %s", got, want)
	}
	sh := func(script string) {
		t.Helper()
		runShell(t, dir, script)
	}
	steps := []struct {
		name, script, want string
	}{
		// (Its reference time kept outside the root: the folders' stamps
		// do not move, the files' list is the same.)
		{"a file rewritten by another process, same size and modification time",
			"ref=$(mktemp) && cp -p other/o.go $ref && printf 'package other\\n\\nvar y = GetAuth\\n' > other/o.go && touch -r $ref other/o.go && rm $ref",
			"auth/a.go []; other/o.go []; use/use.go [auth]"},
		{"a file made in a new folder", "mkdir new && printf 'package n\\n\\nimport \"example.com/m/use\"\\n\\nvar n = GetAuth\\n' > new/n.go",
			"auth/a.go []; new/n.go [use]; other/o.go []; use/use.go [auth]"},
		{"a file removed", "rm auth/a.go", "new/n.go [use]; other/o.go []; use/use.go [auth]"},
		{"an unrelated file written", "echo notes > notes.txt", "new/n.go [use]; other/o.go []; use/use.go [auth]"},
	}
	for _, st := range steps {
		testenv.FileClockTick(t, dir)
		sh(st.script)
		if got := scan(); got != st.want {
			t.Fatalf("%s: %s\nwant %s", st.name, got, st.want)
		}
		if got := scan(); got != st.want {
			t.Fatalf("%s, scanned again: %s\nwant %s", st.name, got, st.want)
		}
	}
}

// TestNamingFilesNotKeptUnfollowed: once the root's notifications no
// longer follow the files, the scan kept before is not taken (a file
// rewritten since, to the same size with its modification time put back,
// is read again), and a scan they do not follow is not kept.
func TestNamingFilesNotKeptUnfollowed(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	root := writeTree(t, map[string]string{
		"go.mod":    "module example.com/m\n",
		"auth/a.go": "package auth\n\nfunc GetAuth() {}\n",
	})
	key := namingKey{dir: root.Dir(), policy: root.Policy(), lang: lang.Go, name: "GetAuth"}
	namingFiles(root, lang.Go, "GetAuth")
	keptNamings.Lock()
	s0, kept := keptNamings.m[key]
	keptNamings.Unlock()
	if !kept {
		t.Skip("the scan was not kept: no notifications here (another system, or inotify refused)")
	}
	fileChanges(root.Dir()).Close()
	defer func() {
		rootChanges.Lock()
		delete(rootChanges.m, root.Dir())
		rootChanges.Unlock()
	}()
	testenv.FileClockTick(t, root.Dir())
	runShell(t, filepath.Join(root.Dir(), "auth"), "ref=$(mktemp) && cp -p a.go $ref && printf 'package auth\\n\\nfunc GetAutx() {}\\n' > a.go && touch -r $ref a.go && rm $ref")
	if n := namingFiles(root, lang.Go, "GetAuth"); len(n.files) != 0 {
		t.Fatalf("after the notifications ended and auth/a.go no longer names GetAuth: %+v", n.files)
	}
	keptNamings.Lock()
	s := keptNamings.m[key]
	keptNamings.Unlock()
	if s.at != s0.at || len(s.found) != 1 {
		t.Fatalf("a scan without notifications was kept: %+v", s)
	}
}

// TestNamingFilesNotKeptUnwatched: a scan that read a file the
// notifications do not follow (past the bound of the watches one root
// adds: the file is stamped, not watched) is not kept: the next scan
// reads the file again, and sees it rewritten to the same size with its
// modification time put back.
func TestNamingFilesNotKeptUnwatched(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	files := map[string]string{
		"go.mod":    "module example.com/m\n",
		"auth/a.go": "package auth\n\nfunc GetAuth() {}\n",
		// Sorted last: read once the watches ran out.
		"zz/last.go": "package zz\n\nvar y = GetAutx\n",
	}
	// Each file in a folder of its own: two watches a file.
	for i := range 1100 {
		files[fmt.Sprintf("p/d%04d/f.go", i)] = "package d\n\nvar x = 1\n"
	}
	root := writeTree(t, files)
	scan := func() string {
		var got []string
		for _, f := range namingFiles(root, lang.Go, "GetAuth").files {
			got = append(got, f.rel)
		}
		return strings.Join(got, " ")
	}
	if got := scan(); got != "auth/a.go" {
		t.Fatalf("first scan: %q", got)
	}
	if fileChanges(root.Dir()).Watch(filepath.Join(root.Dir(), "zz", "last.go")) {
		t.Fatal("zz/last.go is watched: the test no longer passes the watches' bound")
	}
	testenv.FileClockTick(t, root.Dir())
	runShell(t, filepath.Join(root.Dir(), "zz"), "ref=$(mktemp) && cp -p last.go $ref && printf 'package zz\\n\\nvar y = GetAuth\\n' > last.go && touch -r $ref last.go && rm $ref")
	if got := scan(); got != "auth/a.go zz/last.go" {
		t.Fatalf("after zz/last.go was rewritten: %q, want auth/a.go zz/last.go", got)
	}
}
