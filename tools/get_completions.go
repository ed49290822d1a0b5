package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/lsp"
)

type getCompletionsArgs struct {
	File       string `json:"file" jsonschema:"path of the file, relative to the workspace root"`
	Line       int    `json:"line" jsonschema:"1-based line number"`
	Column     *int   `json:"column,omitempty" jsonschema:"0-based column in characters where the cursor is (e.g. right after 'orders.')"`
	Symbol     string `json:"symbol,omitempty" jsonschema:"a partial word on that line; the cursor goes to its end (instead of column)"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"return at most this many items (default 50)"`
	Prefix     string `json:"prefix,omitempty" jsonschema:"keep only items starting with this text (case-insensitive)"`
}

type completionsResult struct{ lsp.CompletionResult }

func (r completionsResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d completion(s) at %s (%s)", r.Total, r.From, r.Server)
	if r.Truncated {
		fmt.Fprintf(&b, "; showing the first %d", len(r.Items))
	}
	if r.IsIncomplete {
		b.WriteString("; the list is incomplete (typing more narrows it)")
	}
	if r.Withheld != "" {
		b.WriteString("; " + r.Withheld)
	}
	for _, it := range r.Items {
		fmt.Fprintf(&b, "\n%-10s %s", it.Kind, it.Label)
		if it.Detail != "" {
			fmt.Fprintf(&b, "  %s", it.Detail)
		}
	}
	return b.String()
}

func getCompletionsTool(env *Env) Tool {
	return newTool("get_completions", "Completions",
		"Get the language server's completion candidates at a cursor position (textDocument/completion): after 'pkg.' or 'obj.' the members, inside a word the names it may complete to. Each item has label, kind (a word: function, method, field, variable...), detail, short documentation and the text accepting it inserts; is_incomplete says typing more may bring other items. An item named like a symbol declared in a sensitive file has its detail and documentation withheld (sensitive: true; withheld says where and why).",
		readOnly,
		func(ctx context.Context, in getCompletionsArgs) (completionsResult, error) {
			t := lsp.Target{Line: in.Line, Column: in.Column, Symbol: in.Symbol}
			r, err := env.LSP.Completions(ctx, in.File, t, lsp.CompletionOptions{MaxResults: in.MaxResults, Prefix: in.Prefix})
			return completionsResult{r}, err
		})
}
