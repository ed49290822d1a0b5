package refactor

import (
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/apierr"
)

// goMoveOf builds the Go move's input from texts alone, as moveGo would
// from gopls and the disk: the declaration of name in source, its
// references at every other whole-word occurrence of name, each folder's
// files and the import graph read from the texts.
func goMoveOf(t *testing.T, files map[string]string, source, name, target string) goMoveInput {
	t.Helper()
	const module = "example.com/m"
	in := goMoveInput{Files: files, Source: source, Target: target, Dirs: map[string][]string{},
		Graph: map[string][]string{}, TestGraph: map[string][]string{}}
	_, in.TargetExists = files[target]
	in.ImportPath = func(dir string) string {
		if dir == "." {
			return module
		}
		return module + "/" + dir
	}
	decl := regexp.MustCompile(`(?m)^(func (\([^)]*\) )?|type |var |const )` + regexp.QuoteMeta(name) + `\b`).FindStringIndex(files[source])
	if decl == nil {
		t.Fatalf("no declaration of %s in %s", name, source)
	}
	at := strings.Index(files[source][decl[0]:], name) + decl[0]
	in.Offset = at
	var rels []string
	for rel := range files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	for _, rel := range rels {
		dir := path.Dir(rel)
		in.Dirs[dir] = append(in.Dirs[dir], rel)
		for _, m := range word.FindAllStringIndex(files[rel], -1) {
			if rel != source || m[0] != at {
				in.Refs = append(in.Refs, goRef{File: rel, Offset: m[0]})
			}
		}
		f, err := parser.ParseFile(token.NewFileSet(), rel, files[rel], parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		g := in.Graph
		if strings.HasSuffix(rel, "_test.go") {
			g = in.TestGraph
		}
		ip := in.ImportPath(dir)
		if g[ip] == nil {
			g[ip] = []string{}
		}
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			g[ip] = append(g[ip], p)
		}
	}
	if _, ok := in.Dirs[path.Dir(target)]; !ok {
		in.Dirs[path.Dir(target)] = nil
	}
	return in
}

// TestPlanGoMove: the Go move planned from texts alone: what moves (a
// type takes its methods), the references qualified or unqualified, the
// imports added and dropped, the files gofmt'ed; and each refusal.
func TestPlanGoMove(t *testing.T) {
	const geom = `package geom

import "math"

// Circle is round.
type Circle struct{ R float64 }

// Area of c.
func (c Circle) Area() float64 { return math.Pi * c.R * c.R }

func Unit() Circle { return Circle{R: 1} }

func helper() int { return 1 }

func Uses() int { return helper() }
`
	const main = `package main

import (
	"fmt"

	"example.com/m/geom"
)

func main() { fmt.Println(geom.Unit().Area()) }
`
	tests := []struct {
		name           string
		files          map[string]string
		source, symbol string
		target         string
		want           map[string]string // every changed or created file
		moved          []string
		code           apierr.Code
		words          string
	}{{
		name:   "a type with its methods to a new package",
		files:  map[string]string{"geom/geom.go": geom, "main.go": main},
		source: "geom/geom.go", symbol: "Circle", target: "shapes/circle.go",
		moved: []string{"type Circle", "method Circle.Area"},
		want: map[string]string{
			"shapes/circle.go": "package shapes\n\nimport \"math\"\n\n// Circle is round.\ntype Circle struct{ R float64 }\n\n// Area of c.\nfunc (c Circle) Area() float64 { return math.Pi * c.R * c.R }\n",
			"geom/geom.go":     "package geom\n\nimport (\n\t\"example.com/m/shapes\"\n)\n\nfunc Unit() shapes.Circle { return shapes.Circle{R: 1} }\n\nfunc helper() int { return 1 }\n\nfunc Uses() int { return helper() }\n",
		},
	}, {
		name:   "a function into an existing package, its callers qualified",
		files:  map[string]string{"geom/geom.go": geom, "main.go": main, "shapes/shapes.go": "package shapes\n\n// Shape has an area.\ntype Shape interface{ Area() float64 }\n"},
		source: "geom/geom.go", symbol: "Unit", target: "shapes/shapes.go",
		moved: []string{"func Unit"},
		want: map[string]string{
			"shapes/shapes.go": "package shapes\n\nimport \"example.com/m/geom\"\n\n// Shape has an area.\ntype Shape interface{ Area() float64 }\n\nfunc Unit() geom.Circle { return geom.Circle{R: 1} }\n",
			"geom/geom.go":     strings.Replace(geom, "func Unit() Circle { return Circle{R: 1} }\n\n", "", 1),
			"main.go":          strings.Replace(strings.Replace(main, "geom.Unit()", "shapes.Unit()", 1), "\"example.com/m/geom\"", "\"example.com/m/shapes\"", 1),
		},
	}, {
		name: "a new file takes the source's license header, not its package doc or build constraint",
		files: map[string]string{"geom/geom.go": "// Copyright 2026 Geom Authors. Licensed as MIT — see LICENSE.\n\n//go:build !plan9\n\n// Package geom measures.\npackage geom\n\nfunc helper() int { return 1 }\n\nfunc Two() int { return 2 }\n",
			"geom/more.go": "package geom\n"},
		source: "geom/geom.go", symbol: "Two", target: "geom/two.go",
		moved: []string{"func Two"},
		want: map[string]string{
			"geom/two.go":  "// Copyright 2026 Geom Authors. Licensed as MIT — see LICENSE.\n\npackage geom\n\nfunc Two() int { return 2 }\n",
			"geom/geom.go": "// Copyright 2026 Geom Authors. Licensed as MIT — see LICENSE.\n\n//go:build !plan9\n\n// Package geom measures.\npackage geom\n\nfunc helper() int { return 1 }\n",
		},
	}, {
		name:   "within the package: nothing but the cut and the paste",
		files:  map[string]string{"geom/geom.go": geom, "geom/more.go": "package geom\n"},
		source: "geom/geom.go", symbol: "helper", target: "geom/more.go",
		moved: []string{"func helper"},
		want: map[string]string{
			"geom/more.go": "package geom\n\nfunc helper() int { return 1 }\n",
			"geom/geom.go": strings.Replace(geom, "func helper() int { return 1 }\n\n", "", 1),
		},
	}, {
		name:   "an unexported function still used in its package",
		files:  map[string]string{"geom/geom.go": geom},
		source: "geom/geom.go", symbol: "helper", target: "util/util.go",
		code: apierr.PreconditionFailed, words: "helper is unexported and still used",
	}, {
		name:   "code using an unexported name of its package",
		files:  map[string]string{"geom/geom.go": geom},
		source: "geom/geom.go", symbol: "Uses", target: "util/util.go",
		code: apierr.PreconditionFailed, words: "uses unexported helper",
	}, {
		name:   "a method alone",
		files:  map[string]string{"geom/geom.go": geom},
		source: "geom/geom.go", symbol: "Area", target: "util/util.go",
		code: apierr.Unsupported, words: "move the receiver type",
	}, {
		name:   "into package main",
		files:  map[string]string{"geom/geom.go": geom, "main.go": main},
		source: "geom/geom.go", symbol: "Unit", target: "main.go",
		code: apierr.InvalidParameter, words: "package main",
	}, {
		name:   "a name the target package declares",
		files:  map[string]string{"geom/geom.go": geom, "shapes/shapes.go": "package shapes\n\nfunc Unit() {}\n"},
		source: "geom/geom.go", symbol: "Unit", target: "shapes/new.go",
		code: apierr.Conflict, words: "already declares Unit",
	}, {
		name: "an import cycle: the moved code needs its old package, which still calls it",
		files: map[string]string{"geom/geom.go": geom + "\nfunc Pair() [2]Circle { return [2]Circle{Unit(), Unit()} }\n", "main.go": main,
			"shapes/shapes.go": "package shapes\n"},
		source: "geom/geom.go", symbol: "Unit", target: "shapes/shapes.go",
		code: apierr.PreconditionFailed, words: "import cycle",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := planGoMove(goMoveOf(t, tt.files, tt.source, tt.symbol, tt.target))
			if tt.code != "" {
				if e := apierr.As(err); err == nil || e.Code != tt.code || !strings.Contains(e.Message, tt.words) {
					t.Fatalf("got %v, want %s naming %q", err, tt.code, tt.words)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for f, want := range tt.want {
				if out.Texts[f] != want {
					t.Errorf("%s:\n%s\nwant:\n%s", f, out.Texts[f], want)
				}
			}
			if len(out.Texts) != len(tt.want) {
				var got []string
				for f := range out.Texts {
					got = append(got, f)
				}
				t.Errorf("changed %v, want %d files", got, len(tt.want))
			}
			if strings.Join(out.Moved, ", ") != strings.Join(tt.moved, ", ") {
				t.Errorf("moved %v, want %v", out.Moved, tt.moved)
			}
		})
	}
}
