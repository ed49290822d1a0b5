package refactor

// The project tree a rename's scan lists its language's files from
// (namingFiles), taken again without a system call while the root's
// notifications say nothing at all happened under it: TreeCached stats
// every folder of the project and each .gitignore on every call to know
// its tree unchanged (on zap, 15 folders: about 65 µs of CPU a rename in
// its look-ahead). A tree is followed so only once every folder it walked
// is watched (workspace.Changes.WatchDir: a local file system, every
// folder up to the root) and every .gitignore in them is a regular file
// watched itself (a write through another link is told to the file's
// watch only), and then confirmed by its stamps once more (a change made
// between TreeCached's check and the watches is told by no
// notification). From then on, any entry created, removed, renamed,
// written or changed in any of its folders is told, and the next scan's
// moment (workspace.Changes.Begin) is another: the tree is checked by
// its stamps again. A tree that left folders out (the entry or depth
// bound, the visits' bound) or has more than maxFollowedDirs folders (the
// watches are bounded, and shared with the scan's files) is not followed.

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/nvbridge/nvbridge/workspace"
)

// maxFollowedDirs bounds the folders of a followed tree.
const maxFollowedDirs = 256

type followedTreeKey struct {
	dir    string
	policy *workspace.Policy
}

// followedTree is a tree confirmed at a moment (at: moments of two
// Changes never compare equal, workspace's epochs being the process's).
type followedTree struct {
	at   workspace.Moment
	tree workspace.Tree
}

var followedTrees = struct {
	sync.Mutex
	m map[followedTreeKey]followedTree
}{m: map[followedTreeKey]followedTree{}}

// maxFollowedTrees bounds the trees kept (a process serves one root;
// tests make many).
const maxFollowedTrees = 8

// projectTree is root.TreeCached(".", workspaceTreeAll), the tree kept
// when nothing happened under the root since it was confirmed: at is the
// moment changes drained for the scan asking (see above).
func projectTree(root workspace.Root, changes *workspace.Changes, at workspace.Moment) (workspace.Tree, error) {
	if changes == nil || !at.OK() {
		return treeCached(root)
	}
	key := followedTreeKey{dir: root.Dir(), policy: root.Policy()}
	followedTrees.Lock()
	f, ok := followedTrees.m[key]
	followedTrees.Unlock()
	if ok && f.at == at {
		return f.tree, nil
	}
	t, err := treeCached(root)
	if err != nil || t.Root == nil || t.Truncated || t.Incomplete != "" || t.Dirs+1 > maxFollowedDirs ||
		!watchTree(root.Dir(), changes, t.Root) {
		return t, err
	}
	// Watched: confirmed by its stamps once more (TreeCached's memo, the
	// same tree, only when every stamp is still the one it walked by).
	again, err := treeCached(root)
	if err != nil || again.Root != t.Root {
		return again, err
	}
	followedTrees.Lock()
	if _, ok := followedTrees.m[key]; !ok && len(followedTrees.m) >= maxFollowedTrees {
		clear(followedTrees.m)
	}
	followedTrees.m[key] = followedTree{at: at, tree: again}
	followedTrees.Unlock()
	return again, nil
}

// treeCached is the tree by its stamps (a test counts the calls).
var treeCached = func(root workspace.Root) (workspace.Tree, error) {
	return root.TreeCached(".", workspaceTreeAll)
}

// watchTree watches every folder of the tree at n (under the root dir)
// and every .gitignore in them: whether all of it is followed.
func watchTree(dir string, changes *workspace.Changes, n *workspace.TreeNode) bool {
	if n.Type != "dir" {
		return true
	}
	if n.NotListed > 0 {
		return false // a folder walked but not in the tree: not watched
	}
	abs := filepath.Join(dir, filepath.FromSlash(n.Path))
	if !changes.WatchDir(abs) {
		return false
	}
	gi := filepath.Join(abs, ".gitignore")
	st, err := os.Lstat(gi)
	switch {
	case err == nil:
		if !st.Mode().IsRegular() || !changes.Watch(gi) {
			return false
		}
	case !os.IsNotExist(err):
		return false
	}
	for _, ch := range n.Children {
		if !watchTree(dir, changes, ch) {
			return false
		}
	}
	return true
}
