package refactor

// The files naming a name (namingFiles), kept between renames while
// nothing happened under the root: a rename asked again (a preview, then
// its apply, or the same preview again) scanned every file of the
// language again, though the notifications said none changed (on zap,
// 117 files, about 0.4 ms of CPU a rename, taken from Neovim and gopls
// while they answer it). A scan's answer is kept when every file it read
// was followed by the root's notifications (workspace.Changes: confirmed
// unchanged, or watched before it was read) and each file naming the
// name has its index entry (its imports parsed and kept there); it is
// taken again while the language's files are the same list (the tree
// the list was walked from unchanged: its folders' stamps), the
// notifications drained since say nothing at all happened (the moment
// is the same: no drain read a notification, none made them
// untrustworthy) and the index still holds those entries. The imports
// are resolved again on every scan, as a scan does: what they resolve
// to depends on files outside the list (go.mod, a folder made).

import (
	"sync"

	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/workspace"
)

type namingKey struct {
	dir    string
	policy *workspace.Policy
	lang   *lang.Language
	name   string
}

// namingKeptFile is a file a kept scan found naming the name. Its
// imports are its index entry's (importsOf): nothing happened to the file
// since, so the entry indexed for it is of the text read then; the scan
// kept holds no entry (the index's bound stays the bound of what it
// holds).
type namingKeptFile struct {
	rel, abs string
}

// keptImports are the imports kept of each file of found, by l (false
// when one no longer has them kept: the index dropped its entry).
func keptImports(l *lang.Language, found []namingKeptFile) ([][]lang.Import, bool) {
	out := make([][]lang.Import, len(found))
	identIndex.Lock()
	defer identIndex.Unlock()
	for i, f := range found {
		e := identIndex.m[identKey{abs: f.abs, lang: l}]
		if e == nil || !e.importsKept {
			return nil, false
		}
		out[i] = e.imports
	}
	return out, true
}

type namingScan struct {
	// files is the list scanned (languageFiles: the same slice while its
	// tree is the same).
	files []string
	at    workspace.Moment
	found []namingKeptFile
}

// maxKeptNamings bounds the scans kept (the names of the last renames).
const maxKeptNamings = 32

var keptNamings = struct {
	sync.Mutex
	m map[namingKey]namingScan
}{m: map[namingKey]namingScan{}}

// keptNaming is the scan kept for key, when it scanned files (the same
// list) and nothing happened under the root since (at, the moment the
// scan asking starts at, is the kept one's), its files' imports resolved
// now in scope.
func keptNaming(key namingKey, files []string, at workspace.Moment, scope *lang.Scope) ([]namingFile, bool) {
	if !at.OK() {
		return nil, false
	}
	keptNamings.Lock()
	s, ok := keptNamings.m[key]
	keptNamings.Unlock()
	if !ok || s.at != at || !sameList(s.files, files) {
		return nil, false
	}
	imports, ok := keptImports(key.lang, s.found)
	if !ok {
		return nil, false
	}
	out := make([]namingFile, len(s.found))
	for i, f := range s.found {
		out[i] = namingFile{rel: f.rel, abs: f.abs}
		for _, imp := range imports[i] {
			out[i].imports = append(out[i].imports, key.lang.Imports.Resolve(scope, f.abs, imp)...)
		}
	}
	return out, true
}

// keepNaming keeps the scan of files at at, which found found.
func keepNaming(key namingKey, files []string, at workspace.Moment, found []namingKeptFile) {
	keptNamings.Lock()
	defer keptNamings.Unlock()
	if _, ok := keptNamings.m[key]; !ok && len(keptNamings.m) >= maxKeptNamings {
		clear(keptNamings.m)
	}
	keptNamings.m[key] = namingScan{files: files, at: at, found: found}
}

// sameList reports whether a and b are the same slice (languageFiles
// gives the one it memoized while its tree is the same).
func sameList(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
