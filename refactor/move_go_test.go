package refactor_test

// move_symbol with real gopls through Neovim on a copy of
// testdata/refactor/move/go: a function with 7 references in 5 files moved
// to a new package (qualifiers and imports rewritten in every file, one
// changeset with the file creation, then `go build ./... && go vet ./... &&
// go test ./...` pass), a type with its method set, a move inside the
// package, and the refusals (an import cycle, an unexported name used
// across packages, a method alone, bad targets) that change nothing.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// newMoveEnv copies testdata/refactor/move/NAME.
func newMoveEnv(t *testing.T, name string, commands ...string) *refactorEnv {
	t.Helper()
	return newFixtureEnv(t, "move/"+name, commands...)
}

// declAt is the target on the first line of file (on disk) that starts
// with decl: symbol there, or column 0 when symbol is "".
func (e *refactorEnv) declAt(file, decl, symbol string) lsp.Target {
	e.t.Helper()
	for i, l := range strings.Split(e.disk(file), "\n") {
		if strings.HasPrefix(l, decl) {
			if symbol == "" {
				return lsp.Target{Line: i + 1, Column: refInt(0)}
			}
			return lsp.Target{Line: i + 1, Symbol: symbol}
		}
	}
	e.t.Fatalf("%s: no line starting with %q", file, decl)
	return lsp.Target{}
}

// move plans moving the declaration at t of file to the file to.
func (e *refactorEnv) move(file string, t lsp.Target, to string) (refactor.MovePlan, error) {
	return refactor.Move(testenv.Context(e.t), e.client, refactor.MoveRequest{File: file, Target: t, TargetFile: to})
}

func importUpdateText(us []refactor.ImportUpdate) string {
	var out []string
	for _, u := range us {
		out = append(out, u.File+": "+u.Old+" -> "+u.New)
	}
	return strings.Join(out, "\n")
}

func TestMoveGo(t *testing.T) {
	e := newMoveEnv(t, "go", "gopls", "go", "git")
	e.start()
	all := []string{"geometry/shapes.go", "geometry/perimeter.go", "geometry/shapes_test.go", "calc/calc.go", "calc/calc_test.go",
		"report/report.go", "store/store.go", "mathx/mathx.go", "main.go"}

	t.Run("refusals change nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot(all...)
		// Area is used by geometry (Circle.Area) and store imports
		// geometry: geometry -> store -> geometry.
		_, err := e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func Area", "Area"), "store/area.go")
		wantRefactorCode(t, "cycle", err, apierr.PreconditionFailed, "import cycle",
			"example.com/moveshop/geometry -> example.com/moveshop/store -> example.com/moveshop/geometry")
		_, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func clamp", "clamp"), "mathx/clamp.go")
		wantRefactorCode(t, "unexported", err, apierr.PreconditionFailed, "clamp is unexported", "export it first")
		_, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "type Circle", "Circle"), "mathx/circle.go")
		wantRefactorCode(t, "uses unexported", err, apierr.PreconditionFailed, "uses unexported clamp")
		_, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func (c Circle) String", "String"), "mathx/s.go")
		wantRefactorCode(t, "method alone", err, apierr.Unsupported, "method Circle.String", "move the receiver type")
		_, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func Area", "Area"), "../outside/area.go")
		wantRefactorCode(t, "outside", err, apierr.InvalidParameter, "outside the workspace root")
		_, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func Area", "Area"), "mathx/area.py")
		wantRefactorCode(t, "language", err, apierr.InvalidParameter, "not a Go file")
		_, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func Area", "Area"), "geometry/shapes.go")
		wantRefactorCode(t, "same file", err, apierr.InvalidParameter, "already in")
		_, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "import", ""), "mathx/x.go")
		wantRefactorCode(t, "import", err, apierr.InvalidParameter, "import declaration")
		_, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func Area", "Area"), "main.go")
		wantRefactorCode(t, "package main", err, apierr.InvalidParameter, "package main")
		e.unchanged(snap)
		if _, err := os.Stat(filepath.Join(e.root, "mathx", "clamp.go")); !os.IsNotExist(err) {
			t.Errorf("a refused move created its target: %v", err)
		}
	})

	t.Run("function with 8 references in 6 files to a new package", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func Area", "Area"), "measure/area.go")
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Created || plan.Symbol != "Area" || plan.References != 8 || len(plan.Files) != 7 || plan.Server != "gopls" {
			t.Errorf("plan: created %v symbol %s references %d files %v", plan.Created, plan.Symbol, plan.References, plan.Files)
		}
		wantUpdates := strings.Join([]string{
			"calc/calc.go:  -> example.com/moveshop/measure",
			"calc/calc_test.go: example.com/moveshop/geometry -> example.com/moveshop/measure",
			"geometry/shapes.go: math -> example.com/moveshop/measure",
			"geometry/shapes_test.go:  -> example.com/moveshop/measure",
			"main.go:  -> example.com/moveshop/measure",
			"measure/area.go:  -> math",
			"report/report.go:  -> example.com/moveshop/measure",
		}, "\n")
		if got := importUpdateText(plan.ImportUpdates); got != wantUpdates {
			t.Errorf("import updates:\n%s\nwant\n%s", got, wantUpdates)
		}
		e.submit("move_go_function", plan.Changeset, true)
	})

	t.Run("type with its method set from two files, using an exported name it leaves behind", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "type Square", "Square"), "mathx/square.go")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(plan.Moved, ", "); got != "type Square, method Square.Area, method Square.Perimeter" {
			t.Errorf("moved %s", got)
		}
		e.submit("move_go_type", plan.Changeset, true)
	})

	t.Run("constant into an existing file of the package using it", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "const Scale", "Scale"), "mathx/mathx.go")
		if err != nil {
			t.Fatal(err)
		}
		if plan.Created || plan.References != 2 {
			t.Errorf("plan: created %v, %d references", plan.Created, plan.References)
		}
		e.submit("move_go_const", plan.Changeset, true)
	})

	t.Run("a cycle through a package's own tests is refused", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("geometry/shapes.go", "geometry/shapes_test.go", "mathx/mathx.go", "store/store.go")
		_, err := e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "var Origin", "Origin"), "mathx/mathx.go")
		wantRefactorCode(t, "test cycle", err, apierr.PreconditionFailed, "own tests",
			"example.com/moveshop/geometry -> example.com/moveshop/mathx -> example.com/moveshop/geometry")
		e.unchanged(snap)
	})

	t.Run("inside the package", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("geometry/perimeter.go", e.declAt("geometry/perimeter.go", "func (c Circle) Perimeter", "Perimeter"), "geometry/shapes.go")
		if err != nil {
			t.Fatal(err)
		}
		if plan.References != 0 {
			t.Errorf("same package: %d references rewritten", plan.References)
		}
		e.submit("move_go_same_package", plan.Changeset, true)
		plan, err = e.move("geometry/shapes.go", e.declAt("geometry/shapes.go", "func clamp", "clamp"), "geometry/clamp.go")
		if err != nil {
			t.Fatal(err)
		}
		e.submit("move_go_same_package_new_file", plan.Changeset, true)
	})

	t.Run("into the package it qualified", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("calc/calc.go", e.declAt("calc/calc.go", "func Label", "Label"), "geometry/label.go")
		if err != nil {
			t.Fatal(err)
		}
		e.submit("move_go_into_qualified_package", plan.Changeset, true)
		if got := e.disk("geometry/label.go"); !strings.Contains(got, "func Label(c Circle) string") || !strings.Contains(got, "\"strings\"") {
			t.Errorf("geometry/label.go:\n%s", got)
		}
	})

	t.Run("the moved workspace builds and its tests pass", func(t *testing.T) {
		e := e.with(t)
		e.run("gofmt", "-l", ".")
		e.run("go", "build", "./...")
		e.run("go", "vet", "./...")
		e.run("go", "test", "./...")
	})
}
