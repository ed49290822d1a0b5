package refactor_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// TestInlinePython: simple functions inlined from the syntax: 5 calls of
// area in 3 files (one through the module, one with side-effecting
// arguments bound to locals first), the use as a value left alone (the
// definition stays); perimeter's calls (one with keyword arguments) all
// inlined and its definition and import removed; scaled, whose body uses a
// module global, left alone in another module; fact refused as recursive.
// After applying, pyright reports no new errors and the program prints
// the same.
func TestInlinePython(t *testing.T) {
	e := newInlineEnv(t, "python", "pyright-langserver", "pyright", "python3-deps")
	e.start()
	ctx := testenv.Context(t)
	errorsBefore := pyrightErrors(t, e)
	output := e.run("python3-deps", "app.py")
	before := e.snapshot("geom.py", "shop.py", "app.py")

	t.Run("recursive refused", func(t *testing.T) {
		e.with(t).wantRecursiveRefused("geom.py", lsp.Target{Line: 19, Symbol: "fact"}, before)
	})
	t.Run("global in another module left alone", func(t *testing.T) {
		_, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "geom.py", Target: lsp.Target{Line: 15, Symbol: "scaled"}})
		if apierr.As(err).Code != apierr.PreconditionFailed || !strings.Contains(err.Error(), "RATE") {
			t.Fatalf("scaled: %v", err)
		}
	})
	t.Run("area", func(t *testing.T) {
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "app.py", Target: lsp.Target{Line: 9, Column: intp(10)}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := siteList(plan.Replacements), "app.py:9\napp.py:9\ngeom.py:24\nshop.py:15\nshop.py:20\n"; got != want {
			t.Errorf("replacements:\n%s\nwant:\n%s", got, want)
		}
		if left := siteList(plan.LeftAlone); left != "app.py:5 (used as a value (not called))\n" {
			t.Errorf("left alone:\n%s", left)
		}
		if plan.DefinitionRemoved {
			t.Error("the definition was removed while a use remains")
		}
		e.with(t).unchanged(before)
		e.with(t).submit("inline_python_area", plan.Changeset, true)
	})
	t.Run("perimeter removed", func(t *testing.T) {
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "geom.py", Target: lsp.Target{Line: 11, Symbol: "perimeter"}})
		if err != nil {
			t.Fatal(err)
		}
		if plan.DefinitionRemoved || !strings.Contains(plan.DefinitionKept, "public") {
			t.Errorf("auto removed a public function: %+v", plan)
		}
		plan, err = refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "geom.py", Target: lsp.Target{Line: 11, Symbol: "perimeter"}, RemoveDefinition: "always"})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Replacements) != 2 || len(plan.LeftAlone) != 0 || !plan.DefinitionRemoved {
			t.Fatalf("plan: %+v", plan)
		}
		e.with(t).submit("inline_python_perimeter", plan.Changeset, true)
	})
	// requires-python >=3.10: a string literal goes into the f-string's
	// text (f"{"python-requests"}/..." is a syntax error before 3.12), its
	// quotes escaped where they are the f-string's; the public function
	// stays.
	t.Run("f-string user_agent, public kept", func(t *testing.T) {
		line := 1 + strings.Count(strings.Split(e.disk("geom.py"), "def user_agent")[0], "\n")
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "geom.py", Target: lsp.Target{Line: line, Symbol: "user_agent"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Replacements) != 2 || plan.DefinitionRemoved || !strings.Contains(plan.DefinitionKept, "public") {
			t.Fatalf("plan: %+v", plan)
		}
		e.with(t).submit("inline_python_fstring", plan.Changeset, true)
		if g := e.disk("geom.py"); !strings.Contains(g, `{"User-Agent": f"python-requests/{VERSION}", "From": f"say \"hi\"/{VERSION}"}`) {
			t.Errorf("geom.py:\n%s", g)
		}
		e.run("python3", "-c", "import ast, sys; ast.parse(open('geom.py').read(), feature_version=(3, 10))")
	})
	// A body of statements where the call is an assignment's value (its
	// local total renamed: the caller has one), left alone inside an
	// expression; a comprehension.
	t.Run("statements and a comprehension", func(t *testing.T) {
		e := e.with(t)
		line := 1 + strings.Count(strings.Split(e.disk("geom.py"), "def summary")[0], "\n")
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "geom.py", Target: lsp.Target{Line: line, Symbol: "summary"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Replacements) != 1 || len(plan.LeftAlone) != 1 || !strings.Contains(plan.LeftAlone[0].Reason, "inside an expression") ||
			!strings.Contains(plan.Method, "the function's statements in place of the statement holding each call") {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("inline_python_statements", plan.Changeset, true)
		line = 1 + strings.Count(strings.Split(e.disk("geom.py"), "def counts")[0], "\n")
		plan, err = refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "geom.py", Target: lsp.Target{Line: line, Symbol: "counts"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Replacements) != 1 {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("inline_python_comprehension", plan.Changeset, true)
		// Early returns: kept where the call is returned, refused where
		// its value is assigned.
		line = 1 + strings.Count(strings.Split(e.disk("geom.py"), "def kind(")[0], "\n")
		plan, err = refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "geom.py", Target: lsp.Target{Line: line, Symbol: "kind"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Replacements) != 1 || len(plan.LeftAlone) != 1 || !strings.Contains(plan.LeftAlone[0].Reason, "returns early") {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("inline_python_early_return", plan.Changeset, true)
		e.run("python3", "-m", "py_compile", "geom.py")
	})
	if got := e.run("python3-deps", "app.py"); got != output {
		t.Errorf("the program's output changed:\n%s\nwas:\n%s", got, output)
	}
	if n := pyrightErrors(t, e); n > errorsBefore {
		t.Errorf("pyright: %d errors after inlining, %d before", n, errorsBefore)
	}
}

// TestInlineTypeScript: the same on TypeScript; tsc --noEmit is clean and
// the compiled program gives the same result.
func TestInlineTypeScript(t *testing.T) {
	e := newInlineEnv(t, "ts", "typescript-language-server", "tsc", "node")
	e.start()
	ctx := testenv.Context(t)
	e.run("tsc", "-p", ".")
	runMain := func() string {
		out := filepath.Join(t.TempDir(), "out")
		e.run("tsc", "-p", ".", "--noEmit", "false", "--outDir", out)
		return e.run("node", "-e", "console.log(require(process.argv[1]).main())", filepath.Join(out, "app.js"))
	}
	output := runMain()
	before := e.snapshot("src/geom.ts", "src/shop.ts", "src/app.ts")

	t.Run("recursive refused", func(t *testing.T) {
		e.with(t).wantRecursiveRefused("src/geom.ts", lsp.Target{Line: 18, Symbol: "fact"}, before)
	})
	t.Run("area", func(t *testing.T) {
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "src/geom.ts", Target: lsp.Target{Line: 6, Symbol: "area"}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := siteList(plan.Replacements), "src/app.ts:9\nsrc/app.ts:9\nsrc/geom.ts:23\nsrc/shop.ts:13\nsrc/shop.ts:19\nsrc/shop.ts:24\nsrc/shop.ts:25\n"; got != want {
			t.Errorf("replacements:\n%s\nwant:\n%s", got, want)
		}
		if left := siteList(plan.LeftAlone); left != "src/app.ts:6 (used as a value (not called))\n" {
			t.Errorf("left alone:\n%s", left)
		}
		e.with(t).unchanged(before)
		e.with(t).submit("inline_ts_area", plan.Changeset, true)
		// The locals a call's arguments were bound to are numbered in the
		// order of the calls (the sites are inlined from the last).
		if shop := e.disk("src/shop.ts"); !strings.Contains(shop, "const w_1 = n + 1;\n  const h_1 = nextWidth();\n  return w_1 * h_1;") ||
			!strings.Contains(shop, "const w_2 = n + 1;\n  const h_2 = nextWidth();\n  const first = w_2 * h_2;\n  const w_3 = n + 2;\n  const h_3 = nextWidth();\n  const second = w_3 * h_3;") {
			t.Errorf("shop.ts:\n%s", shop)
		}
	})
	t.Run("perimeter removed", func(t *testing.T) {
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "src/geom.ts", Target: lsp.Target{Line: 10, Symbol: "perimeter"}})
		if err != nil {
			t.Fatal(err)
		}
		if plan.DefinitionRemoved || !strings.Contains(plan.DefinitionKept, "public") {
			t.Errorf("auto removed an exported function: %+v", plan)
		}
		plan, err = refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "src/geom.ts", Target: lsp.Target{Line: 10, Symbol: "perimeter"}, RemoveDefinition: "always"})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Replacements) != 2 || len(plan.LeftAlone) != 0 || !plan.DefinitionRemoved {
			t.Fatalf("plan: %+v", plan)
		}
		e.with(t).submit("inline_ts_perimeter", plan.Changeset, true)
	})
	// An arrow-function constant, and one with an optional parameter left
	// out at one call (undefined) and given at the other.
	for _, fn := range []string{"half", "grow", "capital"} {
		t.Run("arrow constant "+fn, func(t *testing.T) {
			line := 1 + strings.Count(strings.Split(e.disk("src/geom.ts"), "const "+fn+" =")[0], "\n")
			plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "src/geom.ts", Target: lsp.Target{Line: line, Symbol: fn}})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Replacements) != 2 || len(plan.LeftAlone) != 0 || !plan.DefinitionRemoved {
				t.Fatalf("plan: %+v", plan)
			}
			e.with(t).submit("inline_ts_arrow_"+fn, plan.Changeset, true)
			// No parentheses inside ${...}; the comment above the
			// definition went with it.
			if got := e.disk("src/geom.ts"); fn == "capital" && (strings.Contains(got, "${(") || strings.Contains(got, "capitalizeFirstCharacter")) {
				t.Errorf("geom.ts:\n%s", got)
			}
		})
	}
	// A static and a private method: this becomes the receiver.
	for _, fn := range []string{"unit", "inner"} {
		t.Run("method "+fn, func(t *testing.T) {
			line := 0
			for i, l := range strings.Split(e.disk("src/geom.ts"), "\n") {
				if strings.Contains(l, " "+fn+"(") && strings.HasSuffix(l, "{") {
					line = i + 1
				}
			}
			plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "src/geom.ts", Target: lsp.Target{Line: line, Symbol: fn}})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Replacements) != 1 || len(plan.LeftAlone) != 0 {
				t.Fatalf("plan: %+v", plan)
			}
			e.with(t).submit("inline_ts_method_"+fn, plan.Changeset, true)
		})
	}
	e.run("tsc", "-p", ".")
	if got := runMain(); got != output {
		t.Errorf("the program's result changed:\n%s\nwas:\n%s", got, output)
	}
}

func intp(n int) *int { return &n }
