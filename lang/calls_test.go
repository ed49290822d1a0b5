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
		{Go, "\treturn secret.Sign(v, ", "Sign"},
		{Go, "x := Sign (", "Sign"},
		{Go, "f(a, g(b), ", "f"},
		{Go, "f(a, []int{1, 2", "f"},
		{Go, "f(a, (b + ", "f"},
		{Go, "f(func(x int) {\n\tif (y) {\n\t\tz", "f"},
		{Go, "Map[int](x, ", "Map"},
		{Go, "f(\"g(\", `h(`, 'i', ", "f"},
		{Go, "f(a, // g(\n", "f"},
		{Go, "f(a, /* g( */ ", "f"},
		{Go, "f(a)", ""},
		{Go, "x := (a + ", ""},
		{Go, "if (", ""},
		{Go, "f(a, `raw\ng(", "f"}, // g( is inside the raw string
		{Python, "sign(msg, # g(\n    key=", "sign"},
		{Python, "sign('''g(\n''', ", "sign"},
		{Python, "if (a and ", ""},
		{TypeScript, "sign(`${g(x)}`, ", "sign"},
		{TypeScript, "sign(x, function () { if (", "sign"},
		{TypeScript, "obj.method(a, { k: [", "method"},
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
