package refactor_test

// requests' shape (testdata/refactor/srclayout/python): a src layout whose
// modules import each other relatively, a parenthesized import of the
// moved function, aliased imports of it and of its module, tests outside
// pyright's include. Moving _basic_auth_str to _internal_utils rewrites the imports relatively (never src.pkg...),
// adds no self-import, joins the import to the module's from-import,
// rewrites the tests' import of it (outside pyright's include), and the
// package still imports and its tests pass; renaming get_auth renames
// the tests' from-import of it and its uses there, and lists a use through
// the module it does not follow (left_behind).

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

func TestPythonSrcLayout(t *testing.T) {
	e := newFixtureEnv(t, "srclayout/python", "pyright-langserver", "python3")
	e.start()
	ctx := testenv.Context(t)
	check := func(t *testing.T) {
		t.Helper()
		e := e.with(t)
		e.run("python3", "-m", "compileall", "-q", "src")
		if out := e.run("python3", "tests/run.py"); strings.TrimSpace(out) != "ok" {
			t.Fatalf("tests: %s", out)
		}
	}
	check(t)

	t.Run("move through a parenthesized relative import", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("src/pkg/auth.py", e.declAt("src/pkg/auth.py", "def _basic_auth_str", "_basic_auth_str"), "src/pkg/_internal_utils.py")
		if err != nil {
			t.Fatal(err)
		}
		e.submit("move_py_srclayout", plan.Changeset, true)
		for _, f := range []string{"src/pkg/_internal_utils.py", "src/pkg/auth.py", "src/pkg/sessions.py"} {
			if text := e.disk(f); strings.Contains(text, "src.pkg") || f == "src/pkg/_internal_utils.py" && strings.Contains(text, "import to_native_string") {
				t.Errorf("%s:\n%s", f, text)
			}
		}
		// api.py: the module imported under an alias (a._basic_auth_str), the
		// name under an alias in a backslash-continued from-import.
		if api := e.disk("src/pkg/api.py"); !strings.Contains(api, "from ._internal_utils import _basic_auth_str as basic\n") ||
			!strings.Contains(api, "_internal_utils._basic_auth_str(user, password)") || strings.Contains(api, "auth as a") || strings.Contains(api, "\\") {
			t.Errorf("api.py:\n%s", api)
		}
		// The tests outside pyright's include import it from the source
		// module: their import follows (nothing left behind).
		if lb := plan.LeftBehind; len(lb) != 0 || !strings.Contains(e.disk("tests/test_utils.py"), "from pkg._internal_utils import _basic_auth_str\n") {
			t.Errorf("left behind: %+v\n%s", lb, e.disk("tests/test_utils.py"))
		}
		check(t)
	})

	t.Run("inline keeps a private function the tests use", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "src/pkg/utils.py", Target: e.declAt("src/pkg/utils.py", "def _strip", "_strip")})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Replacements) != 1 || plan.DefinitionRemoved || !strings.Contains(plan.DefinitionKept, "tests/test_utils.py:3") {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("inline_py_srclayout_private", plan.Changeset, true)
		check(t)
	})

	t.Run("rename follows the tests' imports, lists the rest", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.Rename(ctx, e.client, refactor.RenameRequest{File: "src/pkg/utils.py", Target: lsp.Target{Line: 5, Symbol: "get_auth"}, NewName: "auth_of"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range plan.LeftBehind {
			got = append(got, l.File+":"+l.Context)
		}
		want := `tests/test_qualified.py:assert pkg.utils.get_auth("http://a:b@host/") == ("a", "b")`
		if strings.Join(got, "|") != want || plan.LeftBehindTotal != 1 {
			t.Errorf("left behind:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
		}
		e.submit("rename_py_srclayout", plan.Changeset, true)
		if text := e.disk("tests/test_utils.py"); !strings.Contains(text, "from pkg.utils import _strip, auth_of\n") || !strings.Contains(text, "assert auth_of(") {
			t.Errorf("tests/test_utils.py:\n%s", text)
		}
		check(t)
	})
}
