package lang

// Import syntax: reading a file's imports (a scanner per language, and a
// tree-sitter query where Neovim bundles the parser), writing an import
// statement, resolving an import to the workspace files it names.

import (
	"os"
	"path/filepath"
	"strings"
)

// Import is one import of a file, as written.
type Import struct {
	// Path is the import as written: "example.com/shop/orders",
	// "./orders", "shop.orders", "app.util", "util.h".
	Path string
	// Line (0-based) and Col (0-based byte column) of Path in the file.
	Line, Col int
	// System: C's <header.h>, found by the compiler, not in the workspace.
	System bool
	// Names are the imported names: Python's from-import names (also
	// candidate submodules), TypeScript's named imports.
	Names []string
	// Alias is the local name: Go's import name, Python's "as", a
	// TypeScript namespace import's "* as", Lua's local.
	Alias string
}

// ImportSyntax is how one language imports.
type ImportSyntax struct {
	// Parse reads the imports of a file's text (a scanner: tolerant of
	// errors elsewhere in the file). Nil: imports are not read.
	Parse func(src string) []Import
	// Write renders an import statement (no trailing newline).
	Write func(Import) string
	// TreeSitter and Query: the tree-sitter language and import query
	// (captures @path, and @system for compiler-resolved paths) used
	// where Neovim has the parser; "" when none.
	TreeSitter, Query string
	// Resolve returns the workspace files (or folder, see Folder) that an
	// import in file from names, most specific first; none when external.
	Resolve func(s *Scope, from string, imp Import) []string
	// ImportName is what importers of file write (a Go package's import
	// path, a Python module's dotted name). Nil: the file, relative to
	// the root.
	ImportName func(s *Scope, file string) string
	// Folder: importers import the file's folder (Go's packages), not the
	// file.
	Folder bool
	// Note is said with every analyze_dependencies answer (what the
	// resolver cannot know).
	Note string
	// LineKey normalises an import line for comparing a file's imports
	// before and after an edit ("" and false for other lines); inBlock
	// carries Go's import ( ... ) block state across lines.
	LineKey func(text string, inBlock *bool) (string, bool)
	// Members lists the members of imported packages a file's text uses,
	// for a language whose imports name a package rather than what they
	// take (Go's pkg.Name). Nil: the names an import takes come from Parse
	// (Python's from-imports, TypeScript's named imports), else the module.
	Members func(src string) []Member
	// Linked: the language's server links import paths
	// (textDocument/documentLink: gopls), which read a file's imports
	// best; Parse is the fallback.
	Linked bool
}

// Member is a use of an imported package's member.
type Member struct {
	// Import is the import's path; Symbol the member as written
	// ("orders.Process").
	Import, Symbol string
	// Line and Byte are the 0-based line and byte column of the member's
	// name (what a definition request resolves).
	Line, Byte int
}

// Scope is one workspace scan's resolution context: the root and a memo of
// what resolvers read (Go's go.mod). Not safe for concurrent use.
type Scope struct {
	Root string
	memo map[string]any
	// FS, when set, is what Go's resolver reads the disk through (its
	// go.mod files and whether its packages' folders exist): a caller
	// that knows when they change keeps them from one scan to the next
	// (refactor's renames).
	FS ScopeFS
}

// ScopeFS is the disk as a Scope's resolvers read it.
type ScopeFS interface {
	// ReadFile is os.ReadFile.
	ReadFile(path string) ([]byte, error)
	// IsDir reports whether path leads to a folder (symlinks followed, as
	// os.Stat does).
	IsDir(path string) bool
}

// NewScope starts a resolution scope at the workspace root (absolute).
func NewScope(root string) *Scope {
	return &Scope{Root: filepath.Clean(root), memo: map[string]any{}}
}

// Rel is abs relative to the root, slash separated.
func (s *Scope) Rel(abs string) string {
	r, err := filepath.Rel(s.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

// Existing keeps the candidates that are existing files, cleaned.
func Existing(cands []string) []string {
	var out []string
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			out = append(out, filepath.Clean(c))
		}
	}
	return out
}

// ImportKey normalises an import line of l (see ImportSyntax.LineKey; the
// generic rule: lines starting with import, without a final ;).
func ImportKey(l *Language, text string, inBlock *bool) (string, bool) {
	if l != nil && l.Imports.LineKey != nil {
		return l.Imports.LineKey(text, inBlock)
	}
	if strings.HasPrefix(text, "import ") || strings.HasPrefix(text, "import{") {
		return strings.TrimSuffix(text, ";"), true
	}
	return "", false
}
