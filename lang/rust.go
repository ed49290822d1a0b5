package lang

// Rust: rust-analyzer (Debian trixie's, which make deps unpacks into
// .deps/rust-analyzer), rooted by Cargo.toml or a rust-project.json (a
// project described without cargo); debugging through lldb-dap (lldb.go).

import (
	"regexp"
	"strings"
)

func init() { Register(Rust) }

// Rust is Rust: registered from init; a feature's part for a language is
// registered under its value (a table keyed by *Language), never by name.
var Rust = &Language{
	Name:       "rust",
	Display:    "Rust",
	Filetypes:  []string{"rust"},
	Extensions: []string{".rs"},
	Markers:    []string{"Cargo.toml", "rust-project.json"},
	Servers: []ServerSpec{{
		Name: "rust-analyzer",
		Cmd:  []string{"rust-analyzer"},
		// It loads the project and indexes it after attaching ($/progress
		// "Fetching", "Roots Scanned", "Indexing"): diagnostics published
		// before that are empty.
		IndexedWith: []string{"Cargo.toml", "rust-project.json"},
		// A file's syntax diagnostics, then its semantic ones, both for
		// the same version: only the last publish is complete.
		StagedPublishes: true,
		// No cargo check on save (a rust-project.json project has no
		// cargo, and check output arrives long after the native
		// diagnostics) and no build scripts or proc macros: rust-analyzer
		// would start itself again for them, and through the private
		// loader it cannot.
		Settings: map[string]any{"rust-analyzer": map[string]any{
			"checkOnSave": false,
			"cargo":       map[string]any{"buildScripts": map[string]any{"enable": false}},
			"procMacro":   map[string]any{"enable": false},
		}},
	}},
	Ident: Ident{
		Keywords: WordSet(`as break const continue crate else enum extern false fn for if impl in let loop match mod
			move mut pub ref return self Self static struct super trait true type unsafe use where while async await
			dyn abstract become box do final macro override priv typeof unsized virtual yield try`),
	},
	TestFile: regexp.MustCompile(`(^|/)tests/[^/]*\.rs$`),
	Exported: func(_, declLine, _ string) bool {
		return strings.HasPrefix(strings.TrimSpace(declLine), "pub")
	},
	Debug: lldbDebug,
}
