package workspace

// A project tree walked again only when something it read changed: every
// folder whose entries it listed and every .gitignore whose rules it
// applied is stamped before it is read, and the tree is reused while each
// stamp is the same (a file created, deleted or renamed changes its
// folder's times; an edited .gitignore its own). A walk whose stamps are
// not settled yet (changed within racyMargin of the walk) is not kept.

import (
	"strings"
	"sync"
	"time"
)

// stampRecord collects the stamps of what a walk read.
type stampRecord struct {
	paths  []string
	stamps []Stamp
	// failed: a path gave no stamp; the walk cannot be known unchanged.
	failed bool
}

// add stamps abs (symlinks followed, as reading it does); nothing there
// is not recorded when skipMissing.
func (rec *stampRecord) add(abs string, skipMissing bool) {
	if rec == nil || rec.failed {
		return
	}
	s, ok := StampPath(abs, true)
	if !ok {
		rec.failed = true
		return
	}
	if s.Missing && skipMissing {
		return
	}
	rec.paths = append(rec.paths, abs)
	rec.stamps = append(rec.stamps, s)
}

// unchanged reports whether every path still has its stamp.
func (rec *stampRecord) unchanged() bool {
	for i, p := range rec.paths {
		if s, ok := StampPath(p, true); !ok || s != rec.stamps[i] {
			return false
		}
	}
	return true
}

// settled reports whether every stamp is settled at t.
func (rec *stampRecord) settled(t time.Time) bool {
	for _, s := range rec.stamps {
		if !s.Settled(t) {
			return false
		}
	}
	return true
}

type treeKey struct {
	dir, path      string
	policy         *Policy
	depth, entries int
	hidden         bool
	exclude        string
}

type treeMemo struct {
	tree Tree
	rec  *stampRecord
}

// maxCachedTrees bounds the trees kept (each root and options asked).
const maxCachedTrees = 8

var treeCache = struct {
	sync.Mutex
	m map[treeKey]*treeMemo
}{m: map[treeKey]*treeMemo{}}

// TreeCached is Tree, reused while nothing it read has changed (see
// above). The tree is shared between callers: it must not be changed.
func (r Root) TreeCached(path string, opt TreeOptions) (Tree, error) {
	key := treeKey{dir: r.dir, path: path, policy: r.policy, depth: opt.MaxDepth, entries: opt.MaxEntries,
		hidden: opt.ShowHidden, exclude: strings.Join(opt.Exclude, "\x00")}
	treeCache.Lock()
	memo := treeCache.m[key]
	treeCache.Unlock()
	if memo != nil && memo.rec.unchanged() {
		return memo.tree, nil
	}
	start := time.Now()
	rec := &stampRecord{}
	t, err := r.tree(path, opt, rec)
	if err != nil {
		return t, err
	}
	treeCache.Lock()
	defer treeCache.Unlock()
	if rec.failed || !rec.settled(start) {
		delete(treeCache.m, key)
		return t, nil
	}
	if _, ok := treeCache.m[key]; !ok && len(treeCache.m) >= maxCachedTrees {
		for k := range treeCache.m {
			delete(treeCache.m, k) // any one: the bound is what matters
			break
		}
	}
	treeCache.m[key] = &treeMemo{tree: t, rec: rec}
	return t, nil
}
