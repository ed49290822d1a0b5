package lsp

// Withholding what servers say about symbols declared in sensitive files.
//
// Locations in files the workspace policy protects are listed without
// their text (toolLocationsFrom, Lines). Hover, signature help, completion
// and understand_symbol carry text a server wrote from the declaration
// itself: a constant's value, a doc comment, a default argument. Each asks
// where the symbol is declared and leaves the text out when that is a
// sensitive file, saying so (sensitive, withheld), never answering as if the
// server had said nothing.
//
// What an agent could exploit decides how unknowns are handled:
//   - The check failed (the definition request errored, the callee of a
//     call could not be found): the text is withheld. An agent writes the
//     code it asks about, so it can aim at whatever makes a check fail.
//   - No attached server offers the request the check needs: the text is
//     shown and the result says it was not checked (unchecked). Which
//     servers run is the user's configuration, not the agent's input, and
//     withholding would end hover there for good.
//   - The server knows no declaration (hover on a keyword or a literal):
//     the text is shown. Hover and definition resolve the same identifier;
//     the one known exception, gopls answering a package name's definition
//     with the import in the same file, is followed once more
//     (followImports). Signature help is stricter: a callee always has a
//     declaration, and the callee is found by nvbridge, not the server.
//
// What this cannot see: text derived from a sensitive declaration but
// declared elsewhere (`const X = secret.Token` in an allowed file hovers
// with the value; an alias hovers with the aliased struct's fields; an
// import's own name, `import sec "..."`, is its own definition and hovers
// with the package's doc), and compiler diagnostics quoting a value. Those
// name no sensitive location.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// Withholding says what of a server's text a result leaves out because of
// the workspace policy on sensitive files (--deny, .env, keys ...).
type Withholding struct {
	// Sensitive: the symbol is declared in a file the workspace policy
	// protects; what the server says about it is not shown.
	Sensitive bool `json:"sensitive,omitempty"`
	// Withheld says why the server's text is not shown: the sensitive
	// file (and its deny pattern) the symbol is declared in, or why where
	// it is declared could not be checked.
	Withheld string `json:"withheld,omitempty"`
	// Unchecked says why the text is shown without that check: no
	// attached language server can say where the symbol is declared.
	Unchecked string `json:"unchecked,omitempty"`
}

// withholds reports whether the text must be left out.
func (w Withholding) withholds() bool { return w.Sensitive || w.Withheld != "" }

// maxFollowed bounds the definitions followed once more (disclose).
const maxFollowed = 4

// answerChecked runs answer and check together, so their requests start
// at once and the check adds no latency of its own when the server
// answers both as fast: check says what of the answer may be shown. When
// answer fails, or has nothing check could withhold (needed false), check
// is cancelled and not waited for (a server that never answers the check
// does not hold up an empty answer). A check that panics withholds.
func answerChecked[T any](ctx context.Context, answer func(context.Context) (T, error), needed func(T) bool,
	check func(context.Context) Withholding) (T, Withholding, error) {
	return together(ctx, answer, needed, check, func(err error) Withholding {
		return Withholding{Withheld: "where the symbol is declared could not be checked (" + apierr.As(err).Message + ")"}
	})
}

// together is answerChecked for any check result; failed is the result of
// a check that panicked.
func together[T, V any](ctx context.Context, answer func(context.Context) (T, error), needed func(T) bool,
	check func(context.Context) V, failed func(error) V) (T, V, error) {
	checkCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	verdict := make(chan V, 1)
	safego.Go("checking where a symbol is declared", func() { verdict <- check(checkCtx) },
		func(err error) { verdict <- failed(err) })
	a, err := answer(ctx)
	var none V
	if err != nil || !needed(a) {
		return a, none, err
	}
	v := <-verdict // the check's requests end with ctx at the latest
	if e := apierr.FromContext(ctx, "the request", "retry with a larger timeout; the language server may still be loading the workspace"); e != nil {
		var zero T
		return zero, none, e
	}
	return a, v, nil
}

// definitionServer picks the server asked where a symbol is declared:
// preferred (the one whose text is checked) when it can say, else another
// server attached to doc that can.
func definitionServer(doc *Document, preferred Server) (Server, bool) {
	if preferred.Supports(protocol.MethodTextDocumentDefinition) {
		return preferred, true
	}
	s, err := doc.ServerFor(protocol.MethodTextDocumentDefinition)
	return s, err == nil
}

// notCheckable is the Withholding of text shown because no server attached
// to doc can say where what (a symbol, as describeSymbol names it) is
// declared.
func notCheckable(doc *Document, what string) Withholding {
	return Withholding{Unchecked: fmt.Sprintf("no language server attached to %s offers %s, so where %s is declared was not checked against the workspace policy on sensitive files",
		doc.Rel, protocol.MethodTextDocumentDefinition, what)}
}

// declarations asks server where the symbol at at is declared
// (textDocument/definition; at is in the server's units).
func (c *Client) declarations(ctx context.Context, doc *Document, server Server, at protocol.TextDocumentPositionParams) ([]protocol.Location, error) {
	return requestAs(ctx, c, doc, server, protocol.MethodTextDocumentDefinition,
		protocol.DefinitionParams{TextDocumentPositionParams: at}, DecodeLocations)
}

// checkDeclaration asks where the symbol at pos is declared and judges it.
func (c *Client) checkDeclaration(ctx context.Context, pos position) Withholding {
	server, ok := definitionServer(pos.doc, pos.server)
	if !ok {
		return notCheckable(pos.doc, describeSymbol(pos.symbol()))
	}
	at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: pos.doc.URI},
		Position: pos.point.In(server.OffsetEncoding)}
	locs, err := c.declarations(ctx, pos.doc, server, at)
	return c.disclose(ctx, pos.doc, server, at, pos.symbol(), locs, err)
}

// disclose judges server's answer (locs, or err) to where name, the symbol
// at at in doc, is declared: withheld when a location is in a sensitive
// file, or the answer (or a followed one, followImports) failed.
func (c *Client) disclose(ctx context.Context, doc *Document, server Server, at protocol.TextDocumentPositionParams,
	name string, locs []protocol.Location, err error) Withholding {
	what := describeSymbol(name)
	if err != nil {
		return unverifiable(what, server, err)
	}
	if w, found := c.sensitiveAmong(what, server, locs); found {
		return w
	}
	further, _, err := c.followImports(ctx, doc, server, at, locs)
	if err != nil {
		return unverifiable(what, server, err)
	}
	w, _ := c.sensitiveAmong(what, server, further)
	return w
}

// followImports asks once more where each of locs that lies elsewhere in
// doc itself is declared: gopls answers a package name's definition with
// its import (`import "example.com/shop/secret"`), whose own definition is
// the package's files, where the package's documentation is. A local
// variable or a function of the same file answers itself: one more
// request, only for names declared in the file asked about. It returns
// what those answered, and whether any led to another file.
func (c *Client) followImports(ctx context.Context, doc *Document, server Server, at protocol.TextDocumentPositionParams,
	locs []protocol.Location) (further []protocol.Location, elsewhere bool, err error) {
	var follow []protocol.TextDocumentPositionParams
	for _, l := range locs {
		if l.URI == doc.URI && !rangeHas(l.Range, at.Position) && len(follow) < maxFollowed {
			follow = append(follow, protocol.TextDocumentPositionParams{TextDocument: at.TextDocument, Position: l.Range.Start})
		}
	}
	answers := make([][]protocol.Location, len(follow))
	errs := make([]error, len(follow))
	for i, err := range runBounded(ctx, len(follow), maxFollowed, func(i int) {
		answers[i], errs[i] = c.declarations(ctx, doc, server, follow[i])
	}) {
		if err != nil {
			errs[i] = err
		}
	}
	for i := range follow {
		if errs[i] != nil {
			return nil, false, errs[i]
		}
		for _, l := range answers[i] {
			further = append(further, l)
			elsewhere = elsewhere || l.URI != doc.URI
		}
	}
	return further, elsewhere, ctx.Err()
}

// sensitiveAmong returns the Withholding for the first of locs in a file
// the workspace policy protects, found false when none is; what names
// the symbol in the message.
func (c *Client) sensitiveAmong(what string, server Server, locs []protocol.Location) (Withholding, bool) {
	root := c.Session.Root()
	for _, l := range locs {
		p := PathOf(l.URI)
		if p == "" || !root.Sensitive(p) {
			continue
		}
		rel := root.Rel(p)
		return Withholding{Sensitive: true, Withheld: fmt.Sprintf(
			"%s is declared in %s, %s: what %s says about it is not shown (the user can allow the file with --allow-sensitive)",
			what, rel, c.sensitiveFile(rel), server.Name)}, true
	}
	return Withholding{}, false
}

// sensitiveFile describes a sensitive file (rel: relative to the root) by
// the deny pattern that makes it one.
func (c *Client) sensitiveFile(rel string) string {
	return fmt.Sprintf("a sensitive file (deny pattern %q)", c.Session.Root().Policy().Denied(rel))
}

// unverifiable is the Withholding of text about what (a symbol, as
// describeSymbol names it) whose declaration could not be located.
func unverifiable(what string, server Server, err error) Withholding {
	return Withholding{Withheld: fmt.Sprintf(
		"where %s is declared could not be checked (%s): what %s says about it is not shown, since it may come from a sensitive file; retry",
		what, apierr.As(err).Message, server.Name)}
}

// describeSymbol names a symbol in a message.
func describeSymbol(name string) string {
	if name == "" {
		return "the symbol"
	}
	return strconv.Quote(name)
}

// completionChecks bounds the names of one completion answer looked up
// (workspace/symbol each, maxConcurrentChecks at a time: gopls takes
// milliseconds for each); the text of items with further names is
// withheld unchecked.
const (
	completionChecks    = 20
	maxConcurrentChecks = 4
)

// textlessKinds are completion kinds no file declares.
var textlessKinds = map[string]bool{"keyword": true, "snippet": true, "text": true}

// hasText reports whether an item has text a declaration may have written.
func hasText(it CompletionItem) bool {
	return (it.Detail != "" || it.Documentation != "") && !textlessKinds[it.Kind]
}

// completionScope is what the qualifier before a completion's cursor
// (`orders.`, `strings.`) says about where the items are declared.
type completionScope struct {
	// external: the qualifier is declared outside the workspace (the
	// standard library, a dependency), and so is all it leads to.
	external bool
	// folder: the qualifier is a package (lang.ImportSyntax.Folder: Go)
	// whose folder holds no sensitive file; its members, the items whose
	// label is a plain name, are declared there.
	folder string
}

// qualifierScope finds where the qualifier before pos's cursor is
// declared (its definition, an import followed to the package's files).
// The zero scope says nothing.
func (c *Client) qualifierScope(ctx context.Context, pos position) completionScope {
	line := pos.point.Text[:pos.point.Byte]
	dot := identStart(line, len(line)) - 1 // before the word being completed
	if dot < 1 || line[dot] != '.' || identStart(line, dot) == dot {
		return completionScope{}
	}
	server, ok := definitionServer(pos.doc, pos.server)
	if !ok {
		return completionScope{}
	}
	at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: pos.doc.URI},
		Position: protocol.Position{Line: uint32(pos.point.Line), Character: uint32(preview.ByteToUnits(pos.point.Text, identStart(line, dot), server.OffsetEncoding))}}
	locs, err := c.declarations(ctx, pos.doc, server, at)
	if err != nil || len(locs) == 0 {
		return completionScope{}
	}
	further, pkg, err := c.followImports(ctx, pos.doc, server, at, locs)
	if err != nil {
		return completionScope{}
	}
	imports := locs
	if pkg {
		locs = further
	}
	root := c.Session.Root()
	dirs := map[string]bool{}
	for _, l := range locs {
		p := PathOf(l.URI)
		if p == "" || root.Contains(p) {
			dirs[filepath.Dir(p)] = true
		}
	}
	if len(dirs) == 0 {
		return completionScope{external: true}
	}
	if l := lang.ForFile(pos.doc.Path); !pkg || l == nil || !l.Imports.Folder || len(dirs) != 1 || !c.importPaths(ctx, pos.doc, server, imports) {
		return completionScope{}
	}
	var dir string
	for d := range dirs {
		dir = d
	}
	entries, err := os.ReadDir(dir)
	if dir == "." || err != nil {
		return completionScope{}
	}
	for _, e := range entries {
		if root.Sensitive(filepath.Join(dir, e.Name())) {
			return completionScope{}
		}
	}
	return completionScope{folder: dir}
}

// importPaths reports whether each of locs in doc is a quoted import path
// (how gopls answers a package name's definition), and not, say, an
// embedded field leading to its type, whose members embedding may bring
// from anywhere.
func (c *Client) importPaths(ctx context.Context, doc *Document, server Server, locs []protocol.Location) bool {
	wanted := map[string][]int{}
	for _, l := range locs {
		if l.URI != doc.URI || l.Range.Start.Line != l.Range.End.Line {
			return false
		}
		wanted[doc.Path] = append(wanted[doc.Path], int(l.Range.Start.Line))
	}
	texts, err := c.Lines(ctx, wanted)
	if err != nil {
		return false
	}
	for _, l := range locs {
		text := texts[doc.Path][int(l.Range.Start.Line)]
		start, _ := preview.UnitsToByte(text, int(l.Range.Start.Character), server.OffsetEncoding)
		end, _ := preview.UnitsToByte(text, int(l.Range.End.Character), server.OffsetEncoding)
		if end-start < 2 || !strings.ContainsRune("\"`'", rune(text[start])) || text[end-1] != text[start] {
			return false
		}
	}
	return true
}

// withholdCompletions leaves out the detail and documentation of the items
// a symbol declared in a sensitive file may have written. An item carries
// no location (nor does completionItem/resolve). The qualifier says where
// many are declared (scope: none is sensitive after `strings.`, nor are
// the members of a package without sensitive files after `orders.`); the
// others' names are looked up: workspace/symbol at the server that
// completed, and an item is withheld when a symbol of exactly its name is
// declared in a sensitive file (a same-named symbol elsewhere cannot be
// told apart from it, so it is withheld too), or when the lookup failed.
// Only items with text are looked up (pyright and
// typescript-language-server give none before completionItem/resolve;
// gopls gives both), each name once, at most completionChecks names.
func (c *Client) withholdCompletions(ctx context.Context, pos position, scope completionScope, items []CompletionItem) (Withholding, error) {
	byName := map[string][]int{}
	var names []string
	for i, it := range items {
		if !hasText(it) || scope.external {
			continue
		}
		name := completionName(it.Label)
		if scope.folder != "" && labelHead(it.Label) == name {
			continue // a member of the package
		}
		if _, seen := byName[name]; !seen {
			names = append(names, name)
		}
		byName[name] = append(byName[name], i)
	}
	if len(names) == 0 {
		return Withholding{}, nil
	}
	if !pos.server.Supports(protocol.MethodWorkspaceSymbol) {
		return Withholding{Unchecked: fmt.Sprintf("%s does not offer %s, so where the items are declared was not checked against the workspace policy on sensitive files",
			pos.server.Name, protocol.MethodWorkspaceSymbol)}, nil
	}
	checked := names[:min(len(names), completionChecks)]
	verdicts := make([]Withholding, len(checked))
	for i, err := range runBounded(ctx, len(checked), maxConcurrentChecks, func(i int) {
		verdicts[i] = c.nameVerdict(ctx, pos, checked[i])
	}) {
		if err != nil {
			verdicts[i] = unverifiable(describeSymbol(checked[i]), pos.server, err)
		}
	}
	if e := apierr.FromContext(ctx, "get_completions", "retry with a larger timeout; the language server may still be loading the workspace"); e != nil {
		return Withholding{}, e
	}
	for i, name := range names {
		w := Withholding{Withheld: fmt.Sprintf("not checked: only %d names of an answer are looked up for the workspace policy on sensitive files; pass prefix to narrow the list", completionChecks)}
		if i < len(checked) {
			w = verdicts[i]
		}
		for _, j := range byName[name] {
			items[j].Withholding = w
			if w.withholds() {
				items[j].Detail, items[j].Documentation = "", ""
			}
		}
	}
	// The summary's example is a sensitive item's reason when there is one.
	var sum Withholding
	withheld, example := 0, ""
	for _, it := range items {
		if !it.withholds() {
			continue
		}
		withheld++
		if example == "" || it.Sensitive && !sum.Sensitive {
			example = it.Withheld
		}
		sum.Sensitive = sum.Sensitive || it.Sensitive
	}
	if withheld > 0 {
		sum.Withheld = fmt.Sprintf("the detail and documentation of %d item(s) are not shown (each item's withheld says why), e.g. %s", withheld, example)
	}
	return sum, nil
}

// nameVerdict looks name up (workspace/symbol) and judges where symbols so
// named are declared.
func (c *Client) nameVerdict(ctx context.Context, pos position, name string) Withholding {
	if name == "" {
		return Withholding{Withheld: "the item's label names no symbol to look up for the workspace policy on sensitive files"}
	}
	syms, err := requestAs(ctx, c, pos.doc, pos.server, protocol.MethodWorkspaceSymbol, protocol.WorkspaceSymbolParams{Query: name},
		func(raw json.RawMessage) ([]FlatSymbol, error) {
			return decodeSymbols(raw, "", pos.server.OffsetEncoding)
		})
	if err != nil {
		return unverifiable(describeSymbol(name), pos.server, err)
	}
	var locs []protocol.Location
	for _, s := range syms {
		if baseName(s.Name) == name {
			locs = append(locs, protocol.Location{URI: s.URI, Range: symSel(s)})
		}
	}
	w, _ := c.sensitiveAmong("a symbol named "+strconv.Quote(name), pos.server, locs)
	return w
}

// completionName is the name an item's label completes: its last
// identifier before any parameters or type ("Config" of
// "secret.Config", "sign" of "sign(msg)", "key" of "key?: string"); ""
// when it starts with none (nameVerdict withholds its text).
func completionName(label string) string {
	return baseName(labelHead(label))
}

// labelHead is the dotted name a label starts with ("sign" of
// "sign(msg)", "ErrEmpty.Error" of "ErrEmpty.Error()").
func labelHead(label string) string {
	for i, r := range label {
		if r != '.' && !isIdent(r) {
			return label[:i]
		}
	}
	return label
}
