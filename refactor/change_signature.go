package refactor

// change_signature's domain half. One call describes the new parameter list;
// the function's declaration, the declarations related to it (Go interface
// methods and their other implementations, TypeScript and Python overrides)
// and every call site the server's references find are rewritten from their
// syntax (each language's part registered in change_signature_syntax.go:
// go/parser for Go, tree-sitter through Neovim for Python and TypeScript),
// as one changeset. The reading is change_signature_plan.go, the rewriting
// change_signature_rewrite.go. Call sites that cannot be rewritten safely
// are left alone and reported with the reason; dropping or reordering an
// argument with side effects is refused unless the caller allows it.

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
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
	// AllowLeftAlone lets a change that moves, adds or removes parameters
	// go ahead when places using the function cannot be rewritten (a value
	// use, a spread or multi-value call): they keep the old order.
	AllowLeftAlone bool
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
	// LeftBehind lists uses of the function's name in files the change
	// did not touch (calls the server does not see keep the old
	// signature), at most maxLeftBehind of LeftBehindTotal.
	LeftBehind      []LeftBehind
	LeftBehindTotal int
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
	// Calls in files the server does not see keep the old signature.
	name := p.plan.Function
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	r := reachOf(ctx, c, req.File, req.Target, name)
	p.plan.LeftBehind, p.plan.LeftBehindTotal = findLeftBehindMember(c.Session.Root(), l, name, p.plan.Changeset,
		r.importers(c.Session.Root(), l), r.member)
	openLeftBehind(ctx, c, p.plan.LeftBehind)
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
