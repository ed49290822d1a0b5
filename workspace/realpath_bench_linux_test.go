package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkRealPath(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	p := filepath.Join(dir, "m", "zap", "internal")
	if err := os.MkdirAll(p, 0o755); err != nil {
		b.Fatal(err)
	}
	f := filepath.Join(p, "logger.go")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			if _, err := walkRealPath(f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("proc", func(b *testing.B) {
		noOpenat2.Store(true)
		defer noOpenat2.Store(false)
		for b.Loop() {
			if _, ok := kernelRealPath(f); !ok {
				b.Fatal("no")
			}
		}
	})
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			if _, ok := kernelRealPath(f); !ok {
				b.Fatal("no")
			}
		}
	})
}
