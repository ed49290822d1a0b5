package edit_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/edit/*.diff")

// env is one embedded Neovim on a workspace of the test's own, shared by
// the subtests of a test.
type env struct {
	t      testing.TB
	root   string
	s      *nvim.Session
	client *lsp.Client
	e      *edit.Engine
	ctx    context.Context
}

// newEnv writes files (path relative to the root -> content) into a fresh
// workspace and starts Neovim there.
func newEnv(t testing.TB, files map[string]string) *env {
	t.Helper()
	root := t.TempDir()
	return newEnvAt(t, root, files)
}

func newEnvAt(t testing.TB, root string, files map[string]string) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	v := &env{t: t, root: root}
	for rel, content := range files {
		v.write(rel, content)
	}
	v.s, v.client = testenv.Embedded(t, root)
	v.e = edit.NewEngine(v.s)
	v.ctx = testenv.Context(t)
	if _, ok := t.(*testing.B); ok {
		v.ctx = context.Background() // benchmarks run longer than one test timeout
	}
	return v
}

func (v *env) abs(rel string) string { return filepath.Join(v.root, filepath.FromSlash(rel)) }

func (v *env) write(rel, content string) {
	v.t.Helper()
	p := v.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		v.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		v.t.Fatal(err)
	}
}

// disk returns a file's content, or "<missing>".
func (v *env) disk(rel string) string {
	v.t.Helper()
	b, err := os.ReadFile(v.abs(rel))
	if errors.Is(err, os.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		v.t.Fatal(err)
	}
	return string(b)
}

// buffer describes a file's buffer: text as a write would produce it.
type buffer struct {
	Text     string
	Loaded   bool
	Modified bool
	Tick     int
}

func (v *env) buffer(rel string) buffer {
	v.t.Helper()
	snaps, err := v.s.Snapshot(v.ctx, []string{v.abs(rel)}, nvim.SnapshotOptions{})
	if err != nil {
		v.t.Fatal(err)
	}
	s := snaps[0]
	if !s.Loaded {
		return buffer{}
	}
	return buffer{Text: s.Text, Loaded: true, Modified: s.Modified, Tick: s.ChangedTick}
}

// open loads a file into a buffer (as a user opening it would).
func (v *env) open(rel string) int {
	v.t.Helper()
	st, err := v.s.OpenBuffer(v.ctx, v.abs(rel), true)
	if err != nil {
		v.t.Fatal(err)
	}
	return st.Bufnr
}

// lua runs fixed test Lua with data arguments.
func (v *env) lua(code string, result any, args ...any) {
	v.t.Helper()
	if err := v.s.ExecLua(v.ctx, code, result, args...); err != nil {
		v.t.Fatalf("lua: %v", err)
	}
}

// userEdit replaces a line of rel's buffer the way a user typing would
// (a separate undo step).
func (v *env) userEdit(rel string, line int, text string) {
	v.t.Helper()
	b := v.open(rel)
	v.lua(`local b, l, text = ...
vim.api.nvim_buf_call(b, function() vim.bo.undolevels = vim.bo.undolevels end)
vim.api.nvim_buf_set_lines(b, l, l + 1, true, { text })`, nil, b, line, text)
}

// undo runs :undo once in rel's buffer, as a user pressing u.
func (v *env) undo(rel string) {
	v.t.Helper()
	b := v.open(rel)
	v.lua(`local b = ...; vim.api.nvim_buf_call(b, function() vim.cmd('silent undo') end)`, nil, b)
}

func wantCode(t testing.TB, err error, code apierr.Code) *apierr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	e := apierr.As(err)
	if e.Code != code {
		t.Fatalf("error %s: %s, want %s", e.Code, e.Message, code)
	}
	return e
}

// golden compares diff with testdata/golden/edit/NAME.diff, whose first
// lines (starting with "#") say what it pins; -update rewrites it. git apply
// skips text before the first "diff --git", so the file stays a patch.
func golden(t testing.TB, name, about, diff string) {
	t.Helper()
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "edit", name+".diff")
	header := "# " + strings.ReplaceAll(about, "\n", "\n# ") + "\n"
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(header+diff), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./edit -update to create it)", err)
	}
	got := header + diff
	if string(want) != got {
		t.Fatalf("diff differs from %s (go test ./edit -update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// gitApplyCheck runs the real `git apply --check` of the golden file NAME in
// dir (the files as they were when the diff was made).
func gitApplyCheck(t testing.TB, dir, name string) {
	t.Helper()
	testenv.Require(t, "git")
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "edit", name+".diff")
	cmd := exec.Command("git", "apply", "--check", "--whitespace=nowarn", path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir), "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git apply --check %s in %s: %v\n%s", name, dir, err, stderr.String())
	}
}

// snapshotDir writes the given files (relative path -> content) into a new
// directory, for git apply --check against buffer contents.
func snapshotDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
