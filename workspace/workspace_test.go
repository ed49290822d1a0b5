package workspace

import (
	"os"
	"path/filepath"
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
