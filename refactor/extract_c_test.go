package refactor_test

// extract_function in C (nvbridge's own, clangd has none there) and C++
// (clangd's "Extract to function") on testdata/refactor/extract/c: each
// extract previewed with the check (clangd's delta: no new error or
// warning), applied, and the file compiled with cc -Wall -Wextra -Werror.

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
	"github.com/nvbridge/nvbridge/refactor"
)

func TestExtractFunctionC(t *testing.T) {
	e := newFixtureEnv(t, "extract/c", "clangd", "cc", "c++", "git")
	e.start()
	ctx := testenv.Context(t)
	c := e.client
	e.engine.Verifier = lsp.NewVerifier(c)
	lineOf := func(file, text string) int {
		t.Helper()
		for i, l := range strings.Split(e.disk(file), "\n") {
			if strings.Contains(l, text) {
				return i + 1
			}
		}
		t.Fatalf("%s has no line with %q", file, text)
		return 0
	}
	extract := func(file string, from, to int, name string) (refactor.ExtractPlan, error) {
		return refactor.Extract(ctx, c, refactor.ExtractRequest{File: file, Kind: refactor.ExtractFunction,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: from}, EndLine: to}, Name: name})
	}
	// noNewDiagnostics previews cs with the check: clangd reports nothing
	// new, complete.
	noNewDiagnostics := func(t *testing.T, cs preview.Changeset) {
		t.Helper()
		res, err := e.engine.Submit(ctx, cs, edit.Options{Preview: true, Check: true})
		if err != nil {
			t.Fatal(err)
		}
		d := res.Diagnostics
		if d == nil || !d.Complete || len(d.Introduced) != 0 {
			t.Fatalf("the delta: %+v", d)
		}
		if err := e.engine.Discard(res.ChangesetID); err != nil {
			t.Fatal(err)
		}
	}
	compile := func() {
		e.run("cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-Isrc", "-c", "-o", "report.o", "src/report.c")
	}
	compile()

	t.Run("refusals change nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("src/report.c")
		_, err := extract("src/report.c", 50, 56, "")
		wantRefactorCode(t, "return", err, apierr.PreconditionFailed, "returns from find (line 52)")
		_, err = extract("src/report.c", 53, 54, "")
		wantRefactorCode(t, "break", err, apierr.PreconditionFailed, "the break at line 54 leaves the selection")
		_, err = extract("src/report.c", 55, 55, "")
		wantRefactorCode(t, "macro", err, apierr.PreconditionFailed, "the macro BUMP names the local count of find")
		_, err = extract("src/report.c", 57, 58, "")
		wantRefactorCode(t, "two values", err, apierr.PreconditionFailed, "a, b are declared in the selection and used after it")
		_, err = extract("src/report.c", 50, 55, "")
		wantRefactorCode(t, "cut block", err, apierr.PreconditionFailed, "cuts the compound statement at line 50")
		_, err = refactor.Extract(ctx, c, refactor.ExtractRequest{File: "src/report.c", Kind: refactor.ExtractFunction,
			Range: lsp.RangeSpec{Start: lsp.Target{Line: 57, Column: refInt(5)}, EndLine: 58}})
		wantRefactorCode(t, "part of a statement", err, apierr.PreconditionFailed, "cuts the declaration at line 57")
		_, err = extract("src/report.c", 21, 27, "report")
		wantRefactorCode(t, "name taken", err, apierr.Conflict, `"report" is already used in src/report.c`)
		_, err = extract("src/report.c", 21, 27, "REPORT_H")
		wantRefactorCode(t, "name taken in a header", err, apierr.Conflict, `"REPORT_H" is already used in src/report.h (line 1)`)
		e.unchanged(snap)
	})

	t.Run("pointer out-parameters and a multibyte literal", func(t *testing.T) {
		e := e.with(t)
		plan, err := extract("src/report.c", 21, 28, "tally")
		if err != nil {
			t.Fatal(err)
		}
		if plan.Server != "nvbridge" || plan.Name != "tally" || plan.Kind != "refactor.extract.function" ||
			!strings.Contains(plan.Note, "total by pointer") || !strings.Contains(plan.Note, "st by pointer") || strings.Contains(plan.Note, "longest by pointer") {
			t.Fatalf("plan: %+v", plan)
		}
		noNewDiagnostics(t, plan.Changeset)
		if res := e.submit("c_extract_pointers", plan.Changeset, true); res.Diagnostics == nil || len(res.Diagnostics.Introduced) != 0 {
			t.Errorf("applied: %+v", res.Diagnostics)
		}
		text := e.disk("src/report.c")
		for _, want := range []string{
			// Wrapped at 80 columns, aligned under the first parameter.
			"\nstatic void tally(const char *labels[], int n, int *total, int longest,\n                  struct stats *st)\n{\n\tfor (int i = 0; i < n; i++) {\n",
			"\t\t*total += len;\n", "\t\tst->lines++;\n",
			"\tprintf(\"« %s » : %d octets, le plus long %d\\n\", \"naïve café 🙂\", *total, longest);\n}\n\n/*\n** Totals",
			"\ttally(labels, n, &total, longest, &st);\n\t*out = st;\n",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("report.c lacks %q:\n%s", want, text)
			}
		}
		compile()
	})

	t.Run("a value declared in the selection is returned", func(t *testing.T) {
		e := e.with(t)
		from := lineOf("src/report.c", "int w = (int)strlen")
		plan, err := extract("src/report.c", from, from+1, "")
		if err != nil {
			t.Fatal(err)
		}
		if plan.Name != "extracted" || !strings.Contains(plan.Note, "returns padded") {
			t.Fatalf("plan: %+v", plan)
		}
		noNewDiagnostics(t, plan.Changeset)
		e.submit("c_extract_return", plan.Changeset, true)
		text := e.disk("src/report.c")
		if !strings.Contains(text, "static int extracted(const char *labels[], int i)\n{\n\tint w = (int)strlen(labels[i]);\n\tint padded = w + 2;\n\treturn padded;\n}\n") ||
			!strings.Contains(text, "\t\tint padded = extracted(labels, i);\n\t\tif (padded > best)") {
			t.Errorf("report.c:\n%s", text)
		}
		compile()
	})

	t.Run("assigned first: a local of the new function, or its result", func(t *testing.T) {
		e := e.with(t)
		from := lineOf("src/report.c", "\tsum = 0;")
		plan, err := extract("src/report.c", from, from+2, "sum_of")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan.Note, "parameters: s;") || !strings.Contains(plan.Note, "(assigned first, not used after): i") || !strings.Contains(plan.Note, "returns sum") {
			t.Fatalf("plan: %+v", plan)
		}
		noNewDiagnostics(t, plan.Changeset)
		e.submit("c_extract_assigned_first", plan.Changeset, true)
		text := e.disk("src/report.c")
		if !strings.Contains(text, "static int sum_of(const char *s)\n{\n\tunsigned i;\n\tint sum;\n\tsum = 0;\n") ||
			!strings.Contains(text, "int checksum(const char *s)\n{\n\tint sum;\n\tsum = sum_of(s);\n\treturn sum;\n}\n") {
			t.Errorf("report.c:\n%s", text)
		}
		compile()
	})

	t.Run("a macro naming a local makes it a parameter", func(t *testing.T) {
		e := e.with(t)
		from := lineOf("src/report.c", "for (int k = 0; k < n; k++)")
		plan, err := extract("src/report.c", from, from+1, "accumulate")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan.Note, "factor (named by the macro SCALE)") {
			t.Fatalf("plan: %+v", plan)
		}
		noNewDiagnostics(t, plan.Changeset)
		e.submit("c_extract_macro_local", plan.Changeset, true)
		text := e.disk("src/report.c")
		if !strings.Contains(text, "static void accumulate(const int *v, int n, int factor, int *total)\n{\n\tfor (int k = 0; k < n; k++)\n\t\t*total += SCALE(v[k]);\n}\n") ||
			!strings.Contains(text, "\tint total = 0;\n\taccumulate(v, n, factor, &total);\n") {
			t.Errorf("report.c:\n%s", text)
		}
		compile()
	})

	t.Run("GNU style, an address taken, a directive, a pointer returned", func(t *testing.T) {
		e := e.with(t)
		from := lineOf("src/report.c", "sscanf (s, \"%d\", &x);")
		plan, err := extract("src/report.c", from, from+7, "parse_word")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan.Note, "parameters: s, out, x by pointer") || !strings.Contains(plan.Note, "(assigned first, not used after): q") || !strings.Contains(plan.Note, "returns r") {
			t.Fatalf("plan: %+v", plan)
		}
		noNewDiagnostics(t, plan.Changeset)
		e.submit("c_extract_gnu_style", plan.Changeset, true)
		text := e.disk("src/report.c")
		for _, want := range []string{
			"\nstatic char *\nparse_word (const char *s, int *out, int *x)\n{\n\tchar *q;\n\tsscanf (s, \"%d\", x);\n\t*out = 100 / (*x + 1);\n\t(*x)++;\n#if defined(VERBOSE)\n\tprintf (\"%d\\n\", *x);\n#endif\n",
			"\treturn r;\n}\n\n/* GNU style",
			"\tint x = 0;\n\tchar *r = parse_word (s, out, &x);\n\tprintf (\"%d\\n\", x);\n",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("report.c lacks %q:\n%s", want, text)
			}
		}
		compile()
		e.run("cc", "-DVERBOSE", "-std=c11", "-Wall", "-Wextra", "-Werror", "-Isrc", "-c", "-o", "report.o", "src/report.c")
	})

	t.Run("C++: clangd's own extract", func(t *testing.T) {
		e := e.with(t)
		plan, err := extract("src/shapes.cpp", 7, 9, "sum_sides")
		if err != nil {
			t.Fatal(err)
		}
		if plan.Server != "clangd" || plan.Action != "Extract to function" || plan.Kind != "refactor.extract.function" || plan.Name != "sum_sides" || plan.Note != "" {
			t.Fatalf("plan: %+v", plan)
		}
		e.submit("cpp_extract_clangd", plan.Changeset, true)
		if text := e.disk("src/shapes.cpp"); !strings.Contains(text, "sum_sides(") {
			t.Errorf("shapes.cpp:\n%s", text)
		}
		e.run("c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-c", "-o", "shapes.o", "src/shapes.cpp")
	})
}
