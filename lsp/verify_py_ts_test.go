package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// TestVerifiedEditsPythonTypeScript: the diagnostics delta with real
// pyright and typescript-language-server. A rename introduces nothing;
// renaming a function's definition alone introduces an error in its
// caller (another, unchanged file: the wait for it is the server's
// publish after the change); putting it back resolves it.
func TestVerifiedEditsPythonTypeScript(t *testing.T) {
	cases := []struct {
		name, sample, server, file, caller string
		needs                              []string
		renameLine                         int
		defLine                            int
		def, broken                        string
		callerMessage                      string
	}{
		{name: "pyright", sample: "python", server: "pyright", needs: []string{"pyright-langserver"},
			file: "shop/text.py", caller: "shop/app.py", renameLine: 14, defLine: 19,
			def: "def describe(label: str) -> str:", broken: "def describ(label: str) -> str:", callerMessage: "describe"},
		{name: "typescript", sample: "ts", server: "typescript-language-server", needs: []string{"typescript-language-server"},
			file: "src/text.ts", caller: "src/main.ts", renameLine: 13, defLine: 18,
			def: "export function describe(label: string): string {", broken: "export function describ(label: string): string {", callerMessage: "describe"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Require(t, append([]string{"nvim"}, tc.needs...)...)
			s, c := testenv.Embedded(t, testenv.CopySample(t, tc.sample))
			testenv.TraceLSP(t, s)
			v := newVerifyEnv(t, s, c)
			v.open(t, tc.caller, tc.file)
			wantLine(t, v, tc.file, tc.defLine, tc.def)

			_, d := v.rename(t, refactor.RenameRequest{File: tc.file, Target: lsp.Target{Line: tc.renameLine, Symbol: "greet"}, NewName: "salute"})
			wantComplete(t, d)
			if len(d.Introduced) != 0 || !strings.HasPrefix(d.Verdict, "no new errors ("+tc.server) {
				t.Fatalf("rename: verdict %q, introduced %+v", d.Verdict, d.Introduced)
			}

			_, d = v.editLine(t, tc.file, tc.defLine, tc.broken, edit.Options{})
			wantComplete(t, d)
			got := hasItem(d.Introduced, tc.caller, tc.callerMessage)
			if got == nil || got.Severity != "error" || !strings.Contains(got.Text, "describe") {
				t.Fatalf("introduced %+v, want an error in %s", d.Introduced, tc.caller)
			}
			if !strings.HasPrefix(d.Verdict, "introduces ") || !strings.Contains(d.Verdict, tc.caller) {
				t.Fatalf("verdict %q", d.Verdict)
			}
			t.Logf("verdict: %s", d.Verdict)

			_, d = v.editLine(t, tc.file, tc.defLine, tc.def, edit.Options{})
			wantComplete(t, d)
			if len(d.Introduced) != 0 || hasItem(d.Resolved, tc.caller, tc.callerMessage) == nil {
				t.Fatalf("put back: introduced %+v, resolved %+v", d.Introduced, d.Resolved)
			}
		})
	}
}

// TestVerifiedDeltaScope: the delta is the change's. A touched file that
// was not open and holds errors already (pyright publishes an empty list
// as it opens a file and its analysis later) introduces none of them; an
// open file that imports nothing touched neither holds the wait up nor
// enters the comparison; an importer of the touched file does.
func TestVerifiedDeltaScope(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := testenv.CopySample(t, "python")
	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Errors that exist before any change (requests' sessions.py has 18).
	write("shop/legacy.py", "def count() -> int:\n    return \"one\"\n\n\ndef size() -> int:\n    return 2\n")
	write("shop/uses_legacy.py", "from shop.legacy import size\n\nTOTAL: int = size()\n")
	write("shop/unrelated.py", "def other() -> int:\n    return \"two\"\n")
	s, c := testenv.Embedded(t, root)
	testenv.TraceLSP(t, s)
	v := newVerifyEnv(t, s, c)
	v.open(t, "shop/unrelated.py", "shop/uses_legacy.py")

	_, d := v.editLine(t, "shop/legacy.py", 6, "    return 3", edit.Options{})
	wantComplete(t, d)
	if len(d.Introduced) != 0 || !strings.HasPrefix(d.Verdict, "no new errors") {
		t.Fatalf("pre-existing errors counted as introduced: %q %+v", d.Verdict, d.Introduced)
	}
	if slices.Contains(d.FilesChecked, "shop/unrelated.py") || !slices.Contains(d.FilesChecked, "shop/uses_legacy.py") {
		t.Errorf("files checked %v: want the importer, not the unrelated open file", d.FilesChecked)
	}

	_, d = v.editLine(t, "shop/legacy.py", 5, "def size() -> str:", edit.Options{})
	wantComplete(t, d)
	if hasItem(d.Introduced, "shop/uses_legacy.py", "str") == nil || len(d.Introduced) != 2 {
		t.Fatalf("the importer's new error: %q %+v", d.Verdict, d.Introduced)
	}
}

// TestVerifiedDeltaPythonCheckAfterBind: pyright publishes a changed
// file's parse and bind results (here an empty list) before its check, as
// soon as one slice of its analysis ends, and the check's own diagnostics
// later, for the same version. Moving requests' _basic_auth_str into
// _internal_utils under reportUnusedFunction (requests' strict mode)
// introduces "not accessed" in the target, found only by the check: the
// delta has it, after a touched file that takes a while to check.
func TestVerifiedDeltaPythonCheckAfterBind(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := filepath.Join(t.TempDir(), "srclayout")
	if err := testenv.CopyDir(filepath.Join(testenv.RepoRoot(t), "testdata", "refactor", "srclayout", "python"), root); err != nil {
		t.Fatal(err)
	}
	appendTo := func(rel, text string) {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(root, rel), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	// The rule as requests' typeCheckingMode = "strict" sets it.
	conf, err := os.ReadFile(filepath.Join(root, "pyproject.toml"))
	if err != nil {
		t.Fatal(err)
	}
	strict := strings.Replace(string(conf), `include = ["src"]`, `include = ["src"]`+"\nreportUnusedFunction = \"error\"", 1)
	if err := os.WriteFile(filepath.Join(root, "pyproject.toml"), []byte(strict), 0o644); err != nil {
		t.Fatal(err)
	}
	// sessions.py, which the move touches, takes a while to check.
	var heavy strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&heavy, "\n\ndef step_%d(values: list[int], scale: float) -> dict[str, float]:\n    out: dict[str, float] = {}\n    for i, v in enumerate(values):\n        out[f\"k{i}\"] = v * scale + len(out)\n    return out\n", i)
	}
	appendTo("src/pkg/sessions.py", heavy.String())
	s, c := testenv.Embedded(t, root)
	testenv.TraceLSP(t, s)
	v := newVerifyEnv(t, s, c)
	v.open(t, "src/pkg/sessions.py", "src/pkg/auth.py", "src/pkg/_internal_utils.py")

	plan, err := refactor.Move(v.ctx, c, refactor.MoveRequest{File: "src/pkg/auth.py", Target: lsp.Target{Line: 9, Symbol: "_basic_auth_str"}, TargetFile: "src/pkg/_internal_utils.py"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.e.Submit(v.ctx, plan.Changeset, edit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Diagnostics
	wantComplete(t, d)
	// The move also rewrites the tests' import (outside the include, where
	// pyright, with no extraPaths, resolves pkg nowhere: one unresolved
	// import for another); in the sources, the one error.
	inSrc := 0
	for _, it := range d.Introduced {
		if strings.HasPrefix(it.File, "src/") {
			inSrc++
		}
	}
	if got := hasItem(d.Introduced, "src/pkg/_internal_utils.py", `"_basic_auth_str" is not accessed`); got == nil || got.Severity != "error" || inSrc != 1 {
		t.Fatalf("introduced %+v (verdict %q): want the check's error in _internal_utils.py", d.Introduced, d.Verdict)
	}
}

// TestVerifiedDeltaLeftBehind: a rename leaves a use in a test outside
// pyright's include (a use through the module, pkg.utils.get_auth, which
// the rename does not follow; requests' tests); the rename opens the files
// it left behind, so the delta of its apply compares them: the test then
// fails, and the delta says so. The state before is pyright's check of
// the test, pulled (its first publish, as it opens the file, is an empty
// list).
func TestVerifiedDeltaLeftBehind(t *testing.T) {
	testenv.Require(t, "nvim", "pyright-langserver")
	root := filepath.Join(t.TempDir(), "srclayout")
	if err := testenv.CopyDir(filepath.Join(testenv.RepoRoot(t), "testdata", "refactor", "srclayout", "python"), root); err != nil {
		t.Fatal(err)
	}
	// The tests import pkg from src (as requests' run with PYTHONPATH=src).
	conf, err := os.ReadFile(filepath.Join(root, "pyproject.toml"))
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Replace(string(conf), `include = ["src"]`, `include = ["src"]`+"\nextraPaths = [\"src\"]", 1)
	if err := os.WriteFile(filepath.Join(root, "pyproject.toml"), []byte(paths), 0o644); err != nil {
		t.Fatal(err)
	}
	s, c := testenv.Embedded(t, root)
	testenv.TraceLSP(t, s)
	v := newVerifyEnv(t, s, c)
	v.open(t, "src/pkg/utils.py")

	plan, err := refactor.Rename(v.ctx, c, refactor.RenameRequest{File: "src/pkg/utils.py", Target: lsp.Target{Line: 5, Symbol: "get_auth"}, NewName: "auth_of"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.LeftBehind) == 0 || plan.LeftBehind[0].File != "tests/test_qualified.py" {
		t.Fatalf("left behind: %+v", plan.LeftBehind)
	}
	r, err := v.e.Submit(v.ctx, plan.Changeset, edit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Diagnostics
	wantComplete(t, d)
	if !slices.Contains(d.FilesChecked, "tests/test_qualified.py") {
		t.Fatalf("files checked %v: want the test the rename left behind", d.FilesChecked)
	}
	got := hasItem(d.Introduced, "tests/test_qualified.py", `"get_auth"`)
	if got == nil || got.Severity != "error" {
		t.Fatalf("introduced %+v (verdict %q): want the test's error", d.Introduced, d.Verdict)
	}
	for _, it := range d.Introduced {
		if it.File != "tests/test_qualified.py" || !strings.Contains(it.Message, "get_auth") {
			t.Errorf("introduced %s:%d %s: not the rename's", it.File, it.Line, it.Message)
		}
	}
}
