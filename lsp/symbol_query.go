package lsp

// understand_symbol's query: one workspace symbol named by a name, a
// qualified name or a container's member, ranked so the reading that names
// the fewest things wins.

import (
	"context"
	"fmt"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// resolveQuery finds the one workspace symbol query names. Exact names
// win (case-sensitive first, then case-insensitive), then, for a qualified
// query, the reading that names the fewest things (queryRank): the
// server's own qualified name ("zapcore.Core"), a package or module
// member ("orders.Normalize"), a member of a type ("Card.charge",
// "hooked.Core"), then any symbol whose container ends so. An AMBIGUOUS
// answer's remediation suggests a query that does narrow it, never the one
// that just failed.
func (c *Client) resolveQuery(ctx context.Context, query, file string) (SymbolMatch, error) {
	res, err := c.Symbols(ctx, SymbolsQuery{Query: query, File: file, MaxResults: 500})
	if err != nil {
		return SymbolMatch{}, err
	}
	var matches []Symbol
	for _, fold := range []bool{false, true} {
		matches = bestRanked(res.Symbols, query, fold)
		if len(matches) > 0 {
			break
		}
	}
	shown := func(syms []Symbol) []SymbolMatch {
		out := []SymbolMatch{}
		for i, s := range syms {
			if i == ambiguousShown {
				break
			}
			out = append(out, SymbolMatch{Name: s.Name, Kind: s.Kind, File: s.File, Line: s.Line, Column: s.Column, Container: s.Container})
		}
		return out
	}
	notReady := ""
	if len(res.NotReady) > 0 {
		notReady = fmt.Sprintf(" (%s had not finished analysing the workspace)", strings.Join(res.NotReady, ", "))
	}
	switch len(matches) {
	case 0:
		return SymbolMatch{}, apierr.Errorf(apierr.ResourceNotFound,
			"check the spelling, or pass file, line and symbol instead of query (get_symbols with a query lists similar names)",
			"no symbol named %q in the workspace%s", query, notReady).
			WithDetails(map[string]any{"similar": shown(res.Symbols)})
	case 1:
		s := matches[0]
		return SymbolMatch{Name: s.Name, Kind: s.Kind, File: s.File, Line: s.Line, Column: s.Column, Container: s.Container}, nil
	}
	list := shown(matches)
	example := list[0]
	qualified := ""
	if q := narrowingQuery(matches, query); q != "" {
		qualified = fmt.Sprintf(", or a query that names one of them (e.g. %q)", q)
	}
	return SymbolMatch{}, apierr.Errorf(apierr.Ambiguous,
		fmt.Sprintf("pass file and line of the one you mean instead of query (e.g. file %q, line %d, symbol %q)%s",
			example.File, example.Line, baseName(example.Name), qualified),
		"%d symbols in the workspace are named %q", len(matches), query).
		WithDetails(map[string]any{"matches": list, "total": len(matches)})
}

// bestRanked returns the workspace symbols query names at its best rank
// (queryRank), nil when it names none.
func bestRanked(syms []Symbol, query string, fold bool) []Symbol {
	var out []Symbol
	best := 0
	for _, s := range syms {
		if s.OutsideWorkspace {
			continue
		}
		r := queryRank(s, query, fold)
		switch {
		case r == 0 || (best != 0 && r > best):
		case r == best:
			out = append(out, s)
		default:
			best, out = r, []Symbol{s}
		}
	}
	return out
}

// narrowingQuery proposes, for the first of several matches that has one,
// a qualified query other than query that names that symbol alone: its
// type- or package-qualified name, or the server's full name. "" when none
// does.
func narrowingQuery(matches []Symbol, query string) string {
	for _, m := range matches {
		base := baseName(m.Name)
		candidates := []string{}
		if scope := symbolScope(m); scope != "" {
			candidates = append(candidates, lastSegment(scope)+"."+base)
		}
		if m.Container != "" {
			candidates = append(candidates, lastSegment(m.Container)+"."+base)
		}
		candidates = append(candidates, m.Name)
		for _, q := range candidates {
			if strings.EqualFold(q, query) {
				continue
			}
			if got := bestRanked(matches, q, false); len(got) == 1 && got[0] == m {
				return q
			}
		}
	}
	return ""
}

// Ranks of a query's readings (lower names fewer things); 0 is no match.
const (
	rankExact     = 1 // the server's name, as given ("zapcore.Core", "Process")
	rankPackage   = 2 // a package or module member: "orders.Normalize"
	rankMember    = 3 // a member of a type or class: "Card.charge", "hooked.Core"
	rankContainer = 4 // any symbol whose container's last part is the qualifier
)

// queryRank reports how exactly query names symbol s (a rank above), 0 when
// it does not name it.
func queryRank(s Symbol, query string, fold bool) int {
	eq := func(a, b string) bool {
		if fold {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	if eq(s.Name, query) {
		return rankExact
	}
	i := strings.LastIndex(query, ".")
	if i <= 0 {
		if eq(baseName(s.Name), query) {
			return rankExact
		}
		return 0
	}
	qual, base := query[:i], query[i+1:]
	if !eq(baseName(s.Name), base) {
		return 0
	}
	scope := symbolScope(s) // the type or class it belongs to, as named
	inPackage := s.Container != "" && (eq(s.Container, qual) || eq(lastSegment(s.Container), qual) ||
		fold && strings.HasSuffix(strings.ToLower(s.Container), strings.ToLower("/"+qual)))
	switch {
	case inPackage && (scope == "" || eq(scope, qual)):
		// A top-level member of the package or module qual (gopls names it
		// "zapcore.Core", pyright gives the module as container).
		return rankPackage
	case scope != "" && (eq(scope, qual) || eq(lastSegment(scope), qual)):
		return rankMember
	case s.Container != "" && !inPackage && eq(lastSegment(s.Container), qual):
		// A class given as container (pyright's "Card" for Card.charge).
		return rankMember
	case inPackage:
		// A member of some type in package qual ("zapcore.hooked.Core" for
		// "zapcore.Core"): only when nothing names it better.
		return rankContainer
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

// lastSegment is a container's last path or dotted part ("orders" of
// "example.com/shop/orders", "methods" of "shop.methods").
func lastSegment(s string) string {
	if i := strings.LastIndexAny(s, "/."); i >= 0 {
		return s[i+1:]
	}
	return s
}
