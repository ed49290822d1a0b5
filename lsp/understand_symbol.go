package lsp

// understand_symbol: one call answering what an agent otherwise asks in
// five (definition, hover, references, calls, implementations), with the
// sub-requests running concurrently and each section failing on its own.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
)

// Bounds of understand_symbol.
const (
	// DefaultUnderstandReferences bounds the references listed.
	DefaultUnderstandReferences = 50
	// MaxDeclarationLines bounds the declaration's source lines.
	MaxDeclarationLines = 40
	// understandCallItems bounds the direct callers (and callees) listed.
	understandCallItems = 50
	// ambiguousShown is how many matches an AMBIGUOUS error lists.
	ambiguousShown = 10
	// allReferences is the bound asked of the server when counting every
	// reference (tests, files reached); the lists shown are cut further.
	allReferences = 2000
)

// UnderstandRequest names the symbol to understand: File and Target, or
// Query (a name searched with workspace/symbol; File then only picks the
// language server).
type UnderstandRequest struct {
	File   string
	Target Target
	Query  string
	// MaxReferences bounds the references listed (default
	// DefaultUnderstandReferences); the total counts them all.
	MaxReferences int
	// Concurrency bounds the sub-requests in flight: 0 runs every section
	// at once; 1 runs them one after another (the benchmark's baseline).
	Concurrency int
}

// UnderstandSymbol is what the answer is about: its name and declaration.
type UnderstandSymbol struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	File string `json:"file,omitempty"`
	// URI is set instead of File when the declaration is in a non-file
	// document (untitled:, jdt://).
	URI       string `json:"uri,omitempty"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	Container string `json:"container,omitempty"`
}

// SymbolMatch is a workspace symbol a query matched: a symbol as
// understand_symbol names one.
type SymbolMatch = UnderstandSymbol

// DeclarationSource is where the symbol is declared and its source.
type DeclarationSource struct {
	Location
	// SourceStart and SourceEnd bound Source (1-based lines, inclusive).
	SourceStart int    `json:"source_start_line"`
	SourceEnd   int    `json:"source_end_line"`
	Source      string `json:"source" brief:"omit"`
	// SourceTruncated: the declaration is longer than MaxDeclarationLines.
	SourceTruncated bool `json:"source_truncated,omitempty"`
	// Others are further definitions the server gave.
	Others []Location `json:"others,omitempty"`
	// Withheld says why Source is empty: the declaration is in a sensitive
	// file (sensitive is true).
	Withheld string `json:"withheld,omitempty"`
}

// HoverSection is the server's hover text (signature and documentation).
type HoverSection struct {
	Kind     string `json:"kind"`
	Contents string `json:"contents" brief:"omit"`
	// Withholding: Kind and Contents are left out when the symbol is
	// declared in a sensitive file.
	Withholding
}

// ReferencesSection lists references (declaration excluded) by file.
type ReferencesSection struct {
	Total     int              `json:"total"`
	FileCount int              `json:"file_count"`
	Returned  int              `json:"returned"`
	Truncated bool             `json:"truncated"`
	Files     []FileReferences `json:"files"`
}

// CallsSection lists the direct callers and callees.
type CallsSection struct {
	Incoming  []CallEntry `json:"incoming"`
	Outgoing  []CallEntry `json:"outgoing"`
	Truncated bool        `json:"truncated,omitempty"`
	// Withheld says why Outgoing is empty: the symbol is declared in a
	// sensitive file, and what it calls is what its body says.
	Withheld string `json:"withheld,omitempty"`
}

// ImplementationsSection lists implementations (of an interface or abstract
// member) or, where the server has no implementation request, subtypes.
type ImplementationsSection struct {
	// Source is "implementation", "typeHierarchy" or "fallback".
	Source    string     `json:"source"`
	Note      string     `json:"note,omitempty"`
	Count     int        `json:"count"`
	Locations []Location `json:"locations"`
}

// TestFile is a test file that references the symbol or calls it.
type TestFile struct {
	File       string `json:"file"`
	References int    `json:"references"`
	// Callers are the functions of the file calling the symbol.
	Callers []string `json:"callers,omitempty"`
}

// UnderstandResult answers understand_symbol. A section that failed is
// absent and Errors says why ("implementations": "UNSUPPORTED: ..."); a
// section that does not apply (calls of a type) is absent and NotApplicable
// says why.
type UnderstandResult struct {
	Symbol UnderstandSymbol `json:"symbol"`
	From   string           `json:"from"`
	// Query is the query that found the symbol, when one was given, and
	// Resolved how it was read.
	Query           string                  `json:"query,omitempty"`
	Resolved        *NamedSymbol            `json:"resolved,omitempty"`
	Definition      *DeclarationSource      `json:"definition,omitempty"`
	Hover           *HoverSection           `json:"hover,omitempty"`
	References      *ReferencesSection      `json:"references,omitempty"`
	Calls           *CallsSection           `json:"calls,omitempty"`
	Implementations *ImplementationsSection `json:"implementations,omitempty"`
	// Tests are the test files (by name: *_test.go, test_*.py, *_test.py,
	// *.test.ts, *.spec.ts, files under tests/ ...) that reference or call
	// the symbol.
	Tests         []TestFile        `json:"tests"`
	Errors        map[string]string `json:"errors,omitempty"`
	NotApplicable map[string]string `json:"not_applicable,omitempty"`
	// Withholding: the symbol is declared in a sensitive file: its
	// declaration's source, its hover text and its callees are left out
	// (each section says so too); where it is and its references stay.
	Withholding
}

// symbolAt locates target t in file, refused (ServerFor's error for
// method) when no server is attached to the file: the position and the
// symbol named there, its kind "unknown" until a server says otherwise.
func (c *Client) symbolAt(ctx context.Context, file string, t Target, method string) (position, UnderstandSymbol, error) {
	doc, pt, err := c.locateIn(ctx, file, t)
	if err != nil {
		return position{}, UnderstandSymbol{}, err
	}
	if len(doc.Servers) == 0 {
		_, err := doc.ServerFor(method)
		return position{}, UnderstandSymbol{}, err
	}
	here := position{doc: doc, server: doc.Servers[0], point: pt}
	return here, UnderstandSymbol{Name: here.symbol(), Kind: "unknown", File: doc.Rel, Line: pt.Line + 1, Column: pt.Char}, nil
}

// Understand answers understand_symbol.
func (c *Client) Understand(ctx context.Context, req UnderstandRequest) (UnderstandResult, error) {
	if err := checkLimit(&req.MaxReferences, "max_references", DefaultUnderstandReferences); err != nil {
		return UnderstandResult{}, err
	}
	var out UnderstandResult
	var named *SymbolMatch // the declaration a query named
	req.Query = strings.TrimSpace(req.Query)
	if req.Query != "" {
		n, err := c.ResolveName(ctx, req.Query, req.File)
		if err != nil {
			return UnderstandResult{}, err
		}
		m := n.Symbol
		out.Query, out.Resolved, named = req.Query, &n, &m
		req.File, req.Target = m.File, Target{Line: m.Line, Column: &m.Column}
	} else if req.File == "" {
		return UnderstandResult{}, apierr.New(apierr.InvalidParameter, "neither file nor query was given",
			"pass file, line and symbol (or column), or query with the symbol's name")
	}
	// Bad paths and positions fail the whole call, before any section.
	// The file is opened and the target located once: every section
	// asks its server at that point.
	here, sym, err := c.symbolAt(ctx, req.File, req.Target, protocol.MethodTextDocumentDefinition)
	if err != nil {
		return UnderstandResult{}, err
	}
	out.From, out.Symbol = here.where(), sym

	u := &understanding{c: c, req: req, doc: here.doc, point: here.point, name: sym.Name, defDone: make(chan struct{}),
		declDone: make(chan struct{}), errors: map[string]string{}, notApplicable: map[string]string{}}
	sections := []func(context.Context){u.definition, u.hover, u.references, u.calls, u.implementations}
	names := []string{"definition", "hover", "references", "calls", "implementations"}
	limit := req.Concurrency
	if limit <= 0 {
		limit = len(sections)
	}
	// A section that panics (a bug meeting an odd answer) fails alone.
	for i, err := range runBounded(ctx, len(sections), limit, func(i int) { sections[i](ctx) }) {
		if err != nil {
			u.fail(names[i], err)
		}
	}
	if err := apierr.FromContext(ctx, "understand_symbol",
		"retry with a larger timeout; the language server may still be loading the workspace"); err != nil {
		return UnderstandResult{}, err
	}

	if u.decl != nil {
		out.Symbol = *u.decl
	} else if u.callKind != "" {
		out.Symbol.Kind = u.callKind
	}
	if named != nil && (out.Symbol.File != named.File || out.Symbol.Line != named.Line) {
		// The query named a declaration whose definition is elsewhere (an
		// embedded field's definition is its type): the symbol is the one
		// named; the definition section still shows where it leads.
		out.Symbol = *named
		out.Symbol.Name = baseName(named.Name)
	}
	out.Definition, out.Hover, out.Calls, out.Implementations = u.def, u.hov, u.callSec, u.impl
	out.Withholding = u.withholdSensitive(&out)
	if u.refs != nil {
		sec := trimReferences(*u.refs, req.MaxReferences)
		out.References = &sec
	}
	out.Tests = testFiles(u.refs, u.callSec)
	if len(u.errors) > 0 {
		out.Errors = u.errors
	}
	if len(u.notApplicable) > 0 {
		out.NotApplicable = u.notApplicable
	}
	return out, nil
}

// understanding holds the sections of one Understand call as they arrive.
type understanding struct {
	c     *Client
	req   UnderstandRequest
	doc   *Document
	point Point // the target, located once
	name  string

	mu            sync.Mutex
	errors        map[string]string
	notApplicable map[string]string

	// Set by definition, which closes defDone.
	defDone chan struct{}
	decl    *UnderstandSymbol
	def     *DeclarationSource

	// Set by definition as soon as its server answered (declare), for
	// hover to judge its text by.
	declDone   chan struct{}
	declOnce   sync.Once
	declServer *Server // nil: no server offers definition (declErr says so)
	declAt     protocol.TextDocumentPositionParams
	declLocs   []protocol.Location
	declErr    error

	hov      *HoverSection
	refs     *ReferencesResult
	callSec  *CallsSection
	callKind string
	impl     *ImplementationsSection
}

// locations sends a definition-like method at the target.
func (u *understanding) locations(ctx context.Context, method, hint string) (LocationsResult, error) {
	pos, err := u.c.positionFor(ctx, u.doc, u.point, method, hint)
	if err != nil {
		return LocationsResult{}, err
	}
	return u.c.locationsAt(ctx, pos, method)
}

func (u *understanding) fail(section string, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.errors[section] = apierr.As(err).Error()
}

func (u *understanding) skip(section, why string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.notApplicable[section] = why
}

// declare publishes the definition request's answer (once: the first
// call wins, a deferred one covers every early return).
func (u *understanding) declare(server *Server, at protocol.TextDocumentPositionParams, locs []protocol.Location, err error) {
	u.declOnce.Do(func() {
		u.declServer, u.declAt, u.declLocs, u.declErr = server, at, locs, err
		close(u.declDone)
	})
}

// declaredVerdict judges, once definition has answered, whether the
// server's text about the symbol may be shown (disclose).
func (u *understanding) declaredVerdict(ctx context.Context) Withholding {
	select {
	case <-u.declDone:
	case <-ctx.Done():
		return unverifiable(describeSymbol(u.name), Server{Name: "the server"}, ctx.Err())
	}
	if u.declServer == nil {
		if apierr.CodeOf(u.declErr) == apierr.Unsupported {
			return notCheckable(u.doc, describeSymbol(u.name))
		}
		return unverifiable(describeSymbol(u.name), Server{Name: "the server"}, u.declErr)
	}
	return u.c.disclose(ctx, u.doc, *u.declServer, u.declAt, u.name, u.declLocs, u.declErr)
}

// definition: where the symbol is declared and the declaration's source,
// bounded by the enclosing document symbol (its kind and container too).
// A declaration in a sensitive file is shown by where it is, without its
// source.
func (u *understanding) definition(ctx context.Context) {
	defer close(u.defDone)
	defer u.declare(nil, protocol.TextDocumentPositionParams{}, nil, apierr.New(apierr.OperationFailed,
		"the definition request was not made", "retry"))
	pos, err := u.c.positionFor(ctx, u.doc, u.point, protocol.MethodTextDocumentDefinition, "")
	if err != nil {
		u.declare(nil, protocol.TextDocumentPositionParams{}, nil, err)
		u.fail("definition", err)
		return
	}
	raw, err := u.c.declarations(ctx, pos.doc, pos.server, pos.params())
	u.declare(&pos.server, pos.params(), raw, err)
	if err != nil {
		u.fail("definition", err)
		return
	}
	res, err := u.c.locationsFrom(ctx, pos, raw, nil)
	if err != nil {
		u.fail("definition", err)
		return
	}
	if len(res.Locations) == 0 {
		u.skip("definition", res.Server+" found no definition here (a keyword, literal or a name it cannot resolve)")
		return
	}
	locs := make([]Location, len(res.Locations))
	for i, l := range res.Locations {
		locs[i] = l.Location
	}
	// The workspace's definition first (a stub outside it is secondary).
	sort.SliceStable(locs, func(i, j int) bool { return !locs[i].OutsideWorkspace && locs[j].OutsideWorkspace })
	first := locs[0]
	sec := &DeclarationSource{Location: first, SourceStart: first.Line, SourceEnd: first.Line, Others: locs[1:]}
	sym := &UnderstandSymbol{Name: u.name, Kind: "unknown", File: first.File, Line: first.Line, Column: first.Column}
	if first.File == "" {
		// A non-file URI (untitled:, jdt://): where it is, no source.
		sym.URI = first.URI
		u.mu.Lock()
		u.def, u.decl = sec, sym
		u.mu.Unlock()
		return
	}
	if first.Sensitive {
		sec.Withheld = fmt.Sprintf("%s is declared in %s, %s: its source is not shown (the user can allow the file with --allow-sensitive)",
			describeSymbol(u.name), first.File, u.c.sensitiveFile(first.File))
		u.mu.Lock()
		u.def, u.decl = sec, sym
		u.mu.Unlock()
		return
	}
	start, end := first.Line, first.Line+DeclarationLines-1
	if !first.OutsideWorkspace {
		if s, ok := u.c.declarationSymbol(ctx, first, u.name, u.doc); ok {
			sym.Kind, sym.Container = SymbolKindName(s.Kind), s.Container
			start, end = int(s.Range.Start.Line)+1, int(s.Range.End.Line)+1
			if first.Line < start {
				start = first.Line
			}
		}
	}
	if end-start+1 > MaxDeclarationLines {
		end = start + MaxDeclarationLines - 1
		sec.SourceTruncated = true
	}
	if src, last, err := u.c.sourceLines(ctx, u.c.absPath(first.File), start, end); err == nil {
		sec.Source, sec.SourceStart, sec.SourceEnd = src, start, last
	} else if len(res.Locations) > 0 {
		sec.Source = res.Locations[0].Declaration
	}
	u.mu.Lock()
	u.def, u.decl = sec, sym
	u.mu.Unlock()
}

// declarationSymbol finds, among the document symbols of loc's file, the
// one declared at loc named name (innermost when nested). opened is the
// document the call opened already (nil: none).
func (c *Client) declarationSymbol(ctx context.Context, loc Location, name string, opened *Document) (FlatSymbol, bool) {
	var flat []FlatSymbol
	var err error
	if opened != nil && loc.File == opened.Rel {
		// The file this call opened (a symbol asked about at its
		// declaration): opening it again would be a round trip for nothing.
		_, flat, err = c.documentSymbolsOf(ctx, opened)
	} else {
		_, flat, err = c.documentSymbols(ctx, loc.File)
	}
	if err != nil {
		return FlatSymbol{}, false
	}
	best := -1
	for i, s := range flat {
		sel := symSel(s)
		if int(sel.Start.Line)+1 != loc.Line || !SymbolNamed(s.Name, name) {
			continue
		}
		if best < 0 || rangeHas(flat[best].Range, s.Range.Start) && rangeHas(flat[best].Range, s.Range.End) {
			best = i
		}
	}
	if best < 0 {
		return FlatSymbol{}, false
	}
	return flat[best], true
}

// SymbolNamed reports whether a server's symbol name (possibly qualified:
// "(*Total).Add", "Card.charge") names ident.
func SymbolNamed(symbol, ident string) bool {
	if symbol == ident {
		return true
	}
	if !strings.HasSuffix(symbol, ident) {
		return false
	}
	r := symbol[len(symbol)-len(ident)-1]
	return r == '.' || r == ':' || r == ')' || r == ' '
}

// sourceLines reads lines start..end (1-based, inclusive) of path, stopping
// at the file's end; it returns the text and the last line read.
func (c *Client) sourceLines(ctx context.Context, path string, start, end int) (string, int, error) {
	wanted := map[string][]int{}
	for l := start - 1; l < end; l++ {
		wanted[path] = append(wanted[path], l)
	}
	texts, err := c.Lines(ctx, wanted)
	if err != nil {
		return "", 0, err
	}
	var lines []string
	last := start - 1
	for l := start - 1; l < end; l++ {
		text, ok := texts[path][l]
		if !ok {
			break
		}
		lines = append(lines, text)
		last = l + 1
	}
	if len(lines) == 0 {
		return "", 0, fmt.Errorf("no lines %d-%d in %s", start, end, path)
	}
	return strings.Join(lines, "\n"), last, nil
}

func (u *understanding) hover(ctx context.Context) {
	pos, err := u.c.positionFor(ctx, u.doc, u.point, protocol.MethodTextDocumentHover, "")
	if err != nil {
		u.fail("hover", err)
		return
	}
	h, err := u.c.hoverAt(ctx, pos)
	if err != nil {
		u.fail("hover", err)
		return
	}
	if !h.Found {
		u.skip("hover", h.Server+" has no hover text here")
		return
	}
	h = h.withhold(u.declaredVerdict(ctx))
	u.mu.Lock()
	u.hov = &HoverSection{Kind: h.Kind, Contents: h.Contents, Withholding: h.Withholding}
	u.mu.Unlock()
}

// withholdSensitive sums up what out leaves out for a symbol declared in a
// sensitive file, and leaves out its callees (what its body calls).
func (u *understanding) withholdSensitive(out *UnderstandResult) Withholding {
	var w Withholding
	switch {
	case out.Definition != nil && out.Definition.Sensitive:
		w = Withholding{Sensitive: true, Withheld: fmt.Sprintf(
			"%s is declared in %s, %s: its declaration's source, hover text and callees are not shown (the user can allow the file with --allow-sensitive)",
			describeSymbol(u.name), out.Definition.File, u.c.sensitiveFile(out.Definition.File))}
	case out.Hover != nil && out.Hover.withholds():
		w = Withholding{Sensitive: out.Hover.Sensitive, Withheld: out.Hover.Withheld}
	case out.Hover != nil:
		return Withholding{Unchecked: out.Hover.Unchecked}
	default:
		return Withholding{}
	}
	if w.Sensitive && out.Calls != nil && len(out.Calls.Outgoing) > 0 {
		out.Calls.Outgoing = []CallEntry{}
		out.Calls.Withheld = "what a symbol declared in a sensitive file calls is not shown"
	}
	return w
}

func (u *understanding) references(ctx context.Context) {
	pos, err := u.c.positionFor(ctx, u.doc, u.point, protocol.MethodTextDocumentReferences, "")
	if err != nil {
		u.fail("references", err)
		return
	}
	r, err := u.c.referencesAt(ctx, pos, ReferencesOptions{IncludeDeclaration: false, MaxResults: allReferences})
	if err != nil {
		u.fail("references", err)
		return
	}
	u.mu.Lock()
	u.refs = &r
	u.mu.Unlock()
}

func (u *understanding) calls(ctx context.Context) {
	pos, err := u.c.positionFor(ctx, u.doc, u.point, protocol.MethodTextDocumentPrepareCallHierarchy, "")
	if err != nil {
		u.fail("calls", err)
		return
	}
	conc := u.req.Concurrency
	if conc <= 0 {
		conc = hierarchyConcurrency
	}
	res, err := u.c.callHierarchyAt(ctx, pos, CallHierarchyOptions{Direction: DirectionBoth, Depth: 1},
		walkLimits{depth: 1, maxItems: understandCallItems, concurrency: conc, leaf: u.c.outsideWorkspace})
	if err != nil {
		if apierr.CodeOf(err) == apierr.ResourceNotFound {
			u.skip("calls", "not a function or method: "+apierr.As(err).Message)
			return
		}
		u.fail("calls", err)
		return
	}
	u.mu.Lock()
	u.callSec = &CallsSection{Incoming: res.Incoming, Outgoing: res.Outgoing, Truncated: res.Truncated}
	u.callKind = res.Symbol.Kind
	u.mu.Unlock()
}

// typeKinds are the kinds whose subtypes stand in for implementations.
var typeKinds = map[string]bool{"class": true, "interface": true, "struct": true, "enum": true}

// implementations: textDocument/implementation where the server has it;
// else, for a type, its subtypes (type hierarchy or its fallback).
func (u *understanding) implementations(ctx context.Context) {
	if _, err := u.doc.ServerFor(protocol.MethodTextDocumentImplementation); err == nil {
		res, err := u.locations(ctx, protocol.MethodTextDocumentImplementation, "")
		if err != nil {
			if apierr.CodeOf(err) == apierr.OperationFailed {
				// gopls refuses plain functions ("... is not a type or
				// method"): nothing implements them.
				u.skip("implementations", apierr.As(err).Message)
				return
			}
			u.fail("implementations", err)
			return
		}
		sec := &ImplementationsSection{Source: "implementation", Count: res.Count, Locations: make([]Location, len(res.Locations))}
		for i, l := range res.Locations {
			sec.Locations[i] = l.Location
		}
		u.mu.Lock()
		u.impl = sec
		u.mu.Unlock()
		return
	}
	select {
	case <-u.defDone:
	case <-ctx.Done():
		return
	}
	u.mu.Lock()
	decl := u.decl
	u.mu.Unlock()
	names := make([]string, 0, len(u.doc.Servers))
	for _, s := range u.doc.Servers {
		names = append(names, s.Name)
	}
	if decl == nil || !typeKinds[decl.Kind] {
		u.fail("implementations", apierr.Errorf(apierr.Unsupported,
			"find_references lists the uses; for a class, get_type_hierarchy finds subclasses",
			"%s does not support %s (and the symbol is not a type whose subtypes could stand in)",
			strings.Join(names, ", "), protocol.MethodTextDocumentImplementation))
		return
	}
	th, err := u.c.TypeHierarchy(ctx, decl.File, Target{Line: decl.Line, Column: &decl.Column},
		TypeHierarchyOptions{Direction: DirectionSubtypes, Depth: 1})
	if err != nil {
		u.fail("implementations", err)
		return
	}
	sec := &ImplementationsSection{Source: th.Source, Note: fmt.Sprintf("%s does not support %s: these are the subtypes (get_type_hierarchy). %s",
		strings.Join(names, ", "), protocol.MethodTextDocumentImplementation, th.Note), Locations: []Location{}}
	for _, e := range th.Subtypes {
		sec.Locations = append(sec.Locations, Location{File: e.File, Line: e.Line, Column: e.Column, EndLine: e.Line,
			EndColumn: e.Column + len([]rune(e.Name)), Context: e.Kind + " " + e.Name, OutsideWorkspace: e.OutsideWorkspace})
	}
	sec.Count = len(sec.Locations)
	u.mu.Lock()
	u.impl = sec
	u.mu.Unlock()
}

// trimReferences keeps the first max references, by file.
func trimReferences(r ReferencesResult, max int) ReferencesSection {
	sec := ReferencesSection{Total: r.Total, FileCount: r.FileCount, Truncated: r.Truncated, Files: []FileReferences{}}
	left := max
	for _, f := range r.Files {
		if left <= 0 {
			sec.Truncated = true
			break
		}
		g := f
		if len(g.References) > left {
			g.References = g.References[:left]
			g.Count = len(g.References)
			sec.Truncated = true
		}
		left -= len(g.References)
		sec.Returned += len(g.References)
		sec.Files = append(sec.Files, g)
	}
	return sec
}

// testFiles lists the test files among the references' files and the
// callers' files.
func testFiles(refs *ReferencesResult, calls *CallsSection) []TestFile {
	byFile := map[string]*TestFile{}
	get := func(f string) *TestFile {
		if byFile[f] == nil {
			byFile[f] = &TestFile{File: f}
		}
		return byFile[f]
	}
	if refs != nil {
		for _, f := range refs.Files {
			if lang.IsTestFile(f.File) {
				get(f.File).References += f.Count
			}
		}
	}
	if calls != nil {
		for _, e := range calls.Incoming {
			if lang.IsTestFile(e.File) {
				tf := get(e.File)
				tf.Callers = append(tf.Callers, e.Name)
			}
		}
	}
	out := make([]TestFile, 0, len(byFile))
	for _, tf := range byFile {
		sort.Strings(tf.Callers)
		out = append(out, *tf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out
}
