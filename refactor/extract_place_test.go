package refactor

import "testing"

func TestPlaceNextToCaller(t *testing.T) {
	in := "function caller(a: number) {\n  const b = 1;\n  check(a, b);\n  return b;\n}\n\nconst x = 1;\n\nfunction other() {\n  return 2;\n}\n\nfunction check(a: number, b: number) {\n  if (a > b) {\n    throw new Error(\"no\");\n  }\n}\n\nfunction last() {}\n"
	want := "function caller(a: number) {\n  const b = 1;\n  check(a, b);\n  return b;\n}\n\nfunction check(a: number, b: number) {\n  if (a > b) {\n    throw new Error(\"no\");\n  }\n}\n\nconst x = 1;\n\nfunction other() {\n  return 2;\n}\n\nfunction last() {}\n"
	if got := placeNextToCaller(in, "check"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// Already next to it: unchanged; the caller inside a class: after it.
	if got := placeNextToCaller(want, "check"); got != want {
		t.Errorf("moved again:\n%s", got)
	}
	cls := "export class A {\n  m() {\n    return helper(1);\n  }\n}\n\nconst y = 2;\n\nfunction helper(n: number) {\n  return n + 1;\n}\n"
	wantCls := "export class A {\n  m() {\n    return helper(1);\n  }\n}\n\nfunction helper(n: number) {\n  return n + 1;\n}\n\nconst y = 2;\n"
	if got := placeNextToCaller(cls, "helper"); got != wantCls {
		t.Errorf("class:\n%s\nwant:\n%s", got, wantCls)
	}
}
