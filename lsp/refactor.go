package lsp

// The refactoring features (apply_code_action, organize_imports,
// extract_function, extract_variable) on top of code actions, and the
// pieces they share with rename: ranges in tool positions, WorkspaceEdits
// turned into changesets (refusing files outside the workspace), and the
// renaming of a symbol an extract introduced.
//
// Each feature computes a preview.Changeset and changes nothing; the caller
// previews or applies it through edit.Engine.

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// workspaceChangeset converts a server's WorkspaceEdit into a changeset,
// after refusing edits to files outside the workspace.
func (c *Client) workspaceChangeset(ctx context.Context, enc Encoding, raw json.RawMessage) (preview.Changeset, error) {
	if outside := c.editOutsideWorkspace(raw); len(outside) > 0 {
		return preview.Changeset{}, apierr.Errorf(apierr.PreconditionFailed,
			"nvbridge edits only files inside the workspace; the symbol is probably defined outside it (standard library or a dependency)",
			"the server's edit touches %d file(s) outside the workspace, e.g. %s", len(outside), outside[0]).
			WithDetails(map[string]any{"outside_files": outside})
	}
	cs, err := c.Changeset(ctx, enc, raw)
	if err != nil {
		return preview.Changeset{}, err
	}
	// Servers list files in no particular order (gopls: map order); edits
	// of distinct files commute, so sort them for a stable diff. File
	// operations keep the server's order.
	for _, fc := range cs.Files {
		if fc.Kind != preview.OpEdit {
			return cs, nil
		}
	}
	sort.SliceStable(cs.Files, func(i, j int) bool { return cs.Files[i].Path < cs.Files[j].Path })
	return cs, nil
}

// editOutsideWorkspace lists the files a WorkspaceEdit names that are outside
// the workspace root.
func (c *Client) editOutsideWorkspace(raw json.RawMessage) []string {
	var we struct {
		Changes         map[string]json.RawMessage `json:"changes"`
		DocumentChanges []struct {
			TextDocument *struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			URI    string `json:"uri"`
			OldURI string `json:"oldUri"`
			NewURI string `json:"newUri"`
		} `json:"documentChanges"`
	}
	if json.Unmarshal(raw, &we) != nil {
		return nil // the conversion reports the malformed edit
	}
	var uris []string
	for u := range we.Changes {
		uris = append(uris, u)
	}
	for _, dc := range we.DocumentChanges {
		if dc.TextDocument != nil {
			uris = append(uris, dc.TextDocument.URI)
		}
		uris = append(uris, dc.URI, dc.OldURI, dc.NewURI)
	}
	root := c.Session.Root()
	seen := map[string]bool{}
	var out []string
	for _, u := range uris {
		if u == "" {
			continue
		}
		p := PathOf(protocol.DocumentURI(u))
		if !root.Contains(p) && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// mergeChangesets appends b's file changes to a's; edits of a file both
// change are combined (they were computed against the same text).
func mergeChangesets(a, b preview.Changeset) preview.Changeset {
	for _, fc := range b.Files {
		merged := false
		if fc.Kind == preview.OpEdit {
			for i := range a.Files {
				if a.Files[i].Kind == preview.OpEdit && a.Files[i].Path == fc.Path {
					a.Files[i].Edits = append(a.Files[i].Edits, fc.Edits...)
					merged = true
					break
				}
			}
		}
		if !merged {
			a.Files = append(a.Files, fc)
		}
	}
	return a
}

// RangeSpec is a range as tools give it: a start target and an optional end
// (1-based line, 0-based character column, exclusive). A missing start
// column means the line's first non-blank character; a missing end column
// the end of the end line (trailing blanks excluded); EndLine 0 means the
// range is the start position alone.
type RangeSpec struct {
	Start     Target
	EndLine   int
	EndColumn *int
}

// LocateSpan validates a range against the document's current text.
func (c *Client) LocateSpan(ctx context.Context, doc *Document, r RangeSpec) (Span, error) {
	start, err := c.locateLoose(ctx, doc, r.Start, false)
	if err != nil {
		return Span{}, err
	}
	if r.EndLine == 0 && r.EndColumn == nil {
		return Span{Start: start, End: start}, nil
	}
	endLine := r.EndLine
	if endLine == 0 {
		endLine = r.Start.Line
	}
	end, err := c.locateLoose(ctx, doc, Target{Line: endLine, Column: r.EndColumn}, true)
	if err != nil {
		return Span{}, err
	}
	if end.Line < start.Line || (end.Line == start.Line && end.Byte < start.Byte) {
		return Span{}, apierr.Errorf(apierr.InvalidParameter, "the end must not come before the start",
			"the range %d:%d-%d:%d of %s ends before it starts", start.Line+1, start.Char, end.Line+1, end.Char, doc.Rel)
	}
	return Span{Start: start, End: end}, nil
}

// locateLoose is Locate where a target with neither column nor symbol
// means the line's first non-blank character (atEnd: the end of its last
// non-blank character).
func (c *Client) locateLoose(ctx context.Context, doc *Document, t Target, atEnd bool) (Point, error) {
	if t.Column != nil || t.Symbol != "" {
		return c.Locate(ctx, doc, t)
	}
	zero := 0
	pt, err := c.Locate(ctx, doc, Target{Line: t.Line, Column: &zero})
	if err != nil {
		return Point{}, err
	}
	if atEnd {
		pt.Byte = len(strings.TrimRightFunc(pt.Text, unicode.IsSpace))
	} else {
		pt.Byte = len(pt.Text) - len(strings.TrimLeftFunc(pt.Text, unicode.IsSpace))
	}
	pt.Char = ByteToChar(pt.Text, pt.Byte)
	return pt, nil
}

func (s Span) where(doc *Document) string {
	if s.Start == s.End {
		return fmt.Sprintf("%s:%d:%d", doc.Rel, s.Start.Line+1, s.Start.Char)
	}
	return fmt.Sprintf("%s:%d:%d-%d:%d", doc.Rel, s.Start.Line+1, s.Start.Char, s.End.Line+1, s.End.Char)
}

// Location returns the span as a tool location in doc.
func (s Span) Location(doc *Document) Location {
	return Location{File: doc.Rel, Line: s.Start.Line + 1, Column: s.Start.Char, EndLine: s.End.Line + 1,
		EndColumn: s.End.Char, Context: strings.TrimSpace(s.Start.Text)}
}

// actionCaps is what a server declares for code actions and commands.
type actionCaps struct {
	CodeActionKinds []string `json:"code_action_kinds"`
	CodeActions     bool     `json:"code_actions"`
	Resolve         bool     `json:"resolve"`
	Commands        []string `json:"commands"`
	PrepareRename   bool     `json:"prepare_rename"`
}

func (c *Client) capabilitiesOf(ctx context.Context, server Server) (actionCaps, error) {
	var raw string
	if err := c.Session.Call(ctx, "nvbridge.actions", "capabilities", &raw, server.ID); err != nil {
		return actionCaps{}, err
	}
	var caps actionCaps
	t := strings.ReplaceAll(raw, `"code_action_kinds":{}`, `"code_action_kinds":[]`)
	t = strings.ReplaceAll(t, `"commands":{}`, `"commands":[]`)
	if err := json.Unmarshal([]byte(t), &caps); err != nil {
		return actionCaps{}, fmt.Errorf("decode capabilities: %w", err)
	}
	return caps, nil
}

func (caps actionCaps) declaresKind(kind string) bool {
	for _, k := range caps.CodeActionKinds {
		if KindMatches(k, kind) || KindMatches(kind, k) {
			return true
		}
	}
	return false
}

func (caps actionCaps) hasCommand(name string) bool {
	for _, c := range caps.Commands {
		if c == name {
			return true
		}
	}
	return false
}

func (caps actionCaps) kindsText() string {
	if len(caps.CodeActionKinds) == 0 {
		return "it declares no code action kinds"
	}
	return "it declares the code action kinds " + strings.Join(caps.CodeActionKinds, ", ")
}

// --- apply_code_action ------------------------------------------------------

// ActionQuery is apply_code_action's request: where, and which action (an
// empty Pick only lists them).
type ActionQuery struct {
	File  string
	Range RangeSpec
	Pick  ActionPick
}

// ActionPlan is the listing at a range and, when one was picked, its
// changeset.
type ActionPlan struct {
	File    string
	Range   Location
	Actions []CodeAction
	Chosen  *CodeAction
	// Changeset is the chosen action's changeset (nothing applied).
	Changeset preview.Changeset
	Outcome   ActionOutcome
	// Diagnostics counts the diagnostics passed in the request's context.
	Diagnostics int
}

// ActionDiagnosticsWait bounds the wait for diagnostics describing the
// current text before code actions are asked for (quickfixes are computed
// from them).
var ActionDiagnosticsWait = 3 * time.Second

// PlanCodeAction lists the code actions at a range and, when q.Pick names
// one, computes its changeset.
func (c *Client) PlanCodeAction(ctx context.Context, q ActionQuery) (ActionPlan, error) {
	doc, err := c.Open(ctx, q.File)
	if err != nil {
		return ActionPlan{}, err
	}
	span, err := c.LocateSpan(ctx, doc, q.Range)
	if err != nil {
		return ActionPlan{}, err
	}
	if err := c.awaitDiagnostics(ctx, doc); err != nil {
		return ActionPlan{}, err
	}
	req := ActionRequest{Doc: doc, Span: span}
	if q.Pick.Kind != "" {
		req.Only = []string{q.Pick.Kind}
	}
	actions, ndiag, err := c.codeActions(ctx, req)
	if err != nil {
		return ActionPlan{}, err
	}
	plan := ActionPlan{File: doc.Rel, Range: span.Location(doc), Actions: actions, Diagnostics: ndiag}
	if q.Pick.Empty() {
		return plan, nil
	}
	where := span.where(doc)
	if q.Pick.Kind != "" && !anyKind(actions, q.Pick.Kind) {
		// Say which kinds do exist here (servers often answer only what
		// context.only asked for).
		all, err := c.CodeActions(ctx, ActionRequest{Doc: doc, Span: span})
		if err != nil {
			return ActionPlan{}, err
		}
		if _, err := PickAction(all, ActionPick{Kind: q.Pick.Kind}, where); err != nil {
			return ActionPlan{}, err
		}
		actions = all
		plan.Actions = all
	}
	chosen, err := PickAction(actions, q.Pick, where)
	if err != nil {
		return ActionPlan{}, err
	}
	cs, outcome, err := c.ActionChangeset(ctx, doc, chosen)
	if err != nil {
		return ActionPlan{}, err
	}
	plan.Chosen, plan.Changeset, plan.Outcome = chosen, cs, outcome
	return plan, nil
}

func anyKind(actions []CodeAction, kind string) bool {
	for _, a := range actions {
		if KindMatches(a.Kind, kind) {
			return true
		}
	}
	return false
}

// awaitDiagnostics waits (bounded) until the servers have published
// diagnostics for the buffer's current text; past the bound the request
// goes on with what Neovim has.
func (c *Client) awaitDiagnostics(ctx context.Context, doc *Document) error {
	ids := make([]int, 0, len(doc.Servers))
	for _, s := range doc.Servers {
		ids = append(ids, s.ID)
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := c.Session.Async(ctx, "wait_diagnostics", doc.Buffer.Bufnr, ids, int(ActionDiagnosticsWait/time.Millisecond))
	return err
}

// --- organize_imports -------------------------------------------------------

// ImportsPlan is organize_imports' computed change.
type ImportsPlan struct {
	File      string
	Server    string
	Via       string // the action or command that produced the edit
	Changeset preview.Changeset
	// Changed is false when the imports were already organized.
	Changed bool
	Removed []string
	Added   []string
	Note    string
}

// organizeCommands are servers whose organize imports is a command rather
// than a code action (pyright's CLI server offers no such action).
var organizeCommands = map[string]string{
	"pyright":      "pyright.organizeimports",
	"basedpyright": "basedpyright.organizeimports",
}

// OrganizeImports computes the server's organize-imports edit for file.
//
// gopls: the source.organizeImports action, which arrives with its edit.
// typescript-language-server: its source.organizeImports.ts action only
// sorts; when it also offers source.removeUnusedImports.ts (whose edit
// overlaps the first, both computed against the same text, so the two
// cannot be stacked in one changeset) nvbridge asks for the single edit
// doing both: the server command _typescript.organizeImports in its default
// mode (remove unused, sort, combine), captured. pyright: the command
// pyright.organizeimports, captured.
func (c *Client) OrganizeImports(ctx context.Context, file string) (ImportsPlan, error) {
	doc, err := c.Open(ctx, file)
	if err != nil {
		return ImportsPlan{}, err
	}
	servers := actionServers(doc)
	if len(servers) == 0 {
		_, err := doc.ServerFor(protocol.MethodTextDocumentCodeAction)
		return ImportsPlan{}, err
	}
	var reasons []string
	for _, server := range servers {
		plan, ok, why, err := c.organizeWith(ctx, doc, server)
		if err != nil {
			return ImportsPlan{}, err
		}
		if ok {
			return plan, nil
		}
		reasons = append(reasons, why)
	}
	return ImportsPlan{}, apierr.Errorf(apierr.Unsupported,
		"organize the imports by hand (edit_buffer), or use a language server that offers source.organizeImports",
		"no attached server organizes imports in %s: %s", doc.Rel, strings.Join(reasons, "; "))
}

func (c *Client) organizeWith(ctx context.Context, doc *Document, server Server) (ImportsPlan, bool, string, error) {
	caps, err := c.capabilitiesOf(ctx, server)
	if err != nil {
		return ImportsPlan{}, false, "", err
	}
	plan := ImportsPlan{File: doc.Rel, Server: server.Name}
	finish := func(cs preview.Changeset) (ImportsPlan, bool, string, error) {
		plan.Changeset = cs
		_, n := changesetStats(cs)
		if n == 0 {
			plan.Note = "the imports are already organized"
			return plan, true, "", nil
		}
		diff, err := preview.UnifiedDiff(cs)
		if err != nil {
			return ImportsPlan{}, false, "", err
		}
		plan.Removed, plan.Added = importChanges(docLanguage(doc), diff)
		plan.Changed = strings.Contains(diff, "@@")
		if !plan.Changed {
			plan.Note = "the imports are already organized"
		}
		return plan, true, "", nil
	}
	const tsOrganize = "_typescript.organizeImports"
	if caps.declaresKind("source.removeUnusedImports.ts") && caps.hasCommand(tsOrganize) {
		args, _ := json.Marshal([]any{doc.Path})
		cs, err := c.runCaptured(ctx, doc, server, lspCommand{Command: tsOrganize, Arguments: args})
		if err != nil {
			return ImportsPlan{}, false, "", err
		}
		plan.Via = "command " + tsOrganize + " (remove unused, sort and combine: what source.organizeImports.ts and source.removeUnusedImports.ts do together)"
		return finish(cs)
	}
	zero := Point{Line: 0, Byte: 0}
	actions, _, err := c.serverActions(ctx, ActionRequest{Doc: doc, Span: Span{zero, zero}, Only: []string{"source.organizeImports"}}, server)
	if err != nil {
		return ImportsPlan{}, false, "", err
	}
	for i := range actions {
		a := &actions[i]
		if !KindMatches(a.Kind, "source.organizeImports") || a.Disabled != "" || a.NotRunnable != "" {
			continue
		}
		cs, _, err := c.ActionChangeset(ctx, doc, a)
		if err != nil {
			return ImportsPlan{}, false, "", err
		}
		plan.Via = fmt.Sprintf("code action %q (%s)", a.Title, a.Kind)
		return finish(cs)
	}
	if cmd, ok := organizeCommands[server.Name]; ok {
		args, _ := json.Marshal([]any{doc.URI})
		cs, err := c.runCaptured(ctx, doc, server, lspCommand{Command: cmd, Arguments: args})
		if err != nil {
			return ImportsPlan{}, false, "", err
		}
		plan.Via = "command " + cmd
		return finish(cs)
	}
	if caps.declaresKind("source.organizeImports") {
		// Declared, but nothing offered for this file: nothing to do.
		plan.Via = "code action source.organizeImports"
		return finish(preview.Changeset{})
	}
	return ImportsPlan{}, false, fmt.Sprintf("%s offers no source.organizeImports action (%s)", server.Name, caps.kindsText()), nil
}

// runCaptured runs a server command with capture and returns the edits it
// sent back (or answered with).
func (c *Client) runCaptured(ctx context.Context, doc *Document, server Server, cmd lspCommand) (preview.Changeset, error) {
	captured, err := c.captureCommand(ctx, doc, server, cmd)
	if err != nil {
		return preview.Changeset{}, err
	}
	var cs preview.Changeset
	for _, e := range captured.edits {
		edit, err := c.workspaceChangeset(ctx, server.OffsetEncoding, e)
		if err != nil {
			return preview.Changeset{}, err
		}
		cs = mergeChangesets(cs, edit)
	}
	if len(captured.edits) == 0 && !isNullJSON(captured.result) {
		edit, ok, err := c.commandResultChangeset(ctx, server, doc, cmd, captured.result)
		if err != nil {
			return preview.Changeset{}, err
		}
		if ok {
			cs = edit
		}
	}
	return cs, nil
}

// importChanges reads a unified diff for import lines that were removed
// and added, net of lines only moved or regrouped (so sorting reports
// nothing, and merging `import "a"` into an import block neither).
func importChanges(l *lang.Language, diff string) (removed, added []string) {
	minus := map[string]int{}
	plus := map[string]int{}
	var minusOrder, plusOrder []string
	inBlock := false // inside a Go import ( ... ) block, on the new or old side
	for _, line := range strings.Split(diff, "\n") {
		if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "+++") || line == "" {
			continue
		}
		op, text := line[0], strings.TrimSpace(line[1:])
		if op != '-' && op != '+' && op != ' ' {
			continue
		}
		key, ok := lang.ImportKey(l, text, &inBlock)
		if !ok || op == ' ' {
			continue
		}
		if op == '-' {
			if minus[key] == 0 {
				minusOrder = append(minusOrder, key)
			}
			minus[key]++
		} else {
			if plus[key] == 0 {
				plusOrder = append(plusOrder, key)
			}
			plus[key]++
		}
	}
	for _, k := range minusOrder {
		if minus[k] > plus[k] {
			removed = append(removed, k)
		}
	}
	for _, k := range plusOrder {
		if plus[k] > minus[k] {
			added = append(added, k)
		}
	}
	return removed, added
}

// --- extract_function / extract_variable ------------------------------------

// ExtractKind is what to extract.
type ExtractKind int

const (
	ExtractFunction ExtractKind = iota
	ExtractVariable
)

func (k ExtractKind) kinds() []string {
	if k == ExtractFunction {
		return []string{"refactor.extract.function", "refactor.extract.method"}
	}
	return []string{"refactor.extract.variable", "refactor.extract.constant"}
}

func (k ExtractKind) String() string {
	if k == ExtractFunction {
		return "extract function"
	}
	return "extract variable"
}

// ExtractRequest is extract_function's and extract_variable's request.
type ExtractRequest struct {
	File  string
	Kind  ExtractKind
	Range RangeSpec
	// Name renames the symbol the server introduced ("" keeps its name).
	Name string
}

// ExtractPlan is a computed extract.
type ExtractPlan struct {
	File   string
	Server string
	Range  Location
	Action string // the chosen action's title
	Kind   string
	// Alternatives are the titles of the other actions that would also
	// extract (e.g. into another scope); apply_code_action applies one.
	Alternatives []string
	// ServerName is the name the server gave the new symbol; Name is the
	// final name (ServerName unless renamed).
	ServerName string
	Name       string
	// Renamed counts the occurrences of ServerName replaced by Name.
	Renamed   int
	Changeset preview.Changeset
}

// Extract computes the server's extract-function or extract-variable
// changeset for a range, naming the new symbol req.Name when given.
//
// Naming: the server picks its own name (gopls newFunction / newVar,
// typescript-language-server newFunction / newLocal, with a number when
// taken). The extract changeset is applied to a copy of each file's text
// (pure, preview.Apply); the identifiers of the result that the original
// text lacks are the ones the extract introduced, and the server's name is
// the one of them matching its naming scheme, or the one at the position
// the server asked to rename afterwards (typescript-language-server's
// _typescript.rename). Every occurrence of that identifier (found by a
// identLexer that skips strings and comments; go/scanner for Go) is replaced by
// req.Name, which must not already be used in the file; a Go result must
// still parse. The file's new text becomes its edits again through
// preview.Minimize, so the rename lands in the same changeset.
func (c *Client) Extract(ctx context.Context, req ExtractRequest) (ExtractPlan, error) {
	doc, err := c.Open(ctx, req.File)
	if err != nil {
		return ExtractPlan{}, err
	}
	l := docLanguage(doc)
	if req.Name != "" {
		if err := lang.ValidateIdentifier(l, req.Name); err != nil {
			return ExtractPlan{}, err
		}
	}
	span, err := c.LocateSpan(ctx, doc, req.Range)
	if err != nil {
		return ExtractPlan{}, err
	}
	if span.Start == span.End {
		return ExtractPlan{}, apierr.Errorf(apierr.InvalidParameter, "give end_line (and end_column) after the start",
			"the range at %s is empty: nothing to %s", span.where(doc), req.Kind)
	}
	servers := actionServers(doc)
	if len(servers) == 0 {
		_, err := doc.ServerFor(protocol.MethodTextDocumentCodeAction)
		return ExtractPlan{}, err
	}
	where := span.where(doc)
	var candidates, disabled []CodeAction
	var offered []string
	for _, server := range servers {
		actions, _, err := c.serverActions(ctx, ActionRequest{Doc: doc, Span: span, Only: []string{"refactor.extract"}}, server)
		if err != nil {
			return ExtractPlan{}, err
		}
		for _, a := range actions {
			if !kindMatchesAny(a.Kind, req.Kind.kinds()) {
				continue
			}
			switch {
			case a.Disabled != "":
				disabled = append(disabled, a)
			case a.NotRunnable == "":
				candidates = append(candidates, a)
			}
		}
		if len(candidates) > 0 {
			break
		}
		all, _, err := c.serverActions(ctx, ActionRequest{Doc: doc, Span: span}, server)
		if err != nil {
			return ExtractPlan{}, err
		}
		caps, err := c.capabilitiesOf(ctx, server)
		if err != nil {
			return ExtractPlan{}, err
		}
		offered = append(offered, fmt.Sprintf("%s offers here: %s (%s)", server.Name, actionKindList(all), caps.kindsText()))
	}
	if len(candidates) == 0 {
		if len(disabled) > 0 {
			return ExtractPlan{}, apierr.Errorf(apierr.PreconditionFailed, "select a complete expression or whole statements",
				"%s cannot %s at %s: %s", disabled[0].Server, req.Kind, where, disabled[0].Disabled)
		}
		return ExtractPlan{}, apierr.Errorf(apierr.Unsupported,
			"select whole statements (function) or one complete expression (variable); if the server has no such refactoring, edit by hand with edit_buffer",
			"no %s action for %s: %s", req.Kind, where, strings.Join(offered, "; "))
	}
	chosen := pickExtract(candidates, req.Kind)
	plan := ExtractPlan{File: doc.Rel, Server: chosen.Server, Range: span.Location(doc), Action: chosen.Title, Kind: chosen.Kind}
	for _, a := range candidates {
		if a.Title != chosen.Title {
			plan.Alternatives = append(plan.Alternatives, a.Title)
		}
	}
	cs, outcome, err := c.ActionChangeset(ctx, doc, &chosen)
	if err != nil {
		return ExtractPlan{}, err
	}
	if _, n := changesetStats(cs); n == 0 {
		return ExtractPlan{}, apierr.Errorf(apierr.OperationFailed, "try a slightly different range",
			"%s answered %q at %s with no edit", chosen.Server, chosen.Title, where)
	}
	hints := map[string][]protocol.Position{}
	for _, h := range outcome.RenameHints {
		rel := c.Session.Root().Rel(PathOf(h.URI))
		hints[rel] = append(hints[rel], h.Position)
	}
	named, err := nameIntroduced(cs, l, chosen.server.OffsetEncoding, hints, req.Name)
	if err != nil {
		return ExtractPlan{}, err
	}
	plan.Changeset, plan.ServerName, plan.Name, plan.Renamed = named.cs, named.serverName, named.name, named.count
	return plan, nil
}

func kindMatchesAny(kind string, wants []string) bool {
	for _, w := range wants {
		if KindMatches(kind, w) {
			return true
		}
	}
	return false
}

// pickExtract chooses among the actions that would extract: the server's
// preferred one; else, for a function, the outermost scope (servers list
// scopes inner to outer; a top-level function is what gopls makes too)
// and for a variable the innermost (the enclosing block).
func pickExtract(candidates []CodeAction, kind ExtractKind) CodeAction {
	var preferred []CodeAction
	for _, a := range candidates {
		if a.IsPreferred {
			preferred = append(preferred, a)
		}
	}
	if len(preferred) == 1 {
		return preferred[0]
	}
	if kind == ExtractFunction {
		// Functions before methods, then the last (outermost) of them.
		var fns []CodeAction
		for _, a := range candidates {
			if KindMatches(a.Kind, "refactor.extract.function") {
				fns = append(fns, a)
			}
		}
		if len(fns) > 0 {
			return fns[len(fns)-1]
		}
		return candidates[0]
	}
	for _, a := range candidates {
		if KindMatches(a.Kind, "refactor.extract.variable") {
			return a
		}
	}
	return candidates[0]
}

// serverNames matches the names servers give extracted symbols.
var serverNames = regexp.MustCompile(`^(newFunction|newFunc|newMethod|newVar|newVariable|newLocal|newConst|newConstant|newValue|extracted|extractedFunction|extractedVariable|new_function|new_var|new_variable)(_?[0-9]+)?$`)

type namedExtract struct {
	cs         preview.Changeset
	serverName string
	name       string
	count      int
}

// nameIntroduced finds the identifier the extract introduced and, when
// name is given, renames it (see Extract). hints are positions (line, and
// column in enc units, in the text after the edit) per file where the
// server asked for a rename.
func nameIntroduced(cs preview.Changeset, l *lang.Language, enc Encoding, hints map[string][]protocol.Position, name string) (namedExtract, error) {
	type fileText struct {
		old, new string
		newDoc   preview.Document
		tokens   []lang.Span
	}
	texts := make([]*fileText, len(cs.Files))
	introduced := map[string]bool{}
	var fromHint []string
	for i, fc := range cs.Files {
		if fc.Kind != preview.OpEdit && fc.Kind != preview.OpCreate {
			continue
		}
		newDoc, err := preview.Apply(fc.Old, fc.Edits)
		if err != nil {
			return namedExtract{}, apierr.Errorf(apierr.OperationFailed, "report this: the server's edit does not apply",
				"the extract's edit of %s does not apply: %v", fc.Path, err)
		}
		ft := &fileText{old: docFlatText(fc.Old), new: docFlatText(newDoc), newDoc: newDoc}
		ft.tokens = lang.Identifiers(l, ft.new)
		texts[i] = ft
		oldNames := map[string]bool{}
		for _, t := range lang.Identifiers(l, ft.old) {
			oldNames[ft.old[t.Start:t.End]] = true
		}
		for _, t := range ft.tokens {
			if w := ft.new[t.Start:t.End]; !oldNames[w] {
				introduced[w] = true
			}
		}
		for _, h := range hints[fc.Path] {
			if int(h.Line) >= len(newDoc.Lines) {
				continue
			}
			line := newDoc.Lines[h.Line]
			b, _ := UnitsToByte(line, int(h.Character), enc)
			if w := identAround(line, b); introduced[w] {
				fromHint = append(fromHint, w)
			}
		}
	}
	var serverName string
	switch {
	case len(fromHint) > 0:
		serverName = fromHint[0]
	default:
		var matches []string
		for w := range introduced {
			if serverNames.MatchString(w) {
				matches = append(matches, w)
			}
		}
		sort.Strings(matches)
		if len(matches) == 1 {
			serverName = matches[0]
		} else if name != "" {
			return namedExtract{}, apierr.Errorf(apierr.OperationFailed,
				"call again without name, then rename the new symbol with rename_symbol",
				"cannot tell which identifier the server introduced for the extracted code (candidates: %v); nothing was changed", matches)
		}
	}
	out := namedExtract{cs: cs, serverName: serverName, name: serverName}
	if name == "" || name == serverName {
		return out, nil
	}
	// The new name must be free in every file the extract touches.
	for i, ft := range texts {
		if ft == nil {
			continue
		}
		for _, t := range ft.tokens {
			if ft.new[t.Start:t.End] == name {
				line := strings.Count(ft.new[:t.Start], "\n") + 1
				return namedExtract{}, apierr.Errorf(apierr.Conflict,
					"pick a name not used in the file, or omit name and rename afterwards with rename_symbol",
					"%q is already used in %s (line %d); naming the extracted symbol so could clash", name, cs.Files[i].Path, line)
			}
		}
	}
	out.cs = preview.Changeset{Files: make([]preview.FileChange, len(cs.Files))}
	copy(out.cs.Files, cs.Files)
	for i, ft := range texts {
		if ft == nil {
			continue
		}
		var b strings.Builder
		last, n := 0, 0
		for _, t := range ft.tokens {
			if ft.new[t.Start:t.End] != serverName {
				continue
			}
			b.WriteString(ft.new[last:t.Start])
			b.WriteString(name)
			last = t.End
			n++
		}
		if n == 0 {
			continue
		}
		b.WriteString(ft.new[last:])
		final := b.String()
		if l != nil && l.CheckSyntax != nil {
			if err := l.CheckSyntax(cs.Files[i].Path, ft.new); err == nil {
				if err := l.CheckSyntax(cs.Files[i].Path, final); err != nil {
					return namedExtract{}, apierr.Errorf(apierr.OperationFailed, "omit name and rename afterwards with rename_symbol",
						"renaming %s to %s in %s does not parse: %v; nothing was changed", serverName, name, cs.Files[i].Path, err)
				}
			}
		}
		old := cs.Files[i].Old
		whole := preview.TextEdit{StartLine: 0, StartCol: 0, EndLine: len(old.Lines), EndCol: 0, NewText: final}
		edits, err := preview.Minimize(old, []preview.TextEdit{whole})
		if err != nil {
			return namedExtract{}, apierr.Errorf(apierr.OperationFailed, "report this", "rebuild the edits of %s: %v", cs.Files[i].Path, err)
		}
		out.cs.Files[i].Edits = edits
		out.count += n
	}
	out.name = name
	return out, nil
}

// docFlatText is a document's text as positions address it: lines joined by
// "\n", plus "\n" after a final newline.
func docFlatText(d preview.Document) string {
	s := strings.Join(d.Lines, "\n")
	if d.FinalNewline && len(d.Lines) > 0 {
		s += "\n"
	}
	return s
}
