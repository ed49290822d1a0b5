package refactor_test

// change_signature with real pyright and typescript-language-server
// through Neovim, the syntax from tree-sitter (package syntax), on copies of
// testdata/refactor/chsig/{python,ts}: price called from 5 places in 3
// files (keyword arguments, omitted optional arguments, one call written
// one argument per line, one used as a value), a method with an override
// or interface implementations. Refusals change nothing; after applying,
// pyright reports no new errors and `tsc --noEmit` is clean.

import (
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

func TestChangeSignaturePython(t *testing.T) {
	e := newSigEnv(t, "python", "pyright-langserver", "pyright", "git")
	e.write("shop/tags.py", `"""Tags: *args, keyword-only parameters, **kwargs."""


def tag(name: str, *parts: str, sep: str = "-", **extra: str) -> str:
    return sep.join([name, *parts, *extra.values()])


A = tag("a")
B = tag("b", "c", "d", sep="+", x="y")
C = tag("e", *["f"], **{"g": "h"})
`)
	e.start()
	ctx := testenv.Context(t)
	c := e.client
	baseline := pyrightErrors(t, e)
	price := lsp.Target{Line: 4, Symbol: "price"}

	t.Run("refusals change nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("shop/pricing.py", "shop/cart.py", "shop/report.py")
		keep := []refactor.SignatureParam{{Name: "unit", From: "unit"}, {Name: "qty", From: "qty"}, {Name: "discount", From: "discount"}}
		_, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/pricing.py", Target: price,
			Params: append(keep, refactor.SignatureParam{Name: "note", From: "note"}, refactor.SignatureParam{Name: "currency"})})
		wantRefactorCode(t, "no default", err, apierr.InvalidParameter, "currency", "needs a default")
		_, err = refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/pricing.py", Target: price, Params: keep})
		wantRefactorCode(t, "side effect", err, apierr.PreconditionFailed, "shop/report.py:8", `describe("b")`)
		e.unchanged(snap)
	})

	t.Run("reorder, rename, add", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/pricing.py", Target: price,
			Params: []refactor.SignatureParam{{Name: "qty", From: "qty"}, {Name: "unit", From: "unit"}, {Name: "percent", From: "discount"},
				{Name: "note", From: "note"}, {Name: "currency", Type: "str", Default: `"EUR"`}}, AllowLeftAlone: true})
		if err != nil {
			t.Fatal(err)
		}
		if plan.NewSignature != `def price(qty: int, unit: int, percent: int = 0, note: str = "", currency: str = "EUR") -> int` {
			t.Errorf("new signature %q", plan.NewSignature)
		}
		if len(plan.CallSites) != 5 {
			t.Errorf("call sites:\n%s", sigSites(plan.CallSites))
		}
		if got := sigSites(plan.LeftAlone); len(plan.LeftAlone) != 1 || !strings.Contains(got, "shop/report.py:20 (not called") {
			t.Errorf("left alone:\n%s", got)
		}
		e.submit("chsig_py_price", plan.Changeset, true)
		if got := pyrightErrors(t, e); got > baseline {
			t.Errorf("pyright: %d errors after the change, %d before", got, baseline)
		}
	})

	t.Run("variadic, keyword-only and **kwargs", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/tags.py", Target: lsp.Target{Line: 4, Symbol: "tag"},
			Params: []refactor.SignatureParam{{Name: "name", From: "name"}, {Name: "upper", Type: "bool", Default: "False"},
				{Name: "parts", From: "parts"}, {Name: "separator", From: "sep"}, {Name: "extra", From: "extra"}}})
		if err != nil {
			t.Fatal(err)
		}
		if plan.NewSignature != `def tag(name: str, upper: bool, *parts: str, separator: str = "-", **extra: str) -> str` || len(plan.CallSites) != 3 {
			t.Errorf("new signature %q, call sites:\n%s", plan.NewSignature, sigSites(plan.CallSites))
		}
		e.submit("chsig_py_tags", plan.Changeset, true)
		if got := pyrightErrors(t, e); got > baseline {
			t.Errorf("pyright: %d errors after the change, %d before", got, baseline)
		}
	})

	t.Run("method and its override", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "shop/pricing.py", Target: lsp.Target{Line: 19, Symbol: "save"},
			Params: []refactor.SignatureParam{{Name: "value", From: "value"}, {Name: "name", From: "key"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Declarations) != 2 || len(plan.CallSites) != 3 {
			t.Errorf("declarations:\n%s\ncall sites:\n%s\nleft alone:\n%s", sigSites(plan.Declarations), sigSites(plan.CallSites), sigSites(plan.LeftAlone))
		}
		e.submit("chsig_py_save", plan.Changeset, true)
		if got := pyrightErrors(t, e); got > baseline {
			t.Errorf("pyright: %d errors after the change, %d before", got, baseline)
		}
	})
}

func TestChangeSignatureTypeScript(t *testing.T) {
	e := newSigEnv(t, "ts", "typescript-language-server", "tsc", "git")
	e.start()
	ctx := testenv.Context(t)
	c := e.client
	e.run("tsc", "--noEmit", "-p", ".")
	price := lsp.Target{Line: 3, Symbol: "price"}

	t.Run("refusals change nothing", func(t *testing.T) {
		e := e.with(t)
		snap := e.snapshot("src/pricing.ts", "src/cart.ts", "src/report.ts")
		keep := []refactor.SignatureParam{{Name: "unit", From: "unit"}, {Name: "qty", From: "qty"}, {Name: "discount", From: "discount"}}
		_, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "src/pricing.ts", Target: price,
			Params: append(keep, refactor.SignatureParam{Name: "note", From: "note"}, refactor.SignatureParam{Name: "currency", Type: "string"})})
		wantRefactorCode(t, "no default", err, apierr.InvalidParameter, "currency", "needs a default")
		_, err = refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "src/pricing.ts", Target: price, Params: keep})
		wantRefactorCode(t, "side effect", err, apierr.PreconditionFailed, "src/report.ts:6", `describe("b")`)
		e.unchanged(snap)
	})

	t.Run("reorder, rename, add", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "src/cart.ts", Target: lsp.Target{Line: 7, Symbol: "price"},
			Params: []refactor.SignatureParam{{Name: "qty", From: "qty"}, {Name: "unit", From: "unit"}, {Name: "percent", From: "discount"},
				{Name: "note", From: "note"}, {Name: "currency", Default: `"EUR"`}}, AllowLeftAlone: true})
		if err != nil {
			t.Fatal(err)
		}
		if plan.NewSignature != `function price(qty: number, unit: number, percent = 0, note?: string, currency: string = "EUR"): number` {
			t.Errorf("new signature %q", plan.NewSignature)
		}
		if len(plan.CallSites) != 5 {
			t.Errorf("call sites:\n%s", sigSites(plan.CallSites))
		}
		if got := sigSites(plan.LeftAlone); len(plan.LeftAlone) != 1 || !strings.Contains(got, "src/report.ts:18 (not called") {
			t.Errorf("left alone:\n%s", got)
		}
		e.submit("chsig_ts_price", plan.Changeset, true)
		e.run("tsc", "--noEmit", "-p", ".")
	})

	t.Run("interface method and its implementations", func(t *testing.T) {
		e := e.with(t)
		plan, err := refactor.ChangeSignature(ctx, c, refactor.ChangeSignatureRequest{File: "src/pricing.ts", Target: lsp.Target{Line: 14, Symbol: "save"},
			Params: []refactor.SignatureParam{{Name: "value", From: "value"}, {Name: "name", From: "key"}, {Name: "ttl", Default: "0"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Declarations) != 3 || len(plan.CallSites) != 3 {
			t.Errorf("declarations:\n%s\ncall sites:\n%s\nleft alone:\n%s", sigSites(plan.Declarations), sigSites(plan.CallSites), sigSites(plan.LeftAlone))
		}
		e.submit("chsig_ts_save", plan.Changeset, true)
		e.run("tsc", "--noEmit", "-p", ".")
	})
}
