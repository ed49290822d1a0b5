package lsp

// prepare_change: what a change to a symbol reaches before it is made.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/lang"
)

// Bounds of prepare_change.
const (
	// DefaultImpactDepth is how far transitive callers are followed.
	DefaultImpactDepth = 3
	// MaxImpactDepth bounds the depth a caller may ask.
	MaxImpactDepth = 6
	// impactCallers bounds the callers walked (all levels).
	impactCallers = 200
)

// Risk levels.
const (
	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// ImpactRequest names the symbol about to change.
type ImpactRequest struct {
	File   string
	Target Target
	// Depth is how many levels of callers to follow (default
	// DefaultImpactDepth).
	Depth int
}

// ImpactCaller is a function reached by following callers.
type ImpactCaller struct {
	HierarchyEntry
	// Depth is 1 for a direct caller, 2 for a caller of a caller...
	Depth int `json:"depth"`
	// Calls names the function it calls on the way to the symbol.
	Calls string `json:"calls"`
	// Sites are its calls to that function (file:line:column).
	Sites []CallSite `json:"call_sites"`
}

// RiskFactor is one fact weighed in the risk level.
type RiskFactor struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
	// Points is what the fact adds to the score (negative lowers it).
	Points int    `json:"points"`
	Detail string `json:"detail"`
}

// ImpactResult answers prepare_change.
type ImpactResult struct {
	Symbol UnderstandSymbol `json:"symbol"`
	From   string           `json:"from"`
	// Exported: visible outside its package or module (a Go capital, a
	// Python name without a leading underscore, a TypeScript export).
	Exported bool `json:"exported"`
	// Package is the symbol's package or module: a Go package's folder, a
	// Python module's dotted name, a TypeScript module's path.
	Package string `json:"package"`
	// DirectCallers and TransitiveCallers (depth >= 2) as far as Depth.
	DirectCallers     []ImpactCaller `json:"direct_callers"`
	TransitiveCallers []ImpactCaller `json:"transitive_callers"`
	Depth             int            `json:"depth"`
	// References counts uses (declaration excluded).
	References int `json:"references"`
	// Files are the files that use or (transitively) call the symbol;
	// Packages their packages or modules.
	Files    []string `json:"files"`
	Packages []string `json:"packages"`
	// DirectPackages are the other packages that use the symbol directly
	// (a reference or a direct caller there); ReachedPackages the other
	// packages reached only through callers of callers. A private helper
	// can have no direct package and several reached ones.
	DirectPackages  []string `json:"direct_packages"`
	ReachedPackages []string `json:"reached_packages"`
	// Tests are the test files that reference the symbol or one of its
	// callers.
	Tests   []TestFile   `json:"tests"`
	Risk    string       `json:"risk"`
	Score   int          `json:"score"`
	Factors []RiskFactor `json:"factors"`
	// Truncated: the callers or references were cut by a bound, so the
	// impact may be larger.
	Truncated     bool              `json:"truncated"`
	Errors        map[string]string `json:"errors,omitempty"`
	NotApplicable map[string]string `json:"not_applicable,omitempty"`
}

// Impact answers prepare_change: definition, references and the callers
// to req.Depth levels, requested concurrently, then weighed.
func (c *Client) Impact(ctx context.Context, req ImpactRequest) (ImpactResult, error) {
	if req.Depth == 0 {
		req.Depth = DefaultImpactDepth
	}
	if req.Depth < 1 || req.Depth > MaxImpactDepth {
		return ImpactResult{}, apierr.Errorf(apierr.InvalidParameter, fmt.Sprintf("pass a depth from 1 to %d", MaxImpactDepth),
			"depth %d is out of range", req.Depth)
	}
	here, sym, err := c.symbolAt(ctx, req.File, req.Target, protocol.MethodTextDocumentReferences)
	if err != nil {
		return ImpactResult{}, err
	}
	name := sym.Name
	out := ImpactResult{From: here.where(), Depth: req.Depth, Symbol: sym}
	errs, skipped := map[string]string{}, map[string]string{}
	var mu sync.Mutex
	fail := func(section string, err error) {
		mu.Lock()
		defer mu.Unlock()
		errs[section] = apierr.As(err).Error()
	}
	var (
		declLine string
		refs     *ReferencesResult
		calls    *CallHierarchyResult
	)
	impactStepNames := []string{"definition", "references", "callers"}
	steps := []func(){
		func() { // definition: the declaring file, line and kind
			res, err := c.Definition(ctx, req.File, req.Target)
			if err != nil {
				fail("definition", err)
				return
			}
			for _, l := range res.Locations {
				if l.OutsideWorkspace {
					continue
				}
				s := UnderstandSymbol{Name: name, Kind: "unknown", File: l.File, Line: l.Line, Column: l.Column}
				if sym, ok := c.declarationSymbol(ctx, l.Location, name, here.doc); ok {
					s.Kind, s.Container = SymbolKindName(sym.Kind), sym.Container
				}
				mu.Lock()
				out.Symbol, declLine = s, l.Context
				mu.Unlock()
				return
			}
		},
		func() {
			r, err := c.References(ctx, req.File, req.Target, ReferencesOptions{MaxResults: allReferences})
			if err != nil {
				fail("references", err)
				return
			}
			mu.Lock()
			refs = &r
			mu.Unlock()
		},
		func() {
			pos, err := c.resolve(ctx, req.File, req.Target, protocol.MethodTextDocumentPrepareCallHierarchy, "")
			if err != nil {
				fail("callers", err)
				return
			}
			r, err := c.callHierarchyAt(ctx, pos, CallHierarchyOptions{Direction: DirectionIncoming, Depth: req.Depth},
				walkLimits{depth: req.Depth, maxItems: impactCallers, concurrency: hierarchyConcurrency, probe: true, leaf: c.outsideWorkspace})
			if err != nil {
				if apierr.CodeOf(err) == apierr.ResourceNotFound {
					mu.Lock()
					skipped["callers"] = "not a function or method: its references carry the impact (" + apierr.As(err).Message + ")"
					mu.Unlock()
					return
				}
				fail("callers", err)
				return
			}
			mu.Lock()
			calls = &r
			mu.Unlock()
		},
	}
	// The callers' walk reports each level it expands (hierarchy.go).
	progress.Report(ctx, 0, 0, fmt.Sprintf("prepare_change: definition, references and callers to depth %d", req.Depth))
	var finished atomic.Int32
	if err := firstError(runBounded(ctx, len(steps), len(steps), func(i int) {
		steps[i]()
		progress.Report(ctx, 0, 0, fmt.Sprintf("prepare_change: %s done (%d of %d)", impactStepNames[i], finished.Add(1), len(steps)))
	})); err != nil {
		return ImpactResult{}, err
	}
	if err := apierr.FromContext(ctx, "prepare_change",
		"retry with a smaller depth or a larger timeout; the language server may still be loading the workspace"); err != nil {
		return ImpactResult{}, err
	}
	if refs == nil && calls == nil {
		// Nothing to weigh: report the sub-requests' failure.
		return ImpactResult{}, apierr.Errorf(apierr.OperationFailed,
			"check the position with find_references; retry if the language server was still starting",
			"neither references nor callers could be read: %s", joinErrors(errs))
	}
	if out.Symbol.Kind == "unknown" && calls != nil {
		out.Symbol.Kind = calls.Symbol.Kind
	}
	out.Exported = lang.IsExported(out.Symbol.File, name, declLine, out.Symbol.Kind)
	out.Package = lang.PackageOf(out.Symbol.File)

	files := map[string]bool{}
	direct := map[string]bool{} // files of references and direct callers
	if refs != nil {
		out.References = refs.Total
		out.Truncated = out.Truncated || refs.Truncated
		for _, f := range refs.Files {
			if !f.OutsideWorkspace {
				files[f.File], direct[f.File] = true, true
			}
		}
	}
	var callSec *CallsSection
	if calls != nil {
		out.Truncated = out.Truncated || calls.Truncated || calls.deeper
		callers := flattenCallers(calls.Incoming)
		for _, cl := range callers {
			if cl.OutsideWorkspace {
				continue
			}
			files[cl.File] = true
			if cl.Depth == 1 {
				direct[cl.File] = true
				out.DirectCallers = append(out.DirectCallers, cl)
			} else {
				out.TransitiveCallers = append(out.TransitiveCallers, cl)
			}
		}
		// Tests among all callers, at any depth.
		callSec = &CallsSection{}
		for _, cl := range callers {
			callSec.Incoming = append(callSec.Incoming, CallEntry{HierarchyEntry: cl.HierarchyEntry})
		}
	}
	if out.DirectCallers == nil {
		out.DirectCallers = []ImpactCaller{}
	}
	if out.TransitiveCallers == nil {
		out.TransitiveCallers = []ImpactCaller{}
	}
	delete(files, out.Symbol.File) // the declaring file is not "reached"
	out.Files = sortedKeys(files)
	pkgs := map[string]bool{}
	for f := range files {
		pkgs[lang.PackageOf(f)] = true
	}
	out.Packages = sortedKeys(pkgs)
	directPkgs, reachedPkgs := map[string]bool{}, map[string]bool{}
	for f := range direct {
		if p := lang.PackageOf(f); p != out.Package {
			directPkgs[p] = true
		}
	}
	for p := range pkgs {
		if p != out.Package && !directPkgs[p] {
			reachedPkgs[p] = true
		}
	}
	out.DirectPackages, out.ReachedPackages = sortedKeys(directPkgs), sortedKeys(reachedPkgs)
	out.Tests = testFiles(refs, callSec)
	out.Score, out.Factors = weighRisk(out)
	out.Risk = riskLevel(out.Score)
	if len(errs) > 0 {
		out.Errors = errs
	}
	if len(skipped) > 0 {
		out.NotApplicable = skipped
	}
	return out, nil
}

// flattenCallers lists the callers of a walked hierarchy level by level,
// each function once (at its shallowest depth), cycles left out.
func flattenCallers(level []CallEntry) []ImpactCaller {
	var out []ImpactCaller
	seen := map[string]bool{}
	type item struct {
		e     CallEntry
		depth int
		calls string
	}
	var queue []item
	for _, e := range level {
		queue = append(queue, item{e, 1, ""})
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		key := fmt.Sprintf("%s:%d:%d", it.e.File, it.e.Line, it.e.Column)
		if it.e.Cycle || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, ImpactCaller{HierarchyEntry: it.e.HierarchyEntry, Depth: it.depth, Calls: it.calls, Sites: it.e.CallSites})
		for _, c := range it.e.Callers {
			queue = append(queue, item{c, it.depth + 1, it.e.Name})
		}
	}
	return out
}

// weighRisk scores the impact. Each factor adds points:
//   - direct_callers: 4+ -> 1, 10+ -> 2
//   - transitive_callers (depth >= 2): 5+ -> 1, 20+ -> 2
//   - references: 10+ -> 1, 30+ -> 2
//   - files reached: 3+ -> 1, 10+ -> 2
//   - crosses_packages (uses or direct callers in other packages): 1+ -> 1,
//     3+ -> 2; the packages reached only through callers of callers are
//     named there too, but weigh through transitive_callers
//   - exported: 1 (users outside the workspace cannot be seen)
//   - tests: none while the symbol is used -> 1; some -> -1
//   - truncated (a bound cut the search): 1
//
// riskLevel maps the score: <= 1 low, 2-3 medium, >= 4 high.
func weighRisk(r ImpactResult) (int, []RiskFactor) {
	otherPackages := r.DirectPackages
	step := func(n, one, two int) int {
		switch {
		case n >= two:
			return 2
		case n >= one:
			return 1
		}
		return 0
	}
	used := r.References > 0 || len(r.DirectCallers) > 0
	factors := []RiskFactor{
		{Name: "direct_callers", Value: len(r.DirectCallers), Points: step(len(r.DirectCallers), 4, 10),
			Detail: "functions calling it directly (4+: 1 point, 10+: 2)"},
		{Name: "transitive_callers", Value: len(r.TransitiveCallers), Points: step(len(r.TransitiveCallers), 5, 20),
			Detail: fmt.Sprintf("functions reaching it through other callers, to depth %d (5+: 1 point, 20+: 2)", r.Depth)},
		{Name: "references", Value: r.References, Points: step(r.References, 10, 30),
			Detail: "uses of the symbol, declaration excluded (10+: 1 point, 30+: 2)"},
		{Name: "files", Value: len(r.Files), Points: step(len(r.Files), 3, 10),
			Detail: "files using or calling it besides its own (3+: 1 point, 10+: 2)"},
	}
	cross := RiskFactor{Name: "crosses_packages", Value: len(otherPackages) > 0, Points: step(len(otherPackages), 1, 3)}
	if len(otherPackages) > 0 {
		cross.Detail = fmt.Sprintf("used from %d other package(s): %s (1+: 1 point, 3+: 2)", len(otherPackages), strings.Join(otherPackages, ", "))
	} else {
		cross.Detail = "used directly only inside its own package " + r.Package
	}
	if n := len(r.ReachedPackages); n > 0 {
		cross.Detail += fmt.Sprintf("; reached through callers of callers from %d other package(s): %s (counted in transitive_callers)",
			n, strings.Join(r.ReachedPackages, ", "))
	}
	factors = append(factors, cross)
	exp := RiskFactor{Name: "exported", Value: r.Exported}
	if r.Exported {
		exp.Points, exp.Detail = 1, "public: code outside the workspace may use it too (1 point)"
	} else {
		exp.Detail = "private to its package or module"
	}
	factors = append(factors, exp)
	tests := RiskFactor{Name: "tests", Value: len(r.Tests)}
	switch {
	case len(r.Tests) > 0:
		names := make([]string, len(r.Tests))
		for i, t := range r.Tests {
			names[i] = t.File
		}
		tests.Points, tests.Detail = -1, "test files exercise it: "+strings.Join(names, ", ")+" (-1 point)"
	case used:
		tests.Points, tests.Detail = 1, "no test file references it or its callers (1 point)"
	default:
		tests.Detail = "unused, untested"
	}
	factors = append(factors, tests)
	if r.Truncated {
		factors = append(factors, RiskFactor{Name: "truncated", Value: true, Points: 1,
			Detail: "a bound cut the callers or references: the impact may be larger (1 point)"})
	}
	score := 0
	for _, f := range factors {
		score += f.Points
	}
	return max(score, 0), factors
}

func riskLevel(score int) string {
	switch {
	case score >= 4:
		return RiskHigh
	case score >= 2:
		return RiskMedium
	}
	return RiskLow
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func joinErrors(errs map[string]string) string {
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + errs[k]
	}
	return strings.Join(parts, "; ")
}
