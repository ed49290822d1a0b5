package refactor_test

// change_signature with real gopls through Neovim on a copy of
// testdata/refactor/chsig/go (Price called from 7 places in 5 files, an
// interface method with two implementations): refusals first (nothing
// changes), then reorder + rename + add, an interface method with its
// implementations, and a removal allowed to drop a side-effecting argument.
// After each apply (saved), `go build`, `go vet` and `go test` pass.

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// newSigEnv copies testdata/refactor/chsig/NAME to a temporary folder.
func newSigEnv(t *testing.T, name string, commands ...string) *refactorEnv {
	t.Helper()
	testenv.Require(t, append([]string{"nvim"}, commands...)...)
	root := filepath.Join(t.TempDir(), name)
	if err := testenv.CopyDir(filepath.Join(testenv.RepoRoot(t), "testdata", "refactor", "chsig", name), root); err != nil {
		t.Fatal(err)
	}
	return &refactorEnv{t: t, root: root}
}

func sigSites(sites []refactor.SignatureSite) string {
	var out []string
	for _, s := range sites {
		item := s.File + ":" + strconv.Itoa(s.Line)
		if s.Reason != "" {
			item += " (" + s.Reason + ")"
		}
		out = append(out, item)
	}
	return strings.Join(out, "\n")
}

func TestChangeSignatureGo(t *testing.T) {
	e := newSigEnv(t, "go", "gopls", "go", "git")
	e.start()
	ctx := testenv.Context(t)
	c := e.client
	all := []string{"shop/price.go", "shop/cart.go", "shop/price_test.go", "report/report.go", "main.go", "store/store.go"}
	price := lsp.Target{Line: 6, Symbol: "Price"}

	t.Run("refusals change nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot(all...)
		keep := []refactor.SignatureParam{{Name: "unit", From: "unit"}, {Name: "qty", From: "qty"}, {Name: "discount", From: "discount"}}
		// An added parameter without a default.
		_, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/price.go", Target: price,
			Params: append(keep, refactor.SignatureParam{Name: "note", From: "note"}, refactor.SignatureParam{Name: "currency", Type: "string"})})
		wantRefactorCode(t, "no default", err, apierr.InvalidParameter, "currency", "needs a default")
		// An added Go parameter without a type.
		_, err = refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/price.go", Target: price,
			Params: append(keep, refactor.SignatureParam{Name: "note", From: "note"}, refactor.SignatureParam{Name: "currency", Default: `"EUR"`})})
		wantRefactorCode(t, "no type", err, apierr.InvalidParameter, "needs a type")
		// Unknown from, duplicates, no change.
		_, err = refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/price.go", Target: price,
			Params: []refactor.SignatureParam{{Name: "x", From: "nope"}}})
		wantRefactorCode(t, "unknown from", err, apierr.InvalidParameter, `no parameter "nope"`, "(unit, qty, discount, note)")
		_, err = refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/price.go", Target: price,
			Params: append(keep, refactor.SignatureParam{Name: "note", From: "note"})})
		wantRefactorCode(t, "no change", err, apierr.InvalidParameter, "nothing would change")
		// A removed parameter still used in the body.
		_, err = refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/price.go", Target: price,
			Params: []refactor.SignatureParam{{Name: "qty", From: "qty"}, {Name: "discount", From: "discount"}, {Name: "note", From: "note"}}})
		wantRefactorCode(t, "used in body", err, apierr.PreconditionFailed, `"unit"`, "still used")
		// A call site passes shop.Describe("b") (a call) for the removed note.
		_, err = refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/price.go", Target: price, Params: keep})
		wantRefactorCode(t, "side effect", err, apierr.PreconditionFailed, "report/report.go:12", `shop.Describe("b")`)
		if r := apierr.As(err).Remediation; !strings.Contains(r, "allow_side_effects") {
			t.Errorf("remediation %q", r)
		}
		e.unchanged(snap)
	})

	t.Run("reorder, rename and add, from a call site", func(t *testing.T) {
		e := e.with(t)
		// Pointing at a call in another package works as well as the declaration.
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "report/report.go", Target: lsp.Target{Line: 11, Symbol: "Price"},
			Params: []refactor.SignatureParam{
				{Name: "qty", From: "qty"}, {Name: "unit", From: "unit"}, {Name: "percent", From: "discount"},
				{Name: "note", From: "note"}, {Name: "rounded", Type: "bool", Default: "false"},
			}, AllowLeftAlone: true})
		if err != nil {
			t.Fatal(err)
		}
		if plan.OldSignature != "func Price(unit, qty int, discount int, note string) int" ||
			plan.NewSignature != "func Price(qty, unit int, percent int, note string, rounded bool) int" {
			t.Errorf("signatures %q -> %q", plan.OldSignature, plan.NewSignature)
		}
		if len(plan.CallSites) != 7 {
			t.Errorf("call sites:\n%s", sigSites(plan.CallSites))
		}
		if got := sigSites(plan.LeftAlone); !strings.Contains(got, "main.go:14 (not called here") {
			t.Errorf("left alone:\n%s", got)
		}
		if len(plan.Files) != 5 {
			t.Errorf("files %v", plan.Files)
		}
		e.submit("chsig_go_price", plan.Changeset, true)
		e.run("go", "build", "./...")
		e.run("go", "vet", "./...")
		e.run("go", "test", "./...")
	})

	t.Run("interface method and its implementations", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "store/store.go", Target: lsp.Target{Line: 8, Symbol: "Save"},
			Params: []refactor.SignatureParam{{Name: "value", From: "value"}, {Name: "name", From: "key"}, {Name: "ttl", Type: "int", Default: "0"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Declarations) != 3 {
			t.Errorf("declarations:\n%s", sigSites(plan.Declarations))
		}
		if len(plan.CallSites) != 3 {
			t.Errorf("call sites:\n%s", sigSites(plan.CallSites))
		}
		// Applied without saving, one undo step per buffer brings each back.
		before := map[string]string{}
		for _, f := range plan.Files {
			before[f] = e.disk(f)
		}
		e.submitNoSave("chsig_go_store", plan.Changeset)
		for _, f := range plan.Files {
			if text, modified := e.buffer(f); !modified || text == before[f] {
				t.Fatalf("%s not changed in its buffer", f)
			}
			if _, err := e.engine.Undo(ctx, f); err != nil {
				t.Fatalf("undo %s: %v", f, err)
			}
			if text, modified := e.buffer(f); modified || text != before[f] {
				t.Errorf("%s after one undo: modified=%v, differs: %v", f, modified, text != before[f])
			}
		}
		plan, err = refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "store/store.go", Target: lsp.Target{Line: 8, Symbol: "Save"},
			Params: []refactor.SignatureParam{{Name: "value", From: "value"}, {Name: "name", From: "key"}, {Name: "ttl", Type: "int", Default: "0"}}})
		if err != nil {
			t.Fatal(err)
		}
		e.submit("chsig_go_store", plan.Changeset, true)
		e.run("go", "build", "./...")
		e.run("go", "test", "./...")
	})

	t.Run("remove, allowed to drop a side effect", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/price.go", Target: price, AllowSideEffects: true, AllowLeftAlone: true,
			Params: []refactor.SignatureParam{{Name: "qty", From: "qty"}, {Name: "unit", From: "unit"}, {Name: "percent", From: "percent"}, {Name: "rounded", From: "rounded"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.CallSites) != 7 {
			t.Errorf("call sites:\n%s", sigSites(plan.CallSites))
		}
		// gopls refuses (main.go uses Price as a value): the syntax does it.
		if plan.Engine != "references and syntax" || !strings.Contains(plan.EngineNote, "non-call function reference") {
			t.Errorf("engine %q (%s)", plan.Engine, plan.EngineNote)
		}
		e.submit("chsig_go_remove", plan.Changeset, true)
		e.run("go", "build", "./...")
		e.run("go", "test", "./...")
	})

	discount := lsp.Target{Line: 5, Symbol: "Discount"}
	t.Run("remove through gopls", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/discount.go", Target: discount,
			Params: []refactor.SignatureParam{{Name: "total", From: "total"}, {Name: "percent", From: "percent"}}})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Engine != "gopls refactor.rewrite.removeUnusedParam" || len(plan.CallSites) != 3 {
			t.Errorf("engine %q (%s), call sites:\n%s", plan.Engine, plan.EngineNote, sigSites(plan.CallSites))
		}
		e.submit("chsig_go_gopls_remove", plan.Changeset, true)
		e.run("go", "build", "./...")
		e.run("go", "test", "./...")
	})

	t.Run("swap neighbours through gopls", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/discount.go", Target: discount,
			Params: []refactor.SignatureParam{{Name: "percent", From: "percent"}, {Name: "total", From: "total"}}})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Engine != "gopls refactor.rewrite.moveParamLeft" || plan.NewSignature != "func Discount(percent, total int) int" {
			t.Errorf("engine %q (%s), signature %q", plan.Engine, plan.EngineNote, plan.NewSignature)
		}
		e.submit("chsig_go_gopls_swap", plan.Changeset, true)
		e.run("go", "build", "./...")
		e.run("go", "test", "./...")
	})
}
