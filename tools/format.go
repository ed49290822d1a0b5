package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/refactor"
)

type formatArgs struct {
	fileArg
	StartLine int  `json:"start_line,omitempty" jsonschema:"with end_line: format only these lines (1-based, inclusive); default: the whole file"`
	EndLine   int  `json:"end_line,omitempty" jsonschema:"the range's last line (1-based, inclusive)"`
	LSPOnly   bool `json:"lsp_only,omitempty" jsonschema:"use the language server's formatter even when the user's Neovim configures its own (conform.nvim)"`
	previewArg
	saveArg
}

type formatResult struct {
	File    string `json:"file"`
	Server  string `json:"server"`
	Via     string `json:"via"`
	Changed bool   `json:"changed"`
	Note    string `json:"note,omitempty"`
	*edit.Result
}

func (r formatResult) Summary() string {
	if !r.Changed {
		return fmt.Sprintf("%s: nothing to change (%s, %s). %s", r.File, r.Server, r.Via, r.Note)
	}
	head := fmt.Sprintf("Format %s (%s, %s)", r.File, r.Server, r.Via)
	if r.Note != "" {
		head += ": " + r.Note
	}
	return changeSummary(head, r.Result)
}

func formatTool(env *Env) Tool {
	return newTool("format", "Format",
		"Format a file, or its lines start_line to end_line, with its language server (textDocument/formatting or rangeFormatting: gofmt through gopls, typescript-language-server's formatter, ...) and the project's indentation (.editorconfig, prettier or biome settings). A server that formats no ranges formats the file and only its changes within the range are kept. Attached to a Neovim whose user configured conform.nvim, a whole file is formatted with the user's formatters instead (lsp_only: the server's), the buffer untouched until applied. By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once.",
		mutating,
		func(ctx context.Context, in formatArgs) (formatResult, error) {
			if (in.StartLine == 0) != (in.EndLine == 0) {
				in.EndLine = max(in.EndLine, in.StartLine)
				in.StartLine = max(in.StartLine, 1)
			}
			plan, err := refactor.Format(ctx, env.LSP, refactor.FormatRequest{File: in.File, StartLine: in.StartLine, EndLine: in.EndLine, LSPOnly: in.LSPOnly})
			if err != nil {
				return formatResult{}, err
			}
			out := formatResult{File: plan.File, Server: plan.Server, Via: plan.Via, Changed: plan.Changed, Note: plan.Note}
			if !plan.Changed {
				out.Result = &edit.Result{Files: []edit.FileResult{}}
				return out, nil
			}
			out.Result, err = submit(ctx, env, plan.Changeset, in.previewArg, in.saveArg, nil)
			return out, err
		})
}
