package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
)

type readFileArgs struct {
	fileArg
	StartLine int `json:"start_line,omitempty" jsonschema:"first line to return, 1-based (default 1)"`
	EndLine   int `json:"end_line,omitempty" jsonschema:"last line to return, inclusive (default: the last line)"`
	// IncludeImports adds where the symbols the file imports are defined.
	IncludeImports bool `json:"include_imports,omitempty" jsonschema:"also return the definitions of the symbols the file imports (Go: each package member it uses; Python/TypeScript: each imported name), with their source"`
	MaxImports     int  `json:"max_imports,omitempty" jsonschema:"with include_imports: resolve at most this many symbols (default 20, at most 100); truncated says when the file uses more"`
}

type readFileResult struct {
	lsp.FileExcerpt
	Imports *lsp.ImportedDefinitions `json:"imports,omitempty"`
}

func (r readFileResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s lines %d-%d of %d", r.File, r.StartLine, r.EndLine, r.LineCount)
	if r.IsModified {
		b.WriteString(" (unsaved changes)")
	}
	b.WriteString("\n")
	for _, l := range r.Lines {
		fmt.Fprintf(&b, "%6d\t%s\n", l.Line, l.Text)
		for _, d := range l.Diagnostics {
			fmt.Fprintf(&b, "      \t^ %s: %s\n", d.Severity, d.Message)
		}
	}
	if r.Imports != nil {
		fmt.Fprintf(&b, "imports: %d symbol(s)", r.Imports.Total)
		if r.Imports.Truncated {
			fmt.Fprintf(&b, ", first %d resolved", len(r.Imports.Symbols))
		}
		for _, s := range r.Imports.Symbols {
			fmt.Fprintf(&b, "\n  %s (line %d)", s.Symbol, s.Line)
			if s.Error != "" {
				fmt.Fprintf(&b, ": %s", s.Error)
			}
			for _, d := range s.Definitions {
				fmt.Fprintf(&b, "\n    %s:%d", d.File, d.Line)
				if d.Declaration != "" {
					fmt.Fprintf(&b, "\n      %s", strings.ReplaceAll(d.Declaration, "\n", "\n      "))
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func readFileTool(env *Env) Tool {
	return newTool("read_file", "Read file",
		"Read a file as Neovim holds it (unsaved changes included), with line numbers and the language servers' diagnostics on those lines; include_imports adds the definitions of what the file imports.",
		readOnly,
		func(ctx context.Context, in readFileArgs) (readFileResult, error) {
			if in.MaxImports != 0 && !in.IncludeImports {
				return readFileResult{}, apierr.New(apierr.InvalidParameter, "max_imports is given without include_imports", "pass include_imports: true, or drop max_imports")
			}
			ex, err := env.LSP.ReadLines(ctx, in.File, in.StartLine, in.EndLine)
			if err != nil || !in.IncludeImports {
				return readFileResult{FileExcerpt: ex}, err
			}
			imports, err := env.LSP.ImportedDefinitions(ctx, in.File, in.MaxImports)
			return readFileResult{FileExcerpt: ex, Imports: &imports}, err
		})
}
