package refactor

import "testing"

// TestFormatInside: gofmt's changes are taken only on the lines the
// inlining changed.
func TestFormatInside(t *testing.T) {
	orig := "package p\n\n//   indented comment\nfunc f() {\n\tg(x)\n}\n"
	inlined := "package p\n\n//   indented comment\nfunc f() {\n\tfor i := range x {\nx[i]()\n}\n}\n"
	formatted := "package p\n\n//\tindented comment\nfunc f() {\n\tfor i := range x {\n\t\tx[i]()\n\t}\n}\n"
	want := "package p\n\n//   indented comment\nfunc f() {\n\tfor i := range x {\n\t\tx[i]()\n\t}\n}\n"
	if got := formatInside(orig, inlined, formatted); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestInlineMoveSites: pending call sites move through a step's diff; the
// one the step rewrote is lost.
func TestInlineMoveSites(t *testing.T) {
	text := "import a\n\nx := f(1)\ny := f(g(2))\n"
	st := &inlineState{name: "f", defRel: "other", scratch: map[string]string{"a.go": text}}
	first := &site{rel: "a.go", off: 15}  // f(1)
	second := &site{rel: "a.go", off: 25} // f(g(2))
	st.sites = []*site{first, second}
	st.update("a.go", "import a\nimport b\n\nx := f(1)\ny := 2 * g(2)\n")
	if first.lost || st.scratch["a.go"][first.off:first.off+4] != "f(1)" {
		t.Errorf("first site: lost=%v off=%d", first.lost, first.off)
	}
	if !second.lost {
		t.Error("the rewritten call is not lost")
	}
}
