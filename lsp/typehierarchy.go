package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/preview"
)

// Type hierarchy directions.
const (
	DirectionSupertypes = "supertypes"
	DirectionSubtypes   = "subtypes"
)

// Where a type hierarchy came from.
const (
	// TypeSourceServer: the server's type hierarchy (LSP 3.17).
	TypeSourceServer = "typeHierarchy"
	// TypeSourceFallback: built from other requests (implementation,
	// references, definition, document symbols) because the server has no
	// type hierarchy; Note says how.
	TypeSourceFallback = "fallback"
)

// TypeHierarchyOptions tune TypeHierarchy.
type TypeHierarchyOptions struct {
	// Direction is "both" (default), "supertypes" or "subtypes".
	Direction string
	// Depth is how many levels to follow (default 1).
	Depth int
	// MaxItems bounds the entries per direction (default
	// DefaultHierarchyMaxItems).
	MaxItems int
}

// TypeEntry is a supertype or subtype.
type TypeEntry struct {
	HierarchyEntry
	HierarchyMarks
	Supertypes []TypeEntry `json:"supertypes,omitempty"`
	Subtypes   []TypeEntry `json:"subtypes,omitempty"`
}

// HierarchyTotals count one direction of a hierarchy.
type HierarchyTotals struct {
	// Direct is the number of direct entries (callers, subtypes...)
	// listed; More how many more max_items left out.
	Direct int `json:"direct"`
	More   int `json:"more,omitempty"`
	// Entries counts entries at every level.
	Entries int `json:"entries"`
}

// TypeHierarchyResult answers get_type_hierarchy. Supertypes and Subtypes
// are null when that direction was not asked.
type TypeHierarchyResult struct {
	Symbol HierarchyEntry `json:"symbol"`
	From   string         `json:"from"`
	Server string         `json:"server"`
	// Source is "typeHierarchy" (the server's) or "fallback"; Note explains
	// a fallback.
	Source     string                      `json:"source"`
	Note       string                      `json:"note,omitempty"`
	Direction  string                      `json:"direction"`
	Depth      int                         `json:"depth"`
	Supertypes []TypeEntry                 `json:"supertypes"`
	Subtypes   []TypeEntry                 `json:"subtypes"`
	Totals     map[string]*HierarchyTotals `json:"totals"`
	Truncated  bool                        `json:"truncated"`
	Notes      []string                    `json:"notes,omitempty"`
}

// TypeHierarchy returns the supertypes and/or subtypes of the type at t in
// file to opts.Depth levels. With a server that has no type hierarchy
// (pyright, typescript-language-server) it falls back to other requests and
// says so (Source "fallback", Note).
func (c *Client) TypeHierarchy(ctx context.Context, file string, t Target, opts TypeHierarchyOptions) (TypeHierarchyResult, error) {
	if err := checkHierarchyOptions(&opts.Direction, &opts.Depth, &opts.MaxItems, DirectionSupertypes, DirectionSubtypes); err != nil {
		return TypeHierarchyResult{}, err
	}
	doc, err := c.Open(ctx, file)
	if err != nil {
		return TypeHierarchyResult{}, err
	}
	if len(doc.Servers) == 0 {
		_, err := doc.ServerFor(MethodTextDocumentPrepareTypeHierarchy)
		return TypeHierarchyResult{}, err
	}
	pt, err := c.Locate(ctx, doc, t)
	if err != nil {
		return TypeHierarchyResult{}, err
	}
	if _, err := c.awaitAnalysis(ctx, doc.Buffer.Bufnr, doc.Servers[0]); err != nil {
		return TypeHierarchyResult{}, err
	}
	lim := walkLimits{depth: opts.Depth, maxItems: opts.MaxItems, concurrency: hierarchyConcurrency, leaf: c.outsideWorkspace}
	if server, err := doc.ServerFor(MethodTextDocumentPrepareTypeHierarchy); err == nil {
		return c.typeHierarchyAt(ctx, position{doc: doc, server: server, point: pt}, opts, lim)
	}
	return c.typeHierarchyFallback(ctx, position{doc: doc, server: doc.Servers[0], point: pt}, opts, lim)
}

// typeHierarchyAt walks the server's type hierarchy.
func (c *Client) typeHierarchyAt(ctx context.Context, pos position, opts TypeHierarchyOptions, lim walkLimits) (TypeHierarchyResult, error) {
	items, err := c.prepareHierarchy(ctx, pos, MethodTextDocumentPrepareTypeHierarchy,
		TypeHierarchyPrepareParams{TextDocumentPositionParams: pos.params()}, "type", "type",
		"point at the name of a type (a class, interface or struct) where it is declared or used")
	if err != nil {
		return TypeHierarchyResult{}, err
	}
	out := TypeHierarchyResult{Source: TypeSourceServer}
	if len(items) > 1 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s offered %d types at this position; the first (%s) is shown",
			pos.server.Name, len(items), items[0].Name))
	}
	expander := func(dir string) expandFunc {
		method := MethodTypeHierarchySupertypes
		if dir == DirectionSubtypes {
			method = MethodTypeHierarchySubtypes
		}
		return func(ctx context.Context, it hierItem) ([]hierEdge, error) {
			var params any = TypeHierarchySupertypesParams{Item: it.raw}
			if dir == DirectionSubtypes {
				params = TypeHierarchySubtypesParams{Item: it.raw}
			}
			next, err := requestAs(ctx, c, pos.doc, pos.server, method, params, decodeHierItems)
			if err != nil {
				return nil, err
			}
			edges := make([]hierEdge, len(next))
			for i, n := range next {
				edges[i] = hierEdge{item: n}
			}
			return edges, nil
		}
	}
	return c.finishTypes(ctx, pos, items[0], opts, lim, out, expander)
}

// finishTypes walks both directions concurrently and shapes the result.
func (c *Client) finishTypes(ctx context.Context, pos position, root hierItem, opts TypeHierarchyOptions, lim walkLimits,
	out TypeHierarchyResult, expander func(dir string) expandFunc) (TypeHierarchyResult, error) {
	out.From, out.Server, out.Direction, out.Depth = pos.where(), pos.server.Name, opts.Direction, opts.Depth
	out.Totals = map[string]*HierarchyTotals{}
	dirs := directions(opts.Direction, DirectionSupertypes, DirectionSubtypes)
	walked, err := c.walkDirections(ctx, pos.server.OffsetEncoding, root, lim, dirs, expander, nil)
	if err != nil {
		return TypeHierarchyResult{}, err
	}
	out.Symbol, out.Truncated = walked.root, walked.truncated
	out.Notes = append(out.Notes, walked.notes...)
	for i, dir := range dirs {
		entries := shapeViews(walked.views[i], func(v hierView, children []TypeEntry) TypeEntry {
			e := TypeEntry{HierarchyEntry: v.entry, HierarchyMarks: v.marks()}
			if dir == DirectionSupertypes {
				e.Supertypes = children
			} else {
				e.Subtypes = children
			}
			return e
		})
		n, _ := countViews(walked.views[i])
		out.Totals[dir] = &HierarchyTotals{Direct: len(entries), More: walked.more[i], Entries: n}
		if dir == DirectionSupertypes {
			out.Supertypes = entries
		} else {
			out.Subtypes = entries
		}
	}
	return out, nil
}

// typeFallback builds a type hierarchy from other requests for a server
// without one. Items are positioned at type names; a type's kind comes
// from its file's document symbols (else from the keyword before it).
type typeFallback struct {
	c      *Client
	server string // name of the server the root's file has
	mu     sync.Mutex
	docs   map[string]*Document // absolute path -> opened document
	kinds  map[string][]FlatSymbol
}

// typeFallbackNote explains, for a server, how the fallback finds types.
func typeFallbackNote(server string, impl, refs, def bool) string {
	var sub, sup string
	switch {
	case impl:
		sub = "subtypes are the server's textDocument/implementation answers (it lists subclasses of subclasses too)"
	case refs:
		sub = "subtypes are the references (textDocument/references) that sit in a class declaration's base list (class X(Base), class X extends Base): only classes whose base list names the type on their declaration line are found"
	default:
		sub = "subtypes cannot be found (the server has neither textDocument/implementation nor textDocument/references)"
	}
	if def {
		sup = "supertypes are the names in the declaration's base list (extends/implements, or class X(Base, ...)) resolved with textDocument/definition"
	} else {
		sup = "supertypes are the names in the declaration's base list, unresolved (the server has no textDocument/definition)"
	}
	return fmt.Sprintf("%s does not offer type hierarchy (%s); %s; %s.", server, MethodTextDocumentPrepareTypeHierarchy, sub, sup)
}

// typeHierarchyFallback answers for a server without type hierarchy.
func (c *Client) typeHierarchyFallback(ctx context.Context, pos position, opts TypeHierarchyOptions, lim walkLimits) (TypeHierarchyResult, error) {
	fb := &typeFallback{c: c, server: pos.server.Name, docs: map[string]*Document{pos.doc.Path: pos.doc}, kinds: map[string][]FlatSymbol{}}
	server := pos.server
	for _, s := range pos.doc.Servers {
		if s.Supports(protocol.MethodTextDocumentImplementation) || s.Supports(protocol.MethodTextDocumentReferences) {
			server = s
			break
		}
	}
	pos.server = server
	root, err := fb.rootItem(ctx, pos)
	if err != nil {
		return TypeHierarchyResult{}, err
	}
	impl := server.Supports(protocol.MethodTextDocumentImplementation)
	refs := server.Supports(protocol.MethodTextDocumentReferences)
	def := server.Supports(protocol.MethodTextDocumentDefinition)
	out := TypeHierarchyResult{Source: TypeSourceFallback, Note: typeFallbackNote(server.Name, impl, refs, def)}
	expander := func(dir string) expandFunc {
		if dir == DirectionSupertypes {
			return fb.supertypes
		}
		if impl {
			return fb.implementations
		}
		if refs {
			return fb.subclassReferences
		}
		return func(context.Context, hierItem) ([]hierEdge, error) {
			return nil, apierr.Errorf(apierr.Unsupported,
				"find_references or get_symbols with a query may find the subtypes by name",
				"%s has neither type hierarchy, textDocument/implementation nor textDocument/references: subtypes cannot be found", server.Name)
		}
	}
	return c.finishTypes(ctx, pos, root, opts, lim, out, expander)
}

// open returns the document of path (absolute), opening it once per walk.
func (fb *typeFallback) open(ctx context.Context, path string) (*Document, Server, error) {
	fb.mu.Lock()
	doc := fb.docs[path]
	fb.mu.Unlock()
	if doc == nil {
		var err error
		if doc, err = fb.c.Open(ctx, fb.c.Session.Root().Rel(path)); err != nil {
			return nil, Server{}, err
		}
		fb.mu.Lock()
		fb.docs[path] = doc
		fb.mu.Unlock()
	}
	for _, s := range doc.Servers {
		if s.Name == fb.server {
			return doc, s, nil
		}
	}
	if len(doc.Servers) == 0 {
		_, err := doc.ServerFor(protocol.MethodTextDocumentReferences)
		return nil, Server{}, err
	}
	return doc, doc.Servers[0], nil
}

// rootItem is the declaration of the type at pos: where textDocument/
// definition leads (the position itself when it leads nowhere).
func (fb *typeFallback) rootItem(ctx context.Context, pos position) (hierItem, error) {
	name := pos.symbol()
	if name == "" {
		return hierItem{}, apierr.Errorf(apierr.InvalidParameter, "point at the name of a type (a class or interface)",
			"no identifier at %s", pos.where())
	}
	at := protocol.Location{URI: pos.doc.URI, Range: nameRange(pos.point.Text, pos.point.Line, identStart(pos.point.Text, pos.point.Byte), name, pos.server.OffsetEncoding)}
	if pos.server.Supports(protocol.MethodTextDocumentDefinition) {
		params := protocol.DefinitionParams{TextDocumentPositionParams: pos.params()}
		locs, err := requestAs(ctx, fb.c, pos.doc, pos.server, protocol.MethodTextDocumentDefinition, params, DecodeLocations)
		if err != nil {
			return hierItem{}, err
		}
		if len(locs) > 0 {
			at = locs[0]
		}
	}
	items, err := fb.items(ctx, pos.server.OffsetEncoding, []protocol.Location{at})
	if err != nil {
		return hierItem{}, err
	}
	if len(items) == 0 {
		return hierItem{}, apierr.Errorf(apierr.ResourceNotFound, "point at the name of a type (a class or interface)",
			"no type declaration found for %q at %s", name, pos.where())
	}
	return items[0], nil
}

// items turns locations of type names into items: the identifier there is
// the name, the document symbols of its file give the kind.
func (fb *typeFallback) items(ctx context.Context, enc preview.Encoding, locs []protocol.Location) ([]hierItem, error) {
	texts, err := fb.startLines(ctx, locs)
	if err != nil {
		return nil, err
	}
	out := make([]hierItem, 0, len(locs))
	for _, l := range locs {
		p := PathOf(l.URI)
		text, ok := texts[p][int(l.Range.Start.Line)]
		if !ok {
			continue
		}
		b, _ := preview.UnitsToByte(text, int(l.Range.Start.Character), enc)
		start := identStart(text, b)
		name := IdentifierAt(text, start)
		if name == "" {
			continue
		}
		r := nameRange(text, int(l.Range.Start.Line), start, name, enc)
		out = append(out, hierItem{Name: name, Kind: fb.kind(ctx, p, r, text, start), URI: l.URI, Range: r, SelectionRange: r})
	}
	return out, nil
}

// kind is the kind of the symbol declared at r in path, from the file's
// document symbols, else from the keyword before the name.
func (fb *typeFallback) kind(ctx context.Context, path string, r protocol.Range, text string, start int) protocol.SymbolKind {
	fb.mu.Lock()
	syms, ok := fb.kinds[path]
	fb.mu.Unlock()
	if !ok && fb.c.Session.Root().Contains(path) {
		if _, flat, err := fb.c.documentSymbols(ctx, fb.c.Session.Root().Rel(path)); err == nil {
			syms = flat
		}
		fb.mu.Lock()
		fb.kinds[path] = syms
		fb.mu.Unlock()
	}
	best := -1
	for i, s := range syms {
		sel := s.Range
		if s.Selection != nil {
			sel = *s.Selection
		}
		if rangeHas(sel, r.Start) && (best < 0 || rangeHas(symSel(syms[best]), sel.Start) && rangeHas(symSel(syms[best]), sel.End)) {
			best = i
		}
	}
	if best >= 0 {
		return protocol.SymbolKind(syms[best].Kind)
	}
	before := strings.Fields(text[:start])
	if len(before) > 0 {
		switch before[len(before)-1] {
		case "interface", "protocol", "trait":
			return protocol.SymbolKindInterface
		case "struct":
			return protocol.SymbolKindStruct
		case "enum":
			return protocol.SymbolKindEnum
		case "type":
			return protocol.SymbolKindClass
		}
	}
	return protocol.SymbolKindClass
}

// startLines reads the line each location starts on (path -> line -> text).
func (fb *typeFallback) startLines(ctx context.Context, locs []protocol.Location) (map[string]map[int]string, error) {
	wanted := map[string][]int{}
	for _, l := range locs {
		p := PathOf(l.URI)
		wanted[p] = append(wanted[p], int(l.Range.Start.Line))
	}
	return fb.c.Lines(ctx, wanted)
}

// locationsAt sends a location request (method, with the parameters params
// builds around the position) at it's name and returns the locations
// answered and the server that answered.
func (fb *typeFallback) locationsAt(ctx context.Context, it hierItem, method string,
	params func(protocol.TextDocumentPositionParams) any) ([]protocol.Location, Server, error) {
	doc, server, err := fb.open(ctx, PathOf(it.URI))
	if err != nil {
		return nil, Server{}, err
	}
	at := protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: it.URI}, Position: it.SelectionRange.Start}
	locs, err := requestAs(ctx, fb.c, doc, server, method, params(at), DecodeLocations)
	if err != nil {
		return nil, Server{}, err
	}
	return locs, server, nil
}

// implementations: subtypes by textDocument/implementation.
func (fb *typeFallback) implementations(ctx context.Context, it hierItem) ([]hierEdge, error) {
	locs, server, err := fb.locationsAt(ctx, it, protocol.MethodTextDocumentImplementation, func(at protocol.TextDocumentPositionParams) any {
		return protocol.ImplementationParams{TextDocumentPositionParams: at}
	})
	if err != nil {
		return nil, err
	}
	return fb.edges(ctx, server.OffsetEncoding, it, locs)
}

func (fb *typeFallback) edges(ctx context.Context, enc preview.Encoding, it hierItem, locs []protocol.Location) ([]hierEdge, error) {
	items, err := fb.items(ctx, enc, locs)
	if err != nil {
		return nil, err
	}
	return edgesOf(it, items), nil
}

// edgesOf links it to items, dropping it itself and repeated items.
func edgesOf(it hierItem, items []hierItem) []hierEdge {
	edges := make([]hierEdge, 0, len(items))
	seen := map[string]bool{it.key(): true}
	for _, n := range items {
		if !seen[n.key()] {
			seen[n.key()] = true
			edges = append(edges, hierEdge{item: n})
		}
	}
	return edges
}

// subclassReferences: subtypes as the references to the type that sit in
// the base list of a class declaration on the same line.
func (fb *typeFallback) subclassReferences(ctx context.Context, it hierItem) ([]hierEdge, error) {
	locs, server, err := fb.locationsAt(ctx, it, protocol.MethodTextDocumentReferences, func(at protocol.TextDocumentPositionParams) any {
		return protocol.ReferenceParams{TextDocumentPositionParams: at}
	})
	if err != nil {
		return nil, err
	}
	texts, err := fb.startLines(ctx, locs)
	if err != nil {
		return nil, err
	}
	var subs []protocol.Location
	for _, l := range locs {
		text := texts[PathOf(l.URI)][int(l.Range.Start.Line)]
		b, _ := preview.UnitsToByte(text, int(l.Range.Start.Character), server.OffsetEncoding)
		if name, at, ok := lang.SubclassIn(PathOf(l.URI), text, b); ok {
			subs = append(subs, protocol.Location{URI: l.URI,
				Range: nameRange(text, int(l.Range.Start.Line), at, name, server.OffsetEncoding)})
		}
	}
	return fb.edges(ctx, server.OffsetEncoding, it, subs)
}

// headerLines is how many lines a class header may span.
const headerLines = 6

// supertypes: the names in the declaration's base list, resolved with
// textDocument/definition.
func (fb *typeFallback) supertypes(ctx context.Context, it hierItem) ([]hierEdge, error) {
	path := PathOf(it.URI)
	first := int(it.SelectionRange.Start.Line)
	wanted := map[string][]int{path: nil}
	for l := first; l < first+headerLines; l++ {
		wanted[path] = append(wanted[path], l)
	}
	texts, err := fb.c.Lines(ctx, wanted)
	if err != nil {
		return nil, err
	}
	var lines []string
	for l := first; l < first+headerLines; l++ {
		text, ok := texts[path][l]
		if !ok {
			break
		}
		lines = append(lines, text)
	}
	bases := lang.BasesIn(path, lines)
	if len(bases) == 0 {
		return nil, nil
	}
	doc, server, err := fb.open(ctx, path)
	if err != nil {
		return nil, err
	}
	enc := server.OffsetEncoding
	locs := make([]protocol.Location, len(bases))
	found := make([]bool, len(bases))
	errs := make([]error, len(bases))
	canDefine := server.Supports(protocol.MethodTextDocumentDefinition)
	panics := runBounded(ctx, len(bases), hierarchyConcurrency, func(i int) {
		b := bases[i]
		text := lines[b.Line]
		here := protocol.Location{URI: it.URI, Range: nameRange(text, first+b.Line, b.Byte, b.Name, enc)}
		locs[i] = here
		if !canDefine {
			return
		}
		var raw json.RawMessage
		params := protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: it.URI}, Position: here.Range.Start}}
		if errs[i] = fb.c.Request(ctx, doc, server, protocol.MethodTextDocumentDefinition, params, &raw); errs[i] != nil {
			return
		}
		defs, err := DecodeLocations(raw)
		if err != nil {
			errs[i] = err
			return
		}
		if len(defs) > 0 {
			locs[i], found[i] = defs[0], true
		}
	})
	if err := firstError(panics); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	items, err := fb.items(ctx, enc, locs)
	if err != nil {
		return nil, err
	}
	if canDefine && len(items) == len(locs) {
		for i := range items {
			if !found[i] {
				items[i].Detail = "declaration not found by " + server.Name + "; listed where the base list names it"
			}
		}
	}
	return edgesOf(it, items), nil
}

// nameRange is the LSP range (in enc) of name starting at byte b of line.
func nameRange(text string, line, b int, name string, enc preview.Encoding) protocol.Range {
	return protocol.Range{
		Start: protocol.Position{Line: uint32(line), Character: uint32(preview.ByteToUnits(text, b, enc))},
		End:   protocol.Position{Line: uint32(line), Character: uint32(preview.ByteToUnits(text, b+len(name), enc))},
	}
}

// rangeHas reports whether p lies in r (end inclusive).
func rangeHas(r protocol.Range, p protocol.Position) bool {
	after := p.Line > r.Start.Line || p.Line == r.Start.Line && p.Character >= r.Start.Character
	before := p.Line < r.End.Line || p.Line == r.End.Line && p.Character <= r.End.Character
	return after && before
}

func symSel(s FlatSymbol) protocol.Range {
	if s.Selection != nil {
		return *s.Selection
	}
	return s.Range
}
