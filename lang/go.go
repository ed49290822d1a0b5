package lang

// Go: gopls; go/scanner tokens; capitalised names are exported; a file's
// package is its folder; imports read with go/parser and resolved through
// the module's go.mod.

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

func init() { Register(Go) }

// Go is Go: registered from init; a feature's part for a language is
// registered under its value (a table keyed by *Language), never by name.
var Go = &Language{
	Name:       "go",
	Display:    "Go",
	Filetypes:  []string{"go", "gomod"},
	Extensions: []string{".go"},
	Markers:    []string{"go.work", "go.mod"},
	// gopls runs on its defaults: it publishes only diagnostics that
	// changed, the changed files' type errors at once and its full
	// diagnosis (analyzers, importers) after its diagnosticsDelay (1 s),
	// so no publish says it is done. It is asked instead
	// (textDocument/diagnostic, which it answers from the text it holds,
	// analyzers included): the diagnostics delta of verified edits pulls
	// the files a change can affect (lsp/verify_pull.go), get_diagnostics
	// the file (verify.lua's wait_settled). Its settings
	// verboseWorkDoneProgress and diagnosticsDelay "0s" (a $/progress
	// end after each full diagnosis, run at once) cost reads: the full
	// diagnosis of an opened file competes with the first request there,
	// and of a change with its pulls.
	Servers: []ServerSpec{{Name: "gopls", Cmd: []string{"gopls"}, AnswersAfterOpen: true,
		// With verboseWorkDoneProgress (a user's gopls may set it),
		// "diagnosing ..." work ends once every file is re-diagnosed:
		// waited on instead of pulls.
		DiagnosisProgress: &DiagnosisProgress{Title: "diagnosing", Setting: []string{"gopls", "verboseWorkDoneProgress"}},
		RenameAsPrepared:  goRenameAsPrepared}},
	Ident: Ident{
		Keywords: WordSet(`break case chan const continue default defer else fallthrough for func go goto if
			import interface map package range return select struct switch type var`),
		Invalid:    map[string]string{"_": "_ is the blank identifier"},
		Tokens:     goTokens,
		RawStrings: true,
	},
	TestFile: regexp.MustCompile(`_test\.go$`),
	Exported: func(name, _, _ string) bool {
		r, _ := utf8.DecodeRuneInString(name)
		return unicode.IsUpper(r)
	},
	PackageOf: path.Dir,
	Names:     goNames,
	Imports: ImportSyntax{
		Parse:      goImports,
		Write:      goWriteImport,
		Resolve:    goResolve,
		ImportName: goImportName,
		Folder:     true,
		Note:       "Go importers import the package (the folder), not one file: every file of {package} is imported by them",
		LineKey:    goImportKey,
		Members:    goMembers,
		Linked:     true,
	},
	Format: func(src string) (string, error) {
		out, err := format.Source([]byte(src))
		return string(out), err
	},
	FormatKeeps: goFormatKeepsOf,
	CheckSyntax: func(file, src string) error {
		_, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution)
		return err
	},
	SkipDirs: []string{"testdata"},
	Tests: &TestRunner{
		Name: "go test", Commands: [][]string{{"go"}}, Install: "install Go and put go on PATH",
		Args: goTestArgs, Output: "go-test-json", ByPackage: true,
		IsTest: func(name string) bool { return isGoTestName(name) },
	},
	Debug: &DebugAdapter{
		Name:            "dlv",
		Commands:        [][]string{{"dlv", "dap", "--listen", "127.0.0.1:0"}},
		Transport:       DebugTCP,
		AddrPattern:     regexp.MustCompile(`DAP server listening at: (\S+:\d+)`),
		Install:         "install dlv (make deps installs it under .deps/bin; or go install github.com/go-delve/delve/cmd/dlv@v1.27.2) and make sure go is on PATH",
		EvaluateContext: "watch",
		Launch:          goLaunch,
	},
}

// goRenameAsPrepared is gopls's RenameAsPrepared: any line but a package
// clause (whose prepareRename placeholder is the package's path, not its
// name). A line that names package anywhere is taken for one.
func goRenameAsPrepared(line string) bool {
	return !strings.Contains(line, "package")
}

// goLaunch is dlv's launch configuration: debug mode for a program, test
// mode (go test -run) for a test of the package folder.
func goLaunch(l LaunchSpec) map[string]any {
	cfg := map[string]any{
		"request": "launch", "stopOnEntry": l.StopOnEntry,
		// dlv deletes the binary when the session ends; keep it out
		// of the workspace.
		"output": filepath.Join(l.TempDir, "__debug_bin"),
		// The program's stdout/stderr as output events, not dlv's own.
		"outputMode": "remote",
	}
	args := []string{}
	if l.Test != "" {
		cfg["mode"] = "test"
		cfg["program"] = DirOf(l.Program, l.ProgramDir)
		args = append(args, "-test.run", goTestPattern(l.Test))
	} else {
		cfg["mode"] = "debug"
		cfg["program"] = l.Program
	}
	cfg["args"] = append(args, l.Args...)
	if l.Cwd != "" {
		cfg["cwd"] = l.Cwd
	}
	if len(l.Env) > 0 {
		cfg["env"] = l.Env
	}
	return cfg
}

var goIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// goTestPattern anchors a plain test name (TestX runs TestX, not TestXY);
// anything else (a regexp, TestX/sub) is passed as given.
func goTestPattern(name string) string {
	if goIdent.MatchString(name) {
		return "^" + name + "$"
	}
	return name
}

// goTokens lists the identifiers of a Go text. The scanner reads src in
// place (it never writes to it): a copy of every file the left-behind scan
// lexes was most of what a first scan of a large workspace allocated.
func goTokens(src string) []Span {
	fset := token.NewFileSet()
	file := fset.AddFile("x.go", -1, len(src))
	var s scanner.Scanner
	s.Init(file, unsafe.Slice(unsafe.StringData(src), len(src)), func(token.Position, string) {}, 0)
	var out []Span
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.IDENT {
			off := file.Offset(pos)
			out = append(out, Span{off, off + len(lit)})
		}
	}
}

// goImports reads a Go file's imports with go/parser (imports only, so a
// file with errors further down still answers).
func goImports(src string) []Import {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ImportsOnly|parser.SkipObjectResolution)
	if f == nil && err != nil {
		return nil
	}
	var out []Import
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		pos := fset.Position(spec.Path.Pos())
		imp := Import{Path: p, Line: pos.Line - 1, Col: pos.Column} // column after the quote
		if spec.Name != nil {
			imp.Alias = spec.Name.Name
		}
		out = append(out, imp)
	}
	return out
}

func goWriteImport(imp Import) string {
	if imp.Alias != "" {
		return "import " + imp.Alias + " " + strconv.Quote(imp.Path)
	}
	return "import " + strconv.Quote(imp.Path)
}

func goImportKey(text string, inBlock *bool) (string, bool) {
	switch {
	case text == "import (":
		*inBlock = true
		return "", false
	case *inBlock && text == ")":
		*inBlock = false
		return "", false
	case strings.HasPrefix(text, "import "):
		return strings.TrimSpace(strings.TrimPrefix(text, "import ")), true
	case *inBlock && strings.Contains(text, `"`):
		return text, true
	}
	return "", false
}

type goModule struct{ path, dir string }

// goModuleOf finds the module holding dir (go.mod upward, inside the root).
func goModuleOf(s *Scope, dir string) goModule {
	key := "go.mod:" + dir
	if m, ok := s.memo[key].(goModule); ok {
		return m
	}
	// Every folder walked through is answered too: the walk from a folder
	// is the rest of the walk from any folder below it, and a scope
	// resolving the imports of files in several folders of a module (a
	// rename's scan: every rename) read its go.mod once for each.
	var found goModule
	var walked []string
	for d := dir; ; {
		if m, ok := s.memo["go.mod:"+d].(goModule); ok {
			found = m
			break
		}
		walked = append(walked, d)
		read := readGoMod
		if s.FS != nil {
			read = s.FS.ReadFile
		}
		data, err := read(filepath.Join(d, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
					found = goModule{path: strings.Trim(f[1], `"`), dir: d}
					break
				}
			}
			if found.dir != "" {
				break
			}
		}
		parent := filepath.Dir(d)
		if d == s.Root || parent == d || !strings.HasPrefix(parent, s.Root) {
			break
		}
		d = parent
	}
	for _, d := range walked {
		s.memo["go.mod:"+d] = found
	}
	return found
}

// readGoMod is os.ReadFile (a test counts the reads).
var readGoMod = os.ReadFile

func goResolve(s *Scope, from string, imp Import) []string {
	m := goModuleOf(s, filepath.Dir(from))
	if m.path == "" || (imp.Path != m.path && !strings.HasPrefix(imp.Path, m.path+"/")) {
		return nil
	}
	dir := filepath.Join(m.dir, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(imp.Path, m.path), "/")))
	// A package imported by several files is looked at once per scope.
	key := "go.dir:" + dir
	isDir, ok := s.memo[key].(bool)
	if !ok {
		if s.FS != nil {
			isDir = s.FS.IsDir(dir)
		} else {
			st, err := os.Stat(dir)
			isDir = err == nil && st.IsDir()
		}
		s.memo[key] = isDir
	}
	if isDir {
		return []string{dir}
	}
	return nil
}

// goImportName is the import path of file's package.
func goImportName(s *Scope, file string) string {
	m := goModuleOf(s, filepath.Dir(file))
	if m.path == "" {
		return path.Dir(s.Rel(file))
	}
	r, err := filepath.Rel(m.dir, filepath.Dir(file))
	if err != nil || r == "." {
		return m.path
	}
	return m.path + "/" + filepath.ToSlash(r)
}

// goMembers lists the package members a Go file uses (pkg.Name, the
// first use of each), in source order. Blank and dot imports name no
// members.
func goMembers(src string) []Member {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	_ = err // a file with errors elsewhere still has its imports and most uses
	byName := map[string]string{}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		// The package name as conventionally derived from the path:
		// example.com/mod/v2 is package mod, gopkg.in/yaml.v3 is yaml.
		name := path.Base(p)
		if isMajorVersion(name) {
			name = path.Base(path.Dir(p))
		}
		if i := strings.Index(name, ".v"); i > 0 && isMajorVersion(name[i+1:]) {
			name = name[:i]
		}
		name = strings.ReplaceAll(name, "-", "_")
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if name == "_" || name == "." {
			continue
		}
		byName[name] = p
	}
	// A local declaration shadowing an import name is rare in real code;
	// the server's answer is what counts either way.
	seen := map[string]bool{}
	var uses []Member
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		p, ok := byName[x.Name]
		if !ok {
			return true
		}
		key := x.Name + "." + sel.Sel.Name
		if !seen[key] {
			seen[key] = true
			pos := fset.Position(sel.Sel.Pos())
			uses = append(uses, Member{Import: p, Symbol: key, Line: pos.Line - 1, Byte: pos.Column - 1})
		}
		return true
	})
	return uses
}

func isMajorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	_, err := strconv.Atoi(s[1:])
	return err == nil
}

// isGoTestName: TestXxx, Test, Test_x (go test's rule: what follows Test
// does not start with a lower-case letter), and examples and fuzz tests
// (their seeds) by the same rule: what go test -run runs; benchmarks need
// -bench.
func isGoTestName(name string) bool {
	for _, p := range []string{"Test", "Example", "Fuzz"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			return rest == "" || !unicode.IsLower([]rune(rest)[0])
		}
	}
	return false
}
