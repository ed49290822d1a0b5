package lsp

// Which files' diagnostics a change can affect: the files it touched and
// the files that import them, directly or through other workspace files
// (Go: a file of the same package, or importing a touched file's package).
// A diagnostic elsewhere is not the change's, whatever a server publishes
// there while the change is diagnosed (a warning gopls's deeper analysis
// publishes late for an open file), and an open file outside that scope is
// not waited for.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nvbridge/nvbridge/lang"
)

// maxScopeReads bounds the files read to decide a change's scope; past it
// a file counts as affected (its diagnostics are compared).
const maxScopeReads = 3000

type changeScope struct {
	scope   *lang.Scope
	touched map[string]bool // absolute paths
	dirs    map[string]bool // folders of touched files (Folder languages)
	// reach memoizes each file's verdict; imports each file's resolved
	// imports (absolute files; a folder's files for Folder languages).
	reach   map[string]bool
	imports map[string][]string
	reads   int
}

func newChangeScope(root string, touched []string) *changeScope {
	s := &changeScope{scope: lang.NewScope(root), touched: map[string]bool{}, dirs: map[string]bool{},
		reach: map[string]bool{}, imports: map[string][]string{}}
	for _, p := range touched {
		p = filepath.Clean(p)
		s.touched[p] = true
		if l := lang.ForFile(p); l != nil && l.Imports.Folder {
			s.dirs[filepath.Dir(p)] = true
		}
	}
	return s
}

// importsOf lists the files abs imports (resolved in the workspace).
func (s *changeScope) importsOf(abs string) ([]string, bool) {
	if out, ok := s.imports[abs]; ok {
		return out, true
	}
	l := lang.ForFile(abs)
	if l == nil || l.Imports.Parse == nil || l.Imports.Resolve == nil {
		s.imports[abs] = nil
		return nil, true
	}
	if s.reads++; s.reads > maxScopeReads {
		return nil, false
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		s.imports[abs] = nil
		return nil, true
	}
	var out []string
	for _, imp := range l.Imports.Parse(string(data)) {
		if imp.System {
			continue
		}
		for _, r := range l.Imports.Resolve(s.scope, abs, imp) {
			if st, err := os.Stat(r); err == nil && st.IsDir() {
				entries, _ := os.ReadDir(r)
				for _, e := range entries {
					if !e.IsDir() && lang.ForFile(e.Name()) == l {
						out = append(out, filepath.Join(r, e.Name()))
					}
				}
				continue
			}
			out = append(out, filepath.Clean(r))
		}
	}
	s.imports[abs] = out
	return out, true
}

// affects reports whether the change can affect abs's diagnostics: abs is
// touched, in a touched Go package, or reaches a touched file through its
// imports (or the bound was hit: then yes).
func (s *changeScope) affects(abs string) bool {
	abs = filepath.Clean(abs)
	if v, ok := s.reach[abs]; ok {
		return v
	}
	seen := map[string]bool{abs: true}
	queue := []string{abs}
	found := false
	for len(queue) > 0 && !found {
		f := queue[0]
		queue = queue[1:]
		if s.touched[f] || s.dirs[filepath.Dir(f)] && s.sameLanguageFolder(f) {
			found = true
			break
		}
		if v, ok := s.reach[f]; ok && f != abs {
			if v {
				found = true
			}
			continue
		}
		next, ok := s.importsOf(f)
		if !ok {
			found = true // bound hit: compare it
			break
		}
		for _, n := range next {
			if !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	s.reach[abs] = found
	return found
}

// sameLanguageFolder: f is a file of a language whose importers import
// folders (a file of a touched Go package).
func (s *changeScope) sameLanguageFolder(f string) bool {
	l := lang.ForFile(f)
	return l != nil && l.Imports.Folder && !strings.HasSuffix(f, string(filepath.Separator))
}
