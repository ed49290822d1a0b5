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
	})
}
