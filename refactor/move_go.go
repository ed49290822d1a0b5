package refactor

// move_symbol for Go, the half that reads: gopls's references, the files
// of the packages involved (as Neovim holds them) and the workspace's
// import graph (from the disk), handed to planGoMove.

import (
	"context"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
)

func init() { movers.register(lang.Go, moveGo) }

func moveGo(ctx context.Context, c *lsp.Client, doc *lsp.Document, pt lsp.Point, target string) (MovePlan, error) {
	srcDir, tgtDir := path.Dir(doc.Rel), path.Dir(target)
	files, err := readFiles(ctx, c, append(append(dirFiles(c, srcDir, ".go"), dirFiles(c, tgtDir, ".go")...), doc.Rel, target))
	if err != nil {
		return MovePlan{}, err
	}
	srcText := files.texts[doc.Rel]
	g, err := parseGoFile(token.NewFileSet(), doc.Rel, srcText)
	if err != nil {
		return MovePlan{}, apierr.Errorf(apierr.PreconditionFailed, "fix the syntax error first (get_diagnostics lists it)", "%s does not parse: %v", doc.Rel, err)
	}
	off, err := g.m.Offset(pt.Line, pt.Byte)
	if err != nil {
		return MovePlan{}, apierr.Errorf(apierr.Conflict, "retry: the file changed while the move was computed", "%s: %v", doc.Rel, err)
	}
	piece, name, err := findGoDecl(g, off)
	if err != nil {
		return MovePlan{}, err
	}
	line, char := g.m.CharPosition(piece.nameOff)
	refs, server, err := moveReferences(ctx, c, doc.Rel, line, char)
	if err != nil {
		return MovePlan{}, err
	}
	// Every folder a reference is in: its files are read too (imports,
	// package names, the import graph of the packages that change).
	dirs := map[string][]string{srcDir: dirFiles(c, srcDir, ".go"), tgtDir: dirFiles(c, tgtDir, ".go")}
	var more []string
	for _, r := range refs {
		d := path.Dir(r.File)
		if _, ok := dirs[d]; !ok {
			dirs[d] = dirFiles(c, d, ".go")
			more = append(more, dirs[d]...)
		}
		more = append(more, r.File)
	}
	if err := readMore(ctx, c, files, more); err != nil {
		return MovePlan{}, err
	}
	var goRefs []goRef
	for _, r := range refs {
		if _, ok := files.texts[r.File]; !ok {
			continue
		}
		off, err := files.offset(r.File, r.Line, r.Column)
		if err != nil {
			return MovePlan{}, err
		}
		goRefs = append(goRefs, goRef{File: r.File, Offset: off})
	}
	scope := lang.NewScope(c.Session.Root().Dir())
	importPath := func(dir string) string {
		return lang.Go.Imports.ImportName(scope, filepath.Join(scope.Root, filepath.FromSlash(dir), "x.go"))
	}
	graph, tests := goImportGraph(c, importPath)
	out, err := planGoMove(goMoveInput{
		Files: files.texts, Source: doc.Rel, Offset: off, Target: target, TargetExists: files.exists[target],
		Dirs: dirs, Refs: goRefs, ImportPath: importPath, Graph: graph, TestGraph: tests,
	})
	if err != nil {
		return MovePlan{}, err
	}
	cs, err := textsChangeset(files, out.Texts)
	if err != nil {
		return MovePlan{}, err
	}
	how := "gopls references, go/ast"
	if out.SamePackage {
		how = "go/ast (same package: no reference changes)"
	}
	plan := MovePlan{Changeset: cs, Server: server, How: how, Symbol: name, Moved: out.Moved, From: doc.Rel, To: target,
		Created: !files.exists[target], References: out.Qualified,
		ImportUpdates: importUpdates(lang.Go, files.texts, out.Texts)}
	plan.Files, _ = changesetStats(cs)
	return plan, nil
}

// goImportGraph reads the import clauses of every package in the workspace
// (from the disk): import path -> what its non-test files import, and what
// its internal test files (not package x_test) import.
func goImportGraph(c *lsp.Client, importPath func(dir string) string) (graph, tests map[string][]string) {
	root := c.Session.Root().Dir()
	graph, tests = map[string][]string{}, map[string][]string{}
	seen := map[string]bool{}
	add := func(g map[string][]string, from, to string) {
		if k := from + "\x00" + to; !seen[k] {
			seen[k] = true
			g[from] = append(g[from], to)
		}
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, "_") || lang.Go.SkipDir(name)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || c.Session.Root().Sensitive(p) {
			return nil // the policy's files are never read
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		ip := importPath(filepath.ToSlash(rel))
		if ip == "" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, data, parser.ImportsOnly)
		if err != nil {
			return nil
		}
		g := graph
		if strings.HasSuffix(name, "_test.go") {
			if strings.HasSuffix(f.Name.Name, "_test") {
				return nil
			}
			g = tests
		} else if graph[ip] == nil {
			graph[ip] = []string{}
		}
		for _, s := range f.Imports {
			v, _ := strconv.Unquote(s.Path.Value)
			add(g, ip, v)
		}
		return nil
	})
	for k := range graph {
		sort.Strings(graph[k])
	}
	for k := range tests {
		sort.Strings(tests[k])
	}
	return graph, tests
}
