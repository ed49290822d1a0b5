package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

func TestResolve(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "pkg")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "pkg", "a.go"), []byte("package pkg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "pkg"), filepath.Join(root, "inner")); err != nil {
		t.Fatal(err)
	}
	r, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	realRoot := r.Dir()
	tests := []struct {
		path string
		want string // "" means rejected with INVALID_PARAMETER
	}{
		{"pkg/a.go", filepath.Join(realRoot, "pkg", "a.go")},
		{"./pkg/../pkg/a.go", filepath.Join(realRoot, "pkg", "a.go")},
		{filepath.Join(realRoot, "pkg", "a.go"), filepath.Join(realRoot, "pkg", "a.go")},
		{"pkg/new.go", filepath.Join(realRoot, "pkg", "new.go")},
		{"inner/a.go", filepath.Join(realRoot, "pkg", "a.go")},
		{"../outside/secret.txt", ""},
		{"pkg/../../outside/secret.txt", ""},
		{"/etc/passwd", ""},
		{"escape/secret.txt", ""},
		{"escape/not-yet-created.txt", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := r.Resolve(tt.path)
		if tt.want == "" {
			if apierr.CodeOf(err) != apierr.InvalidParameter {
				t.Errorf("Resolve(%q) = %q, %v; want INVALID_PARAMETER", tt.path, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if got := r.Rel(filepath.Join(realRoot, "pkg", "a.go")); got != "pkg/a.go" {
		t.Errorf("Rel = %q", got)
	}
}

// TestResolveAliases: every alias of a path outside the root is refused,
// whatever the file system offers: dangling links (creating one creates
// its target), links to links, ".." after a symlink, /proc/self/root.
func TestResolveAliases(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := t.TempDir()
	mkdirs(t, filepath.Join(root, "pkg", "deep"))
	write(t, filepath.Join(root, "pkg", "a.go"), "package pkg\n")
	write(t, filepath.Join(outside, "secret.txt"), "x")
	links := map[string]string{
		"evil":       filepath.Join(outside, "pwned.txt"), // dangling, absolute
		"evil_rel":   "../../" + filepath.Base(outside) + "/pwned.txt",
		"hop1":       "hop2",                               // link to link to outside
		"hop2":       filepath.Join(outside, "secret.txt"), // existing outside file
		"outdir":     outside,                              // folder outside
		"gone_dir":   filepath.Join(outside, "nodir"),      // dangling link to a folder outside
		"pkg/up":     "deep",                               // pkg/up/../../.. is root/.. through deep
		"loop_a":     "loop_b",
		"loop_b":     "loop_a",
		"inner_link": filepath.Join(root, "pkg", "a.go"),      // stays inside
		"inner_new":  filepath.Join(root, "pkg", "future.go"), // dangling, inside
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	rr := r.Dir()
	for _, tt := range []struct {
		path string
		want string // "" means refused with code
		code apierr.Code
	}{
		{"evil", "", apierr.InvalidParameter},
		{"evil_rel", "", apierr.InvalidParameter},
		{"hop1", "", apierr.InvalidParameter},
		{"outdir/new.txt", "", apierr.InvalidParameter},
		{"gone_dir/new.txt", "", apierr.InvalidParameter},
		{"pkg/up/../../../" + filepath.Base(outside) + "/secret.txt", "", apierr.InvalidParameter},
		{"pkg/up/../a.go", filepath.Join(rr, "pkg", "a.go"), ""}, // deep/.. = pkg (the kernel's reading)
		{"loop_a", "", apierr.InvalidParameter},
		{"/proc/self/root" + filepath.Join(outside, "secret.txt"), "", apierr.InvalidParameter},
		{"/proc/self/root" + filepath.Join(rr, "pkg", "a.go"), "", apierr.InvalidParameter}, // lexically outside
		{"inner_link", filepath.Join(rr, "pkg", "a.go"), ""},
		{"inner_new", filepath.Join(rr, "pkg", "future.go"), ""},
	} {
		got, err := r.Resolve(tt.path)
		if tt.want == "" {
			if apierr.CodeOf(err) != tt.code {
				t.Errorf("Resolve(%q) = %q, %v; want %s", tt.path, got, err, tt.code)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}

	// CheckUnchanged: a folder swapped for a link since Resolve.
	abs, err := r.Resolve("pkg/deep/new.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.CheckUnchanged(abs); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "pkg", "deep")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "pkg", "deep")); err != nil {
		t.Fatal(err)
	}
	if err := r.CheckUnchanged(abs); apierr.CodeOf(err) != apierr.InvalidParameter {
		t.Errorf("CheckUnchanged after the swap: %v", err)
	}
	if err := os.Remove(filepath.Join(root, "pkg", "deep")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "pkg"), filepath.Join(root, "pkg", "deep")); err != nil {
		t.Fatal(err)
	}
	if err := r.CheckUnchanged(abs); apierr.CodeOf(err) != apierr.Conflict {
		t.Errorf("CheckUnchanged after a swap inside the root: %v", err)
	}
}

func TestPolicy(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ProjectFile), `{"deny": ["secrets/**", "*.sqlite"], "allow": [".env.example", ".git/HEAD"]}`)
	write(t, filepath.Join(root, ".git", "config"), "[core]\n")
	write(t, filepath.Join(root, "ok.txt"), "ok\n")
	if err := os.Symlink(filepath.Join(root, ".git", "config"), filepath.Join(root, "innocent")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "ok.txt"), filepath.Join(root, ".env.link")); err != nil {
		t.Fatal(err)
	}
	r, err := NewWith(root, Config{Deny: []string{"build/*.log"}, Allow: []string{"certs/dev.pem"}})
	if err != nil {
		t.Fatal(err)
	}
	for path, denied := range map[string]bool{
		".git/config": true, ".git": true, ".GIT/config": true, "sub/.git/hooks/pre-commit": true,
		".git/HEAD": true, // a project file cannot open .git
		"innocent":  true, // a link into .git
		".env.link": true, // the name as written counts
		".env":      true, ".env.local": true, ".envrc": true, ".env.example": false,
		"server.pem": true, "certs/dev.pem": false, "tls/site.key": true,
		"home/.ssh/config": true, "id_rsa": true, "keys/id_ed25519.pub": true, "id_test.go": false,
		"secrets/a/b.txt": true, "data.sqlite": true, "build/out.log": true, "build/sub/out.log": false,
		ProjectFile: true, ".gitignore": false, ".github/workflows/ci.yml": false, "main.go": false,
	} {
		_, err := r.Resolve(path)
		got := apierr.CodeOf(err) == apierr.PreconditionFailed
		if got != denied {
			t.Errorf("Resolve(%q): %v; want denied=%v", path, err, denied)
		}
		if denied && err != nil && !strings.Contains(err.(*apierr.Error).Remediation, "--allow-sensitive") {
			t.Errorf("Resolve(%q): remediation %q does not say how to allow it", path, err.(*apierr.Error).Remediation)
		}
	}
	if _, err := NewWith(root, Config{Deny: []string{"[bad"}}); err == nil {
		t.Error("a bad pattern was accepted")
	}
	write(t, filepath.Join(root, ProjectFile), `{"dny": []}`)
	if _, err := New(root); err == nil {
		t.Error("a misspelt project file was accepted")
	}
}

func mkdirs(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, content string) {
	t.Helper()
	mkdirs(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
