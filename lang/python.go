package lang

// Python: pyright; names starting with _ are private; a file's module is
// its dotted path (a package's __init__.py is the package); imports read
// by a line scanner and resolved from the file's folder (relative) or the
// root and root/src (absolute).

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

func init() { Register(Python) }

// Python is Python: registered from init; a feature's part for a language is
// registered under its value (a table keyed by *Language), never by name.
var Python = &Language{
	Name:       "python",
	Display:    "Python",
	Filetypes:  []string{"python"},
	Extensions: []string{".py", ".pyi"},
	TreeSitter: map[string]string{"": "python"},
	Grammar: &Grammar{
		Calls:        []string{"call"},
		Declarations: []string{"function_definition", "class_definition"},
		Wrappers:     []string{"decorated_definition"},
		Functions:    []string{"function_definition"},
		Returns:      []string{"return_statement"},
	},
	Markers:     []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"},
	CheckedDirs: pyrightInclude,
	Servers: []ServerSpec{{
		Name: "pyright",
		Cmd:  []string{"pyright-langserver", "--stdio"},
		// pyright's organize imports is a command (no code action), and
		// basedpyright's (a fork's) is named after it.
		OrganizeImportsCommands: map[string]string{
			"pyright":      "pyright.organizeimports",
			"basedpyright": "basedpyright.organizeimports",
		},
		Settings: map[string]any{"python": map[string]any{"analysis": map[string]any{"diagnosticMode": "openFilesOnly"}}},
		// pyright reports its analysis as untitled $/progress work ("3
		// files to analyze"), and publishes an empty list for a file as it
		// opens, before analysing it; it answers a pull of a file's
		// diagnostics once it has checked it.
		DiagnosisProgress: &DiagnosisProgress{Untitled: true, Publishes: true, Pulls: true},
	}},
	Ident: Ident{
		Marks: true,
		// Hard keywords (soft keywords such as match, case, type and _ are
		// valid names).
		Keywords: WordSet(`False None True and as assert async await break class continue def del elif else
			except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield`),
		HashComments:   true,
		TripleQuotes:   true,
		StringPrefixes: []string{"r", "u", "f", "b", "br", "rb", "fr", "rf"},
	},
	TestFile: regexp.MustCompile(`(^|/)test_[^/]*\.py$|_test\.py$`),
	Exported: func(name, _, _ string) bool { return !strings.HasPrefix(name, "_") },
	PackageOf: func(rel string) string {
		mod := strings.TrimSuffix(strings.TrimSuffix(rel, path.Ext(rel)), "/__init__")
		return strings.ReplaceAll(mod, "/", ".")
	},
	Names: pythonNames,
	Imports: ImportSyntax{
		Parse:      pyImports,
		Write:      pyWriteImport,
		Resolve:    pyResolve,
		ImportName: PythonModule,
		LineKey: func(text string, _ *bool) (string, bool) {
			if strings.HasPrefix(text, "import ") || strings.HasPrefix(text, "from ") {
				return text, true
			}
			return "", false
		},
	},
	Bases:      ClassBases,
	SubclassAt: ClassSubclassAt,
	Tests: &TestRunner{
		Name: "pytest", Commands: [][]string{{"pytest"}, {"python3-deps", "-m", "pytest"}},
		Install: "install pytest (make deps unpacks Debian's python3-pytest under .deps/ and installs .deps/bin/python3-deps; or pip install pytest)",
		Args:    pytestArgs, Output: "junit",
		IsTest: func(name string) bool { return strings.HasPrefix(name, "test") },
	},
	Debug: &DebugAdapter{
		Name: "debugpy",
		// debugpy-adapter is the wrapper make deps installs (Debian's
		// python3-debugpy unpacked into .deps/python, run by /usr/bin/python3).
		Commands:         [][]string{{"debugpy-adapter"}, {"/usr/bin/python3", "-m", "debugpy.adapter"}},
		Transport:        DebugStdio,
		Install:          "install debugpy (make deps unpacks Debian's python3-debugpy under .deps/ and installs .deps/bin/debugpy-adapter; or apt-get install python3-debugpy)",
		EvaluateContext:  "watch",
		ExceptionFilters: []string{"uncaught"},
		Launch:           pyLaunch,
		TestFromCwd:      true,
	},
}

// pyLaunch is debugpy's launch configuration: the program, or pytest -k
// for a test (of the given file or folder, else collected from Cwd).
func pyLaunch(l LaunchSpec) map[string]any {
	cfg := map[string]any{
		"request": "launch", "stopOnEntry": l.StopOnEntry,
		"console": "internalConsole", "redirectOutput": true, "justMyCode": true,
	}
	if l.Test != "" {
		cfg["module"] = "pytest"
		// No .pytest_cache written into the workspace.
		args := []string{"-q", "-p", "no:cacheprovider", "-k", l.Test}
		if l.Program != "" {
			args = append(args, l.Program)
		}
		cfg["args"] = append(args, l.Args...)
	} else {
		cfg["program"] = l.Program
		cfg["args"] = append([]string{}, l.Args...)
	}
	if l.Cwd != "" {
		cfg["cwd"] = l.Cwd
	}
	if len(l.Env) > 0 {
		env := map[string]string{}
		for k, v := range l.Env {
			env[k] = v
		}
		// The debuggee imports debugpy from the adapter's own folder (make
		// deps' .deps/python, on the wrapper's PYTHONPATH): a PYTHONPATH of
		// the user's would replace it, and the launch would wait for a
		// debuggee that cannot start. That folder stays first.
		if user, ok := env["PYTHONPATH"]; ok {
			if site := debugpySite(l.Adapter); site != "" {
				env["PYTHONPATH"] = site + string(filepath.ListSeparator) + user
			}
		}
		cfg["env"] = env
	}
	// justMyCode: the adapter's own folder (debugpy, pytest and pluggy
	// from make deps, on PYTHONPATH rather than in a site folder debugpy
	// knows) is library code, so a step out of a test does not land in
	// pytest's frames (run as -m pytest, its __main__ has no module name
	// a module rule could match).
	if site := debugpySite(l.Adapter); site != "" {
		cfg["rules"] = []map[string]any{{"path": site, "include": false}}
	}
	return cfg
}

// debugpySite is the folder holding the debugpy a wrapper adapter runs
// (.deps/bin/debugpy-adapter: .deps/python/usr/lib/python3/dist-packages),
// "" for another adapter.
func debugpySite(adapter []string) string {
	if len(adapter) == 0 || !filepath.IsAbs(adapter[0]) {
		return ""
	}
	site := filepath.Join(filepath.Dir(adapter[0]), "..", "python", "usr", "lib", "python3", "dist-packages")
	if st, err := os.Stat(filepath.Join(site, "debugpy")); err == nil && st.IsDir() {
		return filepath.Clean(site)
	}
	return ""
}

var (
	pyImport = regexp.MustCompile(`^(\s*)import\s+(.+)$`)
	pyFrom   = regexp.MustCompile(`^(\s*)from\s+(\.*[\p{L}\p{N}_.]*)\s+import\s+(.+)$`)
	pyName   = regexp.MustCompile(`^\s*([\p{L}_][\p{L}\p{N}_]*(?:\s*\.\s*[\p{L}_][\p{L}\p{N}_]*)*)(?:\s+as\s+([\p{L}_][\p{L}\p{N}_]*))?`)
)

// pyImports reads import statements: import a.b [as c], d; from .m import
// x, y; from m import (x,\n y); backslash continuations. Text inside
// triple-quoted strings and after # is ignored.
func pyImports(text string) []Import {
	lines := strings.Split(text, "\n")
	var out []Import
	inString := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if inString != "" {
			if strings.Contains(line, inString) {
				inString = ""
			}
			continue
		}
		code := stripPyComment(line)
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(code, q)%2 == 1 {
				inString = q
			}
		}
		if inString != "" && !strings.HasPrefix(strings.TrimSpace(code), "import") && !strings.HasPrefix(strings.TrimSpace(code), "from") {
			continue
		}
		// Join continuation lines: open parentheses or a trailing backslash.
		stmt, start := code, i
		for (strings.Count(stmt, "(") > strings.Count(stmt, ")") || strings.HasSuffix(strings.TrimSpace(stmt), "\\")) && i+1 < len(lines) {
			i++
			stmt = strings.TrimSuffix(strings.TrimSpace(stmt), "\\") + " " + stripPyComment(lines[i])
		}
		if m := pyFrom.FindStringSubmatchIndex(stmt); m != nil {
			mod := stmt[m[4]:m[5]]
			var names []string
			for _, n := range strings.Split(strings.Trim(strings.TrimSpace(stmt[m[6]:m[7]]), "()"), ",") {
				if f := strings.Fields(n); len(f) > 0 && f[0] != "*" {
					names = append(names, f[0])
				}
			}
			out = append(out, Import{Path: mod, Line: start, Col: m[4], Names: names})
			continue
		}
		if m := pyImport.FindStringSubmatchIndex(stmt); m != nil && start == i {
			at := m[4]
			for _, part := range strings.Split(stmt[m[4]:m[5]], ",") {
				if n := pyName.FindStringSubmatchIndex(part); n != nil {
					name := strings.Join(strings.Fields(part[n[2]:n[3]]), "")
					imp := Import{Path: name, Line: start, Col: at + n[2]}
					if n[4] >= 0 {
						imp.Alias = part[n[4]:n[5]]
					}
					out = append(out, imp)
				}
				at += len(part) + 1
			}
		}
	}
	return out
}

func stripPyComment(line string) string {
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '#':
			return line[:i]
		}
	}
	return line
}

// pyWriteImport: from m import a, b when Names are given, else import m
// [as alias].
func pyWriteImport(imp Import) string {
	if len(imp.Names) > 0 {
		return "from " + imp.Path + " import " + strings.Join(imp.Names, ", ")
	}
	if imp.Alias != "" {
		return "import " + imp.Path + " as " + imp.Alias
	}
	return "import " + imp.Path
}

func pyResolve(s *Scope, from string, imp Import) []string {
	mod := imp.Path
	var bases []string
	if strings.HasPrefix(mod, ".") {
		dots := len(mod) - len(strings.TrimLeft(mod, "."))
		base := filepath.Dir(from)
		for i := 1; i < dots; i++ {
			base = filepath.Dir(base)
		}
		bases = []string{base}
		mod = mod[dots:]
	} else {
		// Absolute imports resolve from the root and root/src.
		bases = []string{s.Root, filepath.Join(s.Root, "src")}
	}
	rel := filepath.FromSlash(strings.ReplaceAll(mod, ".", "/"))
	var cands []string
	for _, base := range bases {
		dir := filepath.Join(base, rel)
		// from pkg import sub: the submodules first (most specific).
		for _, n := range imp.Names {
			cands = append(cands, filepath.Join(dir, n+".py"), filepath.Join(dir, n, "__init__.py"))
		}
		if mod != "" {
			cands = append(cands, dir+".py", dir+".pyi", filepath.Join(dir, "__init__.py"))
		} else {
			cands = append(cands, filepath.Join(dir, "__init__.py"))
		}
	}
	return Existing(cands)
}
