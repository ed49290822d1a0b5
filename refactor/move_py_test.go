package refactor_test

// move_symbol for Python (pyright's references, tree-sitter syntax) on a
// copy of testdata/refactor/move/python: a function with 8 references in 5
// files (from-imports, `from pkg import module`, `import pkg.module`, a use
// left in the source) moved to a new module; a constant to an existing
// module; the refusals (a circular import, a member, no declaration);
// pyright reports no errors after each move.

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestMovePython(t *testing.T) {
	e := newMoveEnv(t, "python", "pyright-langserver", "pyright", "git")
	e.start()
	pyrightClean := func() {
		t.Helper()
		out := e.run("pyright")
		if !strings.Contains(out, "0 errors") {
			t.Fatalf("pyright:\n%s", out)
		}
	}
	pyrightClean()

	t.Run("refusals change nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("shop/geometry.py", "shop/calc.py", "shop/report.py", "main.py")
		_, err := e.move("shop/geometry.py", e.declAt("shop/geometry.py", "    def area", "area"), "shop/other.py")
		wantRefactorCode(t, "member", err, apierr.Unsupported, "is a member of Circle")
		_, err = e.move("shop/geometry.py", lsp.Target{Line: 2, Column: refInt(0)}, "shop/other.py")
		wantRefactorCode(t, "nothing", err, apierr.InvalidParameter, "no top-level")
		// geometry keeps using area (Circle.area) and calc imports geometry.
		_, err = e.move("shop/geometry.py", e.declAt("shop/geometry.py", "def area", "area"), "shop/calc.py")
		wantRefactorCode(t, "circular", err, apierr.PreconditionFailed, "circular import", "shop.geometry would import area from shop.calc")
		_, err = e.move("shop/geometry.py", e.declAt("shop/geometry.py", "def area", "area"), "shop/calc.ts")
		wantRefactorCode(t, "language", err, apierr.InvalidParameter, "not a Python file")
		e.unchanged(snap)
	})

	t.Run("function with 8 references in 5 files to a new module", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("shop/geometry.py", e.declAt("shop/geometry.py", "def area", "area"), "shop/measure.py")
		if err != nil {
			t.Fatal(err)
		}
		wantUpdates := strings.Join([]string{
			"main.py:  -> measure from shop",
			"shop/calc.py: area from shop.geometry -> area from shop.measure",
			"shop/geometry.py:  -> area from shop.measure",
			"shop/measure.py:  -> math",
			"shop/report.py:  -> measure from shop",
			"tests/test_geometry.py: area from shop.geometry -> area from shop.measure",
		}, "\n")
		if got := importUpdateText(plan.ImportUpdates); got != wantUpdates {
			t.Errorf("import updates:\n%s\nwant\n%s", got, wantUpdates)
		}
		if !plan.Created || plan.Symbol != "area" || plan.References != 8 || plan.Server != "pyright" {
			t.Errorf("plan: created %v symbol %s references %d", plan.Created, plan.Symbol, plan.References)
		}
		e.submit("move_py_function", plan.Changeset, true)
		pyrightClean()
	})
	t.Run("class to a new module, taking what it uses from the source", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("shop/geometry.py", e.declAt("shop/geometry.py", "class Circle", "Circle"), "shop/shapes.py")
		if err != nil {
			t.Fatal(err)
		}
		e.submit("move_py_class", plan.Changeset, true)
		pyrightClean()
	})
}
