package lsp_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// BenchmarkVerifiedCheck: check: true on a rename's preview (the delta
// before anything is applied, in the second Neovim), against the same
// apply followed by get_diagnostics on each touched file, and the apply
// with its own delta. Two workspaces: the sample's widgets (a rename over
// 21 files) and a real module from the Go module cache
// (github.com/BurntSushi/toml, rename Key over 7 files of 8.6k lines).
//
//	go test -run '^$' -bench BenchmarkVerifiedCheck -benchtime 3x ./lsp/
func BenchmarkVerifiedCheck(b *testing.B) {
	testenv.Require(b, "nvim", "gopls", "go")
	cases := []struct {
		name, file, symbol, newName string
		line                        int
		root                        func(b *testing.B) string
	}{
		{name: "sample-21-files", file: "widgets/widget.go", line: 12, symbol: "NewWidget", newName: "MakeWidget",
			root: func(b *testing.B) string { return testenv.CopySample(b, "go") }},
		{name: "module-toml", file: "meta.go", line: 94, symbol: "Key", newName: "KeyPath", root: modCacheCopy},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s, c := testenv.Embedded(b, tc.root(b))
			v := newVerifyEnv(b, s, c)
			v.open(b, tc.file)
			rename := func(from, to string) refactor.RenamePlan {
				plan, err := refactor.Rename(v.ctx, c, refactor.RenameRequest{File: tc.file, Target: lsp.Target{Line: tc.line, Symbol: from}, NewName: to})
				if err != nil {
					b.Fatal(err)
				}
				return plan
			}
			plan := rename(tc.symbol, tc.newName)
			settle := func() {
				for _, f := range plan.Files {
					if _, err := c.DiagnosticsFor(v.ctx, lsp.DiagnosticsQuery{File: f}); err != nil {
						b.Fatal(err)
					}
				}
			}
			settle()
			b.Logf("%d files", len(plan.Files))

			checkOnce := func(b *testing.B) {
				r, err := v.e.Submit(v.ctx, plan.Changeset, edit.Options{Preview: true, Check: true})
				if err != nil || r.Diagnostics == nil || !r.Diagnostics.Complete {
					b.Fatalf("check: %+v, %v", r, err)
				}
			}
			start := time.Now()
			checkOnce(b)
			first := time.Since(start)
			// Back to back: each check also waits for the copy's
			// diagnosis of the previous check's reload.
			b.Run("check", func(b *testing.B) {
				for range b.N {
					checkOnce(b)
				}
				b.ReportMetric(float64(first.Milliseconds()), "first-check-ms")
				b.ReportMetric(float64(v.v.ShadowStartup().Milliseconds()), "second-nvim-start-ms")
			})
			// As an agent uses it: the copy is idle when the check starts.
			b.Run("check-idle", func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					if err := v.v.Idle(v.ctx); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					checkOnce(b)
				}
			})
			applyThen := func(b *testing.B, verify bool, after func()) {
				saved := v.e.Verifier
				if !verify {
					v.e.Verifier = nil
				}
				defer func() { v.e.Verifier = saved }()
				for range b.N {
					r, err := v.e.Submit(v.ctx, plan.Changeset, edit.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if verify && !r.Diagnostics.Complete {
						b.Fatalf("delta: %+v", r.Diagnostics)
					}
					after()
					b.StopTimer()
					v.e.Verifier = nil
					if _, err := v.e.Submit(v.ctx, rename(tc.newName, tc.symbol).Changeset, edit.Options{}); err != nil {
						b.Fatal(err)
					}
					settle()
					v.e.Verifier = saved
					if !verify {
						v.e.Verifier = nil
					}
					b.StartTimer()
				}
			}
			b.Run("apply+get_diagnostics", func(b *testing.B) { applyThen(b, false, settle) })
			b.Run("apply+delta", func(b *testing.B) { applyThen(b, true, func() {}) })
		})
	}
}

// modCacheCopy copies github.com/BurntSushi/toml from the module cache
// (writable) into a temporary folder.
func modCacheCopy(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		b.Fatal(err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "github.com", "!burnt!sushi", "toml@v1.6.0")
	if _, err := os.Stat(src); err != nil {
		b.Fatalf("the module is not in the cache (go mod download github.com/BurntSushi/toml@v1.6.0): %v", err)
	}
	dst := filepath.Join(b.TempDir(), "toml")
	if err := testenv.CopyDir(src, dst); err != nil {
		b.Fatal(err)
	}
	_ = filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			mode := os.FileMode(0o644)
			if d.IsDir() {
				mode = 0o755
			}
			_ = os.Chmod(p, mode)
		}
		return nil
	})
	return dst
}
