package refactor

// inline_function's domain half: find the function (textDocument/definition),
// its uses (textDocument/references), tell calls from other uses (syntax:
// go/parser for Go, tree-sitter for Python and TypeScript), inline the calls
// one by one on a scratch copy that no user sees (each step on the text the
// earlier steps left), optionally remove the definition, and return every
// changed file as ONE changeset, computed against the files' current texts
// (buffers included). Nothing is changed here; the caller previews or
// applies the changeset through edit.Engine (one undo step per buffer).
//
// Go: gopls's refactor.inline.call, one call site per step, run by the gopls
// command line (`gopls codeaction -kind=refactor.inline.call -exec -write
// FILE:#OFFSET`) on a temporary copy of the module, into which the current
// texts of its Go files (unsaved buffers too) are written first: gopls
// computes each step on the copy as the earlier steps changed it, and the
// user's buffers, files and language server never see an intermediate state.
// (Through Neovim's client the steps would have to be applied to the user's
// buffers, or to hidden buffers under other names that gopls would type-check
// as other packages.) Python and TypeScript: pyright has no inline, and
// tsserver offers only "Inline variable", so simple functions (one return
// expression) are inlined from the syntax: see inline_syntax.go.

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/lsp"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// InlineRequest is inline_function's request: the function at Target
// (its definition or any use of it).
type InlineRequest struct {
	File   string
	Target lsp.Target
	// CallSite, when set, inlines only the call on that line (at that
	// column when given); otherwise every call in the workspace.
	CallSite *CallSiteSpec
	// RemoveDefinition: "auto" (default) removes the definition when no
	// reference remains and it is not public (Python, TypeScript: a name
	// code outside the workspace's view may import); "always" removes a
	// public one too; "never" keeps it.
	RemoveDefinition string
}

// CallSiteSpec names one call site: a file (default: the request's file),
// a 1-based line and an optional 0-based character column.
type CallSiteSpec struct {
	File   string
	Line   int
	Column *int
}

// InlineSite is a use of the function: replaced, or left alone with why.
type InlineSite struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Context string `json:"context,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// InlinePlan is a computed inline, not yet previewed or applied.
type InlinePlan struct {
	Function   string
	Definition lsp.Location
	// Method says how the calls were inlined.
	Method            string
	Replacements      []InlineSite
	LeftAlone         []InlineSite
	DefinitionRemoved bool
	// DefinitionKept says why the definition stays ("" when removed).
	DefinitionKept string
	AffectedFiles  []string
	// Incomplete says why the references may be partial.
	Incomplete string
	Changeset  preview.Changeset
}

// site is one use of the function while inlining: where it was (tool
// position, for the report) and where it is now in the scratch text.
type site struct {
	rel      string
	line     int // 1-based
	col      int // characters
	context  string
	off      int // byte offset into the scratch text of rel (moves with the steps)
	lost     bool
	replaced bool
	kind     siteKind
	reason   string
	// importStmt: the reference is in an import (Python, TypeScript).
	importStmt bool
}

type siteKind int

const (
	siteCall siteKind = iota
	siteOther
)

func (s *site) report(reason string) InlineSite {
	return InlineSite{File: s.rel, Line: s.line, Column: s.col, Context: s.context, Reason: reason}
}

// inliner inlines the calls of st's function in one language.
type inliner func(ctx context.Context, c *lsp.Client, st *inlineState) error

// inliners are the languages' inline_function (inline_go.go, and the
// syntax inliner's rules in inline_python.go and inline_typescript.go).
var inliners = byLanguage[inliner]{}

// inlineState is what every language's inliner works on: the function, its
// uses, and the scratch texts (workspace-relative path -> text), starting
// as the current texts.
type inlineState struct {
	req      InlineRequest
	name     string
	def      lsp.Location
	defRel   string
	defOff   int
	sites    []*site
	orig     map[string]nvim.FileSnapshot
	scratch  map[string]string
	plan     *InlinePlan
	language *lang.Language
	// pending are the names the call site being inlined bound (a
	// parameter's local, a body's local), bound those of the sites inlined,
	// per file: renumbered in the sites' order at the end.
	pending []string
	bound   map[string][]binding
}

// binding is a name an inlined call site chose for a base name (w_1 for
// the parameter w).
type binding struct {
	base, name string
	at         int // the site's offset in the original text
}

// bind records that the site being inlined chose name for base.
func (st *inlineState) bind(base, name string) { st.pending = append(st.pending, base, name) }

// InlineFunction computes inline_function's changeset.
func InlineFunction(ctx context.Context, c *lsp.Client, req InlineRequest) (InlinePlan, error) {
	switch req.RemoveDefinition {
	case "":
		req.RemoveDefinition = "auto"
	case "auto", "always", "never":
	default:
		return InlinePlan{}, apierr.Errorf(apierr.InvalidParameter, `pass "auto" (remove the definition when no use remains and it is not public), "always" (public too) or "never"`,
			"remove_definition %q is not one of auto, always, never", req.RemoveDefinition)
	}
	// Steps: the definition, its uses, each call site (added once known),
	// the changeset.
	ctx, steps := newSteps(ctx, "inline_function", 3)
	steps.next("finding the definition at %s:%d", req.File, req.Target.Line)
	defs, err := c.Definition(ctx, req.File, req.Target)
	if err != nil {
		return InlinePlan{}, err
	}
	var def *lsp.SourceLocation
	for i, l := range defs.Locations {
		if l.File != "" && !l.OutsideWorkspace {
			def = &defs.Locations[i]
			break
		}
	}
	if def == nil {
		if len(defs.Locations) > 0 {
			return InlinePlan{}, apierr.Errorf(apierr.PreconditionFailed, "inline only functions defined in the workspace",
				"%s is defined outside the workspace (%s)", defs.Symbol, defs.Locations[0].File+defs.Locations[0].URI)
		}
		return InlinePlan{}, apierr.Errorf(apierr.ResourceNotFound, "point at a function's name (its definition or a call of it)",
			"%s finds no definition at %s", defs.Server, defs.From)
	}
	l := lang.ForFile(def.File)
	inline := inliners[l]
	switch {
	case l == nil:
		return InlinePlan{}, apierr.Errorf(apierr.Unsupported, "inline_function supports "+inliners.languages(),
			"no language known for %s", def.File)
	case inline == nil:
		return InlinePlan{}, apierr.Errorf(apierr.Unsupported, "inline_function supports "+inliners.languages(),
			"nvbridge cannot inline %s functions", l.DisplayName())
	}
	col := def.Column
	steps.next("finding the uses of %s", defs.Symbol)
	refs, err := c.References(ctx, def.File, lsp.Target{Line: def.Line, Column: &col}, lsp.ReferencesOptions{MaxResults: 10000})
	if err != nil {
		return InlinePlan{}, err
	}
	if refs.Truncated {
		return InlinePlan{}, apierr.Errorf(apierr.PreconditionFailed, "inline one call_site at a time",
			"%s has %d uses; more than nvbridge inlines at once", refs.Symbol, refs.Total)
	}
	st := &inlineState{req: req, name: refs.Symbol, def: def.Location, defRel: def.File, language: l,
		plan: &InlinePlan{Function: refs.Symbol, Definition: def.Location, Incomplete: refs.Incomplete}}
	if st.name == "" {
		st.name = defs.Symbol
		st.plan.Function = st.name
	}
	// The current texts of the definition's file and of every file with a use.
	files := []string{def.File}
	for _, fr := range refs.Files {
		if fr.File == "" || fr.OutsideWorkspace {
			for _, r := range fr.References {
				st.plan.LeftAlone = append(st.plan.LeftAlone, InlineSite{File: fr.File + fr.URI, Line: r.Line, Column: r.Column,
					Context: r.Context, Reason: "outside the workspace"})
			}
			continue
		}
		files = append(files, fr.File)
	}
	if err := st.load(ctx, c, files); err != nil {
		return InlinePlan{}, err
	}
	if st.defOff, err = st.offset(def.File, def.Line, def.Column); err != nil {
		return InlinePlan{}, err
	}
	for _, fr := range refs.Files {
		if fr.File == "" || fr.OutsideWorkspace {
			continue
		}
		for _, r := range fr.References {
			off, err := st.offset(fr.File, r.Line, r.Column)
			if err != nil {
				return InlinePlan{}, err
			}
			if fr.File == def.File && off == st.defOff {
				continue // the declaration itself
			}
			st.sites = append(st.sites, &site{rel: fr.File, line: r.Line, col: r.Column, context: r.Context, off: off})
		}
	}
	if err := inline(ctx, c, st); err != nil {
		return InlinePlan{}, err
	}
	steps.next("building the changeset")
	return st.finish()
}

// load reads the current texts (buffers included) of files into the
// scratch map.
func (st *inlineState) load(ctx context.Context, c *lsp.Client, files []string) error {
	snaps, err := snapshotRels(ctx, c, files, nvim.SnapshotOptions{})
	if err != nil {
		return err
	}
	if st.orig == nil {
		st.orig, st.scratch = map[string]nvim.FileSnapshot{}, map[string]string{}
	}
	for _, s := range snaps {
		rel := c.Session.Root().Rel(s.Path)
		st.orig[rel] = s
		st.scratch[rel] = snapshotText(s)
	}
	return nil
}

// snapshotRels snapshots the workspace-relative files rels (each once),
// failing on the first that cannot be read.
func snapshotRels(ctx context.Context, c *lsp.Client, rels []string, opts nvim.SnapshotOptions) ([]nvim.FileSnapshot, error) {
	root := c.Session.Root()
	seen := map[string]bool{}
	var abs []string
	for _, r := range rels {
		if seen[r] {
			continue
		}
		seen[r] = true
		a, err := root.Resolve(r)
		if err != nil {
			return nil, err
		}
		abs = append(abs, a)
	}
	snaps, err := c.Session.Snapshot(ctx, abs, opts)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		if s.Err != nil {
			return nil, s.Err.APIError()
		}
	}
	return snaps, nil
}

// snapshotText is a snapshot's text with "\n" line ends (as positions and
// preview documents address it).
func snapshotText(s nvim.FileSnapshot) string {
	return snapshotDoc(s).Mapper().Text()
}

// offset converts a tool position (1-based line, character column) in rel's
// scratch text to a byte offset.
func (st *inlineState) offset(rel string, line, col int) (int, error) {
	text, ok := st.scratch[rel]
	if !ok {
		return 0, apierr.Errorf(apierr.OperationFailed, "report this", "no text loaded for %s", rel)
	}
	off, err := preview.NewMapper(text).CharOffset(line, col)
	if err != nil {
		return 0, apierr.Errorf(apierr.OperationFailed, "retry: the file changed", "%s:%d:%d: %v", rel, line, col, err)
	}
	return off, nil
}

// position is the Neovim position (row, byte column) of byte off of rel's
// scratch text.
func (st *inlineState) position(rel string, off int) (int, int) {
	return preview.NewMapper(st.scratch[rel]).Position(off)
}

// update records a step's new text of rel and moves every pending site of
// rel (and the definition) through the change: a site whose name the step
// rewrote is lost (it was inside the inlined call, or the inliner moved
// it).
func (st *inlineState) update(rel, text string) {
	old := st.scratch[rel]
	if old == text {
		return
	}
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffMain(old, text, false)
	move := func(off, length int) (int, bool) {
		oldPos, newPos := 0, 0
		for _, d := range diffs {
			n := len(d.Text)
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				if off >= oldPos && off+length <= oldPos+n {
					return newPos + off - oldPos, true
				}
				oldPos += n
				newPos += n
			case diffmatchpatch.DiffDelete:
				if off < oldPos+n && off+length > oldPos {
					return 0, false
				}
				oldPos += n
			case diffmatchpatch.DiffInsert:
				newPos += n
			}
		}
		return 0, false
	}
	for _, s := range st.sites {
		if s.rel != rel || s.lost || s.replaced {
			continue
		}
		if off, ok := move(s.off, len(st.name)); ok && strings.HasPrefix(text[off:], st.name) {
			s.off = off
		} else {
			s.lost = true
		}
	}
	if rel == st.defRel && st.defOff >= 0 {
		if off, ok := move(st.defOff, len(st.name)); ok {
			st.defOff = off
		} else {
			st.defOff = -1
		}
	}
	st.scratch[rel] = text
}

// selected reports whether a call site is the one req.CallSite names (every
// call when none is named).
func (st *inlineState) selected(s *site) bool {
	cs := st.req.CallSite
	if cs == nil {
		return true
	}
	file := cs.File
	if file == "" {
		file = st.req.File
	}
	if filepath.ToSlash(filepath.Clean(file)) != s.rel || cs.Line != s.line {
		return false
	}
	return cs.Column == nil || (*cs.Column >= s.col && *cs.Column <= s.col+len([]rune(st.name)))
}

// classifiedCalls runs classify (the language's judgement of each site),
// refuses a recursive function, and returns the calls to inline as
// callsToInline orders them.
func (st *inlineState) classifiedCalls(classify func() error) ([]*site, error) {
	if err := classify(); err != nil {
		return nil, err
	}
	if err := st.refuseRecursive(); err != nil {
		return nil, err
	}
	return st.callsToInline()
}

// inlineCalls inlines calls one at a time, each through inline (the file's
// new text, or why the call is left alone), with a progress step per call
// (how follows its place): a call the inlining of another around it
// rewrote is passed over, and every call left alone is listed with its
// reason.
func (st *inlineState) inlineCalls(ctx context.Context, calls []*site, how string, inline func(s *site) (text, why string, err error)) error {
	steps := stepsOf(ctx)
	steps.add(len(calls))
	for i, s := range calls {
		steps.next("call site %d of %d, %s:%d%s", i+1, len(calls), s.rel, s.line, how)
		if s.lost {
			s.reason = "rewritten by the inlining of another call around it; call inline_function again for what remains"
			continue
		}
		st.pending = st.pending[:0]
		text, why, err := inline(s)
		if err != nil {
			return err
		}
		if why != "" {
			s.reason = why
			continue
		}
		for j := 0; j+1 < len(st.pending); j += 2 {
			if st.bound == nil {
				st.bound = map[string][]binding{}
			}
			st.bound[s.rel] = append(st.bound[s.rel], binding{base: st.pending[j], name: st.pending[j+1], at: s.off})
		}
		st.plan.Replacements = append(st.plan.Replacements, s.report(""))
		st.update(s.rel, text)
		s.lost, s.replaced, s.reason = false, true, ""
	}
	for _, s := range st.sites {
		if !s.replaced && s.reason != "" {
			st.plan.LeftAlone = append(st.plan.LeftAlone, s.report(s.reason))
		}
	}
	st.renumber()
	return nil
}

var numbered = regexp.MustCompile(`^(.*?)(?:_(\d+))?$`)

// renumber gives the names the call sites bound for one base name in the
// order of the sites in the file: the sites are inlined from the last to
// the first, so the first one got the highest number (w_2 above w_1). The
// names swap places only where each is new to the file and chosen once
// (a name is then unique to its site), identifiers only.
func (st *inlineState) renumber() {
	for rel, bs := range st.bound {
		orig := map[string]bool{}
		if o, ok := st.orig[rel]; ok {
			text := snapshotText(o)
			for _, t := range lang.Identifiers(st.language, text) {
				orig[text[t.Start:t.End]] = true
			}
		}
		byBase := map[string][]binding{}
		count := map[string]int{}
		for _, b := range bs {
			byBase[b.base] = append(byBase[b.base], b)
			count[b.name]++
		}
		perm := map[string]string{}
		for _, group := range byBase {
			if len(group) < 2 {
				continue
			}
			ok := true
			var names []string
			for _, b := range group {
				ok = ok && count[b.name] == 1 && !orig[b.name]
				names = append(names, b.name)
			}
			if !ok {
				continue
			}
			sort.Slice(names, func(i, j int) bool { return suffixOf(names[i]) < suffixOf(names[j]) })
			sort.SliceStable(group, func(i, j int) bool { return group[i].at < group[j].at })
			for i, b := range group {
				if b.name != names[i] {
					perm[b.name] = names[i]
				}
			}
		}
		if len(perm) == 0 {
			continue
		}
		text := st.scratch[rel]
		var out strings.Builder
		last := 0
		for _, t := range lang.Identifiers(st.language, text) {
			if to, ok := perm[text[t.Start:t.End]]; ok {
				out.WriteString(text[last:t.Start])
				out.WriteString(to)
				last = t.End
			}
		}
		out.WriteString(text[last:])
		st.scratch[rel] = out.String()
	}
}

// suffixOf is the number ending a bound name (w_2: 2), 0 for none.
func suffixOf(name string) int {
	m := numbered.FindStringSubmatch(name)
	n, _ := strconv.Atoi(m[2])
	return n
}

// callsToInline returns the call sites to inline in a safe order: per file
// from the last to the first (an inner call before the call around it), and
// fails when req.CallSite names no call.
func (st *inlineState) callsToInline() ([]*site, error) {
	var out []*site
	for _, s := range st.sites {
		if s.kind == siteCall && s.reason == "" && st.selected(s) {
			out = append(out, s)
		}
	}
	if st.req.CallSite != nil && len(out) == 0 {
		for _, s := range st.sites {
			if st.selected(s) && s.reason != "" {
				return nil, apierr.Errorf(apierr.PreconditionFailed, "pick another call site, or inline it by hand",
					"the call of %s at %s:%d cannot be inlined: %s", st.name, s.rel, s.line, s.reason)
			}
		}
		return nil, apierr.Errorf(apierr.ResourceNotFound, "call_site names a line (and column) where the function is called; find_references lists them",
			"no call of %s at %s:%d", st.name, st.req.CallSite.File, st.req.CallSite.Line)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].rel != out[j].rel {
			return out[i].rel < out[j].rel
		}
		return out[i].off > out[j].off
	})
	return out, nil
}

// refuseRecursive fails when the function calls itself.
func (st *inlineState) refuseRecursive() error {
	for _, s := range st.sites {
		if s.reason == reasonRecursion {
			return apierr.Errorf(apierr.Unsupported, "a recursive function cannot be inlined (each copy calls it again); inline by hand or restructure it first",
				"%s is recursive: it calls itself at %s:%d (%s)", st.name, s.rel, s.line, strings.TrimSpace(s.context))
		}
	}
	return nil
}

const reasonRecursion = "recursion: the call is inside the function itself"

// keepReason says why the definition stays, "" when it can go.
func (st *inlineState) keepReason() string {
	if st.req.RemoveDefinition == "never" {
		return "remove_definition is never"
	}
	if st.req.CallSite != nil {
		return "only one call site was inlined; the others still use it"
	}
	if st.plan.Incomplete != "" {
		return "the references may be incomplete: " + st.plan.Incomplete
	}
	for _, l := range st.plan.LeftAlone {
		return fmt.Sprintf("still used at %s:%d (%s)", l.File, l.Line, l.Reason)
	}
	for _, s := range st.sites {
		if s.importStmt || s.replaced {
			continue
		}
		if s.kind != siteCall || s.lost && s.reason == "" {
			return fmt.Sprintf("still used at %s:%d", s.rel, s.line)
		}
	}
	return ""
}

// finish turns the scratch texts into the changeset: one file change per
// changed file, against its current text.
func (st *inlineState) finish() (InlinePlan, error) {
	plan := st.plan
	var rels []string
	for rel := range st.scratch {
		if orig, ok := st.orig[rel]; ok && snapshotText(orig) != st.scratch[rel] {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	for _, rel := range rels {
		old := snapshotDoc(st.orig[rel])
		whole := preview.TextEdit{StartLine: 0, StartCol: 0, EndLine: len(old.Lines), EndCol: 0, NewText: st.scratch[rel]}
		edits, err := preview.Minimize(old, []preview.TextEdit{whole})
		if err != nil {
			return InlinePlan{}, apierr.Errorf(apierr.OperationFailed, "report this", "build the edits of %s: %v", rel, err)
		}
		plan.Changeset.Files = append(plan.Changeset.Files, preview.FileChange{Kind: preview.OpEdit, Path: rel, Old: old, Edits: edits})
	}
	plan.AffectedFiles = rels
	if plan.AffectedFiles == nil {
		plan.AffectedFiles = []string{}
	}
	if plan.Replacements == nil {
		plan.Replacements = []InlineSite{}
	}
	if plan.LeftAlone == nil {
		plan.LeftAlone = []InlineSite{}
	}
	sortSites(plan.Replacements)
	sortSites(plan.LeftAlone)
	if len(plan.Replacements) == 0 {
		reasons := []string{}
		for _, l := range plan.LeftAlone {
			reasons = append(reasons, fmt.Sprintf("%s:%d %s", l.File, l.Line, l.Reason))
		}
		if len(reasons) == 0 {
			reasons = append(reasons, "no call of it was found")
		}
		return InlinePlan{}, apierr.Errorf(apierr.PreconditionFailed, "nothing to inline: see the reasons; inline by hand where the tool cannot",
			"no call of %s could be inlined: %s", st.name, strings.Join(reasons, "; ")).
			WithDetails(map[string]any{"left_alone": plan.LeftAlone})
	}
	return *plan, nil
}

func sortSites(s []InlineSite) {
	slices.SortStableFunc(s, func(a, b InlineSite) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}
