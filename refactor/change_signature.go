package refactor

// change_signature's domain half. One call describes the new parameter list;
// the function's declaration, the declarations related to it (Go interface
// methods and their other implementations, TypeScript and Python overrides)
// and every call site the server's references find are rewritten from their
// syntax (go/parser for Go; tree-sitter through Neovim for Python and
// TypeScript, change_signature_syntax.go), as one changeset. Call sites that
// cannot be rewritten safely are left alone and reported with the reason;
// dropping or reordering an argument with side effects is refused unless the
// caller allows it.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// SignatureParam is one entry of the new parameter list.
type SignatureParam struct {
	// Name is the parameter's name in the new list.
	Name string
	// Type is its type (required for an added Go parameter; optional
	// elsewhere; for a kept parameter, a new type).
	Type string
	// Default is the argument every call site passes for an added
	// parameter (an expression of the file's language).
	Default string
	// From names the existing parameter this one is (kept, renamed or
	// moved); empty for an added parameter.
	From string
}

// ChangeSignatureRequest is what change_signature asks.
type ChangeSignatureRequest struct {
	File   string
	Target lsp.Target
	Params []SignatureParam
	// AllowSideEffects lets a call site lose (or reorder) an argument with
	// side effects (a call, a receive, an assignment).
	AllowSideEffects bool
}

// SignatureSite is a place the change concerns: a call site or a
// declaration, with why it was left alone when it was.
type SignatureSite struct {
	lsp.Location
	Reason string `json:"reason,omitempty"`
}

// ChangeSignaturePlan is a computed signature change, not yet previewed or
// applied.
type ChangeSignaturePlan struct {
	Changeset    preview.Changeset
	Server       string
	Function     string
	OldSignature string
	NewSignature string
	// Declarations are the declarations rewritten: the function and the
	// related ones (interface methods, implementations, overrides).
	Declarations []SignatureSite
	// CallSites are the call sites rewritten.
	CallSites []SignatureSite
	// LeftAlone are the references not rewritten, each with the reason.
	LeftAlone []SignatureSite
	Files     []string
	// Engine says what computed the edits: the server's rewrite (gopls
	// refactor.rewrite.removeUnusedParam, moveParamLeft) or nvbridge's
	// "references and syntax"; EngineNote why the server's was not used.
	Engine     string
	EngineNote string
}

// sigParam is a parameter of a declaration as its syntax shows it.
type sigParam struct {
	Name     string
	Type     string // "" when untyped (Python, TS without annotation)
	Default  string // the declaration's default value ("" for none)
	Text     string // the whole parameter as written
	Variadic bool   // Go ...T, Python *args, TS ...rest
	Keyword  bool   // a Python keyword-only parameter (after * or *args)
	KwSplat  bool   // Python **kwargs
	// Group numbers parameters declared together (Go's a, b int), from 1.
	Group int
	// Uses are the byte offsets of the identifiers in the body that refer
	// to this parameter.
	Uses []int
	// Shorthand are uses as a TypeScript shorthand property ({name}).
	Shorthand []int
	// Start and End span the parameter (tree-sitter languages).
	Start, End int
	Optional   bool // TypeScript name?: T
}

// sigFunc is a function or method declaration found in a file's text.
type sigFunc struct {
	Name      string
	NameOff   int
	Params    []sigParam // without receiver, self or cls
	ListStart int        // where the rewritten part of the list starts (after the "(" and any self)
	ListEnd   int        // where it ends (before ")")
	// LeadComma: the rewritten part follows a kept first parameter (self):
	// a non-empty new list starts with ", ".
	LeadComma bool
	Signature string // the declaration's header on one line
	// BodyNames are the identifiers used in the body (to refuse a rename
	// that would capture one).
	BodyNames map[string]bool
	HasBody   bool
	// Method: a method (Go receiver, interface method, class member):
	// implementations and overrides are searched.
	Method bool
	// Lead, Seps and Trail are the text around and between the parameters
	// (tree-sitter languages), reused for the new list.
	Lead, Trail string
	Seps        []string
	// Comments: the parameter list holds comments (rewriting it would
	// lose them).
	Comments bool
	// Multiline: the parameters were written one per line.
	Multiline bool
	Indent    string // the indentation of a parameter on its own line
}

// sigArg is an argument at a call site.
type sigArg struct {
	Text   string
	Start  int
	End    int
	Name   string // a keyword argument's name (Python)
	Pure   bool   // evaluating it has no side effect
	Spread bool   // f(xs...), f(*a), f(**k), f(...a)
}

// sigCall is a call site.
type sigCall struct {
	ListStart, ListEnd int // the text between the parentheses
	Args               []sigArg
	Comments           bool // comments between the parentheses
}

// sigSyntax finds declarations and calls in one language's text. Offsets
// are bytes into text (lines joined by "\n").
type sigSyntax interface {
	// funcAt returns the declaration whose name starts at or covers off,
	// nil when there is none.
	funcAt(ctx context.Context, rel string, m *preview.Mapper, off int) (*sigFunc, error)
	// callAt returns the call whose callee name is at off, or the reason
	// the reference is not a call nvbridge can rewrite.
	callAt(ctx context.Context, rel string, m *preview.Mapper, off int) (*sigCall, string, error)
	// renderParams renders the rewritten part of fn's parameter list (a
	// plain comma-separated list for a zero fn).
	renderParams(fn *sigFunc, params []renderedParam) string
	// rules says how the language's parameters and arguments behave.
	rules() sigRules
}

// sigRules are how one language's parameters and arguments behave.
type sigRules struct {
	// requireType: an added parameter needs a type (Go).
	requireType bool
	// inferType, when set, gives an added parameter without a type its
	// default's type ("" when it cannot tell: TypeScript's literals).
	inferType func(def string) string
	// defaultIsOptional: a parameter with a default may be left out of a
	// call (Python); otherwise only one marked optional may (TypeScript's
	// name?: T).
	defaultIsOptional bool
	// exactArity: a call passing another number of arguments than the
	// parameters passes a multi-value call's results (Go's f(g())).
	exactArity bool
	// omitted is the argument written for an optional parameter a call
	// leaves out before others it passes (TypeScript's undefined, dropped
	// at the end of the list); "": the arguments after it go by keyword
	// (Python), and a parameter without a default cannot be left out.
	omitted string
	// serverRewrites: the server rewrites some changes itself (gopls:
	// refactor.rewrite.removeUnusedParam, moveParamLeft).
	serverRewrites bool
}

// renderedParam is a parameter of a new declaration.
type renderedParam struct {
	Name, Type, Default string
	Variadic, Keyword   bool
	KwSplat, Optional   bool
	Start, End          int    // the old parameter's span (-1 for an added one)
	Text                string // kept verbatim when nothing about it changed
	Group               int    // sigParam.Group; 0 for an added or retyped one
	Added               bool
}

// newParam is a resolved entry of the new list.
type newParam struct {
	SignatureParam
	from int // index in the old list; -1 when added
}

// ChangeSignature computes the changeset giving the function at req.Target
// the parameter list req.Params. Nothing is changed.
func ChangeSignature(ctx context.Context, c *lsp.Client, req ChangeSignatureRequest) (ChangeSignaturePlan, error) {
	if len(req.Params) > 64 {
		return ChangeSignaturePlan{}, apierr.Errorf(apierr.InvalidParameter, "pass at most 64 parameters", "%d parameters", len(req.Params))
	}
	doc, err := c.Open(ctx, req.File)
	if err != nil {
		return ChangeSignaturePlan{}, err
	}
	l := doc.Language()
	syn, err := signatureSyntax(c, l, doc)
	if err != nil {
		return ChangeSignaturePlan{}, err
	}
	server, err := doc.ServerFor(protocol.MethodTextDocumentReferences)
	if err != nil {
		return ChangeSignaturePlan{}, err
	}
	// Steps: the declaration, the related declarations (interface methods,
	// overrides), the call sites, the rewrite (and the server's own rewrite
	// when it has one).
	ctx, steps := newSteps(ctx, "change_signature", 4)
	steps.next("finding the declaration at %s:%d", req.File, req.Target.Line)
	// The declaration: where the definition of the symbol at the target is.
	defs, err := c.Definition(ctx, req.File, req.Target)
	if err != nil {
		return ChangeSignaturePlan{}, err
	}
	var def *lsp.Location
	for i := range defs.Locations {
		if d := defs.Locations[i].Location; d.File != "" && !d.OutsideWorkspace {
			def = &defs.Locations[i].Location
			break
		}
	}
	if def == nil {
		if len(defs.Locations) > 0 {
			return ChangeSignaturePlan{}, apierr.Errorf(apierr.PreconditionFailed,
				"nvbridge changes only functions declared in the workspace",
				"%s is declared outside the workspace (%s)", defs.Symbol, defs.Locations[0].URI+defs.Locations[0].File)
		}
		return ChangeSignaturePlan{}, apierr.Errorf(apierr.ResourceNotFound,
			"point at a function's name (its declaration or a call); read_file shows the numbered lines",
			"%s finds no definition at %s", server.Name, defs.From)
	}
	p := &sigPlanner{c: c, syn: syn, lang: l, rules: syn.rules(), req: req, files: map[string]*sigFile{}}
	p.plan.Server = server.Name
	target, err := p.declaration(ctx, *def)
	if err != nil {
		return ChangeSignaturePlan{}, err
	}
	if target == nil {
		return ChangeSignaturePlan{}, apierr.Errorf(apierr.InvalidParameter,
			"point at a function or method (its declaration or a call of it)",
			"%s is not a function or method declared at %s:%d (%q)", defs.Symbol, def.File, def.Line, def.Context)
	}
	if err := p.resolve(target); err != nil {
		return ChangeSignaturePlan{}, err
	}
	steps.next("finding the declarations that must change with %s (interfaces, implementations, overrides)", defs.Symbol)
	if err := p.related(ctx, *def, target); err != nil {
		return ChangeSignaturePlan{}, err
	}
	steps.next("finding the call sites of %s", defs.Symbol)
	if err := p.references(ctx); err != nil {
		return ChangeSignaturePlan{}, err
	}
	steps.next("rewriting the declarations and call sites")
	if err := p.rewrite(); err != nil {
		return ChangeSignaturePlan{}, err
	}
	p.plan.Engine = "references and syntax"
	if kind, at := p.serverRewrite(); kind != "" {
		steps.add(1)
		steps.next("asking %s for its own rewrite (%s)", server.Name, kind)
		// The server's own rewrite for the steps it has (gopls: removing an
		// unused parameter, moving one left), checked by the same analysis.
		col := at.Column
		ap, err := PlanCodeAction(ctx, c, ActionQuery{File: at.File, Range: lsp.RangeSpec{Start: lsp.Target{Line: at.Line, Column: &col}},
			Pick: ActionPick{Kind: kind}})
		switch {
		case err != nil:
			p.plan.EngineNote = fmt.Sprintf("%s did not rewrite (%s): %s", server.Name, kind, apierr.As(err).Message)
		case len(ap.Changeset.Files) == 0:
			p.plan.EngineNote = fmt.Sprintf("%s's %s changed nothing", server.Name, kind)
		default:
			p.plan.Changeset, p.plan.Engine = ap.Changeset, server.Name+" "+kind
			p.plan.Files = nil
			for _, fc := range ap.Changeset.Files {
				p.plan.Files = append(p.plan.Files, fc.Path)
			}
		}
	}
	return p.plan, nil
}

// serverRewrite names the gopls code action that makes the whole change
// in one step, and where to ask for it: removing one parameter (nothing
// else changing) or swapping two neighbours.
func (p *sigPlanner) serverRewrite() (string, lsp.Location) {
	if !p.rules.serverRewrites || len(p.renamed) > 0 {
		return "", lsp.Location{}
	}
	fn := p.target.fn
	for _, np := range p.params {
		if np.from < 0 || (np.Type != "" && np.Type != fn.Params[np.from].Type) {
			return "", lsp.Location{}
		}
	}
	at := func(j int) lsp.Location { return p.target.file.location(fn.Params[j].Start) }
	switch {
	case len(p.removed) == 1 && !p.reorders && fn.Params[p.removed[0]].Name != "":
		return "refactor.rewrite.removeUnusedParam", at(p.removed[0])
	case len(p.removed) == 0 && p.reorders:
		var moved []int
		for i, np := range p.params {
			if np.from != i {
				moved = append(moved, i)
			}
		}
		if len(moved) == 2 && moved[1] == moved[0]+1 && fn.Params[moved[1]].Name != "" {
			return "refactor.rewrite.moveParamLeft", at(moved[1])
		}
	}
	return "", lsp.Location{}
}

// sigFile is one file the change reads.
type sigFile struct {
	rel   string
	doc   preview.Document
	m     *preview.Mapper
	text  string // m's text
	edits []preview.ByteEdit
}

// location renders a byte offset as a tool location.
func (f *sigFile) location(off int) lsp.Location {
	line, char := f.m.CharPosition(off)
	return lsp.Location{File: f.rel, Line: line, Column: char, EndLine: line, EndColumn: char,
		Context: strings.TrimSpace(f.m.Line(line - 1))}
}

// withEdits returns text[start:end] with the file's edits inside that range
// applied (inner call sites rewritten before the outer one).
func (f *sigFile) withEdits(start, end int) string {
	var inner []preview.ByteEdit
	for _, e := range f.edits {
		if e.Start >= start && e.End <= end {
			inner = append(inner, preview.ByteEdit{Start: e.Start - start, End: e.End - start, Text: e.Text})
		}
	}
	out, err := preview.ApplyByteEdits(f.text[start:end], outermost(inner))
	if err != nil {
		panic("change_signature: outermost edits overlap: " + err.Error()) // outermost leaves none
	}
	return out
}

// outermost is edits without those nested in another (the outer one
// carries them), sorted by start: an edit starting where another ends
// stays.
func outermost(edits []preview.ByteEdit) []preview.ByteEdit {
	sorted := slices.Clone(edits)
	slices.SortStableFunc(sorted, func(a, b preview.ByteEdit) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End))
	})
	var out []preview.ByteEdit
	end := -1
	for _, e := range sorted {
		if e.Start < end {
			continue
		}
		end = max(end, e.End)
		out = append(out, e)
	}
	return out
}

// sigDecl is a declaration taking part in the change.
type sigDecl struct {
	file *sigFile
	fn   *sigFunc
	loc  lsp.Location
}

type sigPlanner struct {
	c     *lsp.Client
	syn   sigSyntax
	lang  *lang.Language
	rules sigRules
	req   ChangeSignatureRequest
	files map[string]*sigFile
	plan  ChangeSignaturePlan

	target   *sigDecl
	decls    []*sigDecl
	params   []newParam
	removed  []int
	reorders bool
	renamed  map[string]string // old name in the target -> new name
}

// file reads (once) a workspace file as Neovim holds it.
func (p *sigPlanner) file(ctx context.Context, rel string) (*sigFile, error) {
	if f := p.files[rel]; f != nil {
		return f, nil
	}
	abs, err := p.c.Session.Root().Resolve(rel)
	if err != nil {
		return nil, err
	}
	snaps, err := p.c.Session.Snapshot(ctx, []string{abs}, nvim.SnapshotOptions{})
	if err != nil {
		return nil, err
	}
	if len(snaps) != 1 {
		return nil, apierr.Errorf(apierr.OperationFailed, "report this", "snapshot of %s returned %d files", rel, len(snaps))
	}
	if snaps[0].Err != nil {
		return nil, snaps[0].Err.APIError()
	}
	doc := snapshotDoc(snaps[0])
	m := doc.Mapper()
	f := &sigFile{rel: rel, doc: doc, m: m, text: m.Text()}
	p.files[rel] = f
	return f, nil
}

// declaration parses the declaration at loc (nil when none is there).
func (p *sigPlanner) declaration(ctx context.Context, loc lsp.Location) (*sigDecl, error) {
	f, err := p.file(ctx, loc.File)
	if err != nil {
		return nil, err
	}
	off, err := f.m.CharOffset(loc.Line, loc.Column)
	if err != nil {
		return nil, apierr.Errorf(apierr.OperationFailed, "retry", "%s:%d: %v", loc.File, loc.Line, err)
	}
	fn, err := p.syn.funcAt(ctx, f.rel, f.m, off)
	if err != nil || fn == nil {
		return nil, err
	}
	at := f.location(fn.NameOff)
	at.EndColumn = at.Column + len([]rune(fn.Name))
	return &sigDecl{file: f, fn: fn, loc: at}, nil
}

// resolve checks the new list against the target's parameters.
func (p *sigPlanner) resolve(target *sigDecl) error {
	p.target = target
	p.decls = []*sigDecl{target}
	fn := target.fn
	p.plan.Function = fn.Name
	p.plan.OldSignature = fn.Signature
	names := make([]string, len(fn.Params))
	index := map[string]int{}
	for i, prm := range fn.Params {
		names[i] = prm.Name
		if prm.Name != "" && prm.Name != "_" {
			index[prm.Name] = i
		}
	}
	known := "; the parameters of " + fn.Name + " are (" + strings.Join(names, ", ") + ")"
	bad := func(format string, args ...any) error {
		return apierr.Errorf(apierr.InvalidParameter, "each entry of params is {name, type?, default?, from?}: from names a current parameter (kept, renamed or moved), an entry without from is added and needs default; a parameter left out is removed",
			"%s", fmt.Sprintf(format, args...)+known)
	}
	used := map[int]bool{}
	seen := map[string]bool{}
	p.renamed = map[string]string{}
	for i, sp := range p.req.Params {
		np := newParam{SignatureParam: sp, from: -1}
		if sp.Name == "" {
			return bad("params[%d] has no name", i)
		}
		if err := lang.ValidateIdentifier(p.lang, sp.Name); err != nil {
			return bad("params[%d]: %v", i, apierr.As(err).Message)
		}
		if seen[sp.Name] {
			return bad("params[%d]: the name %q is given twice", i, sp.Name)
		}
		seen[sp.Name] = true
		if sp.From != "" {
			j, ok := index[sp.From]
			if !ok {
				if k := strings.TrimPrefix(sp.From, "#"); k != sp.From {
					if _, err := fmt.Sscan(k, &j); err == nil && j >= 1 && j <= len(fn.Params) {
						j, ok = j-1, true
					}
				}
			}
			if !ok {
				return bad("params[%d].from: %s has no parameter %q (an unnamed one is named \"#N\", 1-based)", i, fn.Name, sp.From)
			}
			if used[j] {
				return bad("params[%d].from: %q is taken twice", i, sp.From)
			}
			used[j] = true
			np.from = j
			if old := fn.Params[j].Name; old != "" && old != sp.Name {
				p.renamed[old] = sp.Name
			}
			if sp.Default != "" {
				return bad("params[%d]: default is for added parameters; %q keeps the arguments it is passed", i, sp.Name)
			}
		} else {
			if _, clash := index[sp.Name]; clash && !used[index[sp.Name]] {
				// Naming an existing parameter without from is a slip more often than not.
				return bad("params[%d]: %q is an existing parameter: pass \"from\": %q to keep it, or another name to add one", i, sp.Name, sp.Name)
			}
			if strings.TrimSpace(sp.Default) == "" {
				return bad("params[%d]: the added parameter %q needs a default: the argument every call site will pass", i, sp.Name)
			}
			if p.rules.requireType && strings.TrimSpace(sp.Type) == "" {
				return bad("params[%d]: the added %s parameter %q needs a type", i, p.lang.DisplayName(), sp.Name)
			}
			if p.rules.inferType != nil && strings.TrimSpace(sp.Type) == "" {
				np.Type = p.rules.inferType(sp.Default)
				if np.Type == "" {
					return bad("params[%d]: the added parameter %q needs a type (its default is not a number, string or boolean literal)", i, sp.Name)
				}
			}
		}
		p.params = append(p.params, np)
	}
	last := -1
	for i, np := range p.params {
		if np.from < 0 {
			continue
		}
		if np.from < last {
			p.reorders = true
		}
		last = np.from
		if fn.Params[np.from].Variadic {
			for _, after := range p.params[i+1:] {
				if after.from < 0 || !(fn.Params[after.from].Keyword || fn.Params[after.from].KwSplat) {
					return bad("the variadic parameter %q must stay last (in Python, before keyword-only parameters and **kwargs only)", np.Name)
				}
			}
		}
	}
	// Python: a parameter without a default cannot follow one with a
	// default; TypeScript: a required one cannot follow an optional one.
	optional := ""
	for _, np := range p.params {
		if np.from < 0 {
			continue // added: rendered without a default until one came before
		}
		prm := fn.Params[np.from]
		if prm.Keyword || prm.KwSplat || prm.Variadic {
			break
		}
		switch {
		case (p.rules.defaultIsOptional && prm.Default != "") || prm.Optional:
			if optional == "" {
				optional = np.Name
			}
		case optional != "" && prm.Default == "":
			return bad("%q (no default) cannot follow %q (which has one): give the new list another order", np.Name, optional)
		}
	}
	for j := range fn.Params {
		if !used[j] {
			p.removed = append(p.removed, j)
		}
	}
	changed := len(p.params) != len(fn.Params) || p.reorders || len(p.renamed) > 0
	for _, np := range p.params {
		if np.from < 0 || (np.Type != "" && np.Type != fn.Params[np.from].Type) {
			changed = true
		}
	}
	if !changed {
		return apierr.Errorf(apierr.InvalidParameter, "describe the new list: rename (from + a new name), reorder, add (with default) or leave a parameter out to remove it",
			"params describe the current signature of %s: nothing would change", fn.Name)
	}
	return nil
}

// related adds the declarations that must change with the target: the
// interface methods it implements and their other implementations (Go),
// the methods it overrides and its overrides (TypeScript).
func (p *sigPlanner) related(ctx context.Context, def lsp.Location, target *sigDecl) error {
	if !target.fn.Method {
		return nil
	}
	seen := map[string]bool{declKey(target.loc): true}
	queue := []lsp.Location{target.loc}
	for round := 0; round < 3 && len(queue) > 0; round++ {
		var next []lsp.Location
		for _, at := range queue {
			col := at.Column
			impls, err := p.c.Implementations(ctx, at.File, lsp.Target{Line: at.Line, Column: &col})
			if err != nil {
				if apierr.CodeOf(err) == apierr.Unsupported {
					// pyright: no implementation search; overrides from the
					// workspace's methods of that name and their classes' bases.
					return p.overridesBySyntax(ctx, target, seen)
				}
				return err
			}
			for _, l := range impls.Locations {
				if l.File == "" || l.OutsideWorkspace {
					continue
				}
				d, err := p.declaration(ctx, l.Location)
				if err != nil {
					return err
				}
				if d == nil || seen[declKey(d.loc)] {
					continue
				}
				seen[declKey(d.loc)] = true
				if len(d.fn.Params) != len(target.fn.Params) {
					p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: d.loc,
						Reason: fmt.Sprintf("a related declaration with %d parameters where %s has %d: change it by hand", len(d.fn.Params), target.fn.Name, len(target.fn.Params))})
					continue
				}
				p.decls = append(p.decls, d)
				next = append(next, d.loc)
			}
		}
		queue = next
	}
	return nil
}

func declKey(l lsp.Location) string { return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column) }

// references collects the call sites of every declaration taking part.
func (p *sigPlanner) references(ctx context.Context) error {
	declAt := map[string]*sigDecl{}
	for _, d := range p.decls {
		declAt[declKey(d.loc)] = d
	}
	seen := map[string]bool{}
	type site struct {
		file *sigFile
		off  int
		loc  lsp.Location
	}
	var sites []site
	for _, d := range p.decls {
		col := d.loc.Column
		refs, err := p.c.References(ctx, d.loc.File, lsp.Target{Line: d.loc.Line, Column: &col},
			lsp.ReferencesOptions{IncludeDeclaration: false, MaxResults: 5000})
		if err != nil {
			return err
		}
		if refs.Truncated {
			return apierr.Errorf(apierr.Unsupported, "change the call sites in smaller steps",
				"%s has more than %d references", d.fn.Name, refs.Returned)
		}
		for _, fr := range refs.Files {
			for _, r := range fr.References {
				loc := lsp.Location{File: fr.File, URI: fr.URI, Line: r.Line, Column: r.Column, EndLine: r.EndLine, EndColumn: r.EndColumn, Context: r.Context}
				if seen[declKey(loc)] || declAt[declKey(loc)] != nil {
					continue
				}
				seen[declKey(loc)] = true
				switch {
				case fr.File == "" || fr.OutsideWorkspace:
					p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: loc, Reason: "outside the workspace"})
					continue
				case fr.Sensitive:
					p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: loc, Reason: "a sensitive file (see --allow-sensitive)"})
					continue
				}
				f, err := p.file(ctx, fr.File)
				if err != nil {
					return err
				}
				off, err := f.m.CharOffset(r.Line, r.Column)
				if err != nil {
					p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: loc, Reason: "the reference is not where the server said: " + err.Error()})
					continue
				}
				if !p.sameLanguage(fr.File) {
					p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: loc, Reason: "a file of another language"})
					continue
				}
				sites = append(sites, site{f, off, loc})
			}
		}
	}
	// Inner calls first: an outer call's arguments then carry them.
	type call struct {
		site
		call *sigCall
	}
	var calls []call
	var refusals []string
	for _, s := range sites {
		d, err := p.syn.funcAt(ctx, s.file.rel, s.file.m, s.off)
		if err != nil {
			return err
		}
		if d != nil && d.NameOff == s.off {
			// Another declaration of the name (an override the server
			// lists as a reference): rewritten when it has the same shape.
			at := s.file.location(d.NameOff)
			if declAt[declKey(at)] != nil {
				continue
			}
			if len(d.Params) == len(p.target.fn.Params) {
				dd := &sigDecl{file: s.file, fn: d, loc: at}
				declAt[declKey(at)] = dd
				p.decls = append(p.decls, dd)
				continue
			}
		}
		cl, why, err := p.syn.callAt(ctx, s.file.rel, s.file.m, s.off)
		if err != nil {
			return err
		}
		if cl == nil {
			if why != importRef {
				p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: s.loc, Reason: why})
			}
			continue
		}
		calls = append(calls, call{s, cl})
	}
	sort.SliceStable(calls, func(i, j int) bool {
		return calls[i].call.ListEnd-calls[i].call.ListStart < calls[j].call.ListEnd-calls[j].call.ListStart
	})
	// Declarations first (their bodies may hold call sites: the renamed
	// parameters' uses are edits inside the call's arguments).
	for _, d := range p.decls {
		if err := p.rewriteDecl(d); err != nil {
			return err
		}
	}
	for _, cl := range calls {
		text, why, refusal := p.rewriteCall(cl.file, cl.call)
		if refusal != "" {
			refusals = append(refusals, fmt.Sprintf("%s:%d: %s", cl.loc.File, cl.loc.Line, refusal))
			continue
		}
		if why != "" {
			p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: cl.loc, Reason: why})
			continue
		}
		cl.file.edits = append(cl.file.edits, preview.ByteEdit{Start: cl.call.ListStart, End: cl.call.ListEnd, Text: text})
		p.plan.CallSites = append(p.plan.CallSites, SignatureSite{Location: cl.loc})
	}
	if len(refusals) > 0 {
		return apierr.Errorf(apierr.PreconditionFailed,
			"pass allow_side_effects: true to drop or reorder them anyway (a dropped argument is no longer evaluated), or move the side effect out of the call first",
			"%d call site(s) pass an argument with side effects that the change would drop or evaluate in another order: %s",
			len(refusals), strings.Join(refusals, "; ")).WithDetails(map[string]any{"call_sites": refusals})
	}
	return nil
}

// sameLanguage: a reference in a file of another language (a .js file
// found by tsserver is fine: the registry groups them).
func (p *sigPlanner) sameLanguage(rel string) bool {
	l := lang.ForFile(rel)
	return l == nil || p.lang == nil || l == p.lang
}

// rewriteDecl rewrites a declaration's parameter list and the uses of its
// renamed parameters.
func (p *sigPlanner) rewriteDecl(d *sigDecl) error {
	fn := d.fn
	where := fmt.Sprintf("%s:%d", d.loc.File, d.loc.Line)
	if fn.Comments {
		return apierr.Errorf(apierr.PreconditionFailed, "move the comments out of the parameter list (e.g. into the doc comment), then retry",
			"the parameter list of %s (%s) holds comments that rewriting it would lose", fn.Name, where)
	}
	for _, j := range p.removed {
		if uses := fn.Params[j].Uses; len(uses) > 0 {
			var lines []string
			for _, u := range uses {
				line, _ := d.file.m.CharPosition(u)
				lines = append(lines, fmt.Sprint(line))
			}
			return apierr.Errorf(apierr.PreconditionFailed,
				"remove its uses from the body first, or keep the parameter",
				"the parameter %q of %s (%s) is still used in its body (line(s) %s): removing it would break the function",
				fn.Params[j].Name, fn.Name, where, strings.Join(lines, ", "))
		}
	}
	var out []renderedParam
	for _, np := range p.params {
		if np.from < 0 {
			out = append(out, renderedParam{Name: np.Name, Type: np.Type, Default: np.Default, Start: -1, End: -1, Added: true})
			continue
		}
		old := fn.Params[np.from]
		rp := renderedParam{Name: old.Name, Type: old.Type, Default: old.Default, Variadic: old.Variadic, Keyword: old.Keyword, KwSplat: old.KwSplat, Optional: old.Optional, Text: old.Text, Group: old.Group, Start: old.Start, End: old.End}
		targetName := p.target.fn.Params[np.from].Name
		if d == p.target || old.Name == targetName {
			if old.Name != np.Name && old.Name != "" {
				if fn.BodyNames[np.Name] {
					return apierr.Errorf(apierr.PreconditionFailed, "pick another name",
						"renaming %q to %q in %s (%s): the body already uses %q", old.Name, np.Name, fn.Name, where, np.Name)
				}
				rp.Name, rp.Text = np.Name, ""
				for _, u := range old.Uses {
					d.file.edits = append(d.file.edits, preview.ByteEdit{Start: u, End: u + len(old.Name), Text: np.Name})
				}
				for _, u := range old.Shorthand {
					d.file.edits = append(d.file.edits, preview.ByteEdit{Start: u, End: u + len(old.Name), Text: old.Name + ": " + np.Name})
				}
			}
		}
		if np.Type != "" && np.Type != old.Type {
			rp.Type, rp.Text, rp.Group = np.Type, "", 0
		}
		out = append(out, rp)
	}
	text := p.syn.renderParams(fn, out)
	d.file.edits = append(d.file.edits, preview.ByteEdit{Start: fn.ListStart, End: fn.ListEnd, Text: text})
	if d == p.target {
		newHeader := fn.Signature
		list := p.syn.renderParams(&sigFunc{}, out)
		if fn.LeadComma && list != "" {
			list = ", " + list
		}
		oldList := d.file.text[fn.ListStart:fn.ListEnd]
		if oldList != "" && strings.Contains(newHeader, oneLine(oldList)) {
			newHeader = strings.Replace(newHeader, oneLine(oldList), list, 1)
		} else if i := strings.Index(newHeader, "()"); oldList == "" && i >= 0 {
			newHeader = newHeader[:i+1] + list + newHeader[i+1:]
		}
		p.plan.NewSignature = newHeader
	}
	p.plan.Declarations = append(p.plan.Declarations, SignatureSite{Location: d.loc})
	return nil
}

// rewriteCall computes a call site's new argument list. why says why the
// site is left alone; refusal why the whole change is refused.
func (p *sigPlanner) rewriteCall(f *sigFile, cl *sigCall) (text, why, refusal string) {
	if cl.Comments {
		return "", "comments between its arguments (rewriting the list would lose them): change it by hand", ""
	}
	params := p.target.fn.Params
	n := len(params)
	args := make([][]sigArg, n) // per old parameter (a variadic one takes several)
	byName := map[string]int{}
	// Positional arguments fill the parameters before the variadic one (or
	// before the first keyword-only one), the rest go to the variadic one;
	// keyword arguments go by name, unknown names to **kwargs.
	vi, kwi, posLimit := -1, -1, n
	for i, prm := range params {
		byName[prm.Name] = i
		switch {
		case prm.Variadic && vi < 0:
			vi, posLimit = i, i
		case prm.KwSplat:
			kwi = i
		}
		if (prm.Keyword || prm.KwSplat) && vi < 0 && posLimit == n {
			posLimit = i
		}
	}
	variadic := vi >= 0
	pos := 0
	for _, a := range cl.Args {
		switch {
		case a.Spread && strings.HasPrefix(a.Text, "**") && kwi >= 0:
			args[kwi] = append(args[kwi], a)
		case a.Spread && !(vi >= 0 && pos >= vi):
			return "", "passes a spread argument (" + a.Text + "): which parameters it fills is not known from the syntax", ""
		case a.Name != "":
			i, ok := byName[a.Name]
			switch {
			case ok && !params[i].Variadic && !params[i].KwSplat:
				args[i] = append(args[i], a)
			case kwi >= 0:
				args[kwi] = append(args[kwi], a)
			default:
				return "", fmt.Sprintf("passes the keyword argument %q, which %s does not declare", a.Name, p.target.fn.Name), ""
			}
		case pos < posLimit:
			args[pos] = append(args[pos], a)
			pos++
		case vi >= 0:
			args[vi] = append(args[vi], a)
			pos++
		default:
			return "", fmt.Sprintf("passes %d arguments where %s declares %d", len(cl.Args), p.target.fn.Name, n), ""
		}
	}
	if p.rules.exactArity && !variadic && len(cl.Args) != n {
		return "", fmt.Sprintf("passes %d argument(s) for %d parameters (a call returning several values?)", len(cl.Args), n), ""
	}
	if !p.req.AllowSideEffects {
		for _, j := range p.removed {
			for _, a := range args[j] {
				if !a.Pure {
					return "", "", fmt.Sprintf("drops `%s` (passed for the removed parameter %q)", a.Text, params[j].Name)
				}
			}
		}
		if p.reorders {
			var impure []int
			for _, np := range p.params {
				if np.from >= 0 {
					for _, a := range args[np.from] {
						if !a.Pure {
							impure = append(impure, np.from)
						}
					}
				}
			}
			for i := 1; i < len(impure); i++ {
				if impure[i] < impure[i-1] {
					return "", "", fmt.Sprintf("evaluates the arguments for %q and %q in another order and both have side effects",
						params[impure[i]].Name, params[impure[i-1]].Name)
				}
			}
		}
	}
	var parts []string
	keywords := false // Python: a skipped optional parameter makes the rest keyword arguments
	for _, np := range p.params {
		if np.from < 0 {
			s := strings.TrimSpace(np.Default)
			if keywords {
				s = np.Name + "=" + s
			}
			parts = append(parts, s)
			continue
		}
		as := args[np.from]
		if len(as) == 0 {
			if params[np.from].Variadic || params[np.from].Keyword {
				continue
			}
			if params[np.from].Default == "" && p.rules.omitted == "" {
				return "", fmt.Sprintf("passes no argument for %q", params[np.from].Name), ""
			}
			if p.rules.omitted == "" {
				keywords = true
				continue
			}
			// An omitted optional argument stays omitted only at the end.
			parts = append(parts, p.rules.omitted)
			continue
		}
		for _, a := range as {
			s := f.withEdits(a.Start, a.End)
			switch {
			case a.Name != "" && a.Name == params[np.from].Name:
				s = np.Name + s[len(a.Name):] // name=value: the name follows a rename
				keywords = true
			case a.Name != "" || params[np.from].KwSplat:
				keywords = true // into **kwargs, as written
			case params[np.from].Variadic && keywords:
				return "", "its arguments for *" + params[np.from].Name + " would follow keyword arguments", ""
			case keywords:
				s = np.Name + "=" + s
			}
			parts = append(parts, s)
		}
	}
	// Placeholders of omitted optional parameters at the end are dropped.
	for p.rules.omitted != "" && len(parts) > 0 && parts[len(parts)-1] == p.rules.omitted {
		parts = parts[:len(parts)-1]
	}
	return joinArgs(f, cl, parts), "", ""
}

// joinArgs joins new arguments with the call's own separators (a call
// written one argument per line stays so).
func joinArgs(f *sigFile, cl *sigCall, parts []string) string {
	lead, trail := "", ""
	var seps []string
	if n := len(cl.Args); n > 0 {
		lead = f.text[cl.ListStart:cl.Args[0].Start]
		trail = f.text[cl.Args[n-1].End:cl.ListEnd]
		for i := 1; i < n; i++ {
			seps = append(seps, f.text[cl.Args[i-1].End:cl.Args[i].Start])
		}
	}
	return joinParts(lead, seps, trail, parts)
}

// joinParts joins list items with a list's own separators: the text
// before the first item, between items (the last one again for more
// items), after the last one; ", " where the list had none or where its
// text holds more than commas and white space (a comment stays out).
func joinParts(lead string, seps []string, trail string, parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	blank := func(s string) bool { return strings.Trim(s, ", \t\r\n") == "" }
	if !blank(lead) || !blank(trail) {
		lead, trail = "", ""
	}
	if strings.Contains(lead, ",") && !strings.HasPrefix(strings.TrimLeft(lead, " \t\r\n"), ",") {
		lead = ""
	}
	var b strings.Builder
	b.WriteString(lead)
	for i, s := range parts {
		if i > 0 {
			switch {
			case i-1 < len(seps) && blank(seps[i-1]):
				b.WriteString(seps[i-1])
			case len(seps) > 0 && blank(seps[len(seps)-1]):
				b.WriteString(seps[len(seps)-1])
			default:
				b.WriteString(", ")
			}
		}
		b.WriteString(s)
	}
	b.WriteString(trail)
	return b.String()
}

// rewrite turns the collected edits into the changeset.
func (p *sigPlanner) rewrite() error {
	var rels []string
	for rel, f := range p.files {
		if len(f.edits) > 0 {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	for _, rel := range rels {
		f := p.files[rel]
		var kept []preview.TextEdit
		for _, e := range outermost(f.edits) {
			if f.text[e.Start:e.End] != e.Text {
				kept = append(kept, f.m.TextEdit(e))
			}
		}
		if len(kept) == 0 {
			continue
		}
		p.plan.Changeset.Files = append(p.plan.Changeset.Files, preview.FileChange{Kind: preview.OpEdit, Path: rel, Old: f.doc, Edits: kept})
		p.plan.Files = append(p.plan.Files, rel)
	}
	for _, list := range [][]SignatureSite{p.plan.CallSites, p.plan.LeftAlone, p.plan.Declarations} {
		slices.SortStableFunc(list, func(a, b SignatureSite) int {
			return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
		})
	}
	if p.plan.CallSites == nil {
		p.plan.CallSites = []SignatureSite{}
	}
	if p.plan.LeftAlone == nil {
		p.plan.LeftAlone = []SignatureSite{}
	}
	return nil
}

// oneLine collapses runs of white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// notCalled is why a reference that is no call is left alone.
const notCalled = "not called here (used as a value, e.g. assigned or passed): the new signature may not fit; change it by hand"

// literalType is the TypeScript type of a literal default ("" for other
// expressions).
func literalType(def string) string {
	d := strings.TrimSpace(def)
	switch {
	case d == "true" || d == "false":
		return "boolean"
	case len(d) >= 2 && (d[0] == '"' || d[0] == '\'' || d[0] == '`') && d[len(d)-1] == d[0]:
		return "string"
	}
	if _, err := strconv.ParseFloat(strings.TrimPrefix(d, "-"), 64); err == nil {
		return "number"
	}
	return ""
}

// overridesBySyntax finds overrides where the server has no implementation
// search (pyright): the workspace's methods of the target's name whose
// class derives, directly or through others found so, from the target's
// class (bases matched by name).
func (p *sigPlanner) overridesBySyntax(ctx context.Context, target *sigDecl, seen map[string]bool) error {
	ts, ok := p.syn.(tsSigSyntax)
	if !ok {
		return nil
	}
	class, _, err := ts.classOf(ctx, target.file.rel, target.file.m, target.fn.NameOff)
	if err != nil || class == "" {
		return err
	}
	res, err := p.c.Symbols(ctx, lsp.SymbolsQuery{File: target.loc.File, Query: target.fn.Name, MaxResults: 500})
	if err != nil {
		return err
	}
	type cand struct {
		d     *sigDecl
		class string
		bases []string
	}
	var cands []cand
	for _, sym := range res.Symbols {
		if sym.Name != target.fn.Name || sym.File == "" || sym.OutsideWorkspace {
			continue
		}
		d, err := p.declaration(ctx, lsp.Location{File: sym.File, Line: sym.Line, Column: sym.Column})
		if err != nil {
			return err
		}
		if d == nil || seen[declKey(d.loc)] || !d.fn.Method {
			continue
		}
		cl, bases, err := ts.classOf(ctx, d.file.rel, d.file.m, d.fn.NameOff)
		if err != nil {
			return err
		}
		cands = append(cands, cand{d, cl, bases})
	}
	family := map[string]bool{class: true}
	for grown := true; grown; {
		grown = false
		for _, c := range cands {
			if seen[declKey(c.d.loc)] {
				continue
			}
			for _, b := range c.bases {
				if family[b] {
					seen[declKey(c.d.loc)], family[c.class], grown = true, true, true
					if len(c.d.fn.Params) != len(target.fn.Params) {
						p.plan.LeftAlone = append(p.plan.LeftAlone, SignatureSite{Location: c.d.loc,
							Reason: fmt.Sprintf("an override with %d parameters where %s has %d: change it by hand", len(c.d.fn.Params), target.fn.Name, len(target.fn.Params))})
					} else {
						p.decls = append(p.decls, c.d)
					}
					break
				}
			}
		}
	}
	return nil
}

// importRef marks a reference in an import or export (no call site).
const importRef = "import"
