package lsp

// The walker shared by the call and type hierarchies: starting from one
// item, it asks for the next level (callers, callees, supertypes or
// subtypes) level by level, the requests of one level running concurrently
// (bounded), with cycle detection, a depth and an item budget.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/preview"
)

// Bounds of the hierarchy tools.
const (
	// MaxHierarchyDepth is the deepest level a hierarchy may be walked to.
	MaxHierarchyDepth = 10
	// DefaultHierarchyMaxItems bounds the entries of one direction when the
	// caller gives no bound.
	DefaultHierarchyMaxItems = 100
	// hierarchyConcurrency bounds the requests of one level in flight at
	// once (per direction).
	hierarchyConcurrency = 8
)

// hierItem is an item of a call or type hierarchy. Items a server sent keep
// their raw JSON, sent back verbatim in the follow-up requests.
type hierItem struct {
	Name           string               `json:"name"`
	Kind           protocol.SymbolKind  `json:"kind"`
	Detail         string               `json:"detail,omitempty"`
	URI            protocol.DocumentURI `json:"uri"`
	Range          protocol.Range       `json:"range"`
	SelectionRange protocol.Range       `json:"selectionRange"`
	raw            json.RawMessage
}

// key identifies an item for cycle detection: its file and name range.
// (A walk makes it for every node and every ancestor of it: no fmt.)
func (it hierItem) key() string {
	r := it.SelectionRange
	b := make([]byte, 0, len(it.URI)+24)
	b = append(append(b, it.URI...), '#')
	for i, n := range [4]uint32{r.Start.Line, r.Start.Character, r.End.Line, r.End.Character} {
		if i > 0 {
			b = append(b, ":-:"[i-1])
		}
		b = strconv.AppendUint(b, uint64(n), 10)
	}
	return string(b)
}

func decodeHierItem(raw json.RawMessage) (hierItem, error) {
	var it hierItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return hierItem{}, fmt.Errorf("decode hierarchy item: %w", err)
	}
	it.raw = append(json.RawMessage(nil), raw...)
	return it, nil
}

// decodeHierItems decodes an item list answer (null or [] included).
func decodeHierItems(raw json.RawMessage) ([]hierItem, error) {
	var raws []json.RawMessage
	if err := decodeList(raw, &raws); err != nil {
		return nil, fmt.Errorf("decode hierarchy items: %w", err)
	}
	out := make([]hierItem, 0, len(raws))
	for _, r := range raws {
		it, err := decodeHierItem(r)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// hierEdge leads from an item to the next level: the item there and, for
// calls, where the calls are.
type hierEdge struct {
	item  hierItem
	sites []protocol.Location
}

// hierNode is one entry of a walked hierarchy.
type hierNode struct {
	item     hierItem
	sites    []protocol.Location
	parent   *hierNode
	children []*hierNode
	// cycle: an ancestor is the same item (not expanded).
	cycle bool
	// repeated: the item was expanded elsewhere in the tree (not again).
	repeated bool
	// more is how many edges the depth or the item budget left out.
	more int
	err  error
}

func (n *hierNode) onPath(key string) bool {
	for p := n.parent; p != nil; p = p.parent {
		if p.item.key() == key {
			return true
		}
	}
	return false
}

// walkLimits bound a walk.
type walkLimits struct {
	depth    int
	maxItems int
	// concurrency bounds the requests in flight (1: one after another).
	concurrency int
	// probe asks the next level of the nodes at the depth limit, only to
	// count what the depth left out (their more): one request per node at
	// the limit, so only when the caller asks for it (count_more) or needs
	// it (prepare_change's risk). What the depth leaves out is not
	// "truncated" (it was not asked); it is reported as deeper.
	probe bool
	// leaf says an item is listed but never expanded (nil: none is).
	leaf func(hierItem) bool
}

// walkResult is a walked hierarchy below its root.
type walkResult struct {
	nodes []*hierNode // the first level
	more  int         // first-level edges max_items left out
	count int         // nodes in the whole tree
	// truncated: max_items left out entries of the depth asked.
	truncated bool
	// deeper: the probe found edges below the depth asked.
	deeper bool
}

type expandFunc func(ctx context.Context, it hierItem) ([]hierEdge, error)

// walkedDirections is root walked in one or more directions and rendered.
type walkedDirections struct {
	root      HierarchyEntry
	views     [][]hierView // per direction, in the order asked
	more      []int        // per direction: first-level edges max_items left out
	truncated bool
	deeper    bool
	// notes say which direction the server does not implement (asked
	// with the other one, which is answered).
	notes []string
}

// walkDirections walks root in each of dirs concurrently (one walk per
// direction) and renders the trees with the line texts they need.
//
// known, when not nil, holds the lines of the loaded buffers that root and
// its first level name (a read that asked that level in its call to
// Neovim: readRequest.chain): used when the walk went no deeper, so that
// showing the entries asks Neovim nothing more.
func (c *Client) walkDirections(ctx context.Context, enc preview.Encoding, root hierItem, lim walkLimits, dirs []string,
	expand func(dir string) expandFunc, known map[string]map[int]string) (walkedDirections, error) {
	walks := make([]walkResult, len(dirs))
	errs := make([]error, len(dirs))
	if err := firstError(runBounded(ctx, len(dirs), len(dirs), func(i int) {
		walks[i], errs[i] = walkHierarchy(ctx, root, lim, expand(dirs[i]))
	})); err != nil {
		return walkedDirections{}, err
	}
	// A server may implement one direction only (clangd 14: no outgoing
	// calls): asked for both, the other is answered and the gap said.
	var out walkedDirections
	failed := 0
	for _, err := range errs {
		if err != nil {
			failed++
		}
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if failed == len(dirs) || apierr.CodeOf(err) != apierr.Unsupported {
			return walkedDirections{}, err
		}
		walks[i] = walkResult{}
		out.notes = append(out.notes, fmt.Sprintf("%s: no %s entries are listed", apierr.As(err).Message, dirs[i]))
	}
	trees := make([][]*hierNode, len(dirs))
	out.more = make([]int, len(dirs))
	for i, w := range walks {
		trees[i] = w.nodes
		out.more[i] = w.more
		out.truncated = out.truncated || w.truncated
		out.deeper = out.deeper || w.deeper
	}
	for _, t := range trees {
		for _, n := range t {
			if len(n.children) > 0 {
				known = nil // a deeper level names lines the read did not see
			}
		}
	}
	roots, views, err := c.viewHierarchy(ctx, enc, []hierItem{root}, known, trees...)
	if err != nil {
		return walkedDirections{}, err
	}
	out.root, out.views = roots[0], views
	return out, nil
}

// walkHierarchy walks from root to lim.depth levels. The first level's
// failure fails the walk; a deeper node's failure is recorded on the node.
func walkHierarchy(ctx context.Context, root hierItem, lim walkLimits, expand expandFunc) (walkResult, error) {
	top := &hierNode{item: root}
	edges, err := expand(ctx, root)
	if err != nil {
		return walkResult{}, err
	}
	var res walkResult
	attach := func(n *hierNode, edges []hierEdge) {
		sortEdges(edges)
		for i, e := range edges {
			if res.count >= lim.maxItems {
				n.more += len(edges) - i
				res.truncated = true
				return
			}
			n.children = append(n.children, &hierNode{item: e.item, sites: e.sites, parent: n})
			res.count++
		}
	}
	attach(top, edges)
	expanded := map[string]bool{root.key(): true}
	level := top.children
	for depth := 1; len(level) > 0; depth++ {
		var todo []*hierNode
		for _, n := range level {
			k := n.item.key()
			switch {
			case k == root.key() || n.onPath(k):
				n.cycle = true
			case expanded[k]:
				n.repeated = true
			case lim.leaf != nil && lim.leaf(n.item):
			default:
				expanded[k] = true
				todo = append(todo, n)
			}
		}
		last := depth >= lim.depth
		if len(todo) == 0 || (last && !lim.probe) || (res.count >= lim.maxItems && !lim.probe) {
			if len(todo) > 0 && !last {
				// max_items stopped the walk above the depth asked: what
				// those nodes have below them is left out.
				res.truncated = true
			}
			break
		}
		progress.Report(ctx, float64(res.count), 0,
			fmt.Sprintf("walking the hierarchy: level %d of %d, %d items so far, %d to expand", depth+1, lim.depth, res.count, len(todo)))
		found := make([][]hierEdge, len(todo))
		errs := make([]error, len(todo))
		for i, err := range runBounded(ctx, len(todo), lim.concurrency, func(i int) {
			found[i], errs[i] = expand(ctx, todo[i].item)
		}) {
			if err != nil {
				errs[i] = err
			}
		}
		if err := ctx.Err(); err != nil {
			for _, e := range errs {
				if e != nil {
					return walkResult{}, e
				}
			}
			return walkResult{}, apierr.New(apierr.Timeout, "the request timed out", "retry with a smaller depth or a larger timeout")
		}
		var next []*hierNode
		for i, n := range todo {
			if errs[i] != nil {
				n.err = errs[i]
				continue
			}
			if last || res.count >= lim.maxItems {
				// Count what was left out, but not the way back up a
				// cycle: that would only be reported as cycle=true.
				for _, e := range found[i] {
					if k := e.item.key(); k != n.item.key() && !n.onPath(k) {
						n.more++
					}
				}
				if n.more > 0 {
					if last {
						res.deeper = true
					} else {
						res.truncated = true
					}
				}
				continue
			}
			attach(n, found[i])
			next = append(next, n.children...)
		}
		if last {
			break
		}
		level = next
	}
	res.nodes = top.children
	res.more = top.more
	return res, nil
}

func sortEdges(edges []hierEdge) {
	sort.SliceStable(edges, func(i, j int) bool {
		a, b := edges[i].item, edges[j].item
		if a.URI != b.URI {
			return a.URI < b.URI
		}
		if a.SelectionRange.Start.Line != b.SelectionRange.Start.Line {
			return a.SelectionRange.Start.Line < b.SelectionRange.Start.Line
		}
		return a.SelectionRange.Start.Character < b.SelectionRange.Start.Character
	})
	for _, e := range edges {
		sort.SliceStable(e.sites, func(i, j int) bool {
			a, b := e.sites[i].Range.Start, e.sites[j].Range.Start
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Character < b.Character
		})
	}
}

// runBounded calls fn(0..n-1) with at most limit calls running at once
// (limit <= 0: all at once) and returns when all have returned. Calls not
// yet started when ctx ends are skipped. A call that panics is recovered
// (logged with its stack by safego): its index's entry in the returned
// slice holds the OPERATION_FAILED error; the slice is nil when none
// panicked.
func runBounded(ctx context.Context, n, limit int, fn func(i int)) []error {
	if limit <= 0 || limit > n {
		limit = n
	}
	var mu sync.Mutex
	var panics []error
	call := func(i int) {
		if err := safego.Call("a concurrent LSP step", func() { fn(i) }); err != nil {
			mu.Lock()
			if panics == nil {
				panics = make([]error, n)
			}
			panics[i] = err
			mu.Unlock()
		}
	}
	if limit == 1 {
		for i := 0; i < n && ctx.Err() == nil; i++ {
			call(i)
		}
		return panics
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return panics
		}
		wg.Add(1)
		safego.Go("a concurrent LSP step", func() {
			defer func() { <-sem; wg.Done() }()
			call(i)
		}, nil)
	}
	wg.Wait()
	return panics
}

// firstError returns the first non-nil error of errs.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// HierarchyEntry is an item of a call or type hierarchy as tools report it:
// where its name is declared (1-based line, 0-based character column).
type HierarchyEntry struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	File string `json:"file,omitempty"`
	// URI is set instead of File for a non-file document (untitled:, jdt://).
	URI              string `json:"uri,omitempty"`
	Line             int    `json:"line"`
	Column           int    `json:"column"`
	Detail           string `json:"detail,omitempty" brief:"omit"`
	OutsideWorkspace bool   `json:"outside_workspace,omitempty"`
}

// CallSite is where a call is: 1-based line, 0-based character column and
// the source line.
type CallSite struct {
	File    string `json:"file,omitempty"`
	URI     string `json:"uri,omitempty"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Context string `json:"context" brief:"omit"`
}

// hierView is a walked node in tool positions, before it is shaped as a
// call or type entry.
type hierView struct {
	entry    HierarchyEntry
	sites    []CallSite
	cycle    bool
	repeated bool
	more     int
	err      string
	children []hierView
}

// HierarchyMarks are what the walk says about an entry of a call or type
// hierarchy.
type HierarchyMarks struct {
	// Cycle: the entry is already on the path from the symbol (a
	// recursive cycle); it is not expanded again.
	Cycle bool `json:"cycle,omitempty"`
	// Repeated: the entry is expanded elsewhere in the answer; it is not
	// expanded again.
	Repeated bool `json:"repeated,omitempty"`
	// More is how many further entries depth or max_items left out.
	More int `json:"more,omitempty"`
	// Error says why the next level of this entry could not be read.
	Error string `json:"error,omitempty"`
}

func (v hierView) marks() HierarchyMarks {
	return HierarchyMarks{Cycle: v.cycle, Repeated: v.repeated, More: v.more, Error: v.err}
}

// shapeViews turns walked views into a tool's entries, depth first: mk
// builds one entry from its view and its already shaped children (nil when
// it has none). Call and type hierarchies differ only in mk.
func shapeViews[E any](views []hierView, mk func(v hierView, children []E) E) []E {
	out := make([]E, 0, len(views))
	for _, v := range views {
		var children []E
		if len(v.children) > 0 {
			children = shapeViews(v.children, mk)
		}
		out = append(out, mk(v, children))
	}
	return out
}

// countViews counts the entries at every level and their call sites.
func countViews(views []hierView) (entries, sites int) {
	for _, v := range views {
		n, k := countViews(v.children)
		entries += 1 + n
		sites += len(v.sites) + k
	}
	return entries, sites
}

// viewHierarchy converts the roots and walked trees to tool positions,
// reading every line it needs in one call.
func (c *Client) viewHierarchy(ctx context.Context, enc preview.Encoding, roots []hierItem, known map[string]map[int]string, trees ...[]*hierNode) ([]HierarchyEntry, [][]hierView, error) {
	var locs []protocol.Location
	for _, r := range roots {
		locs = append(locs, protocol.Location{URI: r.URI, Range: r.SelectionRange})
	}
	var collect func(nodes []*hierNode)
	collect = func(nodes []*hierNode) {
		for _, n := range nodes {
			locs = append(locs, protocol.Location{URI: n.item.URI, Range: n.item.SelectionRange})
			locs = append(locs, n.sites...)
			collect(n.children)
		}
	}
	for _, t := range trees {
		collect(t)
	}
	tl, err := c.toolLocationsWith(ctx, enc, locs, known)
	if err != nil {
		return nil, nil, err
	}
	i := 0
	take := func() Location { l := tl[i]; i++; return l }
	entry := func(it hierItem, l Location) HierarchyEntry {
		return HierarchyEntry{Name: it.Name, Kind: SymbolKindName(int(it.Kind)), File: l.File, URI: l.URI, Line: l.Line,
			Column: l.Column, Detail: it.Detail, OutsideWorkspace: l.OutsideWorkspace}
	}
	rootEntries := make([]HierarchyEntry, len(roots))
	for k, r := range roots {
		rootEntries[k] = entry(r, take())
	}
	var build func(nodes []*hierNode) []hierView
	build = func(nodes []*hierNode) []hierView {
		out := make([]hierView, 0, len(nodes))
		for _, n := range nodes {
			v := hierView{entry: entry(n.item, take()), cycle: n.cycle, repeated: n.repeated, more: n.more}
			if n.err != nil {
				v.err = apierr.As(n.err).Error()
			}
			for range n.sites {
				l := take()
				v.sites = append(v.sites, CallSite{File: l.File, URI: l.URI, Line: l.Line, Column: l.Column, Context: l.Context})
			}
			v.children = build(n.children)
			out = append(out, v)
		}
		return out
	}
	views := make([][]hierView, len(trees))
	for k, t := range trees {
		views[k] = build(t)
	}
	return rootEntries, views, nil
}

// checkHierarchyOptions validates and defaults the options of a hierarchy
// whose two directions are a and b: the direction ("both", a or b), the
// depth and max items.
func checkHierarchyOptions(dir *string, depth, maxItems *int, a, b string) error {
	*dir = strings.ToLower(strings.TrimSpace(*dir))
	switch *dir {
	case "":
		*dir = DirectionBoth
	case DirectionBoth, a, b:
	default:
		return apierr.Errorf(apierr.InvalidParameter, fmt.Sprintf("pass direction %q, %q or %q", DirectionBoth, a, b),
			"unknown direction %q", *dir)
	}
	if *depth == 0 {
		*depth = 1
	}
	if *depth < 1 || *depth > MaxHierarchyDepth {
		return apierr.Errorf(apierr.InvalidParameter, fmt.Sprintf("pass a depth from 1 to %d", MaxHierarchyDepth),
			"depth %d is out of range", *depth)
	}
	return checkLimit(maxItems, "max_items", DefaultHierarchyMaxItems)
}

// directions lists the directions to walk, in order: a and b for "both",
// else the one asked.
func directions(dir, a, b string) []string {
	if dir == DirectionBoth {
		return []string{a, b}
	}
	return []string{dir}
}

// prepareHierarchy sends a prepare request (method, params) at pos and
// returns the items the server offers there. what names the hierarchy in
// messages ("call", "type"), noun what must be at pos, hint the remediation
// when nothing is.
func (c *Client) prepareHierarchy(ctx context.Context, pos position, method string, params any, what, noun, hint string) ([]hierItem, error) {
	var raw json.RawMessage
	err := c.Request(ctx, pos.doc, pos.server, method, params, &raw)
	return c.hierItemsFrom(pos, raw, err, what, noun, hint)
}

// hierItemsFrom reads a prepare request's answer at pos (raw, or its error
// err) as prepareHierarchy does.
func (c *Client) hierItemsFrom(pos position, raw json.RawMessage, err error, what, noun, hint string) ([]hierItem, error) {
	if err != nil {
		// A server refusing the position ("Total is not a function", as
		// gopls says) answers with an error, not with null.
		if e := apierr.As(err); e.Code == apierr.OperationFailed {
			return nil, apierr.Errorf(apierr.ResourceNotFound, hint, "no %s hierarchy at %s (%q): %s",
				what, pos.where(), pos.symbol(), e.Message)
		}
		return nil, err
	}
	items, err := decodeHierItems(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pos.server.Name, err)
	}
	if len(items) == 0 {
		return nil, apierr.Errorf(apierr.ResourceNotFound, hint,
			"%s found no %s at %s (%q)", pos.server.Name, noun, pos.where(), pos.symbol())
	}
	return items, nil
}

// outsideWorkspace reports whether an item lies outside the workspace (the
// standard library, dependencies): such items are listed, not expanded.
func (c *Client) outsideWorkspace(it hierItem) bool {
	return !c.Session.Root().Contains(PathOf(it.URI))
}
