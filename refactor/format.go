package refactor

// format: a file or a range formatted by its language server, as a
// changeset like every edit (previewed, then applied by edit.Engine).

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// FormatRequest names what to format: a file, or its lines StartLine to
// EndLine (1-based, inclusive; 0: the whole file).
type FormatRequest struct {
	File               string
	StartLine, EndLine int
	// LSPOnly: the language server's formatter even when the user's
	// Neovim configures its own (conform.nvim).
	LSPOnly bool
}

// FormatPlan is the formatter's change.
type FormatPlan struct {
	File   string
	Server string
	// Via says how: "textDocument/formatting", "textDocument/rangeFormatting",
	// or the whole file's formatting kept to the range's lines when the
	// server does not format ranges.
	Via       string
	Changeset preview.Changeset
	// Changed is false when the text was already formatted.
	Changed bool
	Note    string
}

// Format asks the file's language server to format it (or the range), with
// the project's indentation (lang.ProjectIndent) as the formatting options.
// A server without range formatting formats the whole file and only the
// edits within the range's lines are kept.
func Format(ctx context.Context, c *lsp.Client, req FormatRequest) (FormatPlan, error) {
	doc, err := c.Open(ctx, req.File)
	if err != nil {
		return FormatPlan{}, err
	}
	ranged := req.StartLine > 0 || req.EndLine > 0
	if ranged && (req.StartLine < 1 || req.EndLine < req.StartLine) {
		return FormatPlan{}, apierr.Errorf(apierr.InvalidParameter, "pass start_line and end_line, 1-based, end_line not before start_line",
			"bad range %d-%d", req.StartLine, req.EndLine)
	}
	if !req.LSPOnly && !ranged && !c.Session.Embedded() {
		if plan, ok, err := userFormat(ctx, c, doc); ok || err != nil {
			return plan, err
		}
	}
	method := protocol.MethodTextDocumentFormatting
	var server lsp.Server
	found := false
	if ranged {
		if servers := doc.ServersFor(protocol.MethodTextDocumentRangeFormatting); len(servers) > 0 {
			method, server, found = protocol.MethodTextDocumentRangeFormatting, servers[0], true
		}
	}
	if !found {
		if server, err = doc.ServerFor(protocol.MethodTextDocumentFormatting); err != nil {
			return FormatPlan{}, err
		}
	}
	opts := map[string]any{"tabSize": 4, "insertSpaces": true, "trimTrailingWhitespace": true, "insertFinalNewline": true}
	if in, ok := lang.ProjectIndent(c.Session.Root().Dir(), doc.Language()); ok {
		opts["tabSize"], opts["insertSpaces"] = max(in.Width, 1), !in.Tabs
	}
	params := map[string]any{"textDocument": protocol.TextDocumentIdentifier{URI: doc.URI}, "options": opts}
	plan := FormatPlan{File: doc.Rel, Server: server.Name, Via: method}
	if method == protocol.MethodTextDocumentRangeFormatting {
		span, err := c.LocateSpan(ctx, doc, lsp.RangeSpec{Start: lsp.Target{Line: req.StartLine, Column: new(int)}, EndLine: req.EndLine + 1, EndColumn: new(int)})
		if err != nil {
			// The range ends on the last line: up to its end.
			if span, err = c.LocateSpan(ctx, doc, lsp.RangeSpec{Start: lsp.Target{Line: req.StartLine, Column: new(int)}, EndLine: req.EndLine}); err != nil {
				return FormatPlan{}, err
			}
		}
		params["range"] = protocol.Range{Start: span.Start.In(server.OffsetEncoding), End: span.End.In(server.OffsetEncoding)}
	}
	var edits []wireTextEdit
	var raw json.RawMessage
	if err := c.Request(ctx, doc, server, method, params, &raw); err != nil {
		return FormatPlan{}, err
	}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &edits); err != nil {
			return FormatPlan{}, apierr.Errorf(apierr.OperationFailed, "report this: the server's answer has a shape nvbridge does not decode",
				"%s: cannot decode %s: %v", server.Name, method, err)
		}
	}
	if ranged && method == protocol.MethodTextDocumentFormatting {
		plan.Via = method + " (the server formats no ranges: its edits within lines " + fmt.Sprint(req.StartLine, "-", req.EndLine) + " kept)"
		kept := edits[:0]
		dropped := 0
		for _, e := range edits {
			if e.Range != nil && int(e.Range.Start.Line) >= req.StartLine-1 && int(e.Range.End.Line) <= req.EndLine-1+boolInt(e.Range.End.Character == 0) {
				kept = append(kept, e)
			} else {
				dropped++
			}
		}
		edits = kept
		if dropped > 0 {
			plan.Note = fmt.Sprintf("%d change(s) the formatter makes outside the range were left out", dropped)
		}
	}
	if len(edits) == 0 {
		plan.Note = joinNotes(plan.Note, "already formatted")
		return plan, nil
	}
	we, _ := json.Marshal(map[string]any{"changes": map[protocol.DocumentURI][]wireTextEdit{doc.URI: edits}})
	cs, err := Changeset(ctx, c, server.OffsetEncoding, we)
	if err != nil {
		return FormatPlan{}, err
	}
	plan.Changeset = cs
	_, n := changesetStats(cs)
	plan.Changed = n > 0
	if !plan.Changed {
		plan.Note = joinNotes(plan.Note, "already formatted")
	}
	return plan, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// userFormat formats doc with the formatters the user's conform.nvim runs
// for it (attached mode), ok false when it runs none.
func userFormat(ctx context.Context, c *lsp.Client, doc *lsp.Document) (FormatPlan, bool, error) {
	var raw string
	if err := c.Session.UserFormatters(ctx, &raw, doc.Buffer.Bufnr); err != nil || raw == "" {
		return FormatPlan{}, false, err
	}
	var user struct {
		Tool       string   `json:"tool"`
		Formatters []string `json:"formatters"`
	}
	if err := json.Unmarshal([]byte(raw), &user); err != nil || len(user.Formatters) == 0 {
		return FormatPlan{}, false, nil
	}
	snaps, err := c.Session.Snapshot(ctx, []string{doc.Path}, nvim.SnapshotOptions{})
	if err != nil {
		return FormatPlan{}, false, err
	}
	if snaps[0].Err != nil {
		return FormatPlan{}, false, snaps[0].Err.APIError()
	}
	old := snapshotDoc(snaps[0])
	res, err := c.Session.ConformText(ctx, doc.Buffer.Bufnr, user.Formatters)
	if err != nil {
		return FormatPlan{}, false, err
	}
	var out struct {
		Lines       []string `json:"lines"`
		ChangedTick int      `json:"changedtick"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		var s string
		if json.Unmarshal(res, &s) != nil || json.Unmarshal([]byte(s), &out) != nil {
			return FormatPlan{}, false, apierr.Errorf(apierr.OperationFailed, "report this", "decode conform's text: %v", err)
		}
	}
	if snaps[0].Loaded && out.ChangedTick != snaps[0].ChangedTick {
		return FormatPlan{}, false, apierr.Errorf(apierr.Conflict, "format again", "%s changed while it was formatted", doc.Rel)
	}
	plan := FormatPlan{File: doc.Rel, Server: user.Tool, Via: user.Tool + ": " + strings.Join(user.Formatters, ", ")}
	n := len(old.Lines)
	if n == 0 || len(out.Lines) == 0 {
		plan.Note = "empty file"
		return plan, true, nil
	}
	// Lines to lines: the final newline stays as it is.
	whole := preview.TextEdit{EndLine: n - 1, EndCol: len(old.Lines[n-1]), NewText: strings.Join(out.Lines, "\n")}
	plan.Changeset = preview.Changeset{Files: []preview.FileChange{{Path: doc.Rel, Kind: preview.OpEdit, Old: old, Edits: []preview.TextEdit{whole}}}}
	edits, err := preview.Minimize(old, []preview.TextEdit{whole})
	if err != nil {
		return FormatPlan{}, false, apierr.Errorf(apierr.OperationFailed, "report this", "the formatted text does not fit: %v", err)
	}
	plan.Changed = len(edits) > 0
	if !plan.Changed {
		plan.Note = "already formatted"
	}
	return plan, true, nil
}
