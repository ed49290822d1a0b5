package diagdelta

import (
	"strconv"
	"strings"
	"testing"
)

func it(file string, line int, sev, msg, text string) Item {
	return Item{Problem: Problem{File: file, Line: line, Severity: sev, Message: msg}, Text: text}
}

func TestCompare(t *testing.T) {
	cases := []struct {
		name                 string
		before, after        []Item
		introduced, resolved []string // "file:line msg"
	}{
		{name: "nothing", before: nil, after: nil},
		{name: "introduced in a caller",
			after:      []Item{it("main.go", 27, "error", "undefined: orders.Process", "\tt, err := orders.Process(o)")},
			introduced: []string{"main.go:27 undefined: orders.Process"}},
		{name: "resolved",
			before:   []Item{it("a.go", 3, "error", "x declared and not used", "\tx := 1")},
			resolved: []string{"a.go:3 x declared and not used"}},
		{name: "moved by inserted lines is neither",
			before: []Item{it("a.go", 10, "error", "undefined: y", "\treturn y")},
			after:  []Item{it("a.go", 12, "error", "undefined: y", "\treturn y")}},
		{name: "moved and its line edited around it is neither",
			before: []Item{it("a.go", 10, "error", "undefined: y", "\treturn y")},
			after:  []Item{it("a.go", 14, "error", "undefined: y", "\treturn y + 1")}},
		{name: "a second occurrence is introduced, the one on the same text is kept",
			before:     []Item{it("a.go", 10, "error", "undefined: y", "\treturn y")},
			after:      []Item{it("a.go", 4, "error", "undefined: y", "\tz := y"), it("a.go", 11, "error", "undefined: y", "\treturn y")},
			introduced: []string{"a.go:4 undefined: y"}},
		{name: "same message in another file is not a move",
			before:     []Item{it("a.go", 10, "error", "undefined: y", "\treturn y")},
			after:      []Item{it("b.go", 10, "error", "undefined: y", "\treturn y")},
			introduced: []string{"b.go:10 undefined: y"}, resolved: []string{"a.go:10 undefined: y"}},
		{name: "hints and infos do not count",
			after: []Item{it("a.go", 1, "hint", "could be simplified", ""), it("a.go", 2, "info", "note", "")}},
		{name: "severity change is resolved plus introduced",
			before:     []Item{it("a.go", 1, "warning", "m", "x")},
			after:      []Item{it("a.go", 1, "error", "m", "x")},
			introduced: []string{"a.go:1 m"}, resolved: []string{"a.go:1 m"}},
	}
	render := func(items []Item) []string {
		var out []string
		for _, d := range items {
			out = append(out, d.File+":"+strconv.Itoa(d.Line)+" "+d.Message)
		}
		return out
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, re := Compare(c.before, c.after)
			if g, w := strings.Join(render(in), "|"), strings.Join(c.introduced, "|"); g != w {
				t.Errorf("introduced %q, want %q", g, w)
			}
			if g, w := strings.Join(render(re), "|"), strings.Join(c.resolved, "|"); g != w {
				t.Errorf("resolved %q, want %q", g, w)
			}
		})
	}
}

func TestVerdict(t *testing.T) {
	errA := it("orders/orders.go", 7, "error", "undefined: Proces", "")
	cases := []struct {
		name string
		d    *Delta
		want string
	}{
		{"no new errors", New("applied", nil, nil, true, "", []string{"gopls"}, []string{"a.go", "b.go", "c.go"}),
			"no new errors (gopls, 3 files checked)"},
		{"introduces", New("applied", nil, []Item{errA, errA}, true, "", []string{"gopls"}, []string{"orders/orders.go"}),
			"introduces 2 errors in orders/orders.go (undefined: Proces)"},
		{"incomplete never says no new errors", New("applied", nil, nil, false, "gopls: 1 diagnosis run(s) still in progress", []string{"gopls"}, []string{"a.go"}),
			`diagnostics incomplete, not "no new errors" (gopls: 1 diagnosis run(s) still in progress): nothing new seen so far`},
		{"resolves", New("check", []Item{errA}, nil, true, "", []string{"pyright"}, []string{"a.py"}),
			"check (nothing applied): no new errors (pyright, 1 file checked); resolves 1 error"},
	}
	for _, c := range cases {
		if c.d.Verdict != c.want {
			t.Errorf("%s: verdict %q, want %q", c.name, c.d.Verdict, c.want)
		}
	}
}
