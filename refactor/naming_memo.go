package refactor

// The files naming a name (namingFiles), kept between renames while
// nothing happened under the root: a rename asked again (a preview, then
// its apply, or the same preview again) scanned every file of the
// language again, though the notifications said none changed (on zap,
// 117 files, about 0.4 ms of CPU a rename, taken from Neovim and gopls
// while they answer it). A scan's answer is kept when every file it read
// was followed by the root's notifications (workspace.Changes: confirmed
// unchanged, or watched before it was read) and each file naming the
// name has its index entry (its imports parsed and kept); it is taken
// again while the language's files are the same list (the tree the
// list was walked from unchanged: its folders' stamps) and the
// notifications drained since say nothing at all happened (the moment
// is the same: no drain read a notification, none made them
// untrustworthy). The imports are resolved again on every scan, as a
// scan does: what they resolve to depends on files outside the list
// (go.mod, a folder made).

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

// namingKeptFile is a file a kept scan found naming the name, with its
// index entry (its imports parsed from the text read then, kept there:
// importsOf).
type namingKeptFile struct {
	rel, abs string
	entry    *identEntry
}

// resolved is f as a scan gives it: its imports resolved now.
func (f namingKeptFile) resolved(l *lang.Language, scope *lang.Scope) namingFile {
	nf := namingFile{rel: f.rel, abs: f.abs}
	identIndex.Lock()
	imports := f.entry.imports
	identIndex.Unlock()
	for _, imp := range imports {
		nf.imports = append(nf.imports, l.Imports.Resolve(scope, f.abs, imp)...)
	}
	return nf
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
// scan asking starts at, is the kept one's).
func keptNaming(key namingKey, files []string, at workspace.Moment) ([]namingKeptFile, bool) {
	if !at.OK() {
		return nil, false
	}
	keptNamings.Lock()
	s, ok := keptNamings.m[key]
	keptNamings.Unlock()
	if !ok || s.at != at || !sameList(s.files, files) {
		return nil, false
	}
	return s.found, true
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
