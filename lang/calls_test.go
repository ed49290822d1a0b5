package lang

import "testing"

// TestOpenCall: the callee of the innermost open call, with strings,
// comments, grouping parentheses, keywords and closed calls skipped.
func TestOpenCall(t *testing.T) {
	cases := []struct {
		lang *Language
		src  string
		want string // "" when no call is open
	}{
		{goLang, "\treturn secret.Sign(v, ", "Sign"},
		{goLang, "x := Sign (", "Sign"},
		{goLang, "f(a, g(b), ", "f"},
		{goLang, "f(a, []int{1, 2", "f"},
		{goLang, "f(a, (b + ", "f"},
		{goLang, "f(func(x int) {\n\tif (y) {\n\t\tz", "f"},
		{goLang, "Map[int](x, ", "Map"},
		{goLang, "f(\"g(\", `h(`, 'i', ", "f"},
		{goLang, "f(a, // g(\n", "f"},
		{goLang, "f(a, /* g( */ ", "f"},
		{goLang, "f(a)", ""},
		{goLang, "x := (a + ", ""},
		{goLang, "if (", ""},
		{goLang, "f(a, `raw\ng(", "f"}, // g( is inside the raw string
		{pythonLang, "sign(msg, # g(\n    key=", "sign"},
		{pythonLang, "sign('''g(\n''', ", "sign"},
		{pythonLang, "if (a and ", ""},
		{typescriptLang, "sign(`${g(x)}`, ", "sign"},
		{typescriptLang, "sign(x, function () { if (", "sign"},
		{typescriptLang, "obj.method(a, { k: [", "method"},
		{nil, "call(a, ", "call"},
	}
	for _, c := range cases {
		span, ok := OpenCall(c.lang, c.src)
		got := ""
		if ok {
			got = c.src[span.Start:span.End]
		}
		if got != c.want {
			t.Errorf("%s %q: callee %q, want %q", c.lang.DisplayName(), c.src, got, c.want)
		}
	}
}
