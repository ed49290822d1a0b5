package refactor_test

// move_symbol with real typescript-language-server (tsserver's Move to
// file) on a copy of testdata/refactor/move/ts: a function with 6
// references in 4 files moved to a new file and to an existing one, a
// class; after applying, `tsc --noEmit` is clean.

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
)

func TestMoveTS(t *testing.T) {
	e := newMoveEnv(t, "ts", "typescript-language-server", "tsc", "git")
	e.start()
	e.run("tsc", "--noEmit", "-p", ".")

	t.Run("refusals change nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("src/geometry.ts", "src/calc.ts")
		_, err := e.move("src/geometry.ts", e.declAt("src/geometry.ts", "export function area", "area"), "src/measure.py")
		wantRefactorCode(t, "language", err, apierr.InvalidParameter, "not a TypeScript")
		_, err = e.move("src/geometry.ts", e.declAt("src/geometry.ts", "export function area", "area"), "/etc/area.ts")
		wantRefactorCode(t, "outside", err, apierr.InvalidParameter, "outside the workspace root")
		_, err = e.move("src/geometry.ts", e.declAt("src/geometry.ts", "  constructor", "constructor"), "src/other.ts")
		wantRefactorCode(t, "a member", err, apierr.Unsupported, "constructor is a member of Circle")
		_, err = e.move("src/geometry.ts", lsp.Target{Line: 2, Column: refInt(0)}, "src/other.ts")
		wantRefactorCode(t, "nothing", err, apierr.InvalidParameter, "no top-level declaration")
		e.unchanged(snap)
	})

	t.Run("function to a new file", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("src/geometry.ts", e.declAt("src/geometry.ts", "export function area", "area"), "src/util/measure.ts")
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Created || plan.Symbol != "area" || plan.References != 6 || plan.Server != "typescript-language-server" {
			t.Errorf("plan: created %v symbol %s references %d server %s", plan.Created, plan.Symbol, plan.References, plan.Server)
		}
		wantUpdates := strings.Join([]string{
			"src/calc.ts: area from ./geometry -> area from ./util/measure",
			"src/geometry.ts:  -> area from ./util/measure",
			"src/main.ts:  -> measure ./util/measure",
			"src/report.ts: area from ./geometry -> area from ./util/measure",
			"src/util/measure.ts:  -> SCALE from ../geometry",
		}, "\n")
		if got := importUpdateText(plan.ImportUpdates); got != wantUpdates {
			t.Errorf("import updates:\n%s\nwant\n%s", got, wantUpdates)
		}
		e.submit("move_ts_function", plan.Changeset, true)
		// The moved code as the source wrote it: no empty first line, the
		// doc comment right above its function.
		if got := e.disk("src/util/measure.ts"); !strings.HasPrefix(got, "import") || !strings.Contains(got, " */\nexport function area") {
			t.Errorf("measure.ts:\n%s", got)
		}
		e.run("tsc", "--noEmit", "-p", ".")
	})
	t.Run("a new file takes the project's CRLF", func(t *testing.T) {
		e := e.with(t)
		e.write("src/crlf.ts", "export const UNIT = 2;\r\n\r\nexport function twice(n: number): number {\r\n  return n * UNIT;\r\n}\r\n")
		plan, err := e.move("src/crlf.ts", e.declAt("src/crlf.ts", "export function twice", "twice"), "src/crlf_moved.ts")
		if err != nil {
			t.Fatal(err)
		}
		e.submit("move_ts_crlf", plan.Changeset, true)
		got := e.disk("src/crlf_moved.ts")
		if !strings.Contains(got, "export function twice(n: number): number {\r\n") || strings.Count(got, "\n") != strings.Count(got, "\r\n") || strings.Contains(got, "\r\r") {
			t.Errorf("crlf_moved.ts has other line endings than CRLF: %q", got)
		}
		if src := e.disk("src/crlf.ts"); strings.Count(src, "\n") != strings.Count(src, "\r\n") {
			t.Errorf("crlf.ts: %q", src)
		}
		e.run("tsc", "--noEmit", "-p", ".")
	})

	t.Run("class to an existing file", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("src/geometry.ts", e.declAt("src/geometry.ts", "export class Circle", "Circle"), "src/report.ts")
		if err != nil {
			t.Fatal(err)
		}
		if plan.Created || plan.Symbol != "Circle" {
			t.Errorf("plan: created %v symbol %s", plan.Created, plan.Symbol)
		}
		e.submit("move_ts_class", plan.Changeset, true)
		// An empty line above the appended class, its empty body as written.
		if got := e.disk("src/report.ts"); !strings.Contains(got, "}\n\n/** A disc. */\nexport class Circle {\n  constructor(public r: number) {}\n") {
			t.Errorf("report.ts:\n%s", got)
		}
		e.run("tsc", "--noEmit", "-p", ".")
	})
}
