package refactor

// What Go's import resolver reads of the disk (lang.ScopeFS: the go.mod
// files from a file's folder up to its module's, and whether each
// imported package's folder exists), kept from one rename to the next
// while the root's notifications (fileChanges) say nothing happened to
// the path since it was read. Every rename resolves again the imports of
// the files naming the renamed name (keptNaming: the resolution depends
// on the disk, not on the files' texts), and each resolution read the
// go.mod files again and stat'ed the packages' folders with ordinary
// system calls: on zap, about a tenth of nvbridge's CPU in a rename's
// look-ahead.
//
// A path is kept only when the folder it is in was watched before it was
// read (workspace.Changes.WatchDir: a local file system, every folder up
// to the root watched): its creation, removal, renaming, and any write or
// change of its metadata are then told by the folder's notifications,
// whether the path existed or not. A go.mod that is not a regular file
// (a symlink, whose target may change unseen) and a folder reached
// through a symlink are read every time. No stamp or time is trusted.

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/nvbridge/nvbridge/workspace"
)

// maxScopeReads bounds the paths kept (each go.mod looked for and each
// package folder of a scan): past it, the set starts again empty.
const maxScopeReads = 4096

// keptScopeRead is a read kept at a moment (at: a moment of another
// Changes, a root followed again after its Changes was closed, is never
// Unchanged: workspace's epochs are the process's).
type keptScopeRead struct {
	at   workspace.Moment
	data []byte
	err  error
	dir  bool
}

var scopeReads = struct {
	sync.Mutex
	m map[string]*keptScopeRead
}{m: map[string]*keptScopeRead{}}

// Ordinary reads (a test counts them).
var (
	scopeReadFile = os.ReadFile
	scopeLstat    = os.Lstat
)

// followedFS is a lang.ScopeFS whose reads are kept (see above): changes
// follows the root; at is its moment drained before the scan began (a
// read made after it is confirmed at it).
type followedFS struct {
	changes *workspace.Changes
	at      workspace.Moment
}

func (f followedFS) kept(path string) *keptScopeRead {
	scopeReads.Lock()
	k := scopeReads.m[path]
	scopeReads.Unlock()
	if k != nil && f.changes.Unchanged(path, k.at) {
		return k
	}
	return nil
}

func (f followedFS) keep(path string, k *keptScopeRead) {
	scopeReads.Lock()
	defer scopeReads.Unlock()
	if _, ok := scopeReads.m[path]; !ok && len(scopeReads.m) >= maxScopeReads {
		clear(scopeReads.m)
	}
	scopeReads.m[path] = k
}

// watched reports whether path's folder is watched now, before path is
// read: what happens to it from now on is told.
func (f followedFS) watched(path string) bool {
	return f.at.OK() && f.changes.WatchDir(filepath.Dir(path))
}

func (f followedFS) ReadFile(path string) ([]byte, error) {
	if k := f.kept(path); k != nil {
		return k.data, k.err
	}
	// Watched before it is read: the file itself when it is a regular
	// one (a write through another of its links is told to its own watch,
	// not to its folder's), else its folder (its creation is told there).
	file := f.at.OK() && f.changes.Watch(path)
	folder := file || f.watched(path)
	data, err := scopeReadFile(path)
	if err == nil && file || err != nil && os.IsNotExist(err) && folder {
		f.keep(path, &keptScopeRead{at: f.at, data: data, err: err})
	}
	return data, err
}

func (f followedFS) IsDir(path string) bool {
	if k := f.kept(path); k != nil {
		return k.dir
	}
	watched := f.watched(path)
	st, err := scopeLstat(path)
	switch {
	case err == nil && st.Mode()&os.ModeSymlink != 0:
		// Its target may change unseen: asked every time.
		st, err := os.Stat(path)
		return err == nil && st.IsDir()
	case err != nil && !os.IsNotExist(err):
		return false
	}
	dir := err == nil && st.IsDir()
	if watched {
		f.keep(path, &keptScopeRead{at: f.at, dir: dir})
	}
	return dir
}
