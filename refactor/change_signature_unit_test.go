package refactor

// Table tests of change_signature's pure parts: Go declarations and calls
// from go/parser, parameter uses (shadowing, fields, map keys), side
// effects, rendering, separators, literal types.

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/preview"
)

func TestGoSigFuncAt(t *testing.T) {
	src := `package p

func F(a, b int, c ...string) (int, error) {
	x := a + len(c)
	{
		b := 2
		_ = b
	}
	f := func(a int) int { return a }
	s := S{a: b}
	m := map[int]int{a: 1}
	_ = s.a
	return x + f(1) + m[0], nil
}

type I interface {
	M(int, string) error
}
`
	ctx := context.Background()
	fn, err := goSigSyntax{}.funcAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "F("))
	if err != nil || fn == nil {
		t.Fatal(fn, err)
	}
	if fn.Signature != "func F(a, b int, c ...string) (int, error)" || fn.Method {
		t.Errorf("signature %q method %v", fn.Signature, fn.Method)
	}
	if len(fn.Params) != 3 || !fn.Params[2].Variadic || fn.Params[0].Group != fn.Params[1].Group || fn.Params[2].Type != "...string" {
		t.Fatalf("params %+v", fn.Params)
	}
	line := func(off int) int { return strings.Count(src[:off], "\n") + 1 }
	var aLines, bLines []int
	for _, u := range fn.Params[0].Uses {
		aLines = append(aLines, line(u))
	}
	for _, u := range fn.Params[1].Uses {
		bLines = append(bLines, line(u))
	}
	// a: x := a (4), the map key (11); not the func literal's own a (9),
	// not the field names (10, 12). b: the struct value (10); not the
	// shadowing b (6, 7).
	if fmtInts(aLines) != "4 11" {
		t.Errorf("uses of a on lines %v", aLines)
	}
	if fmtInts(bLines) != "10" {
		t.Errorf("uses of b on lines %v", bLines)
	}
	m, _ := goSigSyntax{}.funcAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "M("))
	if m == nil || !m.Method || len(m.Params) != 2 || m.Params[0].Name != "" || m.Signature != "M(int, string) error" {
		t.Fatalf("interface method %+v", m)
	}
	if got := (goSigSyntax{}).renderParams(m, []renderedParam{{Type: "string"}, {Type: "int"}, {Type: "bool"}}); got != "string, int, bool" {
		t.Errorf("unnamed render %q", got)
	}
	if got := (goSigSyntax{}).renderParams(fn, []renderedParam{{Name: "b", Type: "int", Group: 1}, {Name: "a", Type: "int", Group: 1}, {Name: "d", Type: "bool"}}); got != "b, a int, d bool" {
		t.Errorf("grouped render %q", got)
	}
}

func fmtInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, " ")
}

func TestGoSigCallAt(t *testing.T) {
	src := "package p\n\nfunc g() {\n\tF(1, h(), <-ch, x.y, []int{1}, func() {}, xs...)\n\tv := F\n\tp.F[int](a)\n}\n"
	ctx := context.Background()
	cl, why, err := goSigSyntax{}.callAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "F("))
	if err != nil || cl == nil {
		t.Fatal(why, err)
	}
	var pure []bool
	for _, a := range cl.Args {
		pure = append(pure, a.Pure)
	}
	want := []bool{true, false, false, true, true, true, true}
	for i := range want {
		if pure[i] != want[i] {
			t.Errorf("arg %d %q pure=%v", i, cl.Args[i].Text, pure[i])
		}
	}
	if !cl.Args[6].Spread || src[cl.ListStart:cl.ListEnd] != "1, h(), <-ch, x.y, []int{1}, func() {}, xs..." {
		t.Errorf("call %+v", cl)
	}
	if _, why, _ := (goSigSyntax{}).callAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "F\n")); why != notCalled {
		t.Errorf("value use: %q", why)
	}
	if cl, _, _ := (goSigSyntax{}).callAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "F[int]")); cl == nil || len(cl.Args) != 1 {
		t.Errorf("generic call %+v", cl)
	}
}

func TestJoinParts(t *testing.T) {
	for _, c := range []struct {
		lead, trail string
		seps        []string
		parts       []string
		want        string
	}{
		{"", "", nil, []string{"a", "b"}, "a, b"},
		{"\n\t", ",\n", []string{",\n\t"}, []string{"a", "b", "c"}, "\n\ta,\n\tb,\n\tc,\n"},
		{"", "", []string{", "}, nil, ""},
		{"/* x */ ", "", nil, []string{"a"}, "a"},
		{"", "", []string{" /* c */ , "}, []string{"a", "b"}, "a, b"},
	} {
		if got := joinParts(c.lead, c.seps, c.trail, c.parts); got != c.want {
			t.Errorf("joinParts(%q, %q, %q, %q) = %q, want %q", c.lead, c.seps, c.trail, c.parts, got, c.want)
		}
	}
}

func TestLiteralType(t *testing.T) {
	for in, want := range map[string]string{"0": "number", "-1.5": "number", `"EUR"`: "string", "'x'": "string", "`t`": "string",
		"true": "boolean", "undefined": "", "f()": "", "[]": ""} {
		if got := literalType(in); got != want {
			t.Errorf("literalType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGoSigComments(t *testing.T) {
	src := "package p\n\nfunc F(a int, // why\n\tb int) {}\n\nfunc G(a, b int) {}\n\nfunc h() {\n\tG(1 /* one */, 2)\n\tG(1, 2) // after\n}\n"
	ctx := context.Background()
	f, _ := goSigSyntax{}.funcAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "F("))
	g, _ := goSigSyntax{}.funcAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "G("))
	if f == nil || !f.Comments || g == nil || g.Comments {
		t.Errorf("declarations: F %+v, G %+v", f, g)
	}
	c1, _, _ := goSigSyntax{}.callAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "G(1 /*"))
	c2, _, _ := goSigSyntax{}.callAt(ctx, "p.go", preview.NewMapper(src), strings.Index(src, "G(1, 2)"))
	if c1 == nil || !c1.Comments || c2 == nil || c2.Comments {
		t.Errorf("calls: %+v, %+v", c1, c2)
	}
}
