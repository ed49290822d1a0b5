package tools

import (
	"context"
	"fmt"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/refactor"
)

// extractArgs are extract_function's and extract_variable's arguments.
type extractArgs struct {
	fileArg
	StartLine   int    `json:"start_line,omitempty" jsonschema:"first line of the range, 1-based (required unless line is given)"`
	Line        int    `json:"line,omitempty" jsonschema:"the same as start_line, under the name every other tool gives a line"`
	StartColumn *int   `json:"start_column,omitempty" jsonschema:"0-based column (in characters) where the range starts; default: the line's first non-blank character"`
	EndLine     int    `json:"end_line" jsonschema:"last line of the range, 1-based, inclusive"`
	EndColumn   *int   `json:"end_column,omitempty" jsonschema:"0-based column (in characters) just past the range's end; default: the end of end_line"`
	Name        string `json:"name,omitempty" jsonschema:"name for the new symbol (default: the server's choice, e.g. newFunction); renamed in the same changeset"`
	previewArg
	saveArg
	guardArg
}

func (a extractArgs) request(kind refactor.ExtractKind) (refactor.ExtractRequest, error) {
	start := a.StartLine
	switch {
	case start == 0 && a.Line == 0:
		return refactor.ExtractRequest{}, apierr.New(apierr.InvalidParameter, "`start_line` is required (or line)",
			"pass start_line (or line): the range's first line, 1-based")
	case start == 0:
		start = a.Line
	case a.Line != 0 && a.Line != start:
		return refactor.ExtractRequest{}, apierr.Errorf(apierr.InvalidParameter, "pass one of them",
			"line %d and start_line %d differ: they name the same thing", a.Line, start)
	}
	return refactor.ExtractRequest{File: a.File, Kind: kind, Name: a.Name, Range: lsp.RangeSpec{
		Start: lsp.Target{Line: start, Column: a.StartColumn}, EndLine: a.EndLine, EndColumn: a.EndColumn}}, nil
}

type extractResult struct {
	File   string       `json:"file"`
	Server string       `json:"server"`
	Range  lsp.Location `json:"range"`
	Action string       `json:"action"`
	Kind   string       `json:"kind"`
	// Alternatives are other actions that would extract too (another
	// scope); apply_code_action applies one by title.
	Alternatives []string `json:"alternatives,omitempty"`
	ServerName   string   `json:"server_name"`
	Name         string   `json:"name"`
	Renamed      int      `json:"renamed_occurrences"`
	// Note says how nvbridge extracted where the server has no extract
	// function (C: parameters, by pointer, the value returned).
	Note string `json:"note,omitempty"`
	*edit.Result
}

func (r extractResult) Summary() string {
	s := fmt.Sprintf("%s at %s (%s, %s): new symbol %s", r.Action, rangeText(r.Range), r.Server, r.Kind, r.Name)
	if r.Name != r.ServerName {
		s += fmt.Sprintf(" (the server named it %s; %d occurrence(s) renamed)", r.ServerName, r.Renamed)
	}
	s += "."
	if r.Note != "" {
		s += " " + r.Note + "."
	}
	if len(r.Alternatives) > 0 {
		s += " Alternatives (apply_code_action title): " + quoteList(r.Alternatives) + "."
	}
	return changeSummary(s, r.Result)
}

func runExtract(ctx context.Context, env *Env, in extractArgs, kind refactor.ExtractKind) (extractResult, error) {
	req, err := in.request(kind)
	if err != nil {
		return extractResult{}, err
	}
	plan, err := refactor.Extract(ctx, env.LSP, req)
	if err != nil {
		return extractResult{}, err
	}
	out := extractResult{File: plan.File, Server: plan.Server, Range: plan.Range, Action: plan.Action, Kind: plan.Kind,
		Alternatives: plan.Alternatives, ServerName: plan.ServerName, Name: plan.Name, Renamed: plan.Renamed, Note: plan.Note}
	out.Result, err = submit(ctx, env, plan.Changeset, in.previewArg, in.saveArg, &in.guardArg)
	return out, err
}

func extractFunctionTool(env *Env) Tool {
	return newTool("extract_function", "Extract function",
		"Move the statements of a line range (optionally with columns) into a new function, with the language server's refactor.extract.function action; name names the new function (else the server's choice, e.g. newFunction), renamed in the same changeset. UNSUPPORTED, naming the server and what it offers, when it has no such refactoring (pyright). In C, where clangd has none, nvbridge extracts whole statements of one block itself into a static function placed before the enclosing one: its parameters are the locals used (by pointer when assigned and used after), a local declared in the selection and used after is returned; PRECONDITION_FAILED says why when it cannot (return, goto, break leaving the selection, two values used after, a macro naming a local passed by pointer). By default nothing changes: you get the unified diff and a changeset_id for apply_changeset; preview=false applies at once.",
		mutating,
		func(ctx context.Context, in extractArgs) (extractResult, error) {
			return runExtract(ctx, env, in, refactor.ExtractFunction)
		})
}
