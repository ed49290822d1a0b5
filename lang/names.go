package lang

// How a language's code names a declaration from elsewhere: the parts of a
// qualified name (orders.Process, Logger.clone,
// requests.sessions.Session.request, z.string) that name resolution
// matches against a declaration's module, enclosing types and name.

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// NameRules are a language's qualification rules. Each field is data the
// resolver (lsp.ResolveName) reads; nothing there compares language names.
type NameRules struct {
	// Module gives the segments of the module or package qualifying the
	// declarations of the workspace file abs, outermost first: Go's
	// package name ("zapcore"), Python's dotted module ("requests",
	// "sessions"), a TypeScript file's path without its extension (an
	// index file is its folder). Nil: the file's path without extension.
	Module func(s *Scope, abs string) []string
	// ContainerIsModule: the server's containerName of a workspace symbol
	// is its package's import path, and the name itself carries the type
	// (gopls: "Logger.clone" in "go.uber.org/zap").
	ContainerIsModule bool
	// ContainersFromDocument: the server gives workspace symbols no
	// container (tsserver), so a member's enclosing class or object is
	// read from its file's document symbols.
	ContainersFromDocument bool
	// Reexports: a package re-exports the members of its modules
	// (Python's __init__.py, TypeScript's index and export *): a
	// qualifier naming an enclosing package of the declaring module names
	// it too (requests.Session for requests.sessions.Session).
	Reexports bool
	// Aliases: a qualifier may be a local alias of a module or namespace
	// (import * as z; import numpy as np): when nothing else matches, a
	// top-level declaration matches if the qualifier is itself declared
	// in the workspace (z.string: the string zod's namespace z exports).
	Aliases bool
}

// NameRulesFor returns the qualification rules of the language of file
// (a workspace path), the generic ones for an unknown language.
func NameRulesFor(file string) NameRules {
	if l := ForFile(file); l != nil && l.Names != nil {
		return *l.Names
	}
	return NameRules{}
}

// ModuleSegments are the segments qualifying abs's declarations under r
// (the file's path without extension when r has no Module).
func (r NameRules) ModuleSegments(s *Scope, abs string) []string {
	if r.Module != nil {
		return r.Module(s, abs)
	}
	return pathSegments(s.Rel(abs))
}

// SplitName splits a written qualified name into its segments
// ("requests.sessions.Session.request"); empty segments are dropped.
func SplitName(name string) []string {
	var out []string
	for _, p := range strings.Split(name, ".") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// pathSegments is rel's path without extension, an index file being its
// folder: "src/v3/types.ts" is [src v3 types].
func pathSegments(rel string) []string {
	p := strings.TrimSuffix(rel, path.Ext(rel))
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/index"), "/__init__")
	if p == "index" || p == "__init__" || p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

// goNames: a Go declaration is qualified by its package's name (the import
// path's last element) and, for a method or field, its type.
var goNames = &NameRules{
	Module: func(s *Scope, abs string) []string {
		p := goImportName(s, abs)
		if i := strings.LastIndex(p, "/"); i >= 0 {
			p = p[i+1:]
		}
		if p == "" || p == "." {
			return nil
		}
		return []string{p}
	},
	ContainerIsModule: true,
}

// pythonNames: a Python declaration is qualified by its dotted module
// (from the import root: src/requests/sessions.py is requests.sessions),
// which its package may re-export, or by an alias the importer chose.
var pythonNames = &NameRules{
	Module: func(s *Scope, abs string) []string {
		if m := PythonModule(s, abs); m != "" {
			return strings.Split(m, ".")
		}
		return nil
	},
	Reexports: true,
	Aliases:   true,
}

// typeScriptNames: a TypeScript declaration is qualified by its class,
// namespace or object, or by a namespace import (import * as z).
var typeScriptNames = &NameRules{
	ContainersFromDocument: true,
	Reexports:              true,
	Aliases:                true,
}

// tsSourceDirs are the folders tsconfig.json (or jsconfig.json) includes,
// globs cut at their first wildcard ("src/**/*" is src): a file there
// belongs to the project whose server answers workspace symbols, where a
// root-level tool config (vitest.config.ts) may not.
func tsSourceDirs(root string) []string {
	for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue
		}
		var cfg struct {
			Include         []string `json:"include"`
			CompilerOptions struct {
				RootDir string `json:"rootDir"`
			} `json:"compilerOptions"`
		}
		if json.Unmarshal(stripJSONComments(data), &cfg) != nil {
			return nil
		}
		var out []string
		for _, inc := range append(cfg.Include, cfg.CompilerOptions.RootDir) {
			if i := strings.IndexAny(inc, "*?{"); i >= 0 {
				inc = inc[:i]
			}
			inc = strings.TrimSuffix(path.Clean(filepath.ToSlash(strings.TrimSpace(inc))), "/")
			if inc != "" && inc != "." && !strings.HasPrefix(inc, "..") && !path.IsAbs(inc) {
				out = append(out, inc)
			}
		}
		return out
	}
	return nil
}
