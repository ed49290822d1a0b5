package refactor_test

// A TypeScript move follows the uses tsserver's Move to file leaves: a
// use through a namespace another module re-exports (zod's
// util.installLazyMethods through core/index.ts) is rewritten to a named
// import of the target, and `tsc --noEmit` stays clean; a use through an
// expression refuses the move, nothing changed. Sample:
// testdata/refactor/follow (README.md there).

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

func TestMoveTSFollowsNamespaceUses(t *testing.T) {
	e := newFixtureEnv(t, "follow/ts", "typescript-language-server", "tsc")
	e.start()
	e.run("tsc", "--noEmit", "-p", ".")

	t.Run("a use through a call's result is refused", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("src/core/util.ts", "src/core/versions.ts", "src/odd.ts")
		_, err := e.move("src/core/util.ts", e.declAt("src/core/util.ts", "export function other", "other"), "src/core/versions.ts")
		wantRefactorCode(t, "expression", err, apierr.PreconditionFailed, "src/odd.ts:7", "pick().other(1)", "not a namespace")
		e.unchanged(snap)
	})

	t.Run("a use through a re-exported namespace is followed", func(t *testing.T) {
		e := e.with(t)
		plan, err := e.move("src/core/util.ts", e.declAt("src/core/util.ts", "export function lazy", "lazy"), "src/core/versions.ts")
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.LeftBehind) != 0 || plan.References != 3 {
			t.Errorf("left behind %v, references %d (want none, 3)", plan.LeftBehind, plan.References)
		}
		e.submit("move_ts_follow", plan.Changeset, true)
		if got := e.disk("src/classic.ts"); !strings.Contains(got, "import { lazy } from \"./core/versions.js\";\n") || !strings.Contains(got, "= lazy(1)") {
			t.Errorf("classic.ts:\n%s", got)
		}
		e.run("tsc", "--noEmit", "-p", ".")
	})
}

// A file a TypeScript move creates takes the source's CRLF line endings
// (tsserver writes "\n").
func TestMoveTSNewFileCRLF(t *testing.T) {
	e := newFixtureEnv(t, "follow/ts", "typescript-language-server")
	for _, f := range []string{"src/core/util.ts", "src/classic.ts", "src/mini.ts", "src/odd.ts", "src/core/index.ts", "src/core/versions.ts"} {
		e.write(f, strings.ReplaceAll(e.disk(f), "\n", "\r\n"))
	}
	e.start()
	plan, err := e.move("src/core/util.ts", e.declAt("src/core/util.ts", "export function lazy", "lazy"), "src/core/lazy.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Created {
		t.Fatalf("not created: %+v", plan)
	}
	e.submit("move_ts_follow_crlf", plan.Changeset, true)
	if got := e.disk("src/core/lazy.ts"); strings.Count(got, "\r\n") != strings.Count(got, "\n") || !strings.Contains(got, "export function lazy") {
		t.Errorf("lazy.ts is not CRLF: %q", got)
	}
}
