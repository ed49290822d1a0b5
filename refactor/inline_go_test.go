package refactor_test

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// newInlineEnv is a refactorEnv on a copy of testdata/refactor/inline/NAME.
func newInlineEnv(t *testing.T, name string, commands ...string) *refactorEnv {
	t.Helper()
	return newFixtureEnv(t, "inline/"+name, commands...)
}

// wantRecursiveRefused checks that inlining the recursive function at t of
// file is refused and leaves the files of before as they were.
func (e *refactorEnv) wantRecursiveRefused(file string, t lsp.Target, before map[string]string) {
	e.t.Helper()
	_, err := refactor.InlineFunction(testenv.Context(e.t), e.client, refactor.InlineRequest{File: file, Target: t})
	if apierr.As(err).Code != apierr.Unsupported || !strings.Contains(err.Error(), "recursive") {
		e.t.Fatalf("recursive inline: %v", err)
	}
	e.unchanged(before)
}

func siteList(sites []refactor.InlineSite) string {
	var b strings.Builder
	for _, s := range sites {
		b.WriteString(s.File + ":" + itoa(s.Line))
		if s.Reason != "" {
			b.WriteString(" (" + s.Reason + ")")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func itoa(n int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + func() string { return fmtInt(n) }())
}

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// TestInlineGo: gopls's inline, call by call on a scratch copy, over 5 call
// sites in 4 files; the use as a value is left alone (so the definition
// stays); the result builds and its tests pass. Label's two calls in one
// file are both inlined and its definition goes, with the import only it
// used. A recursive function is refused and changes nothing.
func TestInlineGo(t *testing.T) {
	e := newInlineEnv(t, "go", "gopls", "go")
	e.start()
	ctx := testenv.Context(t)
	before := e.snapshot("geom/geom.go", "shop/shop.go", "main.go", "geom/geom_test.go")

	t.Run("recursive refused", func(t *testing.T) {
		e.with(t).wantRecursiveRefused("geom/geom.go", lsp.Target{Line: 22, Symbol: "Fact"}, before)
	})

	t.Run("Area everywhere", func(t *testing.T) {
		// Pointed at from a call in another file.
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "shop/shop.go", Target: lsp.Target{Line: 17, Symbol: "Area"}})
		if err != nil {
			t.Fatal(err)
		}
		got := siteList(plan.Replacements)
		want := "geom/geom.go:19\ngeom/geom_test.go:6\nmain.go:14\nshop/shop.go:17\nshop/shop.go:23\n"
		if got != want {
			t.Errorf("replacements:\n%s\nwant:\n%s", got, want)
		}
		if left := siteList(plan.LeftAlone); left != "main.go:11 (used as a value (not called))\n" {
			t.Errorf("left alone:\n%s", left)
		}
		if plan.DefinitionRemoved || !strings.Contains(plan.DefinitionKept, "main.go:11") {
			t.Errorf("definition: removed=%v kept=%q", plan.DefinitionRemoved, plan.DefinitionKept)
		}
		if strings.Join(plan.AffectedFiles, ",") != "geom/geom.go,geom/geom_test.go,main.go,shop/shop.go" {
			t.Errorf("affected: %v", plan.AffectedFiles)
		}
		e.with(t).unchanged(before) // computing changed nothing
		e.with(t).submit("inline_go_area", plan.Changeset, true)
		e.with(t).run("go", "build", "./...")
		e.with(t).run("go", "vet", "./...")
		e.with(t).run("go", "test", "-count=1", "./...")
	})

	t.Run("Label removed with its import", func(t *testing.T) {
		plan, err := refactor.InlineFunction(ctx, e.client, refactor.InlineRequest{File: "geom/geom.go", Target: lsp.Target{Line: 16, Symbol: "Label"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Replacements) != 2 || len(plan.LeftAlone) != 0 || !plan.DefinitionRemoved {
			t.Fatalf("plan: %+v", plan)
		}
		e.with(t).submit("inline_go_label", plan.Changeset, true)
		if g := e.disk("geom/geom.go"); strings.Contains(g, "Label") || strings.Contains(g, `"strings"`) {
			t.Errorf("geom.go still has Label or its import:\n%s", g)
		}
		e.with(t).run("go", "build", "./...")
		e.with(t).run("go", "test", "-count=1", "./...")
	})
}
