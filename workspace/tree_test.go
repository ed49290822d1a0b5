package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

// writeTree creates files (path → content; a path ending in "/" is an
// empty folder) under a new temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// paths lists every node's path, depth first.
func paths(n *TreeNode) []string {
	out := []string{n.Path}
	for _, c := range n.Children {
		out = append(out, paths(c)...)
	}
	return out
}

func TestTreeHonoursGitignoreHiddenAndPolicy(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".gitignore":             "# build output\n/bin/\n*.log\n!keep.log\nnode_modules/\ndocs/**/draft-*\n",
		"main.go":                "package main\n",
		"debug.log":              "x",
		"keep.log":               "kept by negation",
		"bin/tool":               "binary",
		"cmd/bin/readme.txt":     "not the root's bin: /bin/ is anchored",
		"node_modules/x/y.js":    "",
		"web/node_modules/z.js":  "",
		"web/app.ts":             "",
		"web/.gitignore":         "generated.ts\n",
		"web/generated.ts":       "",
		"docs/a/draft-1.md":      "",
		"docs/a/final.md":        "",
		".env":                   "SECRET=1",
		"certs/server.pem":       "key",
		".hidden/config":         "",
		"deep/a/b/c/d/e/file.go": "",
	})
	if err := os.Symlink("/etc", filepath.Join(dir, "etc-link")); err != nil {
		t.Fatal(err)
	}
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := root.Tree(".", TreeOptions{MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(paths(tree.Root), " ")
	want := ". certs cmd cmd/bin deep deep/a docs docs/a web web/app.ts etc-link keep.log main.go"
	if got != want {
		t.Errorf("listed:\n got %s\nwant %s", got, want)
	}
	// Counted at every depth, listed or not: main.go keep.log etc-link
	// web/app.ts cmd/bin/readme.txt docs/a/final.md deep/.../file.go.
	if tree.Files != 7 || tree.Dirs != 12 {
		t.Errorf("files=%d dirs=%d, want 7 and 12 (%+v)", tree.Files, tree.Dirs, tree)
	}
	// Ignored: debug.log bin node_modules web/node_modules web/generated.ts
	// docs/a/draft-1.md; hidden: .gitignore web/.gitignore .hidden;
	// sensitive: .env certs/server.pem.
	if tree.Ignored != 6 || tree.Hidden != 3 || tree.Sensitive != 2 {
		t.Errorf("ignored=%d hidden=%d sensitive=%d, want 6, 3, 2", tree.Ignored, tree.Hidden, tree.Sensitive)
	}
	for _, c := range tree.Root.Children {
		if c.Name == "etc-link" && c.Type != "symlink" {
			t.Errorf("etc-link listed as %s, want symlink (never followed)", c.Type)
		}
		if c.Name == "deep" && (c.Files != 1 || c.Dirs != 5) {
			t.Errorf("deep counts files=%d dirs=%d, want 1 and 5", c.Files, c.Dirs)
		}
	}

	// show_hidden lists dot-files but never sensitive ones; exclude adds
	// patterns.
	tree, err = root.Tree(".", TreeOptions{MaxDepth: 1, ShowHidden: true, Exclude: []string{"deep/", "*.go"}})
	if err != nil {
		t.Fatal(err)
	}
	got = strings.Join(paths(tree.Root), " ")
	want = ". .hidden certs cmd docs web .gitignore etc-link keep.log"
	if got != want {
		t.Errorf("show_hidden + exclude:\n got %s\nwant %s", got, want)
	}
	if strings.Contains(got, ".env") || strings.Contains(got, "server.pem") || strings.Contains(got, ".git ") {
		t.Errorf("a sensitive file is listed: %s", got)
	}
}

func TestTreeStartFolderSeesParentGitignore(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".gitignore":       "*.tmp\nsub/skip/\n",
		"sub/a.go":         "",
		"sub/b.tmp":        "",
		"sub/skip/c.go":    "",
		"sub/inner/d.go":   "",
		"sub/inner/e.tmp":  "",
		"other/not-listed": "",
	})
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := root.Tree("sub", TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(paths(tree.Root), " "), "sub sub/inner sub/inner/d.go sub/a.go"; got != want {
		t.Errorf("listed %s, want %s", got, want)
	}
	if tree.Files != 2 || tree.Ignored != 3 {
		t.Errorf("files=%d ignored=%d, want 2 and 3", tree.Files, tree.Ignored)
	}
}

func TestTreeEntryBound(t *testing.T) {
	files := map[string]string{}
	for _, d := range []string{"a", "b", "c"} {
		for _, f := range []string{"1", "2", "3", "4"} {
			files[d+"/"+f+".txt"] = ""
		}
	}
	root, err := New(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := root.Tree(".", TreeOptions{MaxEntries: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !tree.Truncated || tree.Listed != 5 || tree.Files != 12 || tree.Dirs != 3 {
		t.Fatalf("truncated=%v listed=%d files=%d dirs=%d, want true 5 12 3", tree.Truncated, tree.Listed, tree.Files, tree.Dirs)
	}
	// a is listed with its four files; b and c are counted on the root as
	// not listed (what they hold is in their folders, not listed either).
	if tree.Root.NotListed != 2 || len(tree.Root.Children) != 1 || len(tree.Root.Children[0].Children) != 4 {
		t.Errorf("root not_listed=%d children=%v, want 2 and [a with 4 files]", tree.Root.NotListed, paths(tree.Root))
	}
}

func TestTreeRefusals(t *testing.T) {
	dir := writeTree(t, map[string]string{"f.go": "", ".env": ""})
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		opt  TreeOptions
		code apierr.Code
	}{
		{"..", TreeOptions{}, apierr.InvalidParameter},
		{"out", TreeOptions{}, apierr.InvalidParameter},
		{"missing", TreeOptions{}, apierr.ResourceNotFound},
		{"f.go", TreeOptions{}, apierr.InvalidParameter},
		{".", TreeOptions{MaxDepth: MaxTreeDepth + 1}, apierr.InvalidParameter},
		{".", TreeOptions{MaxEntries: -1}, apierr.InvalidParameter},
		{".", TreeOptions{Exclude: []string{"  "}}, apierr.InvalidParameter},
	} {
		if _, err := root.Tree(tc.path, tc.opt); apierr.CodeOf(err) != tc.code {
			t.Errorf("Tree(%q, %+v) = %v, want %s", tc.path, tc.opt, err, tc.code)
		}
	}
}

func TestCompileIgnore(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		dir, want     bool
	}{
		{"*.log", "a/b/x.log", false, true},
		{"*.log", "x.log.txt", false, false},
		{"/build", "build", true, true},
		{"/build", "src/build", true, false},
		{"build/", "src/build", true, true},
		{"build/", "src/build", false, false},
		{"a/**/z", "a/z", false, true},
		{"a/**/z", "a/b/c/z", false, true},
		{"**/cache", "x/y/cache", true, true},
		{"logs/**", "logs/a/b", false, true},
		{"doc/*.md", "doc/a.md", false, true},
		{"doc/*.md", "doc/sub/a.md", false, false},
		{"file?.txt", "file1.txt", false, true},
		{"[abc].go", "b.go", false, true},
		{"[!abc].go", "b.go", false, false},
		{`\#hash`, "#hash", false, true},
	} {
		r, ok := compileIgnore(tc.pattern, "")
		if !ok {
			t.Errorf("%q did not compile", tc.pattern)
			continue
		}
		if got := (ignoreRules{r}).ignored(tc.path, tc.dir); got != tc.want {
			t.Errorf("%q on %q (dir %v) = %v, want %v", tc.pattern, tc.path, tc.dir, got, tc.want)
		}
	}
}
