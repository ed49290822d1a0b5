package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type getSymbolsArgs struct {
	File            string   `json:"file,omitempty" jsonschema:"list this file's symbols (path relative to the workspace root); with query, picks the language server that searches"`
	Query           string   `json:"query,omitempty" jsonschema:"search the whole workspace for symbols matching this name (workspace/symbol; servers match fuzzily)"`
	Kinds           []string `json:"kinds,omitempty" jsonschema:"keep only these kinds, e.g. [\"function\",\"method\",\"struct\",\"class\",\"interface\"]"`
	MaxResults      int      `json:"max_results,omitempty" jsonschema:"return at most this many symbols (default: all of a file's, 100 for a workspace search)"`
	IncludeExternal bool     `json:"include_external,omitempty" jsonschema:"with query: also return symbols outside the workspace (standard library, dependencies); default false"`
	offsetArg
}

type symbolsResult struct {
	lsp.SymbolsResult
	pageInfo
}

func (r symbolsResult) Summary() string {
	var b strings.Builder
	if r.Scope == "document" {
		fmt.Fprintf(&b, "%d symbol(s) in %s (%s)", r.Total, r.File, strings.Join(r.Servers, ", "))
	} else {
		fmt.Fprintf(&b, "%d symbol(s) matching %q in the workspace (%s)", r.Total, r.Query, strings.Join(r.Servers, ", "))
		if r.ExternalOmitted > 0 {
			fmt.Fprintf(&b, "; %d outside the workspace left out (include_external)", r.ExternalOmitted)
		}
		if len(r.NotReady) > 0 {
			fmt.Fprintf(&b, "; %s had not finished analysing: results may be missing", strings.Join(r.NotReady, ", "))
		}
		if len(r.Opened) > 0 {
			fmt.Fprintf(&b, "; opened %s to start a language server", strings.Join(r.Opened, ", "))
		}
	}
	if r.Truncated {
		fmt.Fprintf(&b, "; showing the first %d", len(r.Symbols))
	}
	for _, s := range r.Symbols {
		name := s.Name
		if s.Container != "" && r.Scope == "document" {
			name = s.Container + "." + s.Name
		}
		fmt.Fprintf(&b, "\n%-11s %s  %s:%d:%d", s.Kind, name, s.File, s.Line, s.Column)
		if s.Detail != "" {
			fmt.Fprintf(&b, "  %s", s.Detail)
		}
		if s.Container != "" && r.Scope == "workspace" {
			fmt.Fprintf(&b, "  (in %s)", s.Container)
		}
	}
	return b.String()
}

func getSymbolsTool(env *Env) Tool {
	return newTool("get_symbols", "Symbols",
		"List the symbols declared in a file (pass file: classes, functions, methods, fields... flattened, each with its container path) or search the workspace by name (pass query). Each symbol has name, kind (a word: function, method, struct, class, interface...), file, 1-based line and 0-based column of its name (usable as another tool's position), and where its declaration ends. A workspace search uses the language servers attached to open buffers; when none is, it opens one source file per language whose root marker (go.mod, pyproject.toml, tsconfig.json/package.json...) is in the workspace root, or the file you name.",
		readOnly,
		func(ctx context.Context, in getSymbolsArgs) (symbolsResult, error) {
			if err := checkOffset(in.Offset); err != nil {
				return symbolsResult{}, err
			}
			max := in.MaxResults
			if max > 0 {
				max += in.Offset // the page's end in the full list
			}
			r, err := env.LSP.Symbols(ctx, lsp.SymbolsQuery{File: in.File, Query: in.Query, Kinds: in.Kinds,
				MaxResults: max, IncludeExternal: in.IncludeExternal})
			if err != nil {
				return symbolsResult{}, err
			}
			var p pageInfo
			r.Symbols, p = page(r.Symbols, in.Offset, in.MaxResults, r.Total)
			r.Truncated = p.NextOffset != nil
			return symbolsResult{r, p}, nil
		})
}
