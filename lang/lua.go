package lang

// Lua: no server started by nvbridge; require() read with tree-sitter
// (Neovim bundles the Lua parser) or a scanner, resolved from the root,
// root/lua and every lua/ folder above the file.

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

func init() { Register(Lua) }

// Lua is Lua: registered from init; a feature's part for a language is
// registered under its value (a table keyed by *Language), never by name.
var Lua = &Language{
	Name:       "lua",
	Display:    "Lua",
	Filetypes:  []string{"lua"},
	Extensions: []string{".lua"},
	TreeSitter: map[string]string{"": "lua"}, // bundled with Neovim
	Ident: Ident{
		Keywords: WordSet(`and break do else elseif end false for function goto if in local nil not or repeat
			return then true until while`),
		LineComment: "--",
	},
	TestFile: regexp.MustCompile(`_spec\.lua$`),
	Imports: ImportSyntax{
		Parse:      luaRequires,
		Write:      luaWriteRequire,
		TreeSitter: "lua",
		Query: `
    (function_call
      name: (identifier) @fn
      arguments: (arguments . (string content: (string_content) @path))
      (#eq? @fn "require"))
  `,
		Resolve: func(s *Scope, from string, imp Import) []string {
			bases := []string{s.Root, filepath.Join(s.Root, "lua")}
			for dir := filepath.Dir(from); strings.HasPrefix(dir, s.Root) && dir != s.Root; dir = filepath.Dir(dir) {
				if filepath.Base(dir) == "lua" {
					bases = append(bases, dir)
				}
			}
			var cands []string
			rel := filepath.FromSlash(strings.ReplaceAll(imp.Path, ".", "/"))
			for _, base := range bases {
				cands = append(cands, filepath.Join(base, rel+".lua"), filepath.Join(base, rel, "init.lua"))
			}
			return Existing(cands)
		},
	},
}

var luaRequire = regexp.MustCompile(`(?:\blocal\s+([\p{L}_][\p{L}\p{N}_]*)\s*=\s*)?\brequire\s*\(?\s*['"]([^'"\n]+)['"]`)

// luaRequires reads require('m') and require "m" calls outside -- comments.
func luaRequires(src string) []Import {
	var out []Import
	for i, line := range strings.Split(src, "\n") {
		if c := strings.Index(line, "--"); c >= 0 {
			line = line[:c]
		}
		for _, m := range luaRequire.FindAllStringSubmatchIndex(line, -1) {
			imp := Import{Path: line[m[4]:m[5]], Line: i, Col: m[4]}
			if m[2] >= 0 {
				imp.Alias = line[m[2]:m[3]]
			}
			out = append(out, imp)
		}
	}
	return out
}

func luaWriteRequire(imp Import) string {
	call := "require(" + strconv.Quote(imp.Path) + ")"
	if imp.Alias != "" {
		return "local " + imp.Alias + " = " + call
	}
	return call
}
