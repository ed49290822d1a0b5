package refactor

// change_signature's reading: the files as Neovim holds them, the target
// declaration and the new list checked against it, the declarations that
// change with it (implementations, overrides) and the references the
// server finds.

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

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

// references collects the call sites of every declaration taking part
// and rewrites them with the declarations.
func (p *sigPlanner) references(ctx context.Context) error {
	sites, err := p.callSites(ctx)
	if err != nil {
		return err
	}
	return p.rewriteSites(ctx, sites)
}

// sigSite is a reference to rewrite: its file, the offset of the name and
// where the server said it is.
type sigSite struct {
	file *sigFile
	off  int
	loc  lsp.Location
}

// callSites reads the server's references of every declaration taking
// part, in the files the change may edit; the others are left alone with
// the reason.
func (p *sigPlanner) callSites(ctx context.Context) ([]sigSite, error) {
	declAt := p.declsByKey()
	seen := map[string]bool{}
	var sites []sigSite
	for _, d := range p.decls {
		col := d.loc.Column
		refs, err := p.c.References(ctx, d.loc.File, lsp.Target{Line: d.loc.Line, Column: &col},
			lsp.ReferencesOptions{IncludeDeclaration: false, MaxResults: 5000})
		if err != nil {
			return nil, err
		}
		if refs.Truncated {
			return nil, apierr.Errorf(apierr.Unsupported, "change the call sites in smaller steps",
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
					return nil, err
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
				sites = append(sites, sigSite{f, off, loc})
			}
		}
	}
	return sites, nil
}

// declsByKey indexes the declarations taking part by location.
func (p *sigPlanner) declsByKey() map[string]*sigDecl {
	declAt := map[string]*sigDecl{}
	for _, d := range p.decls {
		declAt[declKey(d.loc)] = d
	}
	return declAt
}

// sameLanguage: a reference in a file of another language (a .js file
// found by tsserver is fine: the registry groups them).
func (p *sigPlanner) sameLanguage(rel string) bool {
	l := lang.ForFile(rel)
	return l == nil || p.lang == nil || l == p.lang
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
