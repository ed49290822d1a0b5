package lang

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// renamedText is src with the identifier name at each offset of at
// replaced by to.
func renamedText(src string, at []int, name, to string) string {
	var b strings.Builder
	last := 0
	for _, off := range at {
		b.WriteString(src[last:off])
		b.WriteString(to)
		last = off + len(name)
	}
	b.WriteString(src[last:])
	return b.String()
}

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
		byName := identOffsets(fset, f)
		names := slices.Sorted(maps.Keys(byName))
		for _, name := range names {
			at := byName[name]
			for _, to := range []string{name + "Renamed", "q"} {
				after := renamedText(src, at, name, to)
				if !goFormatKeeps(src, at, to) {
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
		if goFormatKeeps(fields, []int{at}, "Longer") {
			t.Errorf("kept at %q", fields[at:at+5])
		}
		after := fields[:at] + "Longer" + fields[at+1:]
		if out, err := format.Source([]byte(after)); err != nil || string(out) == after {
			t.Errorf("gofmt keeps %q renamed (%v): the case shows nothing", fields[at:at+5], err)
		}
	}
	if !goFormatKeeps(fields, []int{strings.Index(fields, "x + yy")}, "Longer") {
		t.Errorf("the return's x: not kept")
	}
}

// TestGoFormatKeepsComments renames the words of the // comments of real
// formatted Go files (the standard library's: doc comments with
// headings, lists, code blocks and links, comments after code, comments
// in structs) as gopls renames a symbol's mentions: each word with the
// code's uses of the same name, longer, shorter and capitalized (an
// old-style heading is a capitalized line, which gofmt rewrites as "#
// heading"): wherever goFormatKeeps says gofmt keeps the renamed text,
// gofmt does keep it byte for byte; and it says so for most of the
// renames of a name in comments only.
func TestGoFormatKeepsComments(t *testing.T) {
	// Packages whose comments hold every shape go/doc/comment knows,
	// and a sample of each file's names (every name would take minutes).
	files := gorootFiles(t, "go/doc/comment", "net/http", "text/tabwriter")
	if len(files) < 50 {
		t.Fatalf("only %d files of the standard library found", len(files))
	}
	kept, formatted, checked := 0, 0, 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		if out, err := format.Source(data); err != nil || string(out) != src {
			continue // not gofmt-clean: FormatKeeps answers for formatted texts
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string][]int{}
		inComments := map[string]bool{}
		for _, g := range f.Comments {
			for _, c := range g.List {
				start := fset.Position(c.Pos()).Offset
				for i := 2; i < len(c.Text); {
					n := goIdentLen(c.Text[i:])
					if n == 0 || i > 0 && (goIdentLen(c.Text[i-1:]) > 0 && isIdentByte(c.Text[i-1])) {
						i += max(n, 1)
						continue
					}
					w := c.Text[i : i+n]
					byName[w] = append(byName[w], start+i)
					inComments[w] = true
					i += n
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && inComments[id.Name] {
				byName[id.Name] = append(byName[id.Name], fset.Position(id.Pos()).Offset)
			}
			return true
		})
		names := slices.Sorted(maps.Keys(byName))
		names = everyNth(names, 12)
		keeps := goFormatKeepsOf(src, "")
		for _, name := range names {
			at := byName[name]
			sort.Ints(at)
			r := []rune(name)
			upper := string(unicode.ToUpper(r[0])) + string(r[1:])
			lower := string(unicode.ToLower(r[0])) + string(r[1:])
			for _, to := range []string{name + "Renamed", "q", upper, lower} {
				if to == name {
					continue
				}
				checked++
				if !keeps(at, to) {
					formatted++
					continue
				}
				kept++
				after := renamedText(src, at, name, to)
				out, err := format.Source([]byte(after))
				if err != nil {
					continue // the renamed text no longer parses (a keyword): no claim to check
				}
				if string(out) != after {
					t.Errorf("%s: %s -> %s: said kept, gofmt changes it", file, name, to)
				}
			}
		}
	}
	t.Logf("%d renames: %d said kept (checked against gofmt), %d left to gofmt", checked, kept, formatted)
	if kept < checked/4 {
		t.Errorf("kept %d of %d renames: too few told", kept, checked)
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// TestGoFormatKeepsDocComment: a name in a doc comment is kept where
// go/doc/comment prints the renamed comment as it is, not where the
// rename makes a line an old-style heading (gofmt rewrites it "# ..."),
// nor in a directive, a block comment, or a comment in a struct.
func TestGoFormatKeepsDocComment(t *testing.T) {
	cases := []struct {
		name, src, word, to string
		kept                bool
	}{
		{"doc comment, longer", "package p\n\n// check does it.\n//\n// It calls [check] twice.\nfunc check() {\n\tcheck()\n}\n", "check", "checkRenamed", true},
		{"a paragraph becomes a heading", "package p\n\n// Doc.\n//\n// check the thing\n//\n// More.\nfunc f() {}\n", "check", "Check", false},
		{"a heading stays one", "package p\n\n// Doc.\n//\n// # Check the thing\n//\n// More.\nfunc f() {}\n", "Check", "Verify", true},
		{"in a comment in a function", "package p\n\nfunc f() {\n\t// check it\n\tf()\n}\n", "check", "Check", true},
		{"after code", "package p\n\nfunc f() {\n\tf() // check it\n\tf() // and this\n}\n", "check", "checkRenamedLonger", true},
		{"in a struct", "package p\n\ntype T struct {\n\tA int // check\n\tB int // it\n}\n", "check", "checkRenamed", false},
		{"a directive", "package p\n\n//go:generate check\nfunc f() {}\n", "check", "checkRenamed", false},
		{"a block comment", "package p\n\n/* check it */\nfunc f() {}\n", "check", "checkRenamed", false},
	}
	for _, c := range cases {
		if out, err := format.Source([]byte(c.src)); err != nil || string(out) != c.src {
			t.Fatalf("%s: the case is not gofmt-clean: %q", c.name, out)
		}
		var at []int
		for i := 0; ; {
			j := strings.Index(c.src[i:], c.word)
			if j < 0 {
				break
			}
			if k := i + j; (k == 0 || !isIdentByte(c.src[k-1])) && goIdentLen(c.src[k:]) == len(c.word) {
				at = append(at, k)
			}
			i += j + len(c.word)
		}
		if got := goFormatKeeps(c.src, at, c.to); got != c.kept {
			t.Errorf("%s: kept %v, want %v", c.name, got, c.kept)
		}
		after := renamedText(c.src, at, c.word, c.to)
		out, err := format.Source([]byte(after))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.kept && string(out) != after {
			t.Errorf("%s: gofmt changes the renamed text: %q", c.name, out)
		}
		if c.name == "a paragraph becomes a heading" && string(out) == after {
			t.Errorf("%s: gofmt keeps it: the case shows nothing", c.name)
		}
	}
}

// TestGoFormatKeepsNamed: FormatKeeps told the name a rename replaces
// parses only the function bodies that mention it, and answers as the
// whole file's parse does, byte offsets in the bodies it did not parse
// included (it parses the whole file then): in real files (the standard
// library's go/parser, go/printer and net/http, all gofmt-clean and full
// of function bodies), for each sampled name renamed everywhere it occurs
// (code and comments), for one of its uses alone, and for another name's
// uses asked with that name.
func TestGoFormatKeepsNamed(t *testing.T) {
	files := gorootFiles(t, "go/parser", "go/printer", "net/http")
	checked, blanked, elsewhere, kept := 0, 0, 0, 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		byName := identOffsets(fset, f)
		names := slices.Sorted(maps.Keys(byName))
		names = everyNth(names, 8)
		whole := goFormatKeepsOf(src, "")
		for i, name := range names {
			if _, skipped, _ := goBlanked(src, name); skipped != nil && goBlankWorth(src, name) {
				blanked++
			}
			other := byName[names[(i+1)%len(names)]]
			for _, at := range [][]int{byName[name], byName[name][:1], other} {
				for _, to := range []string{name + "Renamed", "q"} {
					checked++
					want := whole(at, to)
					if got := goFormatKeepsOf(src, name)(at, to); got != want {
						t.Errorf("%s: %s at %v renamed %s: told the name %v, whole %v", file, name, at, to, got, want)
					}
					if want {
						kept++
					}
				}
			}
			elsewhere++
		}
	}
	if checked < 1000 || blanked < checked/20 || kept < checked/10 {
		t.Errorf("%d renames checked (%d names, %d parsed in part), %d kept", checked, elsewhere, blanked, kept)
	}
	t.Logf("%d renames checked (%d names, %d parsed in part), %d kept", checked, elsewhere, blanked, kept)
}

// TestGoFuncBodies: the bodies FormatKeeps may leave unparsed are the
// insides of top-level functions whose "{" ends the "func" line and whose
// "}" is alone on its line, lexed past strings, runes, raw strings and
// comments holding braces; a text that does not lex gives none, and a
// blanked text that parses otherwise than its functions' bodies (a struct
// result type) is parsed whole.
func TestGoFuncBodies(t *testing.T) {
	src := "package p\n\nvar s = `\nfunc f() {\n}\n`\n\nfunc a() {\n\tx := '{'\n\t_ = \"}\\\"{\" // }\n\t/* { */ _ = x\n}\n\n" +
		"func b() { return }\n\nfunc (T) c(\n\tn int,\n) {\n\t_ = n\n}\n\nfunc d() {\n\ty := `}`\n\t_ = y\n}\n"
	bodies, ok := goFuncBodies(src)
	if !ok {
		t.Fatal("does not lex")
	}
	var got []string
	for _, b := range bodies {
		got = append(got, src[b.Start:b.End])
	}
	want := []string{"\n\tx := '{'\n\t_ = \"}\\\"{\" // }\n\t/* { */ _ = x\n", "\n\ty := `}`\n\t_ = y\n"}
	if !slicesEqual(got, want) {
		t.Errorf("bodies %q, want %q", got, want)
	}
	// For y: every paragraph but the package clause's and d's.
	blanked, skipped, _ := goBlanked(src, "y")
	if len(skipped) != 4 || len(blanked) != len(src) || strings.Count(blanked, "\n") != strings.Count(src, "\n") ||
		!strings.HasPrefix(blanked, "package p\n\n") || !strings.HasSuffix(blanked, "\n\nfunc d() {\n\ty := `}`\n\t_ = y\n}\n") ||
		strings.Contains(blanked, "'{'") || strings.Contains(blanked, "return") {
		t.Errorf("blanked for y: %q, %v", blanked, skipped)
	}
	for _, bad := range []string{"package p\n\nfunc a() {\n\t_ = \"x\n}\n", "package p\n\nfunc a() {\n\t_ = `x\n}\n", "package p\n\nfunc a() {\n/* x\n}\n", "package p\n\nfunc a() {\n}\n}\n"} {
		if bodies, ok := goFuncBodies(bad); ok {
			t.Errorf("%q lexes: %v", bad, bodies)
		}
	}
	// The braces of a body-less function's struct result look like a
	// body; the blanked text's parse says they are not one, and the
	// whole file is parsed.
	structResult := "package p\n\nfunc f() struct {\n\tA  int\n\tBB int\n}\n\nfunc g() {\n\t_ = 1\n}\n"
	bodies, ok = goFuncBodies(structResult)
	if !ok || len(bodies) != 2 {
		t.Fatalf("the struct result type is not taken for a body: %v", bodies)
	}
	if _, _, ok := goParseBlanked(structResult, bodies); ok {
		t.Errorf("a struct result type's fields taken for a body")
	}
	at := []int{strings.Index(structResult, "A  int")}
	if goFormatKeepsOf(structResult, "zz")(at, "AAAA") || goFormatKeepsOf(structResult, "")(at, "AAAA") {
		t.Errorf("a field beside another said kept")
	}
	// A //line comment renumbers what follows: a body holding one is
	// parsed.
	if _, skipped, _ := goBlanked("package p\n\nfunc a() {\n//line x.go:10\n}\n", "zz"); skipped != nil {
		t.Errorf("a body with a //line comment blanked")
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGoParagraphs: goLex splits a file at the empty lines no declaration
// holds: not within brackets (a var group), a raw string, a block
// comment, nor after a token that does not end a statement ("var c ="),
// and does after a literal, an identifier, ")", "}" and "++"; the package
// clause's paragraph is the head.
func TestGoParagraphs(t *testing.T) {
	want := []string{"// Copyright\n", "package p\n", "import \"fmt\"\n", "var (\n\ta = 1\n\n\tb = 2\n)\n", "var c =\n\n\t3\n",
		"var s = `x\n\ny`\n", "/* a\n\nb */\nvar d = a\n", "func f() {\n\tx := 1\n\n\tx++\n}\n", "var e = f\n", "var g = 1 +\n\n\th\n", "var i = 'x'\n"}
	src := strings.Join(want, "\n")
	_, paras, head, ok := goLex(src)
	if !ok {
		t.Fatal("does not lex")
	}
	var got []string
	for _, p := range paras {
		got = append(got, src[p.Start:p.End])
	}
	if !slicesEqual(got, want) || head != 1 {
		t.Errorf("paragraphs %q (head %d), want %q (head 1)", got, head, want)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ParseComments); err != nil {
		t.Fatalf("the test's file does not parse: %v", err)
	}
	// Told a text only the var group holds: the other paragraphs (the
	// imports too) are blanked, and the answer is the whole file's.
	blanked, skipped, _ := goBlanked(src, "b = 2")
	if len(skipped) != len(want)-3 || !strings.Contains(blanked, "\tb = 2\n") || strings.Contains(blanked, "fmt") || !strings.HasPrefix(blanked, "// Copyright\n\npackage p\n") {
		t.Errorf("blanked: %q, %v", blanked, skipped)
	}
	at := []int{strings.Index(src, "a = 1")}
	if got, whole := goFormatKeepsOf(src, "a = 1")(at, "aaa"), goFormatKeepsOf(src, "")(at, "aaa"); got != whole || got {
		t.Errorf("a in an aligned var group: told %v, whole %v", got, whole)
	}
}

// identOffsets is the byte offsets of f's identifiers (the blank one
// aside), by name.
func identOffsets(fset *token.FileSet, f *ast.File) map[string][]int {
	byName := map[string][]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name != "_" {
			byName[id.Name] = append(byName[id.Name], fset.Position(id.Pos()).Offset)
		}
		return true
	})
	return byName
}

// gorootFiles is the Go files of the standard library's packages pkgs.
func gorootFiles(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	var files []string
	for _, pkg := range pkgs {
		m, err := filepath.Glob(filepath.Join(goroot, "src", filepath.FromSlash(pkg), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// parsedGo parses file (one of GOROOT's) as Go's FormatKeeps parse.
func parsedGo(t *testing.T, file string) (*token.FileSet, *ast.File, *token.File) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, data, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return fset, f, fset.File(f.Pos())
}

// TestGoLayoutFreeNamed: the layout told of every identifier of a name in
// one walk (layoutFreeNamed) is layoutFree's at each, in real files, for
// every name; and a FormatKeeps made with the name walks to none of its
// identifiers once its edit came (an offset on another one is walked to).
func TestGoLayoutFreeNamed(t *testing.T) {
	told, free := 0, 0
	for _, file := range gorootFiles(t, "go/printer", "net/http", "encoding/json") {
		fset, f, tf := parsedGo(t, file)
		line := func(p token.Pos) int { return tf.Line(p) }
		byName := map[string][]token.Pos{}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				byName[id.Name] = append(byName[id.Name], id.Pos())
			}
			return true
		})
		names := slices.Sorted(maps.Keys(byName))
		names = everyNth(names, 40)
		for _, name := range names {
			at := byName[name]
			named := layoutFreeNamed(f, name, line)
			if len(named) != len(at) {
				t.Fatalf("%s: %s: %d identifiers told, %d named so", file, name, len(named), len(at))
			}
			for _, pos := range at {
				told++
				want := layoutFree(f, pos, line)
				if got, ok := named[pos]; !ok || got != want {
					t.Fatalf("%s: %s at %v: told %v (%v), layoutFree %v", file, name, fset.Position(pos), got, ok, want)
				}
				if want {
					free++
				}
			}
		}
	}
	if told < 10000 || free < told/4 || free > told*9/10 {
		t.Fatalf("%d identifiers told, %d free: the files moved", told, free)
	}
	walks := 0
	defer func(w func(*ast.File, token.Pos, func(token.Pos) int) (bool, bool)) { layoutWalk = w }(layoutWalk)
	layoutWalk = func(f *ast.File, pos token.Pos, line func(token.Pos) int) (bool, bool) {
		walks++
		return layoutAround(f, pos, line)
	}
	src := "package p\n\nfunc ffffff() {\n\tab := 1\n\t_ = ab\n\tcd := ab\n\t_ = cd\n}\n"
	ab := []int{strings.Index(src, "ab"), strings.LastIndex(src, "ab")}
	keeps := goFormatKeepsOf(src, "ab")
	if !keeps(ab, "abc") || walks != 0 {
		t.Fatalf("the name's identifiers: kept %v, %d walks, want true and 0", keeps(ab, "abc"), walks)
	}
	if !keeps([]int{strings.Index(src, "cd")}, "cde") || walks != 1 {
		t.Fatalf("another identifier: %d walks, want 1", walks)
	}
}

// everyNth is about n of names, evenly spaced (all of them when there are
// fewer than 2n).
func everyNth(names []string, n int) []string {
	step := len(names) / n
	if step <= 1 {
		return names
	}
	sampled := names[:0]
	for i := 0; i < len(names); i += step {
		sampled = append(sampled, names[i])
	}
	return sampled
}

// TestGoFormatKeepsNamedReady: Go's FormatKeeps made for a name (which
// tells a rename of the name's identifiers alone by their offsets, told
// when it parses) answers as the one made without it, for subsets of
// the name's identifiers in go/printer, net/http and encoding/json
// (those on a commented line, in a struct, a composite literal, a
// one-line function among them), and with an offset of another name.
func TestGoFormatKeepsNamedReady(t *testing.T) {
	asked, kept := 0, 0
	for _, file := range gorootFiles(t, "go/printer", "net/http", "encoding/json") {
		_, f, tf := parsedGo(t, file)
		byName := map[string][]int{}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				byName[id.Name] = append(byName[id.Name], tf.Offset(id.Pos()))
			}
			return true
		})
		names := everyNth(slices.Sorted(maps.Keys(byName)), 40)
		whole := goKeepsParsed(f, tf, "")
		for k, name := range names {
			named := goKeepsParsed(f, tf, name)
			offs := byName[name]
			subsets := [][]int{offs}
			for i := range offs {
				subsets = append(subsets, offs[i:i+1], offs[:i+1])
			}
			other := byName[names[(k+1)%len(names)]]
			subsets = append(subsets, append(slices.Clone(offs), other[0]))
			for _, at := range subsets {
				at = slices.Sorted(slices.Values(at))
				for _, to := range []string{name + "Renamed", "x"} {
					asked++
					got, want := named(at, to), whole(at, to)
					if got != want {
						t.Fatalf("%s: %s at %v to %s: %v, without the name %v", file, name, at, to, got, want)
					}
					if want {
						kept++
					}
				}
			}
		}
	}
	if asked < 10000 || kept < asked/10 || kept > asked*9/10 {
		t.Fatalf("%d asked, %d kept: the files moved", asked, kept)
	}
}
