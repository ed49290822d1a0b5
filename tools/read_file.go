package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type readFileArgs struct {
	fileArg
	StartLine int `json:"start_line,omitempty" jsonschema:"first line to return, 1-based (default 1)"`
	EndLine   int `json:"end_line,omitempty" jsonschema:"last line to return, inclusive (default: the last line)"`
}

type readFileResult struct{ lsp.FileExcerpt }

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
	return b.String()
}

func readFileTool(env *Env) Tool {
	return newTool("read_file", "Read file",
		"Read a file as Neovim holds it (unsaved changes included), with line numbers and the language servers' diagnostics on those lines.",
		readOnly,
		func(ctx context.Context, in readFileArgs) (readFileResult, error) {
			ex, err := env.LSP.ReadLines(ctx, in.File, in.StartLine, in.EndLine)
			return readFileResult{ex}, err
		})
}
