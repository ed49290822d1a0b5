package lsp

// Names instead of positions: a symbol named by its name or a qualified
// name (orders.Process, Logger.clone, requests.sessions.Session.request,
// z.string), found with workspace/symbol (and, where a server gives no
// containers, its file's document symbols) and matched with its
// language's qualification rules (lang.NameRules), ranked so the reading
// that names the fewest things wins. Every position tool and
// understand_symbol's query resolve through ResolveName.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
)

// NamedSymbol is the declaration a name resolved to, and how.
type NamedSymbol struct {
	// Name is the name as written.
	Name   string      `json:"name"`
	Symbol SymbolMatch `json:"symbol"`
	// How is the reading of the name that matched: "exact" (the
	// declaration's own or fully qualified name), "qualified" (by its
	// package or module), "member" (by its type, class or object),
	// "re-exported" (by a package that re-exports its module),
	// "in package" (a member of some type of that package), "alias" (a
	// module alias such as z of import * as z).
	How string `json:"how"`
	// SetAside counts the other declarations with the same last name
	// that the qualification ruled out.
	SetAside int `json:"set_aside,omitempty"`
}

// Ranks of a name's readings (lower names fewer things); 0 is no match.
const (
	rankExact     = 1 // the server's name as given, or the whole path
	rankQualified = 2 // package or module (+ type) qualified: zapcore.Core
	rankMember    = 3 // a member of a type, class or object: Logger.clone
	rankReexport  = 4 // an enclosing package that re-exports it: requests.Session
	rankContainer = 5 // a member of some type of package qual: zapcore.hooked.Core for zapcore.Core
	rankAlias     = 6 // a module alias: z.string
)

var rankHow = map[int]string{rankExact: "exact", rankQualified: "qualified", rankMember: "member",
	rankReexport: "re-exported", rankContainer: "in package", rankAlias: "alias"}

// maxContainerFiles bounds the files whose document symbols are read to
// learn candidates' containers (servers that give none).
const maxContainerFiles = 20

// ResolveName finds the one declaration name names. The server is asked
// with the whole name first (gopls matches "Logger.clone"), then with its
// last part; each candidate with that last part is read as its module
// (lang.NameRules.Module), enclosing types and name, and the best reading
// wins (exact, qualified, member, re-exported, in package, alias;
// case-sensitive first, then not). Several at the best rank are
// AMBIGUOUS, listing each candidate's file, line and kind and suggesting
// a name that does narrow it. Where the server gives workspace symbols no
// container (tsserver), a candidate's enclosing class or object is read
// from its file's document symbols. file, when given, picks the language
// server, and among several declarations so named those in that file.
func (c *Client) ResolveName(ctx context.Context, name, file string) (NamedSymbol, error) {
	name = strings.TrimSpace(name)
	segs := lang.SplitName(name)
	if len(segs) == 0 {
		return NamedSymbol{}, apierr.New(apierr.InvalidParameter, "the name is empty",
			"pass the symbol's name, optionally qualified (orders.Process, Logger.clone)")
	}
	r := &nameResolver{c: c, file: file, scope: lang.NewScope(c.Session.Root().Dir()),
		modules: map[string][]string{}, containers: map[string][]Symbol{}}
	return r.resolve(ctx, name, segs)
}

type nameResolver struct {
	c     *Client
	file  string
	scope *lang.Scope
	// modules memoizes a file's module segments, containers its document
	// symbols (for servers that give workspace symbols no container).
	modules    map[string][]string
	containers map[string][]Symbol
	notReady   []string
	// containersCut: candidates in more than maxContainerFiles files had
	// their containers read from the first ones only.
	containersCut bool
}

// candidate is a workspace symbol read as module, scope (its enclosing
// types) and name.
type candidate struct {
	s      Symbol
	module []string
	scope  []string
}

func (r *nameResolver) resolve(ctx context.Context, name string, segs []string) (NamedSymbol, error) {
	base := segs[len(segs)-1]
	queries := []string{name}
	if len(segs) > 1 {
		queries = append(queries, base)
	}
	var all []candidate
	seen := map[string]bool{}
	for _, q := range queries {
		cands, err := r.search(ctx, q, base, seen)
		if err != nil {
			return NamedSymbol{}, err
		}
		all = append(all, cands...)
		if best, rank := r.bestOf(ctx, all, name, segs); len(best) > 0 {
			return r.answer(name, best, rank, all, segs)
		}
	}
	notReady := ""
	if len(r.notReady) > 0 {
		notReady = fmt.Sprintf(" (%s had not finished analysing the workspace)", strings.Join(r.notReady, ", "))
	}
	if r.containersCut {
		notReady += fmt.Sprintf(" (the enclosing classes of declarations so named were read in the first %d files only)", maxContainerFiles)
	}
	similar := make([]Symbol, 0, len(all))
	for _, cd := range all {
		similar = append(similar, cd.s)
	}
	return NamedSymbol{}, apierr.Errorf(apierr.ResourceNotFound,
		"check the spelling or the qualification (package.Name, Type.method, module.Class.method), or pass file and line instead (get_symbols with a query lists similar names)",
		"no symbol named %q in the workspace%s", name, notReady).
		WithDetails(map[string]any{"similar": shownMatches(similar)})
}

// search asks the workspace for q and keeps the symbols whose last name is
// base (any case), read as candidates; seen drops those already found.
func (r *nameResolver) search(ctx context.Context, q, base string, seen map[string]bool) ([]candidate, error) {
	res, err := r.c.Symbols(ctx, SymbolsQuery{Query: q, File: r.file, MaxResults: 500})
	if err != nil {
		return nil, err
	}
	for _, s := range res.NotReady {
		if !slices.Contains(r.notReady, s) {
			r.notReady = append(r.notReady, s)
		}
	}
	var out []candidate
	for _, s := range res.Symbols {
		key := fmt.Sprintf("%s:%d:%d:%s", s.File, s.Line, s.Column, s.Name)
		if s.OutsideWorkspace || s.File == "" || seen[key] || !strings.EqualFold(baseName(s.Name), base) {
			continue
		}
		seen[key] = true
		cd, err := r.read(ctx, s)
		if err != nil {
			return nil, err
		}
		out = append(out, cd)
	}
	return out, nil
}

// read reads s as module, scope and name under its language's rules.
func (r *nameResolver) read(ctx context.Context, s Symbol) (candidate, error) {
	rules := lang.NameRulesFor(s.File)
	mod, ok := r.modules[s.File]
	if !ok {
		mod = rules.ModuleSegments(r.scope, filepath.Join(r.scope.Root, filepath.FromSlash(s.File)))
		r.modules[s.File] = mod
	}
	cd := candidate{s: s, module: mod}
	if sc := symbolScope(s); sc != "" {
		cd.scope = lang.SplitName(sc)
		if len(mod) > 0 && len(cd.scope) > 0 && cd.scope[0] == mod[len(mod)-1] {
			cd.scope = cd.scope[1:] // gopls's "zapcore.Core": the package, not a type
		}
	}
	container := s.Container
	if rules.ContainerIsModule && (strings.ContainsAny(container, "/.") || len(mod) > 0 && container == mod[len(mod)-1]) {
		container = "" // gopls's import path
	}
	if container == "" && rules.ContainersFromDocument && len(cd.scope) == 0 {
		var err error
		if container, err = r.documentContainer(ctx, s); err != nil {
			return candidate{}, err
		}
	}
	if container != "" {
		cd.scope = append(lang.SplitName(container), cd.scope...)
	}
	return cd, nil
}

// documentContainer is the path of the symbols enclosing s in its file's
// document symbols ("" for a top-level one, or past maxContainerFiles).
func (r *nameResolver) documentContainer(ctx context.Context, s Symbol) (string, error) {
	syms, ok := r.containers[s.File]
	if !ok {
		if len(r.containers) >= maxContainerFiles {
			r.containersCut = true
			return "", nil
		}
		res, err := r.c.Symbols(ctx, SymbolsQuery{File: s.File})
		if err != nil {
			return "", err
		}
		syms = res.Symbols
		r.containers[s.File] = syms
	}
	for _, d := range syms {
		if d.Line == s.Line && baseName(d.Name) == baseName(s.Name) {
			return d.Container, nil
		}
	}
	return "", nil
}

// bestOf returns the candidates at the best rank (case-sensitive first,
// then not) and that rank; an alias reading counts only when the alias is
// itself declared in the workspace.
func (r *nameResolver) bestOf(ctx context.Context, cands []candidate, name string, segs []string) ([]candidate, int) {
	for _, fold := range []bool{false, true} {
		best, rank := bestRanked(cands, name, segs, fold)
		if rank == rankAlias && !r.declared(ctx, segs[0]) {
			continue
		}
		if len(best) > 0 {
			return best, rank
		}
	}
	return nil, 0
}

// aliasKinds are the kinds a module alias is declared with (tsserver's
// import * as z is a variable).
var aliasKinds = map[string]bool{"variable": true, "constant": true, "module": true, "namespace": true, "package": true}

// declared reports whether the workspace declares name as what a module
// alias is (zod's z: a variable), not as a class or function, whose
// members a top-level declaration is not.
// An alias is written as declared: its case is never folded.
func (r *nameResolver) declared(ctx context.Context, name string) bool {
	res, err := r.c.Symbols(ctx, SymbolsQuery{Query: name, File: r.file, MaxResults: 500})
	if err != nil {
		return false
	}
	for _, s := range res.Symbols {
		if !s.OutsideWorkspace && aliasKinds[s.Kind] && s.Name == name {
			return true
		}
	}
	return false
}

// answer is the resolution to one candidate, or AMBIGUOUS among several.
func (r *nameResolver) answer(name string, best []candidate, rank int, all []candidate, segs []string) (NamedSymbol, error) {
	how := rankHow[rank]
	if len(best) > 1 && r.file != "" {
		// Several declarations so named (zod's v3 and v4 each declare
		// floatSafeRemainder): those in the file given are the ones meant.
		in := r.file
		if filepath.IsAbs(in) {
			in = r.c.Session.Root().Rel(in)
		}
		in = filepath.Clean(in)
		var inFile []candidate
		for _, cd := range best {
			if filepath.Clean(cd.s.File) == in {
				inFile = append(inFile, cd)
			}
		}
		if len(inFile) > 0 {
			best = inFile
		}
	}
	if len(best) == 1 {
		s := best[0].s
		return NamedSymbol{Name: name, How: how, SetAside: len(all) - 1,
			Symbol: SymbolMatch{Name: s.Name, Kind: s.Kind, File: s.File, Line: s.Line, Column: s.Column, Container: s.Container}}, nil
	}
	syms := make([]Symbol, len(best))
	for i, cd := range best {
		syms[i] = cd.s
	}
	list := shownMatches(syms)
	example := list[0]
	narrower := ""
	if q := narrowingName(best, name); q != "" {
		narrower = fmt.Sprintf(", or a name that picks one of them (e.g. %q)", q)
	}
	return NamedSymbol{}, apierr.Errorf(apierr.Ambiguous,
		fmt.Sprintf("pass file and line of the one you mean instead of the name (e.g. file %q, line %d, symbol %q)%s",
			example.File, example.Line, baseName(example.Name), narrower),
		"%d symbols in the workspace are named %q", len(best), name).
		WithDetails(map[string]any{"matches": list, "total": len(best)})
}

// shownMatches lists the first ambiguousShown symbols as matches.
func shownMatches(syms []Symbol) []SymbolMatch {
	out := []SymbolMatch{}
	for i, s := range syms {
		if i == ambiguousShown {
			break
		}
		out = append(out, SymbolMatch{Name: s.Name, Kind: s.Kind, File: s.File, Line: s.Line, Column: s.Column, Container: s.Container})
	}
	return out
}

// bestRanked returns the candidates name names at its best rank, and the
// rank (0 and nil when it names none).
func bestRanked(cands []candidate, name string, segs []string, fold bool) ([]candidate, int) {
	var out []candidate
	best := 0
	for _, cd := range cands {
		r := nameRank(cd, name, segs, fold)
		switch {
		case r == 0 || (best != 0 && r > best):
		case r == best:
			out = append(out, cd)
		default:
			best, out = r, []candidate{cd}
		}
	}
	return out, best
}

// narrowingName proposes, for the first of several matches that has one,
// a qualified name other than name that names that symbol alone: its
// type-, module- or package-qualified name. "" when none does.
func narrowingName(matches []candidate, name string) string {
	for _, m := range matches {
		base := baseName(m.s.Name)
		var tries []string
		if len(m.scope) > 0 {
			tries = append(tries, m.scope[len(m.scope)-1]+"."+base)
		}
		for i := len(m.module) - 1; i >= 0; i-- {
			tries = append(tries, strings.Join(append(append(append([]string(nil), m.module[i:]...), m.scope...), base), "."))
		}
		tries = append(tries, m.s.Name)
		for _, q := range tries {
			if strings.EqualFold(q, name) {
				continue
			}
			if got, _ := bestRanked(matches, q, lang.SplitName(q), false); len(got) == 1 && got[0].s == m.s {
				return q
			}
		}
	}
	return ""
}

// nameRank reports how exactly name (split into segs) names candidate cd
// (a rank above), 0 when it does not name it.
func nameRank(cd candidate, name string, segs []string, fold bool) int {
	eq := func(a, b string) bool {
		if fold {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	// suffix: is q a suffix of of?
	suffix := func(q, of []string) bool {
		if len(q) > len(of) {
			return false
		}
		for i := range q {
			if !eq(q[i], of[len(of)-len(q)+i]) {
				return false
			}
		}
		return true
	}
	s := cd.s
	base := segs[len(segs)-1]
	if !eq(baseName(s.Name), base) {
		return 0
	}
	if eq(s.Name, name) || len(segs) == 1 {
		return rankExact
	}
	qual := segs[:len(segs)-1]
	path := append(append([]string(nil), cd.module...), cd.scope...)
	switch {
	case len(qual) == len(path) && suffix(qual, path):
		return rankExact
	case len(qual) > len(cd.scope) && suffix(qual, path):
		return rankQualified
	case len(cd.scope) > 0 && suffix(qual, cd.scope):
		return rankMember
	}
	// qual = an enclosing package of the module, then the whole scope
	// (requests.Session, requests.Session.request).
	if n := len(qual) - len(cd.scope); n > 0 && n < len(cd.module) && suffix(cd.scope, qual) {
		prefix := true
		for i := 0; i < n; i++ {
			prefix = prefix && eq(qual[i], cd.module[i])
		}
		if prefix && lang.NameRulesFor(s.File).Reexports {
			return rankReexport
		}
	}
	if len(cd.scope) > 0 && len(cd.module) > 0 && suffix(qual, cd.module) {
		return rankContainer
	}
	if len(qual) == 1 && len(cd.scope) == 0 && lang.NameRulesFor(s.File).Aliases {
		return rankAlias
	}
	return 0
}

// symbolScope is what a symbol's name qualifies it with, type receivers
// unwrapped: "hooked" of "hooked.Core", "zapcore.hooked" of
// "zapcore.hooked.Core", "Total" of "(*Total).Add"; "" for a bare name.
func symbolScope(s Symbol) string {
	i := strings.LastIndexAny(s.Name, ".:")
	if i <= 0 {
		return ""
	}
	scope := strings.TrimSuffix(strings.TrimPrefix(s.Name[:i], "("), ")")
	return strings.TrimPrefix(scope, "*")
}

// baseName is a possibly qualified name's last part ("Process" of
// "orders.Process", "Add" of "(*Total).Add").
func baseName(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		return name[i+1:]
	}
	return name
}
