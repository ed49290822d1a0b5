package lsp

// explore: an area of the workspace (a file, a folder or a package) in one
// call: what it holds (files, languages, size), its key symbols ranked by
// their references, what it imports and what imports it, and, asked, what
// changed in it recently (git). Every part is bounded and cut_short says
// where a bound was hit.

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/workspace"
)

// Bounds of explore.
const (
	// DefaultExploreDepth is how many folder levels an area spans: 1 is
	// the folder's own files.
	DefaultExploreDepth = 1
	// MaxExploreDepth bounds depth.
	MaxExploreDepth = 5
	// DefaultKeySymbols is how many key symbols are listed.
	DefaultKeySymbols = 15
	// MaxKeySymbols bounds max_symbols.
	MaxKeySymbols = 50
	// exploreListedFiles bounds the files listed in the overview.
	exploreListedFiles = 50
	// exploreSymbolFiles bounds the files whose document symbols are read.
	exploreSymbolFiles = 40
	// exploreCandidates bounds the declarations whose references are
	// counted to rank them.
	exploreCandidates = 60
	// exploreGroups bounds the dependency groups listed each way.
	exploreGroups = 30
	// exploreCommits is how many commits focus "changes" lists.
	exploreCommits = 10
	// exploreConcurrency bounds the reference requests in flight.
	exploreConcurrency = 6
)

// ExploreRequest names the area: Target is a file, a folder, or a package
// or module (zapcore, requests.adapters, go.uber.org/zap/zapcore).
type ExploreRequest struct {
	Target string
	// Depth is how many folder levels the area spans (default 1: the
	// folder's own files).
	Depth int
	// Focus "changes" adds what changed in the area recently.
	Focus string
	// MaxSymbols bounds the key symbols listed (default DefaultKeySymbols).
	MaxSymbols int
}

// ExploreFile is one file of the area.
type ExploreFile struct {
	File     string `json:"file"`
	Language string `json:"language,omitempty"`
	Lines    int    `json:"lines"`
	Test     bool   `json:"test,omitempty"`
}

// LanguageShare counts an area's files and lines of one language.
type LanguageShare struct {
	Language string `json:"language"`
	Files    int    `json:"files"`
	Lines    int    `json:"lines"`
}

// ExploreOverview is what the area holds.
type ExploreOverview struct {
	Files     int             `json:"files"`
	TestFiles int             `json:"test_files"`
	Lines     int             `json:"lines"`
	Bytes     int64           `json:"bytes"`
	Languages []LanguageShare `json:"languages"`
	// Folders are the area's subfolders (below the depth too).
	Folders []string      `json:"folders"`
	List    []ExploreFile `json:"list"`
}

// KeySymbol is a declaration of the area and how much the workspace uses
// it.
type KeySymbol struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// References counts its uses (the declaration excluded); Files the
	// files they are in; Outside those uses outside the area.
	References int `json:"references"`
	Files      int `json:"files"`
	Outside    int `json:"outside"`
}

// DependencyGroup is a package or module the area imports, or one whose
// files import the area.
type DependencyGroup struct {
	Package string `json:"package"`
	// Folder is where it is in the workspace ("" when external).
	Folder   string `json:"folder,omitempty"`
	External bool   `json:"external,omitempty"`
	// Files counts the files importing (the area's for depends_on, the
	// group's for depended_on_by); Examples names a few.
	Files    int      `json:"files"`
	Examples []string `json:"examples"`
}

// ExploreResult answers explore.
type ExploreResult struct {
	Target string `json:"target"`
	// Path is the area's file or folder (relative to the root); Kind is
	// "file" or "folder"; Package what importers import ("" when unknown).
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Package string `json:"package,omitempty"`
	Depth   int    `json:"depth"`

	Overview   ExploreOverview `json:"overview"`
	KeySymbols []KeySymbol     `json:"key_symbols"`
	// RankedBy says how key symbols were ranked and among how many.
	RankedBy     string            `json:"ranked_by"`
	DependsOn    []DependencyGroup `json:"depends_on"`
	DependedOnBy []DependencyGroup `json:"depended_on_by"`
	// Changes is set with focus "changes": the last commits touching
	// the area and its uncommitted files.
	Changes *workspace.History `json:"changes,omitempty"`
	// CutShort lists each bound hit ("" when none): what was left out.
	CutShort []string `json:"cut_short,omitempty"`
	// Errors lists parts that failed (a server's answer), each alone.
	Errors []string `json:"errors,omitempty"`
}

// area is the files an explore covers.
type area struct {
	abs   string // the file or folder
	isDir bool
	files []string // absolute, sorted
	in    map[string]bool
	// dirs are the folders whose files are in the area (a Go import
	// names a folder).
	dirs map[string]bool
}

// contains reports whether abs, a file or (Go) a package folder, is in the
// area.
func (a *area) contains(abs string) bool { return a.in[abs] || a.dirs[abs] }

// Explore answers explore.
func (c *Client) Explore(ctx context.Context, req ExploreRequest) (ExploreResult, error) {
	if err := checkLimit(&req.Depth, "depth", DefaultExploreDepth); err != nil {
		return ExploreResult{}, err
	}
	if req.Depth > MaxExploreDepth {
		return ExploreResult{}, apierr.Errorf(apierr.InvalidParameter, fmt.Sprintf("pass depth between 1 and %d", MaxExploreDepth), "depth %d is out of range", req.Depth)
	}
	if err := checkLimit(&req.MaxSymbols, "max_symbols", DefaultKeySymbols); err != nil {
		return ExploreResult{}, err
	}
	req.MaxSymbols = min(req.MaxSymbols, MaxKeySymbols)
	if req.Focus != "" && req.Focus != "changes" {
		return ExploreResult{}, apierr.Errorf(apierr.InvalidParameter, `focus is "changes" or left out`, "unknown focus %q", req.Focus)
	}
	root := c.Session.Root()
	abs, err := c.exploreTarget(req.Target)
	if err != nil {
		return ExploreResult{}, err
	}
	a, out, err := c.exploreArea(abs, req)
	if err != nil {
		return ExploreResult{}, err
	}
	out.Target = req.Target
	scope := lang.NewScope(root.Dir())
	if len(a.files) > 0 {
		if l := lang.ForFile(a.files[0]); l != nil && l.Imports.ImportName != nil {
			out.Package = l.Imports.ImportName(scope, a.files[0])
		}
	}
	c.exploreSymbols(ctx, a, req, &out)
	if err := apierr.FromContext(ctx, "explore", "retry with a smaller depth or a larger timeout"); err != nil {
		return ExploreResult{}, err
	}
	c.exploreDependencies(ctx, a, scope, &out)
	if req.Focus == "changes" {
		rel := root.Rel(a.abs)
		h, err := root.GitHistory(ctx, rel, exploreCommits)
		if err != nil {
			out.Errors = append(out.Errors, "changes: "+apierr.As(err).Message)
		} else {
			out.Changes = &h
			if h.More {
				out.CutShort = append(out.CutShort, fmt.Sprintf("changes: the last %d commits listed", exploreCommits))
			}
		}
	}
	if err := apierr.FromContext(ctx, "explore", "retry with a smaller depth or a larger timeout"); err != nil {
		return ExploreResult{}, err
	}
	return out, nil
}

// exploreTarget finds the file or folder target names: a path, else a
// package or module (its import path, dotted module or folder name).
func (c *Client) exploreTarget(target string) (string, error) {
	root := c.Session.Root()
	target = strings.TrimSpace(target)
	if target == "" {
		return "", apierr.New(apierr.InvalidParameter, "target is empty",
			`pass a file, a folder ("." for the root) or a package (zapcore, requests.adapters)`)
	}
	if abs, err := root.Resolve(target); err == nil {
		if _, err := os.Stat(abs); err == nil {
			return abs, nil
		}
	} else if apierr.CodeOf(err) == apierr.PreconditionFailed {
		return "", err // a sensitive path
	}
	// A package: folders (and Python modules) whose path ends with it.
	want := strings.Trim(strings.ReplaceAll(target, ".", "/"), "/")
	if strings.Contains(target, "/") {
		want = strings.Trim(target, "/")
	}
	scope := lang.NewScope(root.Dir())
	var found []string
	visited := 0
	_ = filepath.WalkDir(root.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if visited++; visited > markerWalkLimit*5 {
			return filepath.SkipAll
		}
		rel := filepath.ToSlash(root.Rel(p))
		if d.IsDir() {
			name := d.Name()
			if p != root.Dir() && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "__pycache__" || name == "testdata") {
				return filepath.SkipDir
			}
			if rel == want || strings.HasSuffix(rel, "/"+want) {
				found = append(found, p)
			}
			return nil
		}
		l := lang.ForFile(p)
		if l == nil || root.Sensitive(p) {
			return nil
		}
		noExt := strings.TrimSuffix(rel, path.Ext(rel))
		if noExt == want || strings.HasSuffix(noExt, "/"+want) {
			found = append(found, p) // a module file: requests/adapters.py
		} else if l.Imports.Folder && l.Imports.ImportName != nil && l.Imports.ImportName(scope, p) == target {
			found = append(found, filepath.Dir(p)) // a Go import path
		}
		return nil
	})
	slices.Sort(found)
	found = slices.Compact(found)
	switch len(found) {
	case 0:
		return "", apierr.Errorf(apierr.ResourceNotFound,
			`pass a path relative to the workspace root (get_project_structure lists them), or a package as it is imported`,
			"no file, folder or package %q in the workspace", target)
	case 1:
		return found[0], nil
	}
	var rels []string
	for _, f := range found {
		rels = append(rels, root.Rel(f))
	}
	return "", apierr.Errorf(apierr.Ambiguous, "pass the path of the one you mean",
		"%d folders or files are named %q: %s", len(found), target, strings.Join(rels, ", ")).
		WithDetails(map[string]any{"matches": rels})
}

// exploreArea lists the area's files (down to depth, .gitignore and the
// policy applied) and its overview.
func (c *Client) exploreArea(abs string, req ExploreRequest) (*area, ExploreResult, error) {
	root := c.Session.Root()
	a := &area{abs: abs, in: map[string]bool{}, dirs: map[string]bool{}}
	out := ExploreResult{Path: root.Rel(abs), Kind: "file", Depth: req.Depth,
		KeySymbols: []KeySymbol{}, DependsOn: []DependencyGroup{}, DependedOnBy: []DependencyGroup{}}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, out, apierr.Errorf(apierr.ResourceNotFound, "check the path", "%s: %v", out.Path, err)
	}
	out.Overview.Folders = []string{}
	if st.IsDir() {
		a.isDir, out.Kind = true, "folder"
		tree, err := root.Tree(out.Path, workspace.TreeOptions{MaxDepth: req.Depth, MaxEntries: workspace.MaxTreeEntries})
		if err != nil {
			return nil, out, err
		}
		var walk func(n *workspace.TreeNode, depth int)
		walk = func(n *workspace.TreeNode, depth int) {
			for _, ch := range n.Children {
				switch ch.Type {
				case "dir":
					out.Overview.Folders = append(out.Overview.Folders, ch.Path)
					if depth < req.Depth {
						walk(ch, depth+1)
					}
				case "file":
					a.files = append(a.files, filepath.Join(root.Dir(), filepath.FromSlash(ch.Path)))
				}
			}
		}
		walk(tree.Root, 1)
		if tree.Root != nil && tree.Root.NotListed > 0 {
			out.CutShort = append(out.CutShort, fmt.Sprintf("files: %d entries of the folder not listed (the tree's bound)", tree.Root.NotListed))
		}
	} else {
		a.files = []string{abs}
	}
	sort.Strings(a.files)
	shares := map[string]*LanguageShare{}
	for _, f := range a.files {
		a.in[f] = true
		if a.isDir {
			a.dirs[filepath.Dir(f)] = true
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		rel := root.Rel(f)
		ef := ExploreFile{File: rel, Lines: lineCount(data), Test: lang.IsTestFile(rel)}
		if l := lang.ForFile(f); l != nil {
			ef.Language = l.Name
			s := shares[l.Name]
			if s == nil {
				s = &LanguageShare{Language: l.Name}
				shares[l.Name] = s
			}
			s.Files++
			s.Lines += ef.Lines
		}
		out.Overview.Files++
		out.Overview.Lines += ef.Lines
		out.Overview.Bytes += int64(len(data))
		if ef.Test {
			out.Overview.TestFiles++
		}
		if len(out.Overview.List) < exploreListedFiles {
			out.Overview.List = append(out.Overview.List, ef)
		}
	}
	if out.Overview.Files > exploreListedFiles {
		out.CutShort = append(out.CutShort, fmt.Sprintf("overview: %d of %d files listed", exploreListedFiles, out.Overview.Files))
	}
	out.Overview.Languages = []LanguageShare{}
	for _, s := range shares {
		out.Overview.Languages = append(out.Overview.Languages, *s)
	}
	slices.SortFunc(out.Overview.Languages, func(x, y LanguageShare) int {
		return cmp.Or(cmp.Compare(y.Lines, x.Lines), strings.Compare(x.Language, y.Language))
	})
	if out.Overview.List == nil {
		out.Overview.List = []ExploreFile{}
	}
	return a, out, nil
}

func lineCount(data []byte) int {
	if len(data) == 0 {
		return 0
	}
	n := strings.Count(string(data), "\n")
	if data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// kindOrder ranks declaration kinds as candidates for key symbols (what
// an area is about first); kinds not listed are not candidates.
var kindOrder = map[string]int{"interface": 0, "class": 1, "struct": 1, "enum": 2, "type parameter": 3,
	"function": 4, "constant": 5, "variable": 6, "module": 7, "namespace": 7}

// exploreSymbols ranks the area's top-level declarations (exported ones
// for a folder) by their references.
func (c *Client) exploreSymbols(ctx context.Context, a *area, req ExploreRequest, out *ExploreResult) {
	root := c.Session.Root()
	var sources []string
	for _, f := range a.files {
		rel := root.Rel(f)
		if lang.ForFile(f) != nil && !lang.IsTestFile(rel) && !root.Sensitive(f) {
			sources = append(sources, rel)
		}
	}
	if len(sources) > exploreSymbolFiles {
		out.CutShort = append(out.CutShort, fmt.Sprintf("key symbols: declarations read from %d of %d source files", exploreSymbolFiles, len(sources)))
		sources = sources[:exploreSymbolFiles]
	}
	var cands []Symbol
	for _, f := range sources {
		res, err := c.Symbols(ctx, SymbolsQuery{File: f})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			out.Errors = append(out.Errors, fmt.Sprintf("symbols of %s: %s", f, apierr.As(err).Message))
			continue
		}
		for _, s := range res.Symbols {
			if _, ok := kindOrder[s.Kind]; ok && s.Container == "" && !strings.ContainsAny(s.Name, ".( ") {
				cands = append(cands, s)
			}
		}
	}
	if a.isDir {
		// A folder's key symbols are what it exports: visibility is
		// decided by the declaration's line (TypeScript's export).
		wanted := map[string][]int{}
		for _, s := range cands {
			p := filepath.Join(root.Dir(), filepath.FromSlash(s.File))
			wanted[p] = append(wanted[p], s.Line-1)
		}
		texts, err := c.Lines(ctx, wanted)
		if err != nil {
			out.Errors = append(out.Errors, "declarations: "+apierr.As(err).Message)
			return
		}
		kept := cands[:0]
		for _, s := range cands {
			line := texts[filepath.Join(root.Dir(), filepath.FromSlash(s.File))][s.Line-1]
			if lang.IsExported(s.File, s.Name, line, s.Kind) {
				kept = append(kept, s)
			}
		}
		cands = kept
	}
	total := len(cands)
	slices.SortStableFunc(cands, func(x, y Symbol) int { return cmp.Compare(kindOrder[x.Kind], kindOrder[y.Kind]) })
	if len(cands) > exploreCandidates {
		out.CutShort = append(out.CutShort, fmt.Sprintf("key symbols: references counted for %d of %d declarations (types first, then functions, constants, variables)", exploreCandidates, total))
		cands = cands[:exploreCandidates]
	}
	keys := make([]KeySymbol, len(cands))
	errs := make([]error, len(cands))
	panics := runBounded(ctx, len(cands), exploreConcurrency, func(i int) {
		s := cands[i]
		keys[i] = KeySymbol{Name: s.Name, Kind: s.Kind, File: s.File, Line: s.Line, Column: s.Column}
		errs[i] = c.countReferences(ctx, a, &keys[i])
	})
	failed := 0
	for i := range keys {
		if errs[i] != nil || (panics != nil && panics[i] != nil) {
			failed++
		}
	}
	if failed > 0 {
		out.Errors = append(out.Errors, fmt.Sprintf("references: %d of %d declarations could not be counted", failed, len(cands)))
	}
	slices.SortStableFunc(keys, func(x, y KeySymbol) int {
		return cmp.Or(cmp.Compare(y.References, x.References), cmp.Compare(y.Files, x.Files), strings.Compare(x.Name, y.Name))
	})
	out.KeySymbols = keys[:min(len(keys), req.MaxSymbols)]
	out.RankedBy = fmt.Sprintf("references (declaration excluded) to %d top-level declarations", len(cands))
	if a.isDir {
		out.RankedBy = fmt.Sprintf("references (declaration excluded) to %d exported top-level declarations", len(cands))
	}
}

// countReferences counts k's references: all, their files, and those
// outside the area.
func (c *Client) countReferences(ctx context.Context, a *area, k *KeySymbol) error {
	col := k.Column
	pos, err := c.resolve(ctx, k.File, Target{Line: k.Line, Column: &col}, protocol.MethodTextDocumentReferences, "")
	if err != nil {
		return err
	}
	params := protocol.ReferenceParams{TextDocumentPositionParams: pos.params(),
		Context: protocol.ReferenceContext{IncludeDeclaration: false}}
	locs, err := requestAs(ctx, c, pos.doc, pos.server, protocol.MethodTextDocumentReferences, params, DecodeLocations)
	if err != nil {
		return err
	}
	files := map[string]bool{}
	for _, l := range locs {
		p := PathOf(l.URI)
		if p == pos.doc.Path && int(l.Range.Start.Line) == k.Line-1 {
			continue // the declaration, which some servers include anyway
		}
		k.References++
		files[p] = true
		if !a.in[p] {
			k.Outside++
		}
	}
	k.Files = len(files)
	return nil
}

// exploreDependencies groups what the area's files import (outside the
// area) and the workspace files outside it importing the area.
func (c *Client) exploreDependencies(ctx context.Context, a *area, scope *lang.Scope, out *ExploreResult) {
	root := c.Session.Root()
	langs := map[*lang.Language]bool{}
	deps := map[string]*DependencyGroup{}
	depFiles := map[string]map[string]bool{}
	for _, f := range a.files {
		l := lang.ForFile(f)
		if l == nil || l.Imports.Parse == nil || root.Sensitive(f) {
			continue
		}
		langs[l] = true
		d := &depScan{c: c, scope: scope, lang: l}
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, imp := range d.scan(string(data)) {
			key, folder, external := imp.Path, "", true
			if !imp.System {
				if res := d.resolve(f, imp); len(res) > 0 {
					if a.contains(res[0]) {
						continue // inside the area
					}
					external, folder = false, root.Rel(res[0])
					if !l.Imports.Folder {
						key = d.packageName(res[0])
					}
				}
			}
			g := deps[key]
			if g == nil {
				g = &DependencyGroup{Package: key, Folder: folder, External: external, Examples: []string{}}
				deps[key], depFiles[key] = g, map[string]bool{}
			}
			depFiles[key][root.Rel(f)] = true
		}
	}
	out.DependsOn = groups(deps, depFiles)
	if len(out.DependsOn) > exploreGroups {
		out.CutShort = append(out.CutShort, fmt.Sprintf("depends_on: %d of %d packages listed (most used first)", exploreGroups, len(out.DependsOn)))
		out.DependsOn = out.DependsOn[:exploreGroups]
	}

	importers := map[string]*DependencyGroup{}
	impFiles := map[string]map[string]bool{}
	for l := range langs {
		d := &depScan{c: c, scope: scope, lang: l}
		files, truncated := d.workspaceFiles("")
		if truncated {
			out.CutShort = append(out.CutShort, fmt.Sprintf("depended_on_by: the scan of %s files stopped after %d", l.Name, maxScannedFiles))
		}
		for _, f := range files {
			if ctx.Err() != nil {
				return
			}
			if a.in[f] || root.Sensitive(f) {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for _, imp := range d.scan(string(data)) {
				if imp.System || !c.importsArea(d, a, f, imp) {
					continue
				}
				// Importers grouped by package (Go) or folder.
				key := root.Rel(filepath.Dir(f))
				if l.Imports.Folder {
					key = d.packageName(f)
				}
				g := importers[key]
				if g == nil {
					g = &DependencyGroup{Package: key, Folder: root.Rel(filepath.Dir(f)), Examples: []string{}}
					importers[key], impFiles[key] = g, map[string]bool{}
				}
				impFiles[key][root.Rel(f)] = true
				break
			}
		}
	}
	out.DependedOnBy = groups(importers, impFiles)
	if len(out.DependedOnBy) > exploreGroups {
		out.CutShort = append(out.CutShort, fmt.Sprintf("depended_on_by: %d of %d packages listed (most importing files first)", exploreGroups, len(out.DependedOnBy)))
		out.DependedOnBy = out.DependedOnBy[:exploreGroups]
	}
}

// importsArea reports whether imp, written in f, resolves into the area.
func (c *Client) importsArea(d *depScan, a *area, f string, imp lang.Import) bool {
	for _, res := range d.resolve(f, imp) {
		if a.contains(res) {
			return true
		}
	}
	return false
}

// groups orders dependency groups by their files (most first), filling
// Files and a few Examples.
func groups(m map[string]*DependencyGroup, files map[string]map[string]bool) []DependencyGroup {
	out := make([]DependencyGroup, 0, len(m))
	for key, g := range m {
		names := make([]string, 0, len(files[key]))
		for f := range files[key] {
			names = append(names, f)
		}
		sort.Strings(names)
		g.Files = len(names)
		g.Examples = names[:min(len(names), 3)]
		out = append(out, *g)
	}
	slices.SortFunc(out, func(x, y DependencyGroup) int {
		return cmp.Or(cmp.Compare(y.Files, x.Files), cmp.Compare(btoi(x.External), btoi(y.External)), strings.Compare(x.Package, y.Package))
	})
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
