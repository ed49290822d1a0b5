package lang

// C (and the C family clangd serves): clangd, rooted by a
// compile_commands.json; static names are file-local; #include read with
// tree-sitter (Neovim bundles the C parser) or a line scanner, "..."
// resolved from the file's folder, the root and root/include, <...> left
// to the compiler.

import (
	"path/filepath"
	"regexp"
	"strings"
)

func init() { Register(C) }

// C is C and C++: registered from init; a feature's part for a language is
// registered under its value (a table keyed by *Language), never by name.
var C = &Language{
	Name:    "c",
	Display: "C",
	// clangd serves the C family; nvbridge's C knowledge (identifiers,
	// includes) holds for C++ and Objective-C sources too.
	Filetypes:   []string{"c", "cpp", "objc", "objcpp"},
	Extensions:  []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp"},
	TreeSitter:  map[string]string{"": "c"}, // bundled with Neovim
	Markers:     []string{"compile_commands.json", "compile_flags.txt"},
	Macros:      true,
	ClangFormat: true,
	// clangd starts its background index about 20 ms after attaching.
	// Its tweaks come with the kind "refactor" alone; "Extract to function"
	// is offered in C++ only (clangd 14: not in C files, where
	// refactor/extract_c.go extracts).
	Servers: []ServerSpec{{Name: "clangd", Cmd: []string{"clangd"}, IndexedWith: []string{"compile_commands.json"}, RenamesFromDeclaration: true,
		ActionKinds: map[string]string{
			"Extract to function":               "refactor.extract.function",
			"Extract subexpression to variable": "refactor.extract.variable",
		}}},
	Ident: Ident{
		Keywords: WordSet(`auto break case char const continue default do double else enum extern float for goto if
			inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
			void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn
			_Static_assert _Thread_local`),
	},
	TestFile: regexp.MustCompile(`(^|/)test_[^/]*\.c$|_test\.c$`),
	Debug:    lldbDebug, // lldb.go
	Exported: func(name, declLine, _ string) bool {
		return !strings.HasPrefix(strings.TrimSpace(declLine), "static ")
	},
	Imports: ImportSyntax{
		Parse:      cIncludes,
		Write:      cWriteInclude,
		TreeSitter: "c",
		Query: `
    (preproc_include path: (string_literal (string_content) @path))
    (preproc_include path: (system_lib_string) @system)
  `,
		Resolve: func(s *Scope, from string, imp Import) []string {
			p := filepath.FromSlash(imp.Path)
			return Existing([]string{filepath.Join(filepath.Dir(from), p), filepath.Join(s.Root, p), filepath.Join(s.Root, "include", p)})
		},
		Note: "#include <...> headers are reported as external (system or -I paths are not known)",
	},
}

var cInclude = regexp.MustCompile(`^\s*#\s*include\s*(?:"([^"\n]+)"|<([^>\n]+)>)`)

// cIncludes reads #include "x.h" and #include <x.h> lines (block comments
// spanning lines are skipped).
func cIncludes(src string) []Import {
	var out []Import
	inComment := false
	for i, line := range strings.Split(src, "\n") {
		if inComment {
			end := strings.Index(line, "*/")
			if end < 0 {
				continue
			}
			inComment = false
			line = strings.Repeat(" ", end+2) + line[end+2:]
		}
		if m := cInclude.FindStringSubmatchIndex(line); m != nil {
			if m[2] >= 0 {
				out = append(out, Import{Path: line[m[2]:m[3]], Line: i, Col: m[2]})
			} else {
				out = append(out, Import{Path: line[m[4]:m[5]], Line: i, Col: m[4], System: true})
			}
			continue
		}
		if a := strings.LastIndex(line, "/*"); a >= 0 && !strings.Contains(line[a:], "*/") {
			inComment = true
		}
	}
	return out
}

func cWriteInclude(imp Import) string {
	if imp.System {
		return "#include <" + imp.Path + ">"
	}
	return `#include "` + imp.Path + `"`
}
