// Package layering holds TestLayering, which checks the import rules of
// docs/architecture.md against the module's code.
package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// common are the packages every layer may import (architecture.md: apierr,
// workspace and lang, and the small internal helpers listed last).
var common = []string{"apierr", "workspace", "lang",
	"internal/safego", "internal/progress", "internal/memo", "internal/tailbuf", "internal/rawio"}

// layers is the layer table of docs/architecture.md: for each package of the
// module (by its path in the module), the module's packages its non-test
// files may import. A package missing here fails the test until it is given
// its place, here and on the architecture page.
var layers = map[string][]string{
	// The bottom: pure or data-only packages.
	"apierr":            nil,
	"lang":              {"apierr"}, // data and pure functions
	"preview":           {"apierr"}, // PURE: no Neovim, no I/O
	"diagdelta":         {"apierr"}, // PURE
	"websearch":         {"apierr"},
	"workspace":         {"apierr", "internal/memo"},
	"lua":               nil, // the embedded Lua sources
	"internal/memo":     nil,
	"internal/progress": nil,
	"internal/tailbuf":  nil,
	"internal/rawio":    nil,
	"internal/safego":   {"apierr"},
	"internal/memtrim":  {"internal/safego"},

	// Neovim, then what talks to it.
	"nvim":   with("lua"),
	"syntax": with("nvim"),
	"lsp":    with("nvim", "preview", "syntax", "diagdelta"),
	"dap":    with("nvim"),
	"edit":   with("nvim", "preview", "diagdelta"),

	// The refactorings: plans from lsp's answers and the code's syntax.
	"refactor": with("lsp", "nvim", "preview", "syntax"),
	// Running tests: which tests reach a symbol or a change (lsp), then
	// the language's runner.
	"testrun": with("lsp"),
	// What a working tree changed (git, lsp's symbols and impact, the
	// check's diagnostics).
	"review": with("lsp", "diagdelta", "preview"),

	// The top: tool handlers and the command.
	"tools":        with("refactor", "testrun", "review", "lsp", "dap", "edit", "nvim", "preview", "syntax", "diagdelta", "websearch"),
	"cmd/nvbridge": with("internal/memtrim", "tools", "refactor", "testrun", "review", "lsp", "dap", "edit", "nvim", "preview", "syntax", "diagdelta", "websearch"),

	// Test-only packages: anything of the module, and no production package
	// imports them (testOnly).
	"internal/testenv":     anything,
	"internal/fakelsp":     anything,
	"internal/luacats":     anything,
	"bench":                anything,
	"bench/side":           anything,
	"bench/cmd/report":     anything,
	"bench/cmd/sidebyside": anything,
	"bench/cmd/readsab":    anything,
}

// anything marks a package that may import every other package of the module.
var anything = []string{"*"}

// testOnly are the packages (and their subpackages) only tests use.
var testOnly = []string{"internal/testenv", "internal/fakelsp", "internal/luacats", "bench"}

func with(pkgs ...string) []string { return append(slices.Clone(common), pkgs...) }

// TestLayering parses the imports of every non-test file of the module and
// fails, naming the package, the import and the file, on an import the
// layer table does not allow.
func TestLayering(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	module := modulePath(t, root)
	imports := moduleImports(t, root, module)
	if len(imports) < 15 {
		t.Fatalf("found only %d packages under %s: the walk missed the module", len(imports), root)
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		allowed, known := layers[pkg]
		if !known {
			t.Errorf("package %s is not in the layer table: give it its layer in docs/architecture.md and in internal/layering", pkg)
			continue
		}
		for imp, file := range imports[pkg] {
			switch {
			case imp == pkg:
			case isTestOnly(imp) && !isTestOnly(pkg):
				t.Errorf("%s imports %s (%s): production packages never import the test-only %s", pkg, imp, file, imp)
			case slices.Equal(allowed, anything):
			case !slices.Contains(allowed, imp):
				t.Errorf("%s imports %s (%s): %s may import only %s (docs/architecture.md)", pkg, imp, file, pkg, describe(allowed))
			}
		}
	}
}

func isTestOnly(pkg string) bool {
	for _, p := range testOnly {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

func describe(allowed []string) string {
	if len(allowed) == 0 {
		return "nothing of the module"
	}
	return strings.Join(allowed, ", ")
}

func modulePath(t *testing.T, root string) string {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}

// moduleImports maps each package with non-test Go files (its path in the
// module) to the module's packages its files import, with a file that
// imports each. Every file is parsed, whatever its build constraints.
func moduleImports(t *testing.T, root, module string) map[string]map[string]string {
	out := map[string]map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == ".deps" || name == "testdata" || name == "node_modules" ||
				strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if out[pkg] == nil {
			out[pkg] = map[string]string{}
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if own, ok := strings.CutPrefix(p, module+"/"); ok {
				if _, seen := out[pkg][own]; !seen {
					out[pkg][own] = filepath.ToSlash(rel)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
