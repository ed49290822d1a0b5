package review_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/review"
)

// gitInit makes root a repository with one commit of its files.
func gitInit(t *testing.T, root string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func symbol(r review.Result, name string) *review.ChangedSymbol {
	for i := range r.Symbols {
		if r.Symbols[i].Name == name {
			return &r.Symbols[i]
		}
	}
	return nil
}

// TestDetectChangesGo: two functions changed against HEAD, one on disk
// (Process's body) and one only in its buffer, unsaved (ProcessBatch, whose
// call now names a function that does not exist): both are named with
// their callers and tests, the changed lines and the importers of the
// changed files; the diagnostics introduced name the broken call, and the
// unchanged functions are not listed.
func TestDetectChangesGo(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go", "git")
	root := testenv.CopySample(t, "go")
	gitInit(t, root)
	s, c := testenv.Embedded(t, root)
	ctx := testenv.Context(t)
	orders := filepath.Join(root, "orders", "orders.go")
	data, _ := os.ReadFile(orders)
	if err := os.WriteFile(orders, []byte(strings.Replace(string(data), "\tvar t Total\n", "\tvar t Total // the sum\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	e := edit.NewEngine(s)
	if _, err := e.EditLines(ctx, "orders/batch.go", []edit.LineEdit{{LineStart: 7, LineEnd: 7, NewText: "\t\tt, err := Proces(o)"}}, edit.Options{}); err != nil {
		t.Fatal(err)
	}
	v := lsp.NewVerifier(c)
	t.Cleanup(v.Close)
	r, err := review.Changes(ctx, c, v, review.Request{Diagnostics: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Files) != 2 || r.Files[0].File != "orders/batch.go" || !slices.Equal(r.Files[0].Lines, []string{"7"}) ||
		r.Files[1].File != "orders/orders.go" || !slices.Equal(r.Files[1].Lines, []string{"37"}) || !slices.Contains(r.Files[1].Importers, "main.go") {
		t.Fatalf("files %+v", r.Files)
	}
	if len(r.Symbols) != 2 {
		t.Fatalf("symbols %+v", r.Symbols)
	}
	p, b := symbol(r, "Process"), symbol(r, "ProcessBatch")
	if p == nil || b == nil || p.Line != 33 || b.Line != 4 {
		t.Fatalf("symbols %+v", r.Symbols)
	}
	callers := func(s *review.ChangedSymbol) []string {
		var out []string
		for _, cl := range s.Callers {
			out = append(out, cl.Name+"@"+cl.File)
		}
		return out
	}
	if !slices.Contains(callers(p), "main@main.go") || !slices.Contains(callers(p), "TestProcess@orders/orders_test.go") || !slices.Contains(p.Tests, "orders/orders_test.go") {
		t.Fatalf("Process: callers %v, tests %v", callers(p), p.Tests)
	}
	if !slices.Contains(r.Tests, "orders/orders_test.go") {
		t.Fatalf("tests %v", r.Tests)
	}
	d := r.Diagnostics
	if d == nil || !d.Complete || d.IntroducedCounts["error"] != 1 || d.Introduced[0].File != "orders/batch.go" || !strings.Contains(d.Introduced[0].Message, "Proces") ||
		!strings.HasPrefix(d.Verdict, "since HEAD: introduces 1 error") {
		t.Fatalf("diagnostics %+v", d)
	}
	t.Logf("verdict: %s", d.Verdict)

	// A revision that does not exist.
	if _, err := review.Changes(ctx, c, v, review.Request{Revision: "no-such-branch"}); apierr.As(err).Code != apierr.InvalidParameter {
		t.Fatalf("a bad revision: %v", err)
	}
	if _, err := review.Changes(ctx, c, v, review.Request{Revision: "--output=x"}); apierr.As(err).Code != apierr.InvalidParameter {
		t.Fatalf("an option as revision: %v", err)
	}
}

// TestDetectChangesPythonTypeScript: a changed function and an added file
// with pyright and typescript-language-server.
func TestDetectChangesPythonTypeScript(t *testing.T) {
	cases := []struct {
		name, sample, file, old, new, symbol, added, addedText, addedSymbol string
		needs                                                               []string
	}{
		{name: "pyright", sample: "python", needs: []string{"pyright-langserver"}, file: "shop/text.py",
			old: "def describe(label: str) -> str:\n", new: "def describe(label: str) -> str:\n    label = label.strip()\n", symbol: "describe",
			added: "shop/extra.py", addedText: "def extra() -> int:\n    return 1\n", addedSymbol: "extra"},
		{name: "typescript", sample: "ts", needs: []string{"typescript-language-server"}, file: "src/text.ts",
			old: "export function describe(label: string): string {\n", new: "export function describe(label: string): string {\n  label = label.trim();\n", symbol: "describe",
			added: "src/extra.ts", addedText: "export function extra(): number {\n  return 1;\n}\n", addedSymbol: "extra"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Require(t, append([]string{"nvim", "git"}, tc.needs...)...)
			root := testenv.CopySample(t, tc.sample)
			gitInit(t, root)
			path := filepath.Join(root, tc.file)
			data, _ := os.ReadFile(path)
			if !strings.Contains(string(data), tc.old) {
				t.Fatalf("%s lacks %q", tc.file, tc.old)
			}
			_ = os.WriteFile(path, []byte(strings.Replace(string(data), tc.old, tc.new, 1)), 0o644)
			_ = os.WriteFile(filepath.Join(root, tc.added), []byte(tc.addedText), 0o644)
			_, c := testenv.Embedded(t, root)
			r, err := review.Changes(testenv.Context(t), c, nil, review.Request{})
			if err != nil {
				t.Fatal(err)
			}
			s, a := symbol(r, tc.symbol), symbol(r, tc.addedSymbol)
			if len(r.Symbols) != 2 || s == nil || a == nil || len(s.Callers) == 0 || s.Error != "" {
				t.Fatalf("symbols %+v", r.Symbols)
			}
			t.Logf("%s callers: %+v", tc.symbol, s.Callers)
		})
	}
}
