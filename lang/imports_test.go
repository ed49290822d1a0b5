package lang

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func renderImports(imps []Import) string {
	var out []string
	for _, r := range imps {
		s := fmt.Sprintf("%s@%d:%d", r.Path, r.Line, r.Col)
		if r.Alias != "" {
			s += "=" + r.Alias
		}
		if r.System {
			s += "<sys>"
		}
		if len(r.Names) > 0 {
			s += "[" + strings.Join(r.Names, ",") + "]"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestScanPython(t *testing.T) {
	src := strings.Join([]string{
		`"""Docstring mentioning`,
		`import fake`,
		`"""`,
		`import os, sys as system`,
		`import a.b.c`,
		`from . import sibling`,
		`from ..pkg.mod import (`,
		`    one,  # comment`,
		`    two as deux,`,
		`)`,
		`from shop.orders import Line, process  # trailing`,
		`x = "import not_this"`,
		`from x import *`,
		`def f():`,
		`    import inner`,
		`from long \`,
		`    import continued`,
	}, "\n")
	want := "os@3:7 sys@3:11=system a.b.c@4:7 .@5:5[sibling] ..pkg.mod@6:5[one,two] shop.orders@10:5[Line,process] x@12:5 inner@14:11 long@15:5[continued]"
	if got := renderImports(pyImports(src)); got != want {
		t.Errorf("pyImports:\n got %s\nwant %s", got, want)
	}
}

func TestScanTS(t *testing.T) {
	src := strings.Join([]string{
		`// import { commented } from "./nope";`,
		`/* import x from './nope2' */`,
		`import { a, type B } from "./orders";`,
		`import type { Line } from './types';`,
		`import Default, * as ns from "lib";`,
		`import "./side-effect";`,
		`import {`,
		`  multi,`,
		`  line,`,
		`} from "../multi";`,
		`export * from "./reexport";`,
		`export { x as y } from './named';`,
		`const m = require("./cjs");`,
		`const lazy = await import('./lazy');`,
		`const s = "import x from './in-string'";`,
	}, "\n")
	// A string that looks like an import is still read: the scanner does
	// not parse string literals (documented limitation).
	want := "./orders@2:27[a,type B] ./types@3:27[Line] lib@4:30=ns ./side-effect@5:8 ../multi@9:8[multi,line] ./reexport@10:15 ./named@11:24 ./cjs@12:19 ./lazy@13:27 ./in-string@14:26"
	if got := renderImports(tsImports(src)); got != want {
		t.Errorf("tsImports:\n got %s\nwant %s", got, want)
	}
}

func TestScanGo(t *testing.T) {
	src := "package main\n\nimport (\n\t\"fmt\"\n\tx \"example.com/shop/orders\"\n)\nimport \"strings\"\n\nfunc main() { this does not parse }\n"
	if got, want := renderImports(goImports(src)), "fmt@3:2 example.com/shop/orders@4:4=x strings@6:8"; got != want {
		t.Errorf("goImports = %s, want %s", got, want)
	}
}

func TestTSCandidates(t *testing.T) {
	got := tsCandidates("/w/src", "./x.js")
	if got[0] != "/w/src/x.ts" || got[1] != "/w/src/x.tsx" || got[2] != "/w/src/x.js" {
		t.Errorf("candidates of ./x.js = %v", got[:3])
	}
	if tsCandidates("/w/src", "lodash") != nil {
		t.Error("a bare specifier has no workspace candidates")
	}
}

func TestCIncludes(t *testing.T) {
	src := strings.Join([]string{
		`#include <stdio.h>`,
		`#include "geometry.h"`,
		`  #  include "sub/dir.h" // trailing`,
		`/* #include "nope.h"`,
		`#include "still_comment.h" */`,
		`#include "after.h"`,
		`int x; // #include "not_this.h"`,
	}, "\n")
	want := "stdio.h@0:10<sys> geometry.h@1:10 sub/dir.h@2:14 after.h@5:10"
	if got := renderImports(cIncludes(src)); got != want {
		t.Errorf("cIncludes:\n got %s\nwant %s", got, want)
	}
}

func TestLuaRequires(t *testing.T) {
	src := "local api = vim.api\nlocal b = require('nvbridge.bridge')\nrequire \"x.y\" -- require('no')\n-- require('neither')\n"
	if got, want := renderImports(luaRequires(src)), "nvbridge.bridge@1:19=b x.y@2:9"; got != want {
		t.Errorf("luaRequires = %s, want %s", got, want)
	}
}

// TestWriteThenParse: every language's written import reads back as the
// same import (what move_symbol relies on to add an import).
func TestWriteThenParse(t *testing.T) {
	for _, tc := range []struct {
		lang  *Language
		imp   Import
		write string
	}{
		{Go, Import{Path: "example.com/shop/orders"}, `import "example.com/shop/orders"`},
		{Go, Import{Path: "example.com/shop/orders", Alias: "o"}, `import o "example.com/shop/orders"`},
		{Python, Import{Path: "shop.orders"}, `import shop.orders`},
		{Python, Import{Path: "shop.orders", Alias: "o"}, `import shop.orders as o`},
		{Python, Import{Path: "..pkg", Names: []string{"one", "two"}}, `from ..pkg import one, two`},
		{TypeScript, Import{Path: "./orders", Names: []string{"process", "Line"}}, `import { process, Line } from "./orders";`},
		{TypeScript, Import{Path: "./orders", Alias: "orders"}, `import * as orders from "./orders";`},
		{TypeScript, Import{Path: "./side-effect"}, `import "./side-effect";`},
		{C, Import{Path: "geometry.h"}, `#include "geometry.h"`},
		{C, Import{Path: "stdio.h", System: true}, `#include <stdio.h>`},
		{Lua, Import{Path: "nvbridge.bridge", Alias: "bridge"}, `local bridge = require("nvbridge.bridge")`},
		{Lua, Import{Path: "nvbridge.bridge"}, `require("nvbridge.bridge")`},
	} {
		got := tc.lang.Imports.Write(tc.imp)
		if got != tc.write {
			t.Errorf("%s: Write(%+v) = %q, want %q", tc.lang.Name, tc.imp, got, tc.write)
			continue
		}
		src := got + "\n"
		if tc.lang == Go {
			src = "package p\n\n" + src
		}
		parsed := tc.lang.Imports.Parse(src)
		if len(parsed) != 1 {
			t.Errorf("%s: Parse(%q) = %+v, want one import", tc.lang.Name, got, parsed)
			continue
		}
		p := parsed[0]
		p.Line, p.Col = 0, 0
		if !reflect.DeepEqual(p, tc.imp) {
			t.Errorf("%s: Parse(Write(%+v)) = %+v", tc.lang.Name, tc.imp, p)
		}
		// The column points at the path as written.
		line := strings.Split(src, "\n")[parsed[0].Line]
		if !strings.HasPrefix(line[parsed[0].Col:], tc.imp.Path) {
			t.Errorf("%s: column %d of %q is not at %q", tc.lang.Name, parsed[0].Col, line, tc.imp.Path)
		}
	}
}

func TestImportKey(t *testing.T) {
	inBlock := false
	var keys []string
	for _, line := range []string{"package p", "import (", `"fmt"`, `x "strings"`, ")", `import "os"`, "func f() {}"} {
		if k, ok := ImportKey(Go, line, &inBlock); ok {
			keys = append(keys, k)
		}
	}
	if want := []string{`"fmt"`, `x "strings"`, `"os"`}; !reflect.DeepEqual(keys, want) {
		t.Errorf("go import keys %q, want %q", keys, want)
	}
	if k, ok := ImportKey(nil, `import { a } from "./x";`, &inBlock); !ok || k != `import { a } from "./x"` {
		t.Errorf("generic key %q %v", k, ok)
	}
	if _, ok := ImportKey(Python, "x = 1", &inBlock); ok {
		t.Error("python: an assignment is not an import")
	}
}

// TestGoMembers: the members of imported packages a Go file uses, once
// each, in source order, at their name; the package name derived as Go
// does (a major version suffix, gopkg.in's .vN, dashes), an alias winning;
// blank and dot imports name none.
func TestGoMembers(t *testing.T) {
	src := `package p

import (
	"fmt"
	_ "embed"
	. "strings"
	"example.com/mod/v2"
	"gopkg.in/yaml.v3"
	"example.com/go-kit"
	pp "example.com/pretty"
)

func f() {
	fmt.Println(mod.X, yaml.Marshal, go_kit.Y)
	fmt.Println(pp.Print, Title("x"))
}
`
	var got []string
	for _, m := range Go.Imports.Members(src) {
		got = append(got, fmt.Sprintf("%s %s@%d:%d", m.Import, m.Symbol, m.Line, m.Byte))
	}
	want := []string{
		"fmt fmt.Println@13:5",
		"example.com/mod/v2 mod.X@13:17",
		"gopkg.in/yaml.v3 yaml.Marshal@13:25",
		"example.com/go-kit go_kit.Y@13:41",
		"example.com/pretty pp.Print@14:16",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Members:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
