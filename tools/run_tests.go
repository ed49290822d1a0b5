package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/testrun"
)

type runTestsArgs struct {
	File        string `json:"file,omitempty" jsonschema:"a test file (its tests), another file (its package's tests and those of the test files importing it), or with line the symbol's file"`
	Line        int    `json:"line,omitempty" jsonschema:"with file: the tests of the symbol on this 1-based line (the test functions that call it, directly or through up to 3 callers, and the test files referencing it)"`
	Column      *int   `json:"column,omitempty" jsonschema:"0-based column of the symbol in characters"`
	Symbol      string `json:"symbol,omitempty" jsonschema:"name of the symbol on that line (e.g. clone), instead of column"`
	ChangesetID string `json:"changeset_id,omitempty" jsonschema:"the tests a previewed changeset affects: its files' packages and their importers' (instead of file)"`
	TimeoutMs   int    `json:"timeout_ms,omitempty" jsonschema:"bound for the whole run in milliseconds (default 120000); hit, the answer is TIMEOUT naming the tests that did not finish, with what finished in details"`
}

type runTestsResult struct{ testrun.Result }

func (r runTestsResult) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped (%s; %d ms)\n", r.Passed, r.Failed, r.Skipped, r.Selection.Why, r.DurationMs)
	for _, run := range r.Runs {
		fmt.Fprintf(&b, "  ran: %s (exit %d)\n", strings.Join(run.Command, " "), run.ExitCode)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "FAIL %s", f.Test)
		if f.File != "" {
			fmt.Fprintf(&b, " at %s:%d", f.File, f.Line)
		}
		fmt.Fprintf(&b, ": %s\n", strings.SplitN(f.Message, "\n", 2)[0])
	}
	return b.String()
}

func runTestsTool(env *Env) Tool {
	return newTool("run_tests", "Run tests",
		"Run tests with the language's runner (go test -json, pytest, the TypeScript project's vitest): those of a file, of a symbol (file and line: the test functions reaching it through its callers, as prepare_change finds them) or those a previewed changeset affects (its files' packages and their importers). Answers passed/failed/skipped counts and each failure's test, file, line (the failing assertion), message and the end of its output; progress per test is sent as MCP progress. Bounded by timeout_ms: TIMEOUT names the tests that did not finish. Runs the project's code: the writing mode, and in an attached Neovim the user's approval.",
		mutating,
		func(ctx context.Context, in runTestsArgs) (runTestsResult, error) {
			req := testrun.Request{File: in.File}
			switch {
			case in.ChangesetID != "":
				_, files, err := env.Edit.PendingDiff(in.ChangesetID)
				if err != nil {
					return runTestsResult{}, err
				}
				req.Changed = files
			case in.File == "":
				return runTestsResult{}, apierr.New(apierr.InvalidParameter, "pass file (and line for a symbol's tests), or changeset_id", "nothing names the tests to run")
			case in.Line > 0:
				req.Symbol, req.Target = true, lsp.Target{Line: in.Line, Column: in.Column, Symbol: in.Symbol}
			}
			r, err := testrun.Tests(ctx, env.LSP, req, time.Duration(in.TimeoutMs)*time.Millisecond)
			return runTestsResult{r}, err
		})
}
