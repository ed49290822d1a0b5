package lsp

// Which files' diagnostics a change can affect: the files it touched and
// the files that import them, directly or through other workspace files
// (Go: a file of the same package, or importing a touched file's package).
// A diagnostic elsewhere is not the change's, whatever a server publishes
// there while the change is diagnosed (a warning gopls's deeper analysis
// publishes late for an open file), and an open file outside that scope is
// not waited for.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

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
	// memo, when set, keeps the last answer of affected across scopes
	// (the client's: Client.lastScope).
	memo *atomic.Pointer[scopeRecord]
}

// scopeRecord is an answer of affected and what it depends on: the
// language, the touched files and the fingerprint of the workspace's files
// of that language (path, size, modification time of each, and the
// markers). The same key, the same files: the next change of the same
// files with nothing changed on disk in between (an agent's edits of a
// buffer) does not read and parse every file's imports again, which cost
// an attached apply on zap about 5 ms of its 90.
type scopeRecord struct {
	key   string
	files []string
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
				// A folder's test files are no part of what importing it
				// brings in (Go: a package's _test.go files build only
				// its test variant, and an external test package may
				// import the very package whose change is scoped).
				entries, _ := os.ReadDir(r)
				for _, e := range entries {
					if !e.IsDir() && lang.ForFile(e.Name()) == l && !(l.Imports.Folder && testFileOf(l, e.Name())) {
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

// affected lists the workspace files of l (a Folder language) the change
// can affect: those of the touched packages and of the packages importing
// them, directly or not, test files included. A package is its folder: one
// of its files importing a touched package can change the errors of every
// other (a declaration's type), so all the folder's files are in (its test
// files too: the package's test variant holds them). A test file that
// imports them in a folder whose package does not (Go: an external test
// package, zapcore_test importing zap) is in alone: its package's other
// files build without it. print fingerprints
// the files scanned (path, size, modification time) and l's marker files
// (go.mod). ok is false when the scan passes maxScopeReads files (the scope
// is then unknown).
func (s *changeScope) affected(l *lang.Language) (files []string, print string, ok bool) {
	var all []string
	h := sha256.New()
	n := 0
	err := filepath.WalkDir(s.scope.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != s.scope.Root {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != s.scope.Root && l.SkipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		marker := slices.Contains(l.Markers, d.Name())
		if !d.Type().IsRegular() || (lang.ForFile(p) != l && !marker) {
			return nil
		}
		if n++; n > maxScopeReads {
			return fs.SkipAll
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		if !marker {
			all = append(all, p)
		}
		return nil
	})
	if err != nil || n > maxScopeReads {
		return nil, "", false
	}
	print = hex.EncodeToString(h.Sum(nil))
	touched := make([]string, 0, len(s.touched))
	for p := range s.touched {
		touched = append(touched, p)
	}
	sort.Strings(touched)
	key := l.Name + "\x00" + strings.Join(touched, "\x00") + "\x00" + print
	if s.memo != nil {
		if r := s.memo.Load(); r != nil && r.key == key {
			return slices.Clone(r.files), print, true
		}
	}
	in := map[string]bool{}
	for _, p := range all {
		if !in[filepath.Dir(p)] && !testFileOf(l, p) && s.affects(p) {
			in[filepath.Dir(p)] = true
		}
	}
	for _, p := range all {
		if in[filepath.Dir(p)] || testFileOf(l, p) && s.affects(p) {
			files = append(files, p)
		}
	}
	if s.reads > maxScopeReads {
		return nil, "", false
	}
	sort.Strings(files)
	if s.memo != nil {
		s.memo.Store(&scopeRecord{key: key, files: slices.Clone(files)})
	}
	return files, print, true
}

// testFileOf reports whether p is a test file of l by its name (Go's
// _test.go: a package's test variant), whatever its folder.
func testFileOf(l *lang.Language, p string) bool {
	return l.TestFile != nil && l.TestFile.MatchString(filepath.Base(p))
}
