package lsp_test

// One embedded Neovim on testdata/samples/polyglot: fifteen languages in
// one root, their root markers side by side, every server started by
// nvbridge from the registry after `make deps` alone. Each file's
// request goes to that file's server: its symbols, its one known fault as
// diagnostics (complete), and a definition where the language has them.

import (
	"reflect"
	"slices"
	"testing"

	"github.com/nvbridge/nvbridge/lsp"
)

type polyglotCase struct {
	language, server, file string
	// symbol is one of the file's symbols ("kind name file:line:column").
	symbol string
	// diagnostics are all of the file's ("LINE SEVERITY SOURCE: MESSAGE").
	diagnostics []string
	// A definition asked at target in file: want; none when the language
	// has no definitions.
	target lsp.Target
	want   string
}

var polyglotCases = []polyglotCase{
	{language: "go", server: "gopls", file: "go/main.go", symbol: "function area go/main.go:5:5",
		diagnostics: []string{"10 error compiler: declared and not used: unused"},
		target:      lsp.Target{Line: 11, Symbol: "area"}, want: "go/main.go:5:5"},
	{language: "python", server: "pyright", file: "python/shapes.py", symbol: "function area python/shapes.py:1:4",
		diagnostics: []string{`6 error Pyright: "missing_name" is not defined`},
		target:      lsp.Target{Line: 6, Column: col(19)}, want: "python/shapes.py:1:4"},
	{language: "typescript", server: "typescript-language-server", file: "ts/shapes.ts", symbol: "function area ts/shapes.ts:1:16",
		diagnostics: []string{"6 error typescript: Type 'string' is not assignable to type 'number'."},
		target:      lsp.Target{Line: 5, Symbol: "area"}, want: "ts/shapes.ts:1:16"},
	{language: "javascript", server: "typescript-language-server", file: "js/app.js", symbol: "function greet js/app.js:3:9",
		diagnostics: []string{"8 error typescript: Type 'string' is not assignable to type 'number'."},
		target:      lsp.Target{Line: 8, Symbol: "greet"}, want: "js/app.js:3:9"},
	{language: "c", server: "clangd", file: "c/geometry.c", symbol: "function square c/geometry.c:1:14",
		diagnostics: []string{"8 error clang: Use of undeclared identifier 'missing'"},
		target:      lsp.Target{Line: 8, Symbol: "square"}, want: "c/geometry.c:1:14"},
	{language: "cpp", server: "clangd", file: "cpp/shapes.cpp", symbol: "class Rect cpp/shapes.cpp:1:6",
		diagnostics: []string{"13 error clang: Use of undeclared identifier 'undeclared'"},
		target:      lsp.Target{Line: 13, Symbol: "area"}, want: "cpp/shapes.cpp:4:8"},
	{language: "bash", server: "bash-language-server", file: "sh/run.sh", symbol: "function greet sh/run.sh:2:0",
		diagnostics: []string{"8 info shellcheck: Double quote to prevent globbing and word splitting."},
		target:      lsp.Target{Line: 7, Symbol: "greet"}, want: "sh/run.sh:2:0"},
	{language: "php", server: "intelephense", file: "php/shapes.php", symbol: "function area php/shapes.php:5:9",
		diagnostics: []string{"11 error intelephense: Unexpected ';'."},
		target:      lsp.Target{Line: 10, Symbol: "area"}, want: "php/shapes.php:5:9"},
	{language: "yaml", server: "yaml-language-server", file: "config/deploy.yaml", symbol: "module web config/deploy.yaml:3:0",
		diagnostics: []string{"6 error YAML: Map keys must be unique"},
		target:      lsp.Target{Line: 4, Symbol: "defaults"}, want: "config/deploy.yaml:2:2"},
	{language: "json", server: "vscode-json-language-server", file: "config/settings.json", symbol: "array tags config/settings.json:3:2",
		diagnostics: []string{"3 error json: Trailing comma"}},
	{language: "css", server: "vscode-css-language-server", file: "web/site.css", symbol: "class .card web/site.css:5:0",
		diagnostics: []string{"7 warning css: Unknown property: 'colr'"},
		target:      lsp.Target{Line: 6, Symbol: "--brand"}, want: "web/site.css:2:2"},
	{language: "html", server: "vscode-html-language-server", file: "web/page.html", symbol: "field main#shapes web/page.html:9:2",
		diagnostics: []string{"5 error javascript: Expression expected."}},
	{language: "dockerfile", server: "docker-langserver", file: "docker/Dockerfile", symbol: "function EXPOSE docker/Dockerfile:3:0",
		diagnostics: []string{"3 error dockerfile-utils: Invalid containerPort: port"},
		target:      lsp.Target{Line: 2, Symbol: "VERSION"}, want: "docker/Dockerfile:1:4"},
	{language: "rust", server: "rust-analyzer", file: "rust/main.rs", symbol: "function area rust/main.rs:1:3",
		diagnostics: []string{"7 error rust-analyzer: expected 2 arguments, found 1"},
		target:      lsp.Target{Line: 6, Symbol: "area"}, want: "rust/main.rs:1:3"},
	{language: "proto", server: "buf", file: "proto/poly/v1/shapes.proto", symbol: "class poly.v1.Rect proto/poly/v1/shapes.proto:10:8",
		diagnostics: []string{"12 error buf-lsp: cannot find `Circle` in this scope\nhelp: the full name of this scope is `poly.v1.Rect`"},
		target:      lsp.Target{Line: 11, Symbol: "Point"}, want: "proto/poly/v1/shapes.proto:5:8"},
}

func TestPolyglot(t *testing.T) {
	commands := []string{"nvim", "go"}
	for _, c := range polyglotCases {
		if !slices.Contains(commands, c.server) {
			commands = append(commands, c.server)
		}
	}
	e := newLangEnv(t, "polyglot", "", "", commands...)
	for _, c := range polyglotCases {
		t.Run(c.language, func(t *testing.T) {
			e := *e
			e.language, e.server, e.version = c.language, c.server, ""
			s, err := e.client.Symbols(e.ctx, lsp.SymbolsQuery{File: c.file})
			if err != nil {
				t.Fatal(err)
			}
			if got := symbolWheres(s.Symbols); !slices.Contains(got, c.symbol) || !reflect.DeepEqual(s.Servers, []string{c.server}) {
				t.Fatalf("symbols of %s from %v = %q, want %q among them from %s", c.file, s.Servers, got, c.symbol, c.server)
			}
			e.verified(t, "get_symbols")
			e.diagnostics(t, c.file, c.diagnostics...)
			if c.want != "" {
				e.definition(t, c.file, c.target, c.want)
			}
		})
	}
}
