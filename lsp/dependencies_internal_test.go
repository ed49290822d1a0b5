package lsp

import (
	"fmt"
	"strings"
	"testing"
)

func renderImports(imps []rawImport) string {
	var out []string
	for _, r := range imps {
		s := fmt.Sprintf("%s@%d:%d", r.path, r.line, r.col)
		if len(r.names) > 0 {
			s += "[" + strings.Join(r.names, ",") + "]"
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
	want := "os@3:7 sys@3:11 a.b.c@4:7 .@5:5[sibling] ..pkg.mod@6:5[one,two] shop.orders@10:5[Line,process] x@12:5 inner@14:11 long@15:5[continued]"
	if got := renderImports(scanPython(src)); got != want {
		t.Errorf("scanPython:\n got %s\nwant %s", got, want)
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
	want := "./orders@2:27 ./types@3:27 lib@4:30 ./side-effect@5:8 ../multi@9:8 ./reexport@10:15 ./named@11:24 ./cjs@12:19 ./lazy@13:27 ./in-string@14:26"
	if got := renderImports(scanTS(src)); got != want {
		t.Errorf("scanTS:\n got %s\nwant %s", got, want)
	}
}

func TestScanGo(t *testing.T) {
	src := "package main\n\nimport (\n\t\"fmt\"\n\tx \"example.com/shop/orders\"\n)\nimport \"strings\"\n\nfunc main() { this does not parse }\n"
	if got, want := renderImports(scanGo(src)), "fmt@3:2 example.com/shop/orders@4:4 strings@6:8"; got != want {
		t.Errorf("scanGo = %s, want %s", got, want)
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
