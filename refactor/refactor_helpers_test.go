package refactor_test

import (
	"bytes"
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
	"github.com/nvbridge/nvbridge/preview"
)

// -update rewrites testdata/golden/refactor/*.diff:
// go test ./lsp -run 'TestRefactor' -update
// (registered unless another test file of the package already did).
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden diffs in testdata/golden/refactor")
	}
}

func updatingGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// refactorEnv is one embedded Neovim on a copy of a sample, with the
// changeset engine the tools use.
type refactorEnv struct {
	t      *testing.T
	root   string
	s      *nvim.Session
	client *lsp.Client
	engine *edit.Engine
}

func newRefactorEnv(t *testing.T, sample string, commands ...string) *refactorEnv {
	t.Helper()
	testenv.Require(t, append([]string{"nvim"}, commands...)...)
	root := testenv.CopySample(t, sample)
	return &refactorEnv{t: t, root: root}
}

// newFixtureEnv is a refactorEnv on a copy of testdata/refactor/FIXTURE
// ("move/go", "inline/ts", ...).
func newFixtureEnv(t *testing.T, fixture string, commands ...string) *refactorEnv {
	t.Helper()
	testenv.Require(t, append([]string{"nvim"}, commands...)...)
	root := filepath.Join(t.TempDir(), filepath.Base(fixture))
	if err := testenv.CopyDir(filepath.Join(testenv.RepoRoot(t), "testdata", "refactor", fixture), root); err != nil {
		t.Fatal(err)
	}
	return &refactorEnv{t: t, root: root}
}

// with returns e reporting to t (a subtest).
func (e *refactorEnv) with(t *testing.T) *refactorEnv {
	c := *e
	c.t = t
	return &c
}

// start launches Neovim (after the test wrote any extra files).
func (e *refactorEnv) start() {
	e.t.Helper()
	e.s, e.client = testenv.Embedded(e.t, e.root)
	e.engine = edit.NewEngine(e.s)
}

func (e *refactorEnv) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *refactorEnv) disk(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// buffer returns the file's text as Neovim holds it (as it would write it).
func (e *refactorEnv) buffer(rel string) (string, bool) {
	e.t.Helper()
	info, err := e.client.Info(testenv.Context(e.t), rel, true)
	if err != nil {
		e.t.Fatal(err)
	}
	return *info.Content, info.IsModified
}

// snapshot records the disk and buffer text of files, to prove later that
// nothing changed.
func (e *refactorEnv) snapshot(files ...string) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		text, modified := e.buffer(f)
		if modified {
			e.t.Fatalf("%s is modified before the test", f)
		}
		out[f] = text
		if d := e.disk(f); d != text {
			e.t.Fatalf("%s: buffer and disk differ before the test", f)
		}
	}
	return out
}

func (e *refactorEnv) unchanged(snap map[string]string) {
	e.t.Helper()
	for f, want := range snap {
		text, modified := e.buffer(f)
		if modified || text != want || e.disk(f) != want {
			e.t.Errorf("%s changed (modified=%v)", f, modified)
		}
	}
}

// submit previews cs, checks the diff against the golden file and with
// `git apply --check` against the files on disk, then (apply) applies the
// stored preview, saving the buffers.
func (e *refactorEnv) submit(name string, cs preview.Changeset, apply bool) edit.Result {
	e.t.Helper()
	return e.submitWith(name, cs, apply, true)
}

// submitNoSave is submit that applies without saving.
func (e *refactorEnv) submitNoSave(name string, cs preview.Changeset) edit.Result {
	e.t.Helper()
	return e.submitWith(name, cs, true, false)
}

func (e *refactorEnv) submitWith(name string, cs preview.Changeset, apply, save bool) edit.Result {
	e.t.Helper()
	ctx := testenv.Context(e.t)
	res, err := e.engine.Submit(ctx, cs, edit.Options{Preview: true})
	if err != nil {
		e.t.Fatalf("%s: preview: %v", name, err)
	}
	if res.ChangesetID == "" || res.Applied {
		e.t.Fatalf("%s: preview result %+v", name, res)
	}
	golden(e.t, name, res.Diff)
	e.gitApplyCheck(name, res.Diff)
	if !apply {
		if err := e.engine.Discard(res.ChangesetID); err != nil {
			e.t.Fatal(err)
		}
		return res
	}
	applied, err := e.engine.ApplyStored(ctx, res.ChangesetID, save)
	if err != nil {
		e.t.Fatalf("%s: apply: %v", name, err)
	}
	// Applied as previewed, the answer does not repeat the diff.
	if !applied.Applied || !applied.DiffInPreview || applied.Diff != "" {
		e.t.Fatalf("%s: applied %+v differs from the preview", name, applied)
	}
	applied.Diff = res.Diff
	return applied
}

func (e *refactorEnv) gitApplyCheck(name, diff string) {
	e.t.Helper()
	cmd := exec.Command("git", "apply", "--check", "-")
	cmd.Dir = e.root
	cmd.Stdin = strings.NewReader(diff)
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Errorf("%s: git apply --check: %v\n%s", name, err, out)
	}
}

// run runs a command in the sample copy and fails the test when it fails.
func (e *refactorEnv) run(name string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = e.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "refactor", name+".diff")
	if updatingGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lsp -run TestRefactor -update to create it)", err)
	}
	if !bytes.Equal(want, []byte(got)) {
		t.Errorf("%s: diff differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func wantRefactorCode(t *testing.T, what string, err error, code apierr.Code, words ...string) {
	t.Helper()
	if apierr.CodeOf(err) != code {
		t.Fatalf("%s: got %v, want %s", what, err, code)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not mention %q", what, err, w)
		}
	}
}

func refInt(i int) *int { return &i }
