// Package lang is nvbridge's registry of languages: everything it knows
// about one source language lives in one file of this package (go.go,
// python.go, typescript.go, c.go, lua.go, rust.go), as one Language value
// registered from that file's init. The rest of nvbridge asks the registry
// (ForFile, ForFiletype, ByName, ServerSpecs) and never switches on a
// language name.
//
// The registry is data plus pure functions: no Neovim, no LSP, no I/O
// beyond reading files a resolver names (go.mod, candidate import targets).
// It sits at the bottom of the import graph beside apierr and workspace.
//
// Adding a language: one file here declaring its Language (see c.go for a
// small complete one), a sample under testdata/samples/NAME with its root
// marker, and tests through nvbridge on that sample (lsp/*_NAME_test.go);
// to debug it, a Debug entry (go.go and python.go have one) and a test in
// dap/.
package lang

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Language is everything nvbridge knows about one source language. Only
// Name is required; a nil function means "not known for this language" and
// the callers fall back to the generic rule documented on the field.
type Language struct {
	// Name is the registry key, lower case ("go", "typescript"); tools
	// report it (analyze_dependencies' language).
	Name string
	// Display names the language in messages ("TypeScript/JavaScript").
	Display string
	// Filetypes are the Neovim filetypes of its buffers (and of its
	// servers' buffers: gopls also serves gomod).
	Filetypes []string
	// Extensions are its source files' extensions, lower case with the dot.
	Extensions []string
	// Markers are root markers: the nearest folder holding one is a
	// server's root; one in the workspace root means the workspace has
	// this language.
	// JSFormatters: the project's biome and prettier settings say how its
	// files are indented (TypeScript, JavaScript).
	JSFormatters bool
	// ClangFormat: the project's .clang-format says how its files are
	// indented (IndentWidth, UseTab, BasedOnStyle's defaults).
	ClangFormat bool
	// Macros: its files hold C preprocessor macros, whose bodies a
	// server's rename leaves as they are (refactor renames a macro body
	// that names the renamed symbol).
	Macros  bool
	Markers []string
	// Servers are the language servers the embedded Neovim starts for its
	// buffers, first installed wins. Markers and Filetypes come from the
	// Language (ServerSpecs fills them).
	Servers []ServerSpec

	// Ident is its identifier syntax: what may appear in a name, the
	// keywords a new name may not be, and where strings and comments are
	// (for finding identifier tokens).
	Ident Ident

	// TestFile matches its test files by name (a workspace path, slash
	// separated). Test folders (test/, tests/, __tests__/, spec/) count
	// for every language.
	TestFile *regexp.Regexp
	// Exported decides whether a declared name is visible outside its
	// package or module (declLine is the declaration's line, kind the LSP
	// symbol kind in lower case). Nil: a name not starting with _.
	Exported func(name, declLine, kind string) bool
	// PackageOf names the package or module a workspace file belongs to
	// (slash separated, relative to the root). Nil: the path without its
	// extension.
	PackageOf func(rel string) string
	// Names are its qualification rules: how its code names a declaration
	// from elsewhere (names.go). Nil: the generic rules (a file's path,
	// the server's container).
	Names *NameRules
	// SourceDirs are the folders (relative to root, slash separated) its
	// project file says hold the sources (TypeScript: tsconfig.json's
	// include): a workspace search starts its server on a file there.
	// Nil: anywhere under the root.
	SourceDirs func(root string) []string
	// CheckedDirs are the folders (relative to root, slash separated) the
	// project's own type checker covers (pyright's include in
	// pyrightconfig.json or pyproject.toml's [tool.pyright]): an error the
	// server reports in an open file outside them (requests' tests, whose
	// imports pyright resolves to its bundled stubs) is not the project's.
	// Nil or none: every file.
	CheckedDirs func(root string) []string

	// Imports is its import syntax.
	Imports ImportSyntax

	// Bases parses the base list of the class declared at the start of
	// lines (type hierarchy fallback, for servers without
	// typeHierarchy); SubclassAt reports whether byte b of line sits in
	// the base list of a class declared on that line. Nil: the language
	// has no class syntax nvbridge reads.
	Bases      func(lines []string) []BaseRef
	SubclassAt func(line string, b int) (name string, at int, ok bool)

	// Format is the language's own formatter (Go: gofmt), which every
	// refactoring leaves the files it touches clean with where they were
	// clean before; nil when nvbridge runs none.
	Format func(src string) (string, error)
	// FormatKeeps parses src once and returns what reports, without
	// formatting, that Format leaves a formatted src as it is once the
	// identifiers starting at the byte offsets at are renamed to renamed
	// (another width, another case): none lies where the formatter aligns
	// columns or lays out by width, nor in a comment it would print
	// otherwise renamed (Go: a doc comment go/doc/comment would print
	// again otherwise). False when it cannot tell (src does not parse, an
	// offset is on no identifier). A rename parses the file it was asked
	// in while the server computes it. name, when not empty, is the name
	// the renames replace: src may then be parsed only where it mentions
	// it (and the rest once an offset lies there). Nil: not known (Format
	// decides).
	FormatKeeps func(src, name string) func(at []int, renamed string) bool
	// CheckSyntax reports whether src still parses (after nvbridge renamed
	// an extracted symbol). Nil: not checked.
	CheckSyntax func(file, src string) error

	// SkipDirs are folder names a workspace scan of this language skips,
	// beyond hidden, vendored and generated ones (Go: testdata).
	SkipDirs []string

	// Debug is its debug adapter (DAP) and launch configuration. Nil: no
	// debugging for this language.
	Debug *DebugAdapter

	// Tests is its test runner (run_tests). Nil: its tests are not run.
	Tests *TestRunner

	// Grammar names the node types of its tree-sitter grammar that the
	// refactorings ask about (package syntax). Nil: none known.
	Grammar *Grammar

	// TreeSitter names the tree-sitter language (parser) of its files by
	// extension (lower case, with the dot); the "" key covers every other
	// extension. Nil: no tree-sitter parser (Go uses go/parser). Neovim
	// bundles c and lua; `make deps` builds python, typescript and tsx
	// into .deps/parser (package syntax, lua/nvbridge/syntax.lua).
	TreeSitter map[string]string
}

// TreeSitterFor names the tree-sitter language that parses path, "" when
// its language has none (or is unknown).
func TreeSitterFor(path string) string {
	l := ForFile(path)
	if l == nil || l.TreeSitter == nil {
		return ""
	}
	if ts, ok := l.TreeSitter[strings.ToLower(filepath.Ext(path))]; ok {
		return ts
	}
	return l.TreeSitter[""]
}

// ForTreeSitter returns the language parsed by the tree-sitter language ts
// ("tsx": TypeScript), nil when none is.
func ForTreeSitter(ts string) *Language {
	for _, l := range registered {
		for _, name := range l.TreeSitter {
			if name == ts {
				return l
			}
		}
	}
	return nil
}

// Grammar names the node types of one tree-sitter grammar that the
// refactorings ask about.
type Grammar struct {
	// Calls are call nodes; each has the fields "function" (or
	// "constructor") and "arguments".
	Calls []string
	// Declarations declare a function, method, class, type or variable.
	Declarations []string
	// Wrappers wrap a declaration with what belongs to it (decorators,
	// export): a declaration whose parent is one is reported as that parent.
	Wrappers []string
	// Functions are function definitions (with "name", "parameters",
	// "body"), Returns return statements.
	Functions []string
	Returns   []string
}

// TreeSitterLanguages lists every tree-sitter language the registry names,
// sorted.
func TreeSitterLanguages() []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range registered {
		for _, ts := range l.TreeSitter {
			if ts != "" && !seen[ts] {
				seen[ts] = true
				out = append(out, ts)
			}
		}
	}
	sort.Strings(out)
	return out
}

// DebugTransport is how nvbridge talks to a debug adapter.
type DebugTransport string

const (
	// DebugStdio: DAP over the adapter's stdin/stdout.
	DebugStdio DebugTransport = "stdio"
	// DebugTCP: the adapter listens on a loopback port it prints on stdout
	// (matched by DebugAdapter.AddrPattern); nvbridge connects to it.
	DebugTCP DebugTransport = "tcp"
)

// DebugAdapter describes a language's debug adapter: how to start and
// reach it and how to launch a program or a test with it. It is data and
// one pure function (Launch); package dap runs it.
type DebugAdapter struct {
	// Name is the adapter's name in results ("dlv", "debugpy").
	Name string
	// Commands are the ways to start it, tried in order: the first whose
	// executable is found (on PATH, .deps/bin first under make) is used.
	Commands  [][]string
	Transport DebugTransport
	// AddrPattern finds host:port in the adapter's stdout (DebugTCP only).
	AddrPattern *regexp.Regexp
	// Install is the remediation when no command is found.
	Install string
	// Launch builds the launch request's arguments.
	Launch func(LaunchSpec) map[string]any
	// TestFromCwd: a test asked for without a program is collected from
	// the working directory (pytest), so LaunchSpec.Program is left empty;
	// otherwise the workspace root is the program (Go: the root package).
	TestFromCwd bool
	// EvaluateContext is the evaluate request's context for expressions.
	EvaluateContext string
	// ExceptionFilters are set with setExceptionBreakpoints at start, so
	// the program stops where an uncaught exception is raised (dlv stops
	// on a panic by itself).
	ExceptionFilters []string
}

// LaunchSpec is what a launch configuration is built from; paths are
// absolute and already confined to the workspace.
type LaunchSpec struct {
	// Program is the file or folder to run, or for a test the package
	// folder (Go) or the test file or folder (Python); empty for a test
	// of a TestFromCwd adapter asked for without a program.
	Program    string
	ProgramDir bool
	// Test is a test name (go test -run, pytest -k); empty to run Program.
	Test        string
	Args        []string
	Env         map[string]string
	Cwd         string
	StopOnEntry bool
	// TempDir is the session's private folder (dlv's binary goes there).
	TempDir string
	// Adapter is the adapter's command as started, its program's full
	// path first ("" before it is known).
	Adapter []string
}

// Debuggable returns the languages with a debug adapter, by name.
func Debuggable() []*Language {
	var out []*Language
	for _, l := range registered {
		if l.Debug != nil {
			out = append(out, l)
		}
	}
	return out
}

// DirOf is path when it names a folder, else its folder.
func DirOf(path string, isDir bool) string {
	if isDir {
		return path
	}
	return filepath.Dir(path)
}

// ServerSpec describes a language server the embedded Neovim starts for
// buffers of some filetypes (lua/nvbridge/servers.lua). It is data: it
// travels to Lua as JSON, never as source.
type ServerSpec struct {
	Name      string   `json:"name"`
	Cmd       []string `json:"cmd"`
	Filetypes []string `json:"filetypes"`
	// Markers are root markers (files or folders); the nearest folder
	// holding one is the server's root, else the workspace root.
	Markers []string `json:"markers,omitempty"`
	// Env is added to the server's environment (vim.lsp.start cmd_env).
	Env map[string]string `json:"env,omitempty"`
	// InitOptions and Settings are sent as the server's
	// initializationOptions and workspace/configuration settings.
	InitOptions map[string]any `json:"init_options,omitempty"`
	Settings    map[string]any `json:"settings,omitempty"`
	// FormattingSection is the settings section where the server reads a
	// document's formatting options ({tabSize, insertSpaces}, asked with
	// workspace/configuration: typescript-language-server's
	// "formattingOptions"); nvbridge fills it with the project's
	// indentation (ProjectIndent). "" when the server reads none.
	FormattingSection string `json:"-"`
	// IndexedWith are files that, in the server's root, make it index the
	// workspace in the background right after attaching, announced with
	// $/progress (clangd with a compile_commands.json): until that work
	// has begun and ended once, answers about other files are incomplete,
	// so requests wait for it (bounded, like any progress).
	IndexedWith []string `json:"indexed_with,omitempty"`
	// ClientNames are the other names a user's Neovim configuration gives
	// clients of this server, or of a server that behaves the same way
	// (attached mode: nvim-lspconfig's ts_ls and tsserver; vtsls wraps the
	// same tsserver). The Lua side finds a client's spec by its name
	// (servers.lua: spec_of), this one's or one of these.
	ClientNames []string `json:"client_names,omitempty"`
	// StagedPublishes: the server publishes one text's diagnostics in
	// stages, without a document version (typescript-language-server:
	// tsserver's syntax, semantic and suggestion checks, each published as
	// it ends): only the last publish is complete and nothing marks it, so
	// a wait for them ends after a quiet spell.
	StagedPublishes bool `json:"staged_publishes,omitempty"`
	// DiagnosticsSync are workspace/executeCommand requests that answer the
	// server's diagnostics of a document's current text at once (each a
	// list, or a table whose body is the list; "${uri}" in the arguments
	// stands for the document's URI). A staged publisher with them is asked
	// after a change: when every answer is empty and Neovim holds none of
	// its diagnostics, no publish is waited for (the server publishes
	// nothing for a file that stays clean).
	DiagnosticsSync []ServerCommand `json:"diagnostics_sync,omitempty"`
	// DiagnosisProgress says how the server reports each diagnosis run as
	// $/progress work, when it does: a verified change waits for those runs
	// to end (gopls publishes only the diagnostics that changed, so no
	// publish may come for a file it re-checked).
	DiagnosisProgress *DiagnosisProgress `json:"diagnosis_progress,omitempty"`
	// RenameHints is a request the server sends while a command runs to
	// name the position of a symbol the command introduced, for the client
	// to rename (typescript-language-server's _typescript.rename after an
	// extract): captured with the command's edits.
	RenameHints string `json:"rename_hints,omitempty"`
	// RenamesFromDeclaration: the server renames a symbol across files
	// only when asked at its declaration in a header (clangd 14: asked at
	// luaD_throw's definition in ldo.c it renames ldo.c alone, and Lua no
	// longer links; asked at ldo.h's declaration, all eight files). A
	// rename elsewhere is asked at the declaration the server names, when
	// that lies in another workspace file.
	RenamesFromDeclaration bool `json:"-"`
	// RenameAsPrepared: where the server renames, its edit at the position
	// replaces the very name its prepareRename gives (range and
	// placeholder), and where it cannot rename, its rename fails as well
	// (gopls: both make the same checks, checkRenamable). Its
	// prepareRename is then asked only when the rename fails, or gives no
	// edit replacing the name at the position with the new one, or on a
	// line this reports false for (gopls: a package clause, whose
	// placeholder is the package's path): about 1.3 ms of a zap rename
	// preview (gopls takes the two requests one after the other). nil:
	// prepareRename is asked with every rename.
	RenameAsPrepared func(line string) bool `json:"-"`
	// AnswersAfterOpen: the server answers a request about a file sent
	// after that file's didOpen from the opened text, and holds requests
	// until its own workspace load has ended (gopls: every request waits
	// for the initial load inside the server). Navigation then sends its
	// request at once instead of waiting for the server's first publish of
	// diagnostics for a newly opened file (which, for gopls, comes only
	// after type-checking the file's package: 20-100 ms per file).
	AnswersAfterOpen bool `json:"-"`
	// OrganizeImportsCommands: the server organizes a document's imports
	// with a workspace/executeCommand command (the document's URI its one
	// argument), not a code action (pyright's CLI server offers no
	// source.organizeImports action): the command by the name of the
	// client that runs it, the server's own or a fork's that names its
	// commands after itself (basedpyright). refactor.OrganizeImports runs
	// it when the server offers no such action.
	OrganizeImportsCommands map[string]string `json:"-"`
	// ActionKinds: the server gives refactorings only the broad kind
	// "refactor" (clangd's tweaks): the precise kind each title stands for
	// ("Extract to function": refactor.extract.function), so a request for
	// that kind finds it.
	ActionKinds map[string]string `json:"-"`
}

// ServerCommand is a workspace/executeCommand request to a server.
type ServerCommand struct {
	Command   string `json:"command"`
	Arguments []any  `json:"arguments"`
}

// DiagnosisProgress: a server reports each diagnosis run as $/progress work
// whose title starts with Title, once Setting (a path into its settings)
// is true.
type DiagnosisProgress struct {
	// Title begins the title of the server's diagnosis work ("" with
	// Untitled: the server's work without a title, pyright's analysis).
	Title   string   `json:"title"`
	Setting []string `json:"setting"`
	// Untitled: the server's work whose title is empty is its diagnosis.
	Untitled bool `json:"untitled,omitempty"`
	// Publishes: the server also publishes every open file it re-checked,
	// and may publish a file's version before diagnosing it (pyright: an
	// empty list when a file opens, its analysis's results later): both
	// the publishes and the end of its runs are waited for.
	Publishes bool `json:"publishes,omitempty"`
	// Pulls: the server answers textDocument/diagnostic for a file once
	// it has checked the file's current text (pyright, even though the
	// client declares no pull support): the wait asks, so a file just
	// opened or changed counts as diagnosed on the answer rather than
	// after a quiet spell (pyright checked requests' tests/test_utils.py
	// 7 s after its first, empty, publish, with no other publish between).
	Pulls bool `json:"pulls,omitempty"`
}

// BaseRef is a base type named in a class header: its line (index into
// the header's lines), byte offset and name.
type BaseRef struct {
	Line int
	Byte int
	Name string
}

var registered []*Language

// Register adds a language; each language file calls it from init. It
// panics on a duplicate name, extension or filetype (a programming error,
// caught by any test run).
func Register(l *Language) {
	for _, o := range registered {
		if o.Name == l.Name {
			panic("lang: " + l.Name + " registered twice")
		}
		for _, e := range l.Extensions {
			if contains(o.Extensions, e) {
				panic("lang: extension " + e + " of " + l.Name + " already belongs to " + o.Name)
			}
		}
		for _, ft := range l.Filetypes {
			if contains(o.Filetypes, ft) {
				panic("lang: filetype " + ft + " of " + l.Name + " already belongs to " + o.Name)
			}
		}
	}
	registered = append(registered, l)
	sort.SliceStable(registered, func(i, j int) bool { return registered[i].Name < registered[j].Name })
}

// All returns the registered languages, by name.
func All() []*Language { return registered }

// ByName returns the language registered under name, nil when none.
func ByName(name string) *Language {
	for _, l := range registered {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// ForFiletype returns the language of a Neovim filetype, nil when none.
func ForFiletype(ft string) *Language {
	if ft == "" {
		return nil
	}
	for _, l := range registered {
		if contains(l.Filetypes, ft) {
			return l
		}
	}
	return nil
}

// ForFile returns the language of a file by its extension, nil when none.
func ForFile(file string) *Language {
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(file, "\\", "/")))
	if ext == "" {
		return nil
	}
	for _, l := range registered {
		if contains(l.Extensions, ext) {
			return l
		}
	}
	return nil
}

// ServerSpecs lists every language's servers, Markers and Filetypes filled
// from their language, in registry order: what servers.lua starts.
func ServerSpecs() []ServerSpec {
	var out []ServerSpec
	for _, l := range registered {
		for _, s := range l.Servers {
			if len(s.Filetypes) == 0 {
				s.Filetypes = l.Filetypes
			}
			if len(s.Markers) == 0 {
				s.Markers = l.Markers
			}
			out = append(out, s)
		}
	}
	return out
}

// OrganizeImportsCommand is the command that organizes a document's
// imports for the server whose client is named client (a spec's
// OrganizeImportsCommands), ok false when no spec has one.
func OrganizeImportsCommand(client string) (string, bool) {
	for _, l := range registered {
		for _, s := range l.Servers {
			if cmd, ok := s.OrganizeImportsCommands[client]; ok {
				return cmd, true
			}
		}
	}
	return "", false
}

// ActionKind is the precise kind of the named server's code action titled
// title (a spec's ActionKinds), ok false when its spec names none.
func ActionKind(server, title string) (string, bool) {
	for _, l := range registered {
		for _, s := range l.Servers {
			if s.Name == server {
				k, ok := s.ActionKinds[title]
				return k, ok
			}
		}
	}
	return "", false
}

// RenamesFromDeclaration reports whether the server whose client is named
// client renames across files only from a symbol's declaration (a spec's
// RenamesFromDeclaration, by its name or one of its ClientNames).
func RenamesFromDeclaration(client string) bool {
	for _, l := range registered {
		for _, s := range l.Servers {
			if s.RenamesFromDeclaration && (s.Name == client || slices.Contains(s.ClientNames, client)) {
				return true
			}
		}
	}
	return false
}

// RenameAsPrepared reports whether the server whose client is named
// client renames at a position on line as its prepareRename would have it
// (a spec's RenameAsPrepared, by its name or one of its ClientNames).
func RenameAsPrepared(client, line string) bool {
	for _, l := range registered {
		for _, s := range l.Servers {
			if s.RenameAsPrepared != nil && (s.Name == client || slices.Contains(s.ClientNames, client)) {
				return s.RenameAsPrepared(line)
			}
		}
	}
	return false
}

// RenamesAsPrepared reports whether one of l's servers renames as its
// prepareRename would have it (ServerSpec.RenameAsPrepared): a rename in
// l's files is asked without prepareRename, which is asked after it only
// when needed.
func (l *Language) RenamesAsPrepared() bool {
	return slices.ContainsFunc(l.Servers, func(s ServerSpec) bool { return s.RenameAsPrepared != nil })
}

// RenamesFromDeclaration reports whether one of l's servers renames
// across files only from a symbol's declaration (a rename in l's files is
// then asked where the symbol is declared).
func (l *Language) RenamesFromDeclaration() bool {
	return slices.ContainsFunc(l.Servers, func(s ServerSpec) bool { return s.RenamesFromDeclaration })
}

// ServerSpecsFor is ServerSpecs for the workspace at root: a spec with a
// FormattingSection gets the project's indentation there (ProjectIndent
// of its language) as {tabSize, insertSpaces}.
func ServerSpecsFor(root string) []ServerSpec {
	var out []ServerSpec
	i := 0
	specs := ServerSpecs()
	for _, l := range registered {
		for range l.Servers {
			s := specs[i]
			i++
			if s.FormattingSection != "" {
				if in, ok := ProjectIndent(root, l); ok {
					settings := map[string]any{}
					for k, v := range s.Settings {
						settings[k] = v
					}
					settings[s.FormattingSection] = map[string]any{"tabSize": in.Width, "insertSpaces": !in.Tabs}
					s.Settings = settings
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// AnswersAfterOpen reports whether the named server's spec says it
// answers requests about a file right after its didOpen
// (ServerSpec.AnswersAfterOpen). Unknown names (a user's own client name in
// attached mode) answer false: the wait is the safe default.
func AnswersAfterOpen(server string) bool {
	for _, l := range registered {
		for _, s := range l.Servers {
			if s.Name == server {
				return s.AnswersAfterOpen
			}
		}
	}
	return false
}

// ServerLanguage returns the language whose servers include the named one.
func ServerLanguage(server string) *Language {
	for _, l := range registered {
		for _, s := range l.Servers {
			if s.Name == server {
				return l
			}
		}
	}
	return nil
}

// DisplayName names l in messages ("this language" for nil).
func (l *Language) DisplayName() string {
	if l == nil {
		return "this language"
	}
	if l.Display != "" {
		return l.Display
	}
	return l.Name
}

// testFolders are test folders of every language.
var testFolders = regexp.MustCompile(`(^|/)(tests?|__tests__|spec)/`)

// IsTestFile reports whether a workspace path names a test file: in a test
// folder, or named as its language's tests are.
func IsTestFile(file string) bool {
	file = path.Clean(strings.ReplaceAll(file, "\\", "/"))
	if testFolders.MatchString(file) {
		return true
	}
	l := ForFile(file)
	return l != nil && l.TestFile != nil && l.TestFile.MatchString(file)
}

// IsExported decides visibility of a name declared in file (see
// Language.Exported).
func IsExported(file, name, declLine, kind string) bool {
	if name == "" {
		return false
	}
	if l := ForFile(file); l != nil && l.Exported != nil {
		return l.Exported(name, declLine, kind)
	}
	return !strings.HasPrefix(name, "_")
}

// PackageOf names the package or module of a workspace file (see
// Language.PackageOf).
func PackageOf(rel string) string {
	if l := ForFile(rel); l != nil && l.PackageOf != nil {
		return l.PackageOf(rel)
	}
	return strings.TrimSuffix(rel, path.Ext(rel))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// SkipDir reports whether a workspace scan for l's files skips a folder
// named name: hidden, vendored (node_modules, vendor), generated
// (__pycache__), or one of l's SkipDirs.
func (l *Language) SkipDir(name string) bool {
	switch {
	case strings.HasPrefix(name, "."), name == "node_modules", name == "vendor", name == "__pycache__":
		return true
	}
	return l != nil && contains(l.SkipDirs, name)
}
