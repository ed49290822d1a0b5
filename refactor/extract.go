package refactor

// extract_function and extract_variable: the server's extract, and renaming the symbol it introduced.
// Each feature computes a preview.Changeset and changes nothing; the caller
// previews or applies it through edit.Engine.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/preview"
)

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
	Range lsp.RangeSpec
	// Name renames the symbol the server introduced ("" keeps its name).
	Name string
}

// ExtractPlan is a computed extract.
type ExtractPlan struct {
	File   string
	Server string
	Range  lsp.Location
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
	Renamed int
	// Note says how nvbridge extracted where the server could not (the
	// parameters, those passed by pointer, the value returned).
	Note      string
	Changeset preview.Changeset
}

// extractors are the languages' own extract function, used where the
// file's servers offer none (extract_c.go: clangd extracts in C++ only).
var extractors = byLanguage[extractPart]{}

// extractPart is one language's extract function, for its files of the
// filetypes listed.
type extractPart struct {
	filetypes []string
	extract   func(ctx context.Context, c *lsp.Client, doc *lsp.Document, span lsp.Span, name string) (ExtractPlan, error)
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
func Extract(ctx context.Context, c *lsp.Client, req ExtractRequest) (ExtractPlan, error) {
	doc, err := c.Open(ctx, req.File)
	if err != nil {
		return ExtractPlan{}, err
	}
	l := doc.Language()
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
			"the range at %s is empty: nothing to %s", span.Where(doc), req.Kind)
	}
	servers := doc.ServersFor(protocol.MethodTextDocumentCodeAction)
	if len(servers) == 0 {
		_, err := doc.ServerFor(protocol.MethodTextDocumentCodeAction)
		return ExtractPlan{}, err
	}
	where := span.Where(doc)
	var candidates, disabled []lsp.CodeAction
	var offered []string
	collect := func(actions []lsp.CodeAction) {
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
	}
	for _, server := range servers {
		actions, _, err := c.CodeActions(ctx, lsp.ActionRequest{Doc: doc, Span: span, Only: []string{"refactor.extract"}, Server: &server})
		if err != nil {
			return ExtractPlan{}, err
		}
		collect(actions)
		if len(candidates) > 0 {
			break
		}
		all, _, err := c.CodeActions(ctx, lsp.ActionRequest{Doc: doc, Span: span, Server: &server})
		if err != nil {
			return ExtractPlan{}, err
		}
		// A server whose refactorings have the kind "refactor" alone
		// (clangd) filters them out of a request for refactor.extract;
		// its spec names their precise kinds (lang: ActionKinds).
		if len(disabled) == 0 {
			collect(all)
			if len(candidates) > 0 {
				break
			}
		}
		caps, err := capabilitiesOf(ctx, c, server)
		if err != nil {
			return ExtractPlan{}, err
		}
		offered = append(offered, fmt.Sprintf("%s offers here: %s (%s)", server.Name, actionKindList(all), caps.kindsText()))
	}
	if len(candidates) == 0 && len(disabled) == 0 && req.Kind == ExtractFunction {
		if part, ok := extractors[l]; ok && slices.Contains(part.filetypes, doc.Buffer.Filetype) {
			return part.extract(ctx, c, doc, span, req.Name)
		}
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
	cs, outcome, err := ActionChangeset(ctx, c, doc, &chosen)
	if err != nil {
		return ExtractPlan{}, err
	}
	if _, n := changesetStats(cs); n == 0 {
		return ExtractPlan{}, apierr.Errorf(apierr.OperationFailed, "try a slightly different range",
			"%s answered %q at %s with no edit", chosen.Server, chosen.Title, where)
	}
	hints := map[string][]protocol.Position{}
	for _, h := range outcome.RenameHints {
		rel := c.Session.Root().Rel(lsp.PathOf(h.URI))
		hints[rel] = append(hints[rel], h.Position)
	}
	named, err := nameIntroduced(cs, l, chosen.Origin().OffsetEncoding, hints, req.Name)
	if err != nil {
		return ExtractPlan{}, err
	}
	plan.Changeset, plan.ServerName, plan.Name, plan.Renamed = named.cs, named.serverName, named.name, named.count
	if req.Kind == ExtractFunction {
		// The new function next to its caller (tsserver may put it far
		// below), with the formatter's touch where the file had it.
		if text, ok := afterTexts(plan.Changeset)[doc.Rel]; ok {
			if moved := placeNextToCaller(text, plan.Name); moved != text {
				if plan.Changeset, err = withTexts(plan.Changeset, map[string]string{doc.Rel: moved}); err != nil {
					return ExtractPlan{}, err
				}
			}
		}
	}
	if plan.Changeset, err = formatTouched(plan.Changeset); err != nil {
		return ExtractPlan{}, err
	}
	return plan, nil
}

func kindMatchesAny(kind string, wants []string) bool {
	for _, w := range wants {
		if lsp.KindMatches(kind, w) {
			return true
		}
	}
	return false
}

// pickExtract chooses among the actions that would extract: the server's
// preferred one; else, for a function, the outermost scope (servers list
// scopes inner to outer; a top-level function is what gopls makes too)
// and for a variable the innermost (the enclosing block).
func pickExtract(candidates []lsp.CodeAction, kind ExtractKind) lsp.CodeAction {
	var preferred []lsp.CodeAction
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
		var fns []lsp.CodeAction
		for _, a := range candidates {
			if lsp.KindMatches(a.Kind, "refactor.extract.function") {
				fns = append(fns, a)
			}
		}
		if len(fns) > 0 {
			return fns[len(fns)-1]
		}
		return candidates[0]
	}
	for _, a := range candidates {
		if lsp.KindMatches(a.Kind, "refactor.extract.variable") {
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
func nameIntroduced(cs preview.Changeset, l *lang.Language, enc preview.Encoding, hints map[string][]protocol.Position, name string) (namedExtract, error) {
	type fileText struct {
		old, new string
		newMap   *preview.Mapper
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
		newMap := newDoc.Mapper()
		ft := &fileText{old: fc.Old.Mapper().Text(), new: newMap.Text(), newMap: newMap}
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
			b, _ := preview.UnitsToByte(line, int(h.Character), enc)
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
				line, _ := ft.newMap.CharPosition(t.Start)
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
