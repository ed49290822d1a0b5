package lang

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestGoFormatKeeps renames, in real formatted Go files, every name of
// each file everywhere it occurs (longer, and shorter): wherever
// goFormatKeeps says gofmt keeps the renamed text, gofmt does keep it
// byte for byte; and it says so for many names, not for a struct's field
// beside another, nor for a name on a line with a comment.
func TestGoFormatKeeps(t *testing.T) {
	files := []string{
		filepath.Join("..", "testdata", "samples", "go", "orders", "orders.go"),
		filepath.Join("..", "testdata", "samples", "go", "main.go"),
		"registry.go", "go.go", "imports.go",
	}
	kept, formatted := 0, 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		if out, err := format.Source(data); err != nil || string(out) != src {
			t.Fatalf("%s is not gofmt-clean", file)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string][]int{}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name != "_" {
				byName[id.Name] = append(byName[id.Name], fset.Position(id.Pos()).Offset)
			}
			return true
		})
		names := make([]string, 0, len(byName))
		for n := range byName {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			at := byName[name]
			for _, to := range []string{name + "Renamed", "q"} {
				var b strings.Builder
				last := 0
				for _, off := range at {
					b.WriteString(src[last:off])
					b.WriteString(to)
					last = off + len(name)
				}
				b.WriteString(src[last:])
				after := b.String()
				if !goFormatKeeps(src, at) {
					formatted++
					continue
				}
				kept++
				out, err := format.Source([]byte(after))
				if err != nil {
					t.Fatalf("%s: %s -> %s: %v", file, name, to, err)
				}
				if string(out) != after {
					t.Errorf("%s: %s -> %s: said kept, gofmt changes it", file, name, to)
				}
			}
		}
	}
	if kept < formatted/2 {
		t.Errorf("kept %d renames, left %d to gofmt: too few told", kept, formatted)
	}
	// gofmt aligns both: renamed longer, A and x move the columns after
	// them.
	const fields = "package p\n\ntype T struct {\n\tA int\n\tB string\n}\n\nfunc f() int {\n\tx := 1  // one\n\tyy := 2 // two\n\treturn x + yy\n}\n"
	for _, at := range []int{strings.Index(fields, "A int"), strings.Index(fields, "x := 1")} {
		if goFormatKeeps(fields, []int{at}) {
			t.Errorf("kept at %q", fields[at:at+5])
		}
		after := fields[:at] + "Longer" + fields[at+1:]
		if out, err := format.Source([]byte(after)); err != nil || string(out) == after {
			t.Errorf("gofmt keeps %q renamed (%v): the case shows nothing", fields[at:at+5], err)
		}
	}
	if !goFormatKeeps(fields, []int{strings.Index(fields, "x + yy")}) {
		t.Errorf("the return's x: not kept")
	}
}
