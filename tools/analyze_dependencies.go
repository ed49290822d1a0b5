package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type analyzeDependenciesArgs struct {
	fileArg
}

type dependenciesResult struct{ lsp.DependenciesResult }

func (r dependenciesResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %d import(s) (read by %s), %d importer(s) (read by %s, %d files scanned)",
		r.File, r.Language, len(r.Imports), r.ImportsSource, len(r.Importers), r.ImportersSource, r.ScannedFiles)
	for _, im := range r.Imports {
		fmt.Fprintf(&b, "\n  import %s  (line %d)", im.Path, im.Line)
		switch {
		case im.Resolved != "":
			b.WriteString(" -> " + im.Resolved)
		case im.External:
			b.WriteString(" [external]")
		}
	}
	if r.Package != "" {
		fmt.Fprintf(&b, "\nimported as %s by:", r.Package)
	} else {
		b.WriteString("\nimported by:")
	}
	if len(r.Importers) == 0 {
		b.WriteString(" no workspace file")
	}
	for _, im := range r.Importers {
		fmt.Fprintf(&b, "\n  %s:%d:%d  %s", im.File, im.Line, im.Column, im.Import)
	}
	for _, n := range r.Notes {
		b.WriteString("\nnote: " + n)
	}
	return b.String()
}

func analyzeDependenciesTool(env *Env) Tool {
	return newTool("analyze_dependencies", "Analyze dependencies",
		"A file's imports (each with the workspace file or package folder it resolves to, or external) and the workspace files that import it (for Go: its package). Imports are read with tree-sitter where Neovim has the language's parser (C, Lua), else the language server's document links (gopls), else a small per-language scanner (Go's parser, Python and TypeScript/JavaScript import statements); imports_source and importers_source say which. Supports Go, Python, TypeScript/JavaScript, Lua and C.",
		readOnly,
		func(ctx context.Context, in analyzeDependenciesArgs) (dependenciesResult, error) {
			r, err := env.LSP.Dependencies(ctx, in.File)
			return dependenciesResult{r}, err
		})
}
