package refactor_test

// clangd through nvbridge's refactorings on testdata/samples/c: rename
// checks C identifiers and renames across the header and its users (the
// result builds), and the diagnostics the rename test starts from.

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

func TestClangdRenameAndDiagnostics(t *testing.T) {
	e := newRefactorEnv(t, "c", "clangd", "git")
	e.write("src/broken.c", "#include \"geometry.h\"\n\ndouble broken(void)\n{\n\treturn area(1, 2);\n}\n")
	// Lua's lmem.h: a macro whose body calls an extern function (clangd's
	// rename leaves the body, and the build then fails to link), and one
	// whose parameter has the function's name (never renamed).
	e.write("include/fail.h", "#ifndef FAIL_H\n#define FAIL_H\nvoid fail_with(int code);\n#define fail_nomem()\tfail_with(12)\n#define APPLY(fail_with) fail_with(1)\n#endif\n")
	cdb := e.disk("compile_commands.json")
	e.write("compile_commands.json", strings.Replace(cdb, "[", `[{"directory": "`+e.root+`", "file": "src/fail.c", "arguments": ["cc", "-std=c11", "-Wall", "-Iinclude", "-c", "src/fail.c"]},`, 1))
	e.write("src/fail.c", "#include <stdlib.h>\n#include \"fail.h\"\n\nvoid fail_with(int code)\n{\n\texit(code);\n}\n\nint use_fail(int n)\n{\n\tif (n < 0)\n\t\tfail_nomem();\n\treturn n;\n}\n")
	e.start()
	ctx := testenv.Context(t)

	t.Run("diagnostics of a clean file and of a broken one", func(t *testing.T) {
		r, err := e.client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "src/geometry.c"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != 0 || r.DiagnosticsComplete == nil || !*r.DiagnosticsComplete {
			t.Fatalf("geometry.c: %+v", r)
		}
		r, err = e.client.DiagnosticsFor(ctx, lsp.DiagnosticsQuery{File: "src/broken.c", MinSeverity: "error"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Total != 1 || r.DiagnosticsComplete == nil || !*r.DiagnosticsComplete {
			t.Fatalf("broken.c: %+v", r)
		}
		d := r.Diagnostics[0]
		if d.File != "src/broken.c" || d.Line != 5 || d.Severity != "error" || d.Source != "clang" || !strings.Contains(d.Message, "many arguments") {
			t.Fatalf("broken.c diagnostic = %+v", d)
		}
	})

	t.Run("rename checks C identifiers", func(t *testing.T) {
		_, err := refactor.Rename(ctx, e.client, refactor.RenameRequest{File: "src/geometry.c", Target: lsp.Target{Line: 8, Symbol: "area"}, NewName: "double"})
		wantRefactorCode(t, "keyword", err, apierr.InvalidParameter, "C", "keyword")
		_, err = refactor.Rename(ctx, e.client, refactor.RenameRequest{File: "src/geometry.c", Target: lsp.Target{Line: 8, Symbol: "area"}, NewName: "$area"})
		wantRefactorCode(t, "dollar", err, apierr.InvalidParameter, "'$'")
	})

	t.Run("rename across the header and its users", func(t *testing.T) {
		plan, err := refactor.Rename(ctx, e.client, refactor.RenameRequest{File: "src/geometry.c", Target: lsp.Target{Line: 8, Symbol: "area"}, NewName: "shape_area"})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"include/geometry.h", "src/broken.c", "src/geometry.c", "src/main.c"}
		if plan.Server != "clangd" || plan.OldName != "area" || !reflect.DeepEqual(plan.Files, want) || plan.EditCount != 5 {
			t.Fatalf("plan: server %s, %s -> %s, files %v, %d edits", plan.Server, plan.OldName, plan.NewName, plan.Files, plan.EditCount)
		}
		e.with(t).submit("c_rename_area", plan.Changeset, true)
		if !strings.Contains(e.disk("src/main.c"), "shape_area(&shapes[0])") || strings.Contains(e.disk("include/geometry.h"), "double area(") {
			t.Fatalf("after rename:\n%s\n%s", e.disk("src/main.c"), e.disk("include/geometry.h"))
		}
		e.run("cc", "-std=c11", "-Wall", "-Werror", "-Iinclude", "-o", "sample", "src/main.c", "src/geometry.c", "src/graph.c", "src/text.c")
		verifiedBy(t, ctx, e.client, "c", "clangd", "rename_symbol")
	})

	t.Run("rename reaches the macro bodies that call it", func(t *testing.T) {
		plan, err := refactor.Rename(ctx, e.client, refactor.RenameRequest{File: "src/fail.c", Target: lsp.Target{Line: 4, Symbol: "fail_with"}, NewName: "raise_error"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(plan.MacrosRenamed, ",") != "fail.h: fail_nomem" {
			t.Errorf("macros renamed: %v", plan.MacrosRenamed)
		}
		// The macro parameter of that name is another symbol: neither
		// renamed nor listed (the rename changed that file, which clangd
		// saw whole).
		if len(plan.LeftBehind) != 0 {
			t.Errorf("left behind: %+v", plan.LeftBehind)
		}
		e.with(t).submit("c_rename_macro_body", plan.Changeset, true)
		if h := e.disk("include/fail.h"); !strings.Contains(h, "fail_nomem()\traise_error(12)") || !strings.Contains(h, "APPLY(fail_with) fail_with(1)") {
			t.Errorf("fail.h:\n%s", h)
		}
		e.run("cc", "-std=c11", "-Wall", "-Werror", "-Iinclude", "-c", "-o", "fail.o", "src/fail.c")
		if h := e.disk("include/fail.h"); !strings.Contains(h, "void raise_error(int code);") {
			t.Errorf("the header's declaration was not renamed:\n%s", h)
		}
	})
}
