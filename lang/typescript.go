package lang

// TypeScript and JavaScript: typescript-language-server; $ in names,
// template literals; a declaration is exported by the export keyword
// (members: unless private, protected or #); imports read by a scanner
// (import, export ... from, require(), import()) and resolved as relative
// specifiers (bare ones are packages).

import (
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func init() { Register(TypeScript) }

// TypeScript is TypeScript and JavaScript: registered from init; a feature's part for a language is
// registered under its value (a table keyed by *Language), never by name.
var TypeScript = &Language{
	Name:       "typescript",
	Display:    "TypeScript/JavaScript",
	Filetypes:  []string{"typescript", "typescriptreact", "javascript", "javascriptreact"},
	Extensions: tsExtensions,
	// TypeScript files parse with the typescript grammar; TSX and every
	// JavaScript file with tsx (JavaScript with JSX is a subset of it).
	TreeSitter: map[string]string{".ts": "typescript", ".mts": "typescript", ".cts": "typescript", "": "tsx"},
	// The TypeScript and TSX grammars share these node types.
	Grammar: &Grammar{
		Calls: []string{"call_expression", "new_expression"},
		Declarations: []string{"function_declaration", "generator_function_declaration", "class_declaration",
			"abstract_class_declaration", "interface_declaration", "type_alias_declaration", "enum_declaration",
			"lexical_declaration", "variable_declaration", "method_definition", "method_signature",
			"abstract_method_signature", "public_field_definition", "function_signature", "module", "internal_module"},
		Wrappers:  []string{"export_statement"},
		Functions: []string{"function_declaration", "method_definition", "function_expression", "arrow_function", "generator_function_declaration"},
		Returns:   []string{"return_statement"},
	},
	Markers:      []string{"tsconfig.json", "jsconfig.json", "package.json"},
	JSFormatters: true,
	Servers: []ServerSpec{{
		Name:        "typescript-language-server",
		Cmd:         []string{"typescript-language-server", "--stdio"},
		InitOptions: map[string]any{"supportsMoveToFileCodeAction": true},
		// What tsserver indents new code with (extract, move to file):
		// the project's style, not its default of 4 spaces.
		FormattingSection: "formattingOptions",
		ClientNames:       []string{"tsserver", "ts_ls", "vtsls"},
		// tsserver's checks are published separately, debounced by 50 ms.
		StagedPublishes: true,
		DiagnosticsSync: []ServerCommand{
			{Command: "typescript.tsserverRequest", Arguments: []any{"syntacticDiagnosticsSync", map[string]any{"file": "${uri}"}}},
			{Command: "typescript.tsserverRequest", Arguments: []any{"semanticDiagnosticsSync", map[string]any{"file": "${uri}"}}},
		},
		RenameHints: "_typescript.rename",
	}},
	Ident: Ident{
		Dollar:  true,
		Marks:   true,
		Joiners: true,
		// ECMAScript reserved words and the strict-mode ones (modules and
		// classes are strict code).
		Keywords: WordSet(`break case catch class const continue debugger default delete do else enum export extends
			false finally for function if import in instanceof new null return super switch this throw true try typeof
			var void while with implements interface let package private protected public static yield await`),
		KeywordKind: "reserved word",
		Templates:   true,
	},
	TestFile: regexp.MustCompile(`\.(test|spec)\.[cm]?[jt]sx?$`),
	Tests: &TestRunner{
		Name: "vitest", Detect: detectJSRunner, Args: vitestArgs, Output: "junit",
		Install: "configure vitest in package.json (devDependencies) and npm install",
	},
	Exported: func(name, declLine, kind string) bool {
		line := strings.TrimSpace(declLine)
		if kind == "method" || kind == "property" || kind == "field" || kind == "constructor" {
			return !strings.HasPrefix(name, "#") && !strings.HasPrefix(line, "private") && !strings.HasPrefix(line, "protected")
		}
		return strings.HasPrefix(line, "export ")
	},
	Names:      typeScriptNames,
	SourceDirs: tsSourceDirs,
	Imports: ImportSyntax{
		Parse: tsImports,
		Write: tsWriteImport,
		Resolve: func(_ *Scope, from string, imp Import) []string {
			return Existing(tsCandidates(filepath.Dir(from), imp.Path))
		},
		Note: "bare specifiers (packages) and tsconfig path aliases are reported as external",
	},
	Bases:      ClassBases,
	SubclassAt: ClassSubclassAt,
}

var tsExtensions = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

var (
	tsBlockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	tsLineComment  = regexp.MustCompile(`(?m)^\s*//.*$`)
	tsImportRes    = []*regexp.Regexp{
		// import x from 'm'; import {a, b} from 'm'; import * as n from 'm'; import type ...
		regexp.MustCompile(`\bimport\s+(?:type\s+)?([\p{L}\p{N}_$*{}\s,]+?)\s+from\s*['"]([^'"\n]+)['"]`),
		// import 'm' (side effects)
		regexp.MustCompile(`\bimport\s*()['"]([^'"\n]+)['"]`),
		// export * from 'm'; export {a} from 'm'
		regexp.MustCompile(`\bexport\s+(?:type\s+)?()(?:\*(?:\s+as\s+[\p{L}\p{N}_$]+)?|\{[^}]*\})\s*from\s*['"]([^'"\n]+)['"]`),
		// require('m'), import('m')
		regexp.MustCompile(`\b(?:require|import)\s*()\(\s*['"]([^'"\n]+)['"]\s*\)`),
	}
	tsNamespace = regexp.MustCompile(`\*\s*as\s+([\p{L}\p{N}_$]+)`)
)

// tsImports reads TypeScript/JavaScript imports: import ... from,
// side-effect imports, export ... from, require() and import(). Comments
// are blanked first (keeping offsets). A string that looks like an import
// is read too (string literals are not parsed).
func tsImports(text string) []Import {
	blank := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, s)
	}
	code := tsBlockComment.ReplaceAllStringFunc(text, blank)
	code = tsLineComment.ReplaceAllStringFunc(code, blank)
	seen := map[int]bool{}
	var out []Import
	for _, re := range tsImportRes {
		for _, m := range re.FindAllStringSubmatchIndex(code, -1) {
			at := m[4]
			if seen[at] {
				continue
			}
			seen[at] = true
			line := strings.Count(code[:at], "\n")
			col := at - (strings.LastIndex(code[:at], "\n") + 1)
			imp := Import{Path: code[m[4]:m[5]], Line: line, Col: col}
			clause := code[m[2]:m[3]]
			if n := tsNamespace.FindStringSubmatch(clause); n != nil {
				imp.Alias = n[1]
			}
			if a, b := strings.IndexByte(clause, '{'), strings.IndexByte(clause, '}'); a >= 0 && b > a {
				for _, part := range strings.Split(clause[a+1:b], ",") {
					if f := strings.Fields(part); len(f) > 0 {
						imp.Names = append(imp.Names, strings.Join(f, " "))
					}
				}
			}
			out = append(out, imp)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	return out
}

// tsWriteImport: import { a, b } from "m"; import * as n from "m"; or
// import "m" (side effects).
func tsWriteImport(imp Import) string {
	from := strconv.Quote(imp.Path) + ";"
	switch {
	case imp.Alias != "":
		return "import * as " + imp.Alias + " from " + from
	case len(imp.Names) > 0:
		return "import { " + strings.Join(imp.Names, ", ") + " } from " + from
	}
	return "import " + from
}

// TypeScriptCandidates lists the files a relative specifier may name from
// dir (tsCandidates), most specific first.
func TypeScriptCandidates(dir, spec string) []string { return tsCandidates(dir, spec) }

// tsCandidates lists the files a relative specifier may name (none for a
// bare specifier: a package).
func tsCandidates(dir, spec string) []string {
	if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") && spec != "." && spec != ".." {
		return nil
	}
	p := filepath.Join(dir, filepath.FromSlash(spec))
	exts := []string{".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}
	cands := []string{}
	// ESM TypeScript imports name the emitted file: ./x.js is ./x.ts.
	for js, ts := range map[string][]string{".js": {".ts", ".tsx"}, ".mjs": {".mts"}, ".cjs": {".cts"}, ".jsx": {".tsx"}} {
		if strings.HasSuffix(p, js) {
			for _, e := range ts {
				cands = append(cands, strings.TrimSuffix(p, js)+e)
			}
		}
	}
	cands = append(cands, p)
	for _, e := range exts {
		cands = append(cands, p+e)
	}
	for _, e := range exts {
		cands = append(cands, filepath.Join(p, "index"+e))
	}
	return cands
}
