package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// refactoringTools lists the refactoring tools (one file per tool). Each
// asks the language server for a change (lsp computes it as a changeset,
// changing nothing) and hands it to the session's changeset engine, which
// previews it (the default) or applies it atomically.
func refactoringTools(env *Env) []Tool {
	all := []Tool{
		renameSymbolTool(env),
		applyCodeActionTool(env),
		organizeImportsTool(env),
		formatTool(env),
		extractFunctionTool(env),
		extractVariableTool(env),
		moveSymbolTool(env),
		changeSignatureTool(env),
		inlineFunctionTool(env),
	}
	for i := range all {
		all[i] = withSnapshotMemo(all[i])
	}
	return all
}

// withSnapshotMemo makes one call's plan and its changeset share their
// snapshots: the engine checks the files as the plan read them, without
// reading them again (nvim.WithSnapshotMemo; the apply still compares
// each file with its snapshot where it writes).
func withSnapshotMemo(t Tool) Tool {
	inner := t.Handler
	t.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return inner(nvim.WithSnapshotMemo(ctx), req)
	}
	return t
}

// saveArg is the save switch of the refactoring tools.
type saveArg struct {
	Save      bool `json:"save,omitempty" jsonschema:"write the touched files after applying (default false; ignored for a preview): all of them or none (PRECONDITION_FAILED when one holds unsaved changes nvbridge did not make)"`
	NoAutocmd bool `json:"noautocmd,omitempty" jsonschema:"save without running the user's write autocmds (BufWritePre formatters); default false: they run, and when they change what is written the answer has written_diff"`
}

// guardArg is what the refactoring tools (all but format) take to apply a
// change that introduces errors: by default such a change is refused.
type guardArg struct {
	AcceptErrors bool `json:"accept_errors,omitempty" jsonschema:"apply even when the change introduces errors (default false: applying, here with preview=false or later with apply_changeset, first checks the change on a copy the user never sees and refuses it with PRECONDITION_FAILED naming each error it introduces, nothing changed; a late error found once applied is taken back before saving)"`
}

// submit previews or applies a refactoring's changeset; g (nil for
// format) guards it: an apply that introduces errors is refused unless
// g.AcceptErrors (edit.Options.Guard), now or from its stored preview.
func submit(ctx context.Context, env *Env, cs preview.Changeset, p previewArg, s saveArg, g *guardArg) (*edit.Result, error) {
	r, err := env.Edit.Submit(ctx, cs, edit.Options{Preview: p.preview(), Save: s.Save, Check: p.check(), Require: p.require(), NoAutocmd: s.NoAutocmd,
		Guard: g != nil && !g.AcceptErrors})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// changeSummary renders a refactoring's headline followed by the engine's
// summary (preview id or what was applied, then the diff).
func changeSummary(headline string, r *edit.Result) string {
	if r == nil {
		return headline
	}
	return headline + "\n" + r.Summary()
}

// rangeText renders a tool range for summaries.
func rangeText(l lsp.Location) string {
	if l.Line == l.EndLine && l.Column == l.EndColumn {
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column)
	}
	return fmt.Sprintf("%s:%d:%d-%d:%d", l.File, l.Line, l.Column, l.EndLine, l.EndColumn)
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
