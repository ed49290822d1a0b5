package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nvbridge/nvbridge/apierr"
)

// Bounds of a project tree.
const (
	DefaultTreeDepth   = 3
	MaxTreeDepth       = 20
	DefaultTreeEntries = 500
	MaxTreeEntries     = 5000
	// maxTreeVisits bounds the walk that counts files below the listed
	// depth; past it the counts are marked incomplete.
	maxTreeVisits = 200000
)

// TreeOptions shape a project tree.
type TreeOptions struct {
	// MaxDepth is how many folder levels are listed below the start
	// (default DefaultTreeDepth); folders deeper are counted, not listed.
	MaxDepth int
	// ShowHidden lists names starting with "." (never sensitive files).
	ShowHidden bool
	// Exclude holds .gitignore-style patterns, relative to the root, left
	// out besides what .gitignore files ignore.
	Exclude []string
	// MaxEntries bounds the entries listed (default DefaultTreeEntries).
	MaxEntries int
}

// TreeNode is a file or folder of the tree.
type TreeNode struct {
	Name string `json:"name"`
	// Path is relative to the root, slash-separated.
	Path string `json:"path"`
	// Type is "dir", "file" or "symlink" (links are listed, not followed).
	Type string `json:"type"`
	// Files and Dirs count what the folder holds at every depth, listed
	// or not (ignored, hidden and sensitive entries excluded).
	Files int `json:"files,omitempty"`
	Dirs  int `json:"dirs,omitempty"`
	// Children are listed down to the depth asked; NotListed counts a
	// folder's direct entries left out by the depth or entry bound.
	Children  []*TreeNode `json:"children,omitempty"`
	NotListed int         `json:"not_listed,omitempty"`
}

// Tree is a project's structure.
type Tree struct {
	Root *TreeNode `json:"root"`
	// Files and Dirs count everything below Root (as in TreeNode).
	Files int `json:"files"`
	Dirs  int `json:"dirs"`
	// Listed is how many entries the tree lists; Truncated says the entry
	// bound left some out (NotListed on their folders says where).
	Listed    int  `json:"listed"`
	Truncated bool `json:"truncated,omitempty"`
	// Left out of the counts: entries .gitignore or exclude ignores,
	// hidden names, sensitive files.
	Ignored   int `json:"ignored"`
	Hidden    int `json:"hidden"`
	Sensitive int `json:"sensitive"`
	// Incomplete says the counting walk hit its bound: the counts are
	// lower bounds.
	Incomplete string `json:"incomplete,omitempty"`
}

// Tree returns the project tree at path (a folder inside the root),
// honouring .gitignore files (the root's and every folder's), exclude
// patterns, hidden names and the policy on sensitive files, which are
// never listed (only counted). Symlinks are listed and never followed, so
// the walk cannot leave the root.
func (r Root) Tree(path string, opt TreeOptions) (Tree, error) {
	return r.tree(path, opt, nil)
}

// tree is Tree, recording in rec (when not nil) the stamps of what it
// reads: each folder before its entries, each .gitignore before its
// rules.
func (r Root) tree(path string, opt TreeOptions, rec *stampRecord) (Tree, error) {
	if path == "" {
		path = "."
	}
	start, err := r.Resolve(path)
	if err != nil {
		return Tree{}, err
	}
	st, err := os.Stat(start)
	if err != nil {
		return Tree{}, apierr.Errorf(apierr.ResourceNotFound, "pass a folder inside the workspace; \".\" is the root", "%s: %v", path, err)
	}
	if !st.IsDir() {
		return Tree{}, apierr.Errorf(apierr.InvalidParameter, "pass a folder; read_file shows a file", "%s is a file, not a folder", path)
	}
	switch {
	case opt.MaxDepth == 0:
		opt.MaxDepth = DefaultTreeDepth
	case opt.MaxDepth < 0 || opt.MaxDepth > MaxTreeDepth:
		return Tree{}, apierr.Errorf(apierr.InvalidParameter, fmt.Sprintf("pass max_depth between 1 and %d", MaxTreeDepth), "max_depth %d is out of range", opt.MaxDepth)
	}
	switch {
	case opt.MaxEntries == 0:
		opt.MaxEntries = DefaultTreeEntries
	case opt.MaxEntries < 0 || opt.MaxEntries > MaxTreeEntries:
		return Tree{}, apierr.Errorf(apierr.InvalidParameter, fmt.Sprintf("pass max_entries between 1 and %d", MaxTreeEntries), "max_entries %d is out of range", opt.MaxEntries)
	}
	var exclude ignoreRules
	for _, p := range opt.Exclude {
		rule, ok := compileIgnore(p, "")
		if !ok {
			return Tree{}, apierr.Errorf(apierr.InvalidParameter, "pass .gitignore-style patterns, e.g. \"*.log\" or \"build/\"", "exclude pattern %q is empty", p)
		}
		exclude = append(exclude, rule)
	}
	rel := r.Rel(start)
	if rel == "." {
		rel = ""
	}
	// The rules of .gitignore files above the start folder apply too (the
	// walk reads the start folder's own).
	var rules ignoreRules
	if rel != "" {
		dir, base := r.dir, ""
		rules = readGitignore(rules, dir, base, rec, false)
		parts := strings.Split(rel, "/")
		for _, part := range parts[:len(parts)-1] {
			dir = filepath.Join(dir, part)
			base = strings.TrimPrefix(base+"/"+part, "/")
			rules = readGitignore(rules, dir, base, rec, false)
		}
	}
	w := &treeWalk{root: r, opt: opt, exclude: exclude, rec: rec}
	node := &TreeNode{Name: filepath.Base(start), Path: rel, Type: "dir"}
	if rel == "" {
		node.Path = "."
	}
	w.walk(start, rel, node, rules, 0)
	t := Tree{Root: node, Files: node.Files, Dirs: node.Dirs, Listed: w.listed, Truncated: w.truncated,
		Ignored: w.ignored, Hidden: w.hidden, Sensitive: w.sensitive}
	if w.visits > maxTreeVisits {
		t.Incomplete = fmt.Sprintf("stopped counting after %d entries: the counts are lower bounds; pass a narrower path or exclude large folders", maxTreeVisits)
	}
	return t, nil
}

type treeWalk struct {
	root                       Root
	opt                        TreeOptions
	exclude                    ignoreRules
	rec                        *stampRecord
	listed, visits             int
	truncated                  bool
	ignored, hidden, sensitive int
}

// walk fills node (the folder at abs, rel relative to the root, "" for
// the root) and counts what is below it; entries are listed while depth <
// MaxDepth and the entry bound allows.
func (w *treeWalk) walk(abs, rel string, node *TreeNode, rules ignoreRules, depth int) {
	// The folder is stamped before its .gitignore is read: a .gitignore
	// created since changes the folder's stamp.
	w.rec.add(abs, false)
	rules = readGitignore(rules, abs, rel, w.rec, true)
	entries, err := os.ReadDir(abs)
	if err != nil {
		return // unreadable folders count as empty
	}
	sort.Slice(entries, func(i, j int) bool {
		// Folders first, then by name, as file explorers show them.
		di, dj := entries[i].IsDir(), entries[j].IsDir()
		if di != dj {
			return di
		}
		return entries[i].Name() < entries[j].Name()
	})
	for _, e := range entries {
		w.visits++
		if w.visits > maxTreeVisits {
			return
		}
		name := e.Name()
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		isLink := e.Type()&os.ModeSymlink != 0
		isDir := e.IsDir() && !isLink
		switch {
		case name == ".git" || w.root.policy.Denied(childRel) != "":
			w.sensitive++
			continue
		case rules.ignored(childRel, isDir) || w.exclude.ignored(childRel, isDir):
			w.ignored++
			continue
		case !w.opt.ShowHidden && strings.HasPrefix(name, "."):
			w.hidden++
			continue
		}
		child := &TreeNode{Name: name, Path: childRel, Type: "file"}
		switch {
		case isLink:
			child.Type = "symlink"
			node.Files++
		case isDir:
			child.Type = "dir"
			node.Dirs++
		default:
			node.Files++
		}
		list := depth < w.opt.MaxDepth
		if list && w.listed >= w.opt.MaxEntries {
			list, w.truncated = false, true
		}
		if list {
			w.listed++
			node.Children = append(node.Children, child)
		} else if depth < w.opt.MaxDepth {
			node.NotListed++
		}
		if isDir {
			w.walk(filepath.Join(abs, name), childRel, child, rules, depth+1)
			node.Files += child.Files
			node.Dirs += child.Dirs
		}
	}
}
