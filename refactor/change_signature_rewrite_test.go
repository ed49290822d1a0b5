package refactor

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

// rewriteGoSignature runs change_signature's planner on Go texts without a
// server: the target is the first "func NAME(" of file, the references
// every other whole-word occurrence of NAME (what gopls would list),
// rewritten from go/parser's syntax. It returns the new texts of the files
// that changed and the plan.
func rewriteGoSignature(t *testing.T, files map[string]string, file, name string, req ChangeSignatureRequest) (map[string]string, ChangeSignaturePlan, error) {
	t.Helper()
	ctx := context.Background()
	syn := goSigSyntax{}
	p := &sigPlanner{syn: syn, lang: lang.Go, rules: syn.rules(), req: req, files: map[string]*sigFile{}}
	var rels []string
	for rel, text := range files {
		doc := preview.ParseDocument(text)
		m := doc.Mapper()
		p.files[rel] = &sigFile{rel: rel, doc: doc, m: m, text: m.Text()}
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	f := p.files[file]
	at := strings.Index(f.text, "func "+name+"(")
	if at < 0 {
		t.Fatalf("no func %s in %s", name, file)
	}
	at += len("func ")
	line, char := f.m.CharPosition(at)
	target, err := p.declaration(ctx, lsp.Location{File: file, Line: line, Column: char})
	if err != nil || target == nil {
		t.Fatalf("declaration of %s: %v", name, err)
	}
	if err := p.resolve(target); err != nil {
		return nil, p.plan, err
	}
	var sites []sigSite
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	for _, rel := range rels {
		rf := p.files[rel]
		for _, m := range word.FindAllStringIndex(rf.text, -1) {
			if rel != file || m[0] != at {
				sites = append(sites, sigSite{file: rf, off: m[0], loc: rf.location(m[0])})
			}
		}
	}
	if err := p.rewriteSites(ctx, sites); err != nil {
		return nil, p.plan, err
	}
	if err := p.rewrite(); err != nil {
		return nil, p.plan, err
	}
	out := map[string]string{}
	for _, fc := range p.plan.Changeset.Files {
		doc, err := preview.Apply(fc.Old, fc.Edits)
		if err != nil {
			t.Fatalf("%s: the plan's edits do not apply: %v", fc.Path, err)
		}
		out[fc.Path] = doc.Text()
	}
	return out, p.plan, nil
}

// TestChangeSignatureRewriteGo: the Go rewrites planned from texts alone
// (the declaration, the calls, inner calls inside outer ones, renamed
// parameters' uses) and the refusals and call sites left alone.
func TestChangeSignatureRewriteGo(t *testing.T) {
	const shop = `package shop

func Price(unit, qty int) int {
	return unit * qty
}

func Total() int {
	return Price(2, 3) + Price(Price(1, 2), 4)
}
`
	const report = `package report

import "example.com/m/shop"

func Line() int {
	f := shop.Price
	_ = f
	return shop.Price(5, 6)
}
`
	keep := func(names ...string) []SignatureParam {
		var out []SignatureParam
		for _, n := range names {
			out = append(out, SignatureParam{Name: n, From: n})
		}
		return out
	}
	// The function is shop.Price, or F when the files are one a.go.
	tests := []struct {
		name      string
		files     map[string]string
		params    []SignatureParam
		allow     bool
		allowLeft bool              // AllowLeftAlone
		want      map[string]string // changed files
		leftAlone []string          // reasons, in order
		code      apierr.Code       // a refusal
		words     string
	}{{
		name:   "swap: declaration, nested and qualified calls",
		files:  map[string]string{"shop/shop.go": shop, "report/report.go": report},
		params: keep("qty", "unit"),
		want: map[string]string{
			"shop/shop.go": strings.NewReplacer("Price(unit, qty int)", "Price(qty, unit int)",
				"Price(2, 3) + Price(Price(1, 2), 4)", "Price(3, 2) + Price(4, Price(2, 1))").Replace(shop),
			"report/report.go": strings.Replace(report, "shop.Price(5, 6)", "shop.Price(6, 5)", 1),
		},
		leftAlone: []string{notCalled},
		allowLeft: true,
	}, {
		name:   "a swap that would leave a value use with the old order is refused",
		files:  map[string]string{"shop/shop.go": shop, "report/report.go": report},
		params: keep("qty", "unit"),
		code:   apierr.PreconditionFailed, words: "cannot be rewritten: they would keep the old arguments",
	}, {
		name:   "add with a default, rename a used parameter",
		files:  map[string]string{"shop/shop.go": shop},
		params: []SignatureParam{{Name: "price", From: "unit"}, {Name: "qty", From: "qty"}, {Name: "tax", Type: "float64", Default: "0.2"}},
		want: map[string]string{"shop/shop.go": strings.NewReplacer(
			"Price(unit, qty int) int {\n\treturn unit * qty", "Price(price, qty int, tax float64) int {\n\treturn price * qty",
			"Price(2, 3) + Price(Price(1, 2), 4)", "Price(2, 3, 0.2) + Price(Price(1, 2, 0.2), 4, 0.2)").Replace(shop)},
	}, {
		name:   "remove an unused parameter",
		files:  map[string]string{"a.go": "package a\n\nfunc F(a, unused int, b string) string { return b }\n\nvar _ = F(1, 2, \"x\")\n"},
		params: keep("a", "b"),
		want:   map[string]string{"a.go": "package a\n\nfunc F(a int, b string) string { return b }\n\nvar _ = F(1, \"x\")\n"},
	}, {
		name:      "a multi-value call is left alone",
		files:     map[string]string{"a.go": "package a\n\nfunc F(a, b int) int { return a }\n\nfunc two() (int, int) { return 1, 2 }\n\nvar _ = F(two())\n"},
		params:    keep("b", "a"),
		want:      map[string]string{"a.go": "package a\n\nfunc F(b, a int) int { return a }\n\nfunc two() (int, int) { return 1, 2 }\n\nvar _ = F(two())\n"},
		leftAlone: []string{"passes 1 argument(s) for 2 parameters (a call returning several values?)"},
		allowLeft: true,
	}, {
		name:   "removing a parameter the body uses is refused",
		files:  map[string]string{"shop/shop.go": shop},
		params: keep("unit"),
		code:   apierr.PreconditionFailed, words: `"qty" of Price`,
	}, {
		name:   "dropping an argument with side effects is refused",
		files:  map[string]string{"a.go": "package a\n\nfunc F(a, b int) int { return a }\n\nfunc next() int { return 1 }\n\nvar _ = F(1, next())\n"},
		params: keep("a"),
		code:   apierr.PreconditionFailed, words: "next()",
	}, {
		name:   "... unless allowed",
		files:  map[string]string{"a.go": "package a\n\nfunc F(a, b int) int { return a }\n\nfunc next() int { return 1 }\n\nvar _ = F(1, next())\n"},
		params: keep("a"), allow: true,
		want: map[string]string{"a.go": "package a\n\nfunc F(a int) int { return a }\n\nfunc next() int { return 1 }\n\nvar _ = F(1)\n"},
	}, {
		name:   "an added Go parameter needs a type",
		files:  map[string]string{"shop/shop.go": shop},
		params: append(keep("unit", "qty"), SignatureParam{Name: "tax", Default: "0"}),
		code:   apierr.InvalidParameter, words: "the added Go parameter \"tax\" needs a type",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, fn := "shop/shop.go", "Price"
			if _, ok := tt.files["a.go"]; ok {
				file, fn = "a.go", "F"
			}
			got, plan, err := rewriteGoSignature(t, tt.files, file, fn, ChangeSignatureRequest{Params: tt.params, AllowSideEffects: tt.allow, AllowLeftAlone: tt.allowLeft})
			if tt.code != "" {
				if e := apierr.As(err); err == nil || e.Code != tt.code || !strings.Contains(e.Message, tt.words) {
					t.Fatalf("got %v, want %s naming %s", err, tt.code, tt.words)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for f, want := range tt.want {
				if got[f] != want {
					t.Errorf("%s:\n%s\nwant:\n%s", f, got[f], want)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("changed %d files, want %d", len(got), len(tt.want))
			}
			var reasons []string
			for _, s := range plan.LeftAlone {
				reasons = append(reasons, s.Reason)
			}
			if strings.Join(reasons, "\n") != strings.Join(tt.leftAlone, "\n") {
				t.Errorf("left alone: %q, want %q", reasons, tt.leftAlone)
			}
		})
	}
}
