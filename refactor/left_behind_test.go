package refactor

// What a change leaves behind, from files alone: the old name found as an
// identifier (not in strings or comments) in the files as the changeset
// leaves them and in the untouched ones; a C macro's body renamed unless
// the name is one of its parameters.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/workspace"
)

func writeTree(t *testing.T, files map[string]string) workspace.Root {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// runShell runs script with sh in dir (what another process does to the
// files); a failure fails t.
func runShell(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", script, err, out)
	}
}

func TestFindLeftBehind(t *testing.T) {
	root := writeTree(t, map[string]string{
		"src/pkg/utils.py":    "def get_auth(url):\n    return url\n",
		"src/pkg/models.py":   "from .utils import get_auth\n\nx = get_auth('u')\n",
		"tests/test_utils.py": "from pkg.utils import get_auth\n# get_auth in a comment\ns = 'get_auth'\nassert get_auth('a') == 'a'\n",
		"node_modules/x.py":   "get_auth\n",
	})
	// The rename as the server gives it: the files it sees.
	old := preview.ParseDocument("def get_auth(url):\n    return url\n")
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "src/pkg/utils.py", Old: old,
		Edits: []preview.TextEdit{{StartLine: 0, StartCol: 4, EndLine: 0, EndCol: 12, NewText: "auth_of"}}}}}
	lb, total := findLeftBehind(root, lang.Python, "get_auth", cs, nil)
	var got []string
	for _, l := range lb {
		got = append(got, l.File+":"+string(rune('0'+l.Line)))
	}
	if want := "src/pkg/models.py:1 src/pkg/models.py:3 tests/test_utils.py:1 tests/test_utils.py:4"; strings.Join(got, " ") != want || total != 4 {
		t.Errorf("left behind %v (%d), want %s", got, total, want)
	}
}

func TestMacroBodyEdits(t *testing.T) {
	root := writeTree(t, map[string]string{
		"src/mem.h": "#define luaM_error(L)\tluaD_throw(L, 4)\n#define APPLY(luaD_throw) luaD_throw(1)\n#define TWO(L) \\\n  (luaD_throw(L, 1), \\\n   luaD_throw(L, 2))\n/* luaD_throw */\n",
		"src/do.c":  "void luaD_throw(int L, int e) {}\n",
	})
	cs, macros, err := macroBodyEdits(root, lang.C, "luaD_throw", "luaD_raise", preview.Changeset{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(macros, ",") != "mem.h: luaM_error,mem.h: TWO" || len(cs.Files) != 1 {
		t.Fatalf("macros %v, files %d", macros, len(cs.Files))
	}
	after := afterTexts(cs)["src/mem.h"]
	want := "#define luaM_error(L)\tluaD_raise(L, 4)\n#define APPLY(luaD_throw) luaD_throw(1)\n#define TWO(L) \\\n  (luaD_raise(L, 1), \\\n   luaD_raise(L, 2))\n/* luaD_throw */\n"
	if after != want {
		t.Errorf("mem.h:\n%s\nwant\n%s", after, want)
	}
}

// The left-behind scan keeps, between renames, the workspace's file list
// and each file's identifiers: a file edited on disk (to the same size),
// created, deleted or moved between two scans, or a change's buffer text
// that differs from the disk, is what the second scan sees. A stale
// answer here would hide a use left behind.
func TestLeftBehindFollowsChanges(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	root := writeTree(t, map[string]string{
		"auth.go":        "package auth\n\nfunc GetAuth() {}\n",
		"use.go":         "package auth\n\nvar x = GetAuth\n",
		"other.go":       "package auth\n\nvar y = GetAutx\n",
		"sub/use_sub.go": "package sub\n\nvar z = auth.GetAuth\n",
	})
	dir := root.Dir()
	scan := func(cs preview.Changeset) string {
		t.Helper()
		lb, total := findLeftBehind(root, lang.Go, "GetAuth", cs, nil)
		var got []string
		for _, l := range lb {
			got = append(got, fmt.Sprintf("%s:%d:%d %s", l.File, l.Line, l.Column, l.Context))
		}
		if total != len(lb) {
			t.Fatalf("total %d for %d listed", total, len(lb))
		}
		return strings.Join(got, "; ")
	}
	put := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := "auth.go:3:5 func GetAuth() {}; sub/use_sub.go:3:13 var z = auth.GetAuth; use.go:3:8 var x = GetAuth"
	if got := scan(preview.Changeset{}); got != want {
		t.Fatalf("first scan: %s\nwant %s", got, want)
	}
	if got := scan(preview.Changeset{}); got != want {
		t.Fatalf("second scan, nothing changed: %s\nwant %s", got, want)
	}
	// The scans above kept what they read (else this test tests nothing).
	identIndex.Lock()
	kept := identIndex.m[identKey{abs: filepath.Join(dir, "other.go"), lang: lang.Go}] != nil
	identIndex.Unlock()
	if !kept {
		t.Fatal("other.go's identifiers were not kept")
	}
	// use.go names GetAuth: its identifiers (auth, x, GetAuth) are kept,
	// packed in 8 bytes each, the slice of their exact length.
	identIndex.Lock()
	e := identIndex.m[identKey{abs: filepath.Join(dir, "use.go"), lang: lang.Go}]
	identIndex.Unlock()
	if e == nil || len(e.spans) != 6 || cap(e.spans) != 6 || e.size() != len(e.filter.bits)*8+24 ||
		fmt.Sprint(e.spans.unpack()) != "[{8 12} {18 19} {22 29}]" {
		t.Fatalf("use.go's kept identifiers: %+v", e)
	}
	steps := []struct {
		name   string
		change func()
		cs     func() preview.Changeset
		want   string
	}{
		{"a use added to an untouched file, same size", func() { put("other.go", "package auth\n\nvar y = GetAuth\n") }, nil,
			"auth.go:3:5 func GetAuth() {}; other.go:3:8 var y = GetAuth; sub/use_sub.go:3:13 var z = auth.GetAuth; use.go:3:8 var x = GetAuth"},
		{"a use removed, same size", func() { put("use.go", "package auth\n\nvar x = GetAuty\n") }, nil,
			"auth.go:3:5 func GetAuth() {}; other.go:3:8 var y = GetAuth; sub/use_sub.go:3:13 var z = auth.GetAuth"},
		{"a file created in a new folder", func() { put("new/n.go", "package n\n\n// x\nvar n = GetAuth\n") }, nil,
			"auth.go:3:5 func GetAuth() {}; new/n.go:4:8 var n = GetAuth; other.go:3:8 var y = GetAuth; sub/use_sub.go:3:13 var z = auth.GetAuth"},
		{"a file deleted", func() { os.Remove(filepath.Join(dir, "sub/use_sub.go")) }, nil,
			"auth.go:3:5 func GetAuth() {}; new/n.go:4:8 var n = GetAuth; other.go:3:8 var y = GetAuth"},
		{"a file moved", func() { os.Rename(filepath.Join(dir, "other.go"), filepath.Join(dir, "sub/other.go")) }, nil,
			"auth.go:3:5 func GetAuth() {}; new/n.go:4:8 var n = GetAuth; sub/other.go:3:8 var y = GetAuth"},
		{"a buffer's unsaved text in the change", nil, func() preview.Changeset {
			// use.go on disk no longer names GetAuth (kept so); its buffer
			// does, and the change edits another line of it.
			old := preview.ParseDocument("package auth\n\nvar x = GetAuth\nvar w = 2\n")
			return preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "use.go", Old: old,
				Edits: []preview.TextEdit{{StartLine: 3, StartCol: 8, EndLine: 3, EndCol: 9, NewText: "3"}}}}}
		}, "auth.go:3:5 func GetAuth() {}; new/n.go:4:8 var n = GetAuth; sub/other.go:3:8 var y = GetAuth; use.go:3:8 var x = GetAuth"},
	}
	for _, st := range steps {
		testenv.FileClockTick(t, dir)
		cs := preview.Changeset{}
		if st.change != nil {
			st.change()
		}
		if st.cs != nil {
			cs = st.cs()
		}
		if got := scan(cs); got != st.want {
			t.Fatalf("%s: %s\nwant %s", st.name, got, st.want)
		}
	}
}

// namingFiles keeps a file's imports in its identifier entry: a second
// scan of the file unchanged does not parse them again, and a file whose
// imports changed is parsed again (its stamp moved).
func TestNamingFilesKeepsImports(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	root := writeTree(t, map[string]string{
		"go.mod":      "module example.com/m\n",
		"auth/a.go":   "package auth\n\nfunc GetAuth() {}\n",
		"use/use.go":  "package use\n\nimport \"example.com/m/auth\"\n\nvar x = auth.GetAuth\n",
		"other/o.go":  "package other\n\nvar y = 1\n",
		"plain/p.go":  "package plain\n\nfunc GetAuth() {}\n",
		"plain/q.go":  "package plain\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n",
		"plain/go.md": "GetAuth\n",
	})
	dir := root.Dir()
	files := func() string { t.Helper(); return namingDescribed(t, root, "GetAuth") }
	want := "auth/a.go []; plain/p.go []; use/use.go [auth]"
	if got := files(); got != want {
		t.Fatalf("first scan: %s\nwant %s", got, want)
	}
	entry := func(rel string) *identEntry {
		identIndex.Lock()
		defer identIndex.Unlock()
		return identIndex.m[identKey{abs: filepath.Join(dir, filepath.FromSlash(rel)), lang: lang.Go}]
	}
	e := entry("use/use.go")
	if e == nil || !e.importsKept || len(e.imports) != 1 || e.imports[0].Path != "example.com/m/auth" {
		t.Fatalf("use/use.go's entry after the scan: %+v", e)
	}
	// Kept, they are what the next scan reads: a mark put in them shows.
	identIndex.Lock()
	e.imports = []lang.Import{{Path: "example.com/m/other"}}
	identIndex.Unlock()
	if got, want := files(), "auth/a.go []; plain/p.go []; use/use.go [other]"; got != want {
		t.Fatalf("second scan, nothing changed: %s\nwant %s", got, want)
	}
	// A file that no longer names the name has no imports parsed.
	if e := entry("plain/q.go"); e == nil || e.importsKept {
		t.Fatalf("plain/q.go's entry: %+v", e)
	}
	// The file changed: its imports are read again.
	testenv.FileClockTick(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "use", "use.go"), []byte("package use\n\nimport a \"example.com/m/plain\"\n\nvar x = a.GetAuth\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := files(), "auth/a.go []; plain/p.go []; use/use.go [plain]"; got != want {
		t.Fatalf("after use.go changed: %s\nwant %s", got, want)
	}
}

// Concurrent scans (run with -race) find what one scan finds.
func TestLeftBehindConcurrent(t *testing.T) {
	defer workspace.SetRacyMargin(0)()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("p%d/f%d.go", i%4, i)] = fmt.Sprintf("package p\n\nvar v%d = Shared + %d\n", i, i)
	}
	root := writeTree(t, files)
	first, n := findLeftBehind(root, lang.Go, "Shared", preview.Changeset{}, nil)
	if n != 30 {
		t.Fatalf("found %d, want 30", n)
	}
	var wg sync.WaitGroup
	bad := make(chan string, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				lb, n := findLeftBehind(root, lang.Go, "Shared", preview.Changeset{}, nil)
				if n != 30 || fmt.Sprint(lb) != fmt.Sprint(first) {
					bad <- fmt.Sprint(n, lb)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(bad)
	for b := range bad {
		t.Fatalf("concurrent scan: %s", b)
	}
}

// A file's identifier filter answers yes for each of its identifiers (a
// no would hide a use) and no for nearly every other word.
func TestIdentFilter(t *testing.T) {
	src, err := os.ReadFile("left_behind.go")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	spans := lang.Identifiers(lang.Go, text)
	f := newIdentFilter(text, spans)
	idents := map[string]bool{}
	for _, sp := range spans {
		w := text[sp.Start:sp.End]
		idents[w] = true
		if !f.has(w) {
			t.Fatalf("the filter says no for %q", w)
		}
	}
	yes := 0
	for i := range 10000 {
		w := fmt.Sprintf("notAnIdent%d", i)
		if !idents[w] && f.has(w) {
			yes++
		}
	}
	if yes > 300 {
		t.Errorf("%d of 10000 other words pass the filter", yes)
	}
}

// BenchmarkLeftBehindScan: the left-behind scan of a workspace of 400 Go
// files in 20 folders (each naming 40 identifiers), with a change to one
// of them: once its file list and identifiers are kept (warm), and with
// nothing kept (cold: every folder walked, every file read and lexed).
func BenchmarkLeftBehindScan(b *testing.B) {
	defer workspace.SetRacyMargin(0)()
	files := map[string]string{}
	for i := range 400 {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n\n// Use calls Target and others.\nfunc Use%d() {\n", i%20, i)
		for j := range 40 {
			fmt.Fprintf(&sb, "\tname%d_%d := %q\n\t_ = name%d_%d\n", j, i%7, "Target", j, i%7)
		}
		if i%50 == 0 {
			sb.WriteString("\tTarget()\n")
		}
		sb.WriteString("}\n")
		files[fmt.Sprintf("p%d/f%d.go", i%20, i)] = sb.String()
	}
	dir := b.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	root, err := workspace.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	old := preview.ParseDocument(files["p0/f0.go"])
	cs := preview.Changeset{Files: []preview.FileChange{{Kind: preview.OpEdit, Path: "p0/f0.go", Old: old,
		Edits: []preview.TextEdit{{StartLine: 0, EndLine: 0, NewText: "// edited\n"}}}}}
	scan := func(b *testing.B) {
		if _, n := findLeftBehind(root, lang.Go, "Target", cs, nil); n != 8 {
			b.Fatalf("found %d, want 8", n)
		}
	}
	b.Run("warm", func(b *testing.B) {
		scan(b)
		for b.Loop() {
			scan(b)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			identIndex.Lock()
			clear(identIndex.m)
			identIndex.bytes = 0
			identIndex.Unlock()
			workspace.SetRacyMargin(time.Hour) // nothing settles: nothing kept
			b.StartTimer()
			scan(b)
		}
		workspace.SetRacyMargin(0)
	})
}

// namingDescribed is namingFiles(root, Go, name) as "rel [imports...]; ...",
// the imports relative to the root.
func namingDescribed(t *testing.T, root workspace.Root, name string) string {
	t.Helper()
	var got []string
	for _, f := range namingFiles(root, lang.Go, name).files {
		var imps []string
		for _, imp := range f.imports {
			r, err := filepath.Rel(root.Dir(), imp)
			if err != nil {
				t.Fatal(err)
			}
			imps = append(imps, filepath.ToSlash(r))
		}
		got = append(got, f.rel+" "+fmt.Sprint(imps))
	}
	return strings.Join(got, "; ")
}
