package tools_test

// explore (issue 33) over MCP with real gopls, pyright and
// typescript-language-server on the samples: the area's overview, its key
// symbols ranked by references, what it imports and what imports it, its
// recent changes (a real git repository), and the bounds it reports.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/tools"
)

func TestExplore(t *testing.T) {
	for _, tc := range []struct {
		sample, server string
		target, folder string
		// key must be among the key symbols, first the most referenced.
		key, first string
		// importer is a package or folder whose files import the area;
		// dependency one the area imports.
		importer, dependency string
	}{
		{sample: "go", server: "gopls", target: "orders", folder: "orders", key: "Process", first: "Order",
			importer: "example.com/shop", dependency: "errors"},
		{sample: "python", server: "pyright", target: "shop.methods", folder: "shop/methods", key: "Wallet", first: "Card",
			importer: "shop", dependency: "shop.payment"},
		{sample: "ts", server: "typescript-language-server", target: "src/methods", folder: "src/methods", key: "Wallet", first: "Card",
			importer: "src", dependency: "src/payment.ts"},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			testenv.Require(t, "nvim", tc.server, "git")
			root := testenv.CopySample(t, tc.sample)
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			git("add", "-A")
			git("commit", "-qm", "the sample")
			entries, err := os.ReadDir(filepath.Join(root, tc.folder))
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, e := range entries {
				if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "__pycache__" {
					files = append(files, e.Name())
				}
			}
			// One uncommitted change in the area.
			touched := filepath.Join(root, tc.folder, files[0])
			data, _ := os.ReadFile(touched)
			if err := os.WriteFile(touched, append(data, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			s, lc := testenv.Embedded(t, root)
			env := tools.NewEnv(s, lc, t.Logf)
			t.Cleanup(env.Close)
			c := mcpClient(t, env)

			got := okContent(t, c, "explore", `{"target":"`+tc.target+`","focus":"changes"}`)
			if got["path"] != tc.folder || got["kind"] != "folder" {
				t.Fatalf("path %v kind %v", got["path"], got["kind"])
			}
			if n := mustAt(t, got, "overview.files"); n != float64(len(files)) {
				t.Errorf("overview.files = %v, want %d (%v)", n, len(files), files)
			}
			keys := mustAt(t, got, "key_symbols").([]any)
			names := map[string]bool{}
			for _, k := range keys {
				names[k.(map[string]any)["name"].(string)] = true
			}
			if len(keys) == 0 || keys[0].(map[string]any)["name"] != tc.first || !names[tc.key] {
				t.Errorf("key symbols %v: want %s first and %s among them", keys, tc.first, tc.key)
			}
			if refs := mustAt(t, got, "key_symbols.0.references").(float64); refs < 2 {
				t.Errorf("%s has %v references", tc.first, refs)
			}
			hasGroup := func(list, pkg string) bool {
				for _, g := range mustAt(t, got, list).([]any) {
					if g.(map[string]any)["package"] == pkg && g.(map[string]any)["files"].(float64) >= 1 {
						return true
					}
				}
				return false
			}
			if !hasGroup("depended_on_by", tc.importer) {
				t.Errorf("depended_on_by %v lacks %s", got["depended_on_by"], tc.importer)
			}
			if !hasGroup("depends_on", tc.dependency) {
				t.Errorf("depends_on %v lacks %s", got["depends_on"], tc.dependency)
			}
			if mustAt(t, got, "changes.commits.0.subject") != "the sample" {
				t.Errorf("changes = %v", got["changes"])
			}
			uncommitted := fmt.Sprint(mustAt(t, got, "changes.uncommitted"))
			if !strings.Contains(uncommitted, tc.folder+"/"+files[0]) {
				t.Errorf("uncommitted %s lacks %s", uncommitted, tc.folder+"/"+files[0])
			}

			// A file is an area too; bad input changes nothing.
			one := okContent(t, c, "explore", `{"target":"`+tc.folder+"/"+files[0]+`"}`)
			if one["kind"] != "file" || mustAt(t, one, "overview.files") != float64(1) {
				t.Errorf("file area: %v", one)
			}
			wantError(t, mcpCall(t, c, "explore", `{"target":"no_such_area"}`), apierr.ResourceNotFound, "no file, folder or package")
			wantError(t, mcpCall(t, c, "explore", `{"target":".","depth":9}`), apierr.InvalidParameter, "depth")
			wantError(t, mcpCall(t, c, "explore", `{"target":".","focus":"everything"}`), apierr.InvalidParameter, "focus")
		})
	}
}

// TestExploreBounds: an area past explore's bounds says what was left out.
func TestExploreBounds(t *testing.T) {
	testenv.Require(t, "nvim", "gopls")
	root := testenv.CopySample(t, "go")
	dir := filepath.Join(root, "many")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 55 {
		src := fmt.Sprintf("package many\n\n// A%[1]d and B%[1]d are exported.\nfunc A%[1]d() int { return B%[1]d() }\n\nfunc B%[1]d() int { return %[1]d }\n", i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, lc := testenv.Embedded(t, root)
	env := tools.NewEnv(s, lc, t.Logf)
	t.Cleanup(env.Close)
	c := mcpClient(t, env)
	got := okContent(t, c, "explore", `{"target":"many","max_symbols":5}`)
	if n := mustAt(t, got, "overview.files"); n != float64(55) {
		t.Fatalf("files = %v", n)
	}
	if n := len(mustAt(t, got, "overview.list").([]any)); n != 50 {
		t.Errorf("%d files listed, want 50", n)
	}
	if n := len(mustAt(t, got, "key_symbols").([]any)); n != 5 {
		t.Errorf("%d key symbols, want 5", n)
	}
	cut := strings.Join(func() []string {
		var out []string
		for _, c := range mustAt(t, got, "cut_short").([]any) {
			out = append(out, c.(string))
		}
		return out
	}(), "\n")
	for _, want := range []string{"overview: 50 of 55 files listed", "declarations read from 40 of 55 source files", "references counted for 60 of 80"} {
		if !strings.Contains(cut, want) {
			t.Errorf("cut_short %q lacks %q", cut, want)
		}
	}
	// B is called by A in each file: every listed key symbol has a use.
	if refs := mustAt(t, got, "key_symbols.0.references").(float64); refs < 1 {
		t.Errorf("key symbols %v", got["key_symbols"])
	}
}
