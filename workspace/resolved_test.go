package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestResolveIn: the path the call carries (WithResolved) is taken as it
// is when asked by itself or by its workspace-relative form, and only
// then: any other spelling of it, another path, or no carried path is
// resolved (told apart by a folder reached through a symlink, which
// Resolve follows).
func TestResolveIn(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real", "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	r, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	carried := filepath.Join(dir, "link", "a.go")
	real := filepath.Join(dir, "real", "a.go")
	ctx := WithResolved(context.Background(), carried)
	for _, c := range []struct {
		ctx        context.Context
		path, want string
	}{
		{ctx, "link/a.go", carried},
		{ctx, carried, carried},
		{ctx, "./link/a.go", real},
		{ctx, "real/../link/a.go", real},
		{ctx, "real/a.go", real},
		{context.Background(), "link/a.go", real},
		{WithResolved(context.Background(), dir), ".", dir},
	} {
		got, err := r.ResolveIn(c.ctx, c.path)
		if err != nil || got != c.want {
			t.Errorf("ResolveIn(%q) = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
	// A carried path outside the root is never taken.
	if _, err := r.ResolveIn(WithResolved(context.Background(), "/etc/passwd"), "/etc/passwd"); err == nil {
		t.Error("a carried path outside the root was taken")
	}
}
