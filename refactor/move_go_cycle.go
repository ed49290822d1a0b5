package refactor

// The Go move's import cycles: a move whose new imports close a cycle in
// the workspace's package graph (also one through a package's own tests)
// is refused.

import (
	"go/parser"
	"go/token"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// checkGoCycle refuses a move whose new imports close a cycle in the
// workspace's package graph: among non-test files, or through a package's
// own (internal) test files, which go test refuses too. The packages the
// move touches are read again from their new texts.
func checkGoCycle(in goMoveInput, newTexts map[string]string) error {
	graph, tests := map[string][]string{}, map[string][]string{}
	for k, v := range in.Graph {
		graph[k] = v
	}
	for k, v := range in.TestGraph {
		tests[k] = v
	}
	touched := map[string]bool{}
	for f := range newTexts {
		touched[path.Dir(f)] = true
	}
	var changed []string
	for dir := range touched {
		ip := in.ImportPath(dir)
		if ip == "" {
			continue
		}
		files := append([]string(nil), in.Dirs[dir]...)
		if _, ok := newTexts[in.Target]; ok && path.Dir(in.Target) == dir && !in.TargetExists {
			files = append(files, in.Target)
		}
		var edges, testEdges []string
		seen, seenTest := map[string]bool{}, map[string]bool{}
		for _, f := range files {
			text, ok := newTexts[f]
			if !ok {
				text = in.Files[f]
			}
			pf, err := parser.ParseFile(token.NewFileSet(), f, text, parser.ImportsOnly)
			if err != nil {
				continue
			}
			isTest := strings.HasSuffix(f, "_test.go")
			if isTest && strings.HasSuffix(pf.Name.Name, "_test") {
				continue // an external test package may import anything
			}
			for _, spec := range pf.Imports {
				p, _ := strconv.Unquote(spec.Path.Value)
				switch {
				case isTest && !seenTest[p]:
					seenTest[p] = true
					testEdges = append(testEdges, p)
				case !isTest && !seen[p]:
					seen[p] = true
					edges = append(edges, p)
				}
			}
		}
		sort.Strings(edges)
		sort.Strings(testEdges)
		graph[ip], tests[ip] = edges, testEdges
		changed = append(changed, ip)
	}
	sort.Strings(changed)
	refuse := func(chain []string, test bool) error {
		what := "an import cycle"
		if test {
			what = "an import cycle through " + chain[0] + "'s own tests (go test refuses it)"
		}
		return apierr.Errorf(apierr.PreconditionFailed,
			"move the code that creates the dependency along, or pick a target package that does not import the source",
			"the move would create %s: %s", what, strings.Join(chain, " -> ")).
			WithDetails(map[string]any{"cycle": chain})
	}
	for _, u := range changed {
		for _, v := range graph[u] {
			if cyc := pathBetween(graph, v, u); cyc != nil && !(slices.Contains(in.Graph[u], v) && pathBetween(in.Graph, v, u) != nil) {
				return refuse(append([]string{u}, cyc...), false)
			}
		}
	}
	var pkgs []string
	for p := range tests {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		for _, v := range tests[p] {
			if cyc := pathBetween(graph, v, p); cyc != nil && (pathBetween(in.Graph, v, p) == nil || !slices.Contains(in.TestGraph[p], v)) {
				return refuse(append([]string{p}, cyc...), true)
			}
		}
	}
	return nil
}

// pathBetween returns a path of imports from a to b (both included), nil
// when there is none.
func pathBetween(g map[string][]string, a, b string) []string {
	prev := map[string]string{a: ""}
	queue := []string{a}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u == b {
			var out []string
			for x := b; x != ""; x = prev[x] {
				out = append([]string{x}, out...)
			}
			return out
		}
		for _, v := range g[u] {
			if _, ok := prev[v]; !ok {
				if _, known := g[v]; known || v == b {
					prev[v] = u
					queue = append(queue, v)
				}
			}
		}
	}
	return nil
}
