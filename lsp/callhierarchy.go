package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
)

// Hierarchy directions.
const (
	DirectionBoth     = "both"
	DirectionIncoming = "incoming"
	DirectionOutgoing = "outgoing"
)

// CallHierarchyOptions tune CallHierarchy.
type CallHierarchyOptions struct {
	// Direction is "both" (default), "incoming" or "outgoing".
	Direction string
	// Depth is how many levels to follow (default 1: direct calls only).
	Depth int
	// MaxItems bounds the entries per direction (default
	// DefaultHierarchyMaxItems).
	MaxItems int
	// CountMore asks the level below the depth too, only to count (an
	// entry's More) the calls the depth left out: one more request per
	// entry at the depth limit. Off by default: depth 1 is then two
	// requests, prepare and one per direction.
	CountMore bool
}

// CallEntry is a caller (incoming) or a callee (outgoing) with the calls
// that link it to the entry above it.
type CallEntry struct {
	HierarchyEntry
	// CallSites are the calls: for a caller, where it calls the entry
	// above; for a callee, where the entry above calls it.
	CallSites []CallSite `json:"call_sites"`
	HierarchyMarks
	Callers []CallEntry `json:"callers,omitempty"`
	Callees []CallEntry `json:"callees,omitempty"`
}

// CallTotals count one direction of a call hierarchy: its entries, as a
// type hierarchy's, and the call sites.
type CallTotals struct {
	HierarchyTotals
	CallSites int `json:"call_sites"`
}

// CallHierarchyResult answers get_call_hierarchy. Incoming and Outgoing are
// null when that direction was not asked.
type CallHierarchyResult struct {
	Symbol    HierarchyEntry         `json:"symbol"`
	From      string                 `json:"from"`
	Server    string                 `json:"server"`
	Direction string                 `json:"direction"`
	Depth     int                    `json:"depth"`
	Incoming  []CallEntry            `json:"incoming"`
	Outgoing  []CallEntry            `json:"outgoing"`
	Totals    map[string]*CallTotals `json:"totals"`
	// Truncated is true when max_items left out entries within the depth
	// asked (the entry above carries "more"). Calls below the depth are
	// not truncation: with CountMore, entries at the depth limit carry
	// "more" for them.
	Truncated bool     `json:"truncated"`
	Notes     []string `json:"notes,omitempty"`
	// deeper: the walk counted calls below the depth (CountMore or
	// prepare_change's probe).
	deeper bool
}

// CallHierarchy returns the callers and/or callees of the function at t in
// file, to opts.Depth levels (textDocument/prepareCallHierarchy, then
// callHierarchy/incomingCalls and outgoingCalls). The requests of one level
// run concurrently.
func (c *Client) CallHierarchy(ctx context.Context, file string, t Target, opts CallHierarchyOptions) (CallHierarchyResult, error) {
	if err := checkHierarchyOptions(&opts.Direction, &opts.Depth, &opts.MaxItems, DirectionIncoming, DirectionOutgoing); err != nil {
		return CallHierarchyResult{}, err
	}
	// The open, the prepare request and the first level's requests in one
	// call to Neovim (read).
	dirs := directions(opts.Direction, DirectionIncoming, DirectionOutgoing)
	chain := make([]string, len(dirs))
	for i, dir := range dirs {
		chain[i] = callsMethod(dir)
	}
	a, err := c.read(ctx, file, t, readRequest{method: protocol.MethodTextDocumentPrepareCallHierarchy,
		hint: "this server has no call hierarchy; find_references lists where the symbol is used",
		params: func(at protocol.TextDocumentPositionParams) any {
			return protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: at}
		}, chain: chain})
	if a.pos.doc == nil {
		return CallHierarchyResult{}, err
	}
	items, err := c.hierItemsFrom(a.pos, a.raw, err, "call", "function or method", prepareCallsHint)
	if err != nil {
		return CallHierarchyResult{}, err
	}
	return c.callHierarchyOf(ctx, a.pos, items, opts, walkLimits{depth: opts.Depth, maxItems: opts.MaxItems,
		concurrency: hierarchyConcurrency, probe: opts.CountMore, leaf: c.outsideWorkspace}, a)
}

// callsMethod is the request of a direction's calls.
func callsMethod(dir string) string {
	if dir == DirectionOutgoing {
		return protocol.MethodCallHierarchyOutgoingCalls
	}
	return protocol.MethodCallHierarchyIncomingCalls
}

// prepareCallsHint is the remediation when no call hierarchy item is at a
// position.
const prepareCallsHint = "point at the name of a function or method (its declaration or a call to it); find_references works for other symbols"

// prepareCalls asks the server for the call hierarchy item(s) at pos.
func (c *Client) prepareCalls(ctx context.Context, pos position) ([]hierItem, error) {
	return c.prepareHierarchy(ctx, pos, protocol.MethodTextDocumentPrepareCallHierarchy,
		protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: pos.params()}, "call", "function or method",
		prepareCallsHint)
}

// callExpander returns the expand function of one direction. pre, when
// it holds the direction's answer about root (asked in the read's call:
// readRequest.chain), answers root's expansion.
func (c *Client) callExpander(pos position, dir string, root hierItem, pre readAnswer) expandFunc {
	method := callsMethod(dir)
	answer, answered := pre.chained[method]
	return func(ctx context.Context, it hierItem) ([]hierEdge, error) {
		if answered && it.key() == root.key() {
			answered = false // walkHierarchy expands root first, alone
			if answer.err != nil {
				return nil, answer.err
			}
			return callEdges(pos, dir, it, answer.raw)
		}
		var raw json.RawMessage
		if err := c.Request(ctx, pos.doc, pos.server, method, itemParams(it), &raw); err != nil {
			return nil, err
		}
		return callEdges(pos, dir, it, raw)
	}
}

// callEdges are the edges of a direction's calls answer (raw) about it.
func callEdges(pos position, dir string, it hierItem, raw json.RawMessage) ([]hierEdge, error) {
	field := "from"
	if dir == DirectionOutgoing {
		field = "to"
	}
	calls, err := decodeCalls(raw, field)
	if err != nil {
		return nil, fmt.Errorf("%s: decode %s: %w", pos.server.Name, callsMethod(dir), err)
	}
	edges := make([]hierEdge, 0, len(calls))
	for _, call := range calls {
		next := call.item
		// Incoming: the ranges are in the caller; outgoing: in the
		// item whose calls were asked.
		siteURI := next.URI
		if dir == DirectionOutgoing {
			siteURI = it.URI
		}
		e := hierEdge{item: next}
		for _, r := range call.ranges {
			e.sites = append(e.sites, protocol.Location{URI: siteURI, Range: r})
		}
		e.sites = dedupSites(e.sites)
		edges = append(edges, e)
	}
	return edges, nil
}

// itemParams are the params of a request about it: {"item": it} with the
// item as the server sent it (valid JSON, decoded once already).
func itemParams(it hierItem) json.RawMessage {
	if len(it.raw) == 0 {
		return json.RawMessage(`{"item":null}`)
	}
	b := make([]byte, 0, len(it.raw)+9)
	return append(append(append(b, `{"item":`...), it.raw...), '}')
}

// dedupSites drops repeated ranges (typescript-language-server repeats a
// call site when a call is also a property access).
func dedupSites(sites []protocol.Location) []protocol.Location {
	out := sites[:0]
	seen := map[protocol.Range]bool{}
	for _, s := range sites {
		if !seen[s.Range] {
			seen[s.Range] = true
			out = append(out, s)
		}
	}
	return out
}

// callHierarchyAt walks the call hierarchy at an already resolved position.
func (c *Client) callHierarchyAt(ctx context.Context, pos position, opts CallHierarchyOptions, lim walkLimits) (CallHierarchyResult, error) {
	items, err := c.prepareCalls(ctx, pos)
	if err != nil {
		return CallHierarchyResult{}, err
	}
	return c.callHierarchyOf(ctx, pos, items, opts, lim, readAnswer{})
}

// callHierarchyOf walks the call hierarchy from items, prepared at pos
// (by pre, a read whose chain may have asked the first level: its answers
// and lines are taken).
func (c *Client) callHierarchyOf(ctx context.Context, pos position, items []hierItem, opts CallHierarchyOptions, lim walkLimits, pre readAnswer) (CallHierarchyResult, error) {
	root := items[0]
	out := CallHierarchyResult{From: pos.where(), Server: pos.server.Name, Direction: opts.Direction,
		Depth: opts.Depth, Totals: map[string]*CallTotals{}}
	if len(items) > 1 {
		names := make([]string, 0, len(items)-1)
		for _, it := range items[1:] {
			names = append(names, it.Name)
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%s offered %d items at this position; the first (%s) is shown, not %s",
			pos.server.Name, len(items), root.Name, strings.Join(names, ", ")))
	}
	dirs := directions(opts.Direction, DirectionIncoming, DirectionOutgoing)
	// The read's lines cover the first level only when it asked every
	// direction's (walkDirections drops them below that level).
	var known map[string]map[int]string
	if len(pre.chained) == len(dirs) {
		known = pre.texts
	}
	walked, err := c.walkDirections(ctx, pos.server.OffsetEncoding, root, lim, dirs, func(dir string) expandFunc {
		return c.callExpander(pos, dir, root, pre)
	}, known)
	if err != nil {
		return CallHierarchyResult{}, err
	}
	out.Symbol, out.Truncated, out.deeper = walked.root, walked.truncated, walked.deeper
	out.Notes = append(out.Notes, walked.notes...)
	for i, dir := range dirs {
		entries := shapeViews(walked.views[i], func(v hierView, children []CallEntry) CallEntry {
			e := CallEntry{HierarchyEntry: v.entry, CallSites: v.sites, HierarchyMarks: v.marks()}
			if e.CallSites == nil {
				e.CallSites = []CallSite{}
			}
			if dir == DirectionIncoming {
				e.Callers = children
			} else {
				e.Callees = children
			}
			return e
		})
		n, sites := countViews(walked.views[i])
		out.Totals[dir] = &CallTotals{HierarchyTotals: HierarchyTotals{Direct: len(entries), More: walked.more[i], Entries: n}, CallSites: sites}
		if dir == DirectionIncoming {
			out.Incoming = entries
		} else {
			out.Outgoing = entries
		}
	}
	return out, nil
}
