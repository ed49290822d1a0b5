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
		".git/HEAD":    true, // a project file cannot open .git
		"innocent":     true, // a link into .git
		".env.link":    true, // the name as written counts
		".env.example": true, // a project file cannot allow anything
		".env":         true, ".env.local": true, ".envrc": true,
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

// TestPolicySources: a committed project file may only add denies (its
// allow and allow_hardlinks are ignored, with a warning saying how to get
// them); the user's own config file may allow, but not what only the
// command line can open, and not itself when the root holds it.
func TestPolicySources(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ProjectFile), `{"deny": ["*.sqlite"], "allow": [".env", "id_rsa", "*.pem"], "allow_hardlinks": true}`)
	denied := func(t *testing.T, r Root, path string) *apierr.Error {
		t.Helper()
		_, err := r.Resolve(path)
		if apierr.CodeOf(err) != apierr.PreconditionFailed {
			t.Errorf("Resolve(%q): %v; want PRECONDITION_FAILED", path, err)
			return nil
		}
		return err.(*apierr.Error)
	}
	allowed := func(t *testing.T, r Root, path string) {
		t.Helper()
		if _, err := r.Resolve(path); err != nil {
			t.Errorf("Resolve(%q): %v; want allowed", path, err)
		}
	}
	userFile := filepath.Join(t.TempDir(), "nvbridge", "config.json")

	t.Run("the project file only tightens", func(t *testing.T) {
		r, err := NewWith(root, Config{UserFile: userFile}) // no user file yet
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{".env", "id_rsa", "certs/server.pem", "data.sqlite"} {
			e := denied(t, r, p)
			if e != nil && p != "data.sqlite" && (!strings.Contains(e.Remediation, "--allow-sensitive") ||
				!strings.Contains(e.Remediation, userFile) || strings.Contains(e.Remediation, "to \"allow\" in "+ProjectFile)) {
				t.Errorf("%s: the remediation does not point to the flag and the user config file: %q", p, e.Remediation)
			}
		}
		allowed(t, r, "main.go")
		if r.Policy().AllowHardlinks() {
			t.Error("the project file's allow_hardlinks was followed")
		}
		w := r.Policy().Warnings()
		if len(w) != 1 {
			t.Fatalf("warnings %+v, want one", w)
		}
		for _, want := range []string{ProjectFile, `".env"`, `"id_rsa"`, `"*.pem"`, "allow_hardlinks", "ignored"} {
			if !strings.Contains(w[0].Reason, want) {
				t.Errorf("the warning's reason does not name %s: %q", want, w[0].Reason)
			}
		}
		for _, want := range []string{userFile, "--allow-sensitive", "--allow-hardlinks"} {
			if !strings.Contains(w[0].Remediation, want) {
				t.Errorf("the warning's remediation does not name %s: %q", want, w[0].Remediation)
			}
		}
	})

	t.Run("the user config file allows", func(t *testing.T) {
		write(t, userFile, `{"allow": [".env", "*.pem", ".git"], "deny": ["*.log"], "allow_hardlinks": true}`)
		r, err := NewWith(root, Config{UserFile: userFile})
		if err != nil {
			t.Fatal(err)
		}
		allowed(t, r, ".env")
		allowed(t, r, "certs/server.pem")
		denied(t, r, "id_rsa")      // only the project file asked for it
		denied(t, r, "data.sqlite") // the project's deny still holds
		denied(t, r, "build/out.log")
		if e := denied(t, r, ".git/config"); e != nil && !strings.Contains(e.Remediation, "only the command line") {
			t.Errorf(".git opened by the user config file, or the remediation does not say who can: %q", e.Remediation)
		}
		if !r.Policy().AllowHardlinks() {
			t.Error("the user config file's allow_hardlinks was not followed")
		}
		// Flags alone (no user file read) do not see it.
		r, err = NewWith(root, Config{})
		if err != nil {
			t.Fatal(err)
		}
		denied(t, r, ".env")
	})

	t.Run("a bad user config file stops the start", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "config.json")
		write(t, bad, `{"allow": [".env"], "alow_hardlinks": true}`)
		if _, err := NewWith(root, Config{UserFile: bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("a misspelt user config file: %v", err)
		}
		write(t, bad, `{"allow": ["[bad"]}`)
		if _, err := NewWith(root, Config{UserFile: bad}); err == nil || !strings.Contains(err.Error(), "bad pattern") {
			t.Errorf("a bad pattern in the user config file: %v", err)
		}
	})

	t.Run("a root holding the user config file denies it", func(t *testing.T) {
		home := t.TempDir()
		file := filepath.Join(home, ".config", "nvbridge", "config.json")
		write(t, file, `{"allow": ["*.json"]}`)
		if err := os.Symlink(file, filepath.Join(home, "innocent.txt")); err != nil {
			t.Fatal(err)
		}
		r, err := NewWith(home, Config{UserFile: file})
		if err != nil {
			t.Fatal(err)
		}
		denied(t, r, ".config/nvbridge/config.json")
		denied(t, r, "innocent.txt") // a link to it
		write(t, filepath.Join(home, "package.json"), "{}\n")
		allowed(t, r, "package.json")
		if r, err = NewWith(home, Config{UserFile: file, Allow: []string{"/.config/nvbridge/config.json"}}); err != nil {
			t.Fatal(err)
		}
		allowed(t, r, ".config/nvbridge/config.json") // the command line can
	})

	t.Run("no warning for a project file that only denies", func(t *testing.T) {
		plain := t.TempDir()
		write(t, filepath.Join(plain, ProjectFile), `{"deny": ["*.sqlite"], "allow": [], "allow_hardlinks": false}`)
		r, err := NewWith(plain, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if w := r.Policy().Warnings(); len(w) != 0 {
			t.Errorf("warnings %+v", w)
		}
	})
}

func TestUserConfigFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/xdg/config")
	if got, err := UserConfigFile(); err != nil || got != "/xdg/config/nvbridge/config.json" {
		t.Errorf("with XDG_CONFIG_HOME: %q, %v", got, err)
	}
	for _, xdg := range []string{"", "relative/config"} {
		t.Setenv("XDG_CONFIG_HOME", xdg)
		t.Setenv("HOME", "/home/someone")
		if got, err := UserConfigFile(); err != nil || got != "/home/someone/.config/nvbridge/config.json" {
			t.Errorf("XDG_CONFIG_HOME=%q: %q, %v", xdg, got, err)
		}
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
