package refactor_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/refactor"
)

const misIndentedGo = `package orders

func Sum(xs []int) int {
total := 0
      for _, x := range xs {
  total += x
	}
	return total
}

func Twice(x int) int {
        return  2*x
}
`

// TestFormatGo: format with gopls on a mis-indented file previews exactly
// what gofmt makes of it (gofmt run on the same text), changing nothing
// until applied; applied, the buffer holds gofmt's text. A range formats
// only its lines (gopls formats no ranges: the whole file's edits within
// the range are kept); an already formatted file answers unchanged.
func TestFormatGo(t *testing.T) {
	e := newRefactorEnv(t, "go", "gopls", "gofmt")
	e.write("orders/messy.go", misIndentedGo)
	e.start()
	ctx := testenv.Context(t)
	gofmt := exec.Command("gofmt")
	gofmt.Stdin = strings.NewReader(misIndentedGo)
	want, err := gofmt.Output()
	if err != nil {
		t.Fatal(err)
	}
	before := e.snapshot("orders/messy.go")
	plan, err := refactor.Format(ctx, e.client, refactor.FormatRequest{File: "orders/messy.go"})
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Changed || plan.Server != "gopls" || plan.Via != "textDocument/formatting" {
		t.Fatalf("plan %+v", plan)
	}
	r, err := e.engine.Submit(ctx, plan.Changeset, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.ChangesetID == "" || !strings.Contains(r.Diff, "+\tfor _, x := range xs {") {
		t.Fatalf("preview %+v", r)
	}
	e.unchanged(before)
	if _, err := e.engine.ApplyStored(ctx, r.ChangesetID, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.buffer("orders/messy.go"); got != string(want) {
		t.Fatalf("formatted:\n%s\nwant gofmt's:\n%s", got, want)
	}
	plan, err = refactor.Format(ctx, e.client, refactor.FormatRequest{File: "orders/messy.go"})
	if err != nil || plan.Changed {
		t.Fatalf("format of a formatted file: %+v, %v", plan, err)
	}

	// A range: Twice only (lines 10-12); Sum stays mis-indented.
	e.write("orders/messy2.go", misIndentedGo)
	plan, err = refactor.Format(ctx, e.client, refactor.FormatRequest{File: "orders/messy2.go", StartLine: 10, EndLine: 12})
	if err != nil {
		t.Fatal(err)
	}
	r, err = e.engine.Submit(ctx, plan.Changeset, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Diff, "+\treturn 2 * x") || strings.Contains(r.Diff, "range xs") || !strings.Contains(plan.Via, "formats no ranges") {
		t.Fatalf("range format: via %q note %q\n%s", plan.Via, plan.Note, r.Diff)
	}
}

// TestFormatTypeScriptPython: typescript-language-server formats a
// mis-indented function with the project's indentation; pyright has no
// formatter: UNSUPPORTED naming it.
func TestFormatTypeScriptPython(t *testing.T) {
	t.Run("typescript", func(t *testing.T) {
		e := newRefactorEnv(t, "ts", "typescript-language-server")
		e.write("src/messy.ts", "export function twice(x: number): number {\nreturn   2*x;\n      }\n")
		e.start()
		ctx := testenv.Context(t)
		plan, err := refactor.Format(ctx, e.client, refactor.FormatRequest{File: "src/messy.ts"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.engine.Submit(ctx, plan.Changeset, edit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := e.buffer("src/messy.ts")
		if !r.Applied || got != "export function twice(x: number): number {\n  return 2 * x;\n}\n" {
			t.Fatalf("formatted %q (via %s)", got, plan.Via)
		}
	})
	t.Run("pyright", func(t *testing.T) {
		e := newRefactorEnv(t, "python", "pyright-langserver")
		e.start()
		_, err := refactor.Format(testenv.Context(t), e.client, refactor.FormatRequest{File: "shop/text.py"})
		if ae := apierr.As(err); ae.Code != apierr.Unsupported || !strings.Contains(ae.Message, "pyright") {
			t.Fatalf("format with pyright: %v", err)
		}
	})
}

// conformInit is a user's init: conform.nvim (our stand-in: see its file) with
// gofmt for Go files, defined here (its own definitions are left out).
const conformInit = `
vim.opt.rtp:prepend(%q)
require('conform').setup({
  formatters = { user_gofmt = { command = 'gofmt' } },
  formatters_by_ft = { go = { 'user_gofmt' } },
})
`

// TestFormatUserConform: attached to a Neovim whose user configured
// conform.nvim, format uses the user's formatters (conform runs gofmt on
// the buffer's text, the buffer untouched) and previews the result like
// every edit; lsp_only asks the language server instead, and an embedded
// Neovim (no user) never looks for conform.
func TestFormatUserConform(t *testing.T) {
	testenv.Require(t, "nvim", "gofmt")
	root := testenv.CopySample(t, "go")
	if err := os.WriteFile(filepath.Join(root, "orders", "messy.go"), []byte(misIndentedGo), 0o644); err != nil {
		t.Fatal(err)
	}
	initLua := filepath.Join(t.TempDir(), "init.lua")
	plugin := filepath.Join(testenv.RepoRoot(t), "testdata", "plugins", "conform-standin")
	if err := os.WriteFile(initLua, []byte(fmt.Sprintf(conformInit, plugin)), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := testenv.Listening(t, root, "-c", "luafile "+initLua)
	s, c := testenv.Attached(t, addr, root)
	ctx := testenv.Context(t)
	plan, err := refactor.Format(ctx, c, refactor.FormatRequest{File: "orders/messy.go"})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Server != "conform.nvim" || plan.Via != "conform.nvim: user_gofmt" || !plan.Changed {
		t.Fatalf("plan %+v", plan)
	}
	gofmt := exec.Command("gofmt")
	gofmt.Stdin = strings.NewReader(misIndentedGo)
	want, err := gofmt.Output()
	if err != nil {
		t.Fatal(err)
	}
	e := edit.NewEngine(s)
	r, err := e.Submit(ctx, plan.Changeset, edit.Options{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(ctx, "orders/messy.go", true)
	if err != nil || *info.Content != misIndentedGo || info.IsModified {
		t.Fatalf("the buffer changed before the apply: %+v %v", info, err)
	}
	if _, err := e.ApplyStored(ctx, r.ChangesetID, false); err != nil {
		t.Fatal(err)
	}
	if info, _ = c.Info(ctx, "orders/messy.go", true); *info.Content != string(want) {
		t.Fatalf("formatted:\n%s\nwant gofmt's:\n%s", *info.Content, want)
	}
	// lsp_only: the language server; here none is attached.
	if _, err := refactor.Format(ctx, c, refactor.FormatRequest{File: "orders/messy.go", LSPOnly: true}); apierr.As(err).Code != apierr.Unsupported {
		t.Fatalf("lsp_only without a server: %v", err)
	}
}
