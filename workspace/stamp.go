package workspace

// What a file's or folder's metadata says of its content, to tell whether
// something read before still holds without reading it again (a folder's
// entries, a file's text): the same stamp means unchanged, once the stamp
// is settled (older than the coarsest timestamp a filesystem keeps, so a
// change after it was read cannot leave the same times behind).

import (
	"io/fs"
	"os"
	"sync/atomic"
	"time"
)

// Stamp is a file's or folder's identity and times.
type Stamp struct {
	Dev, Ino uint64
	Size     int64
	Mode     fs.FileMode
	// Mtime and Ctime in nanoseconds: a write sets both; only the
	// system sets ctime (a tool that restores mtime, as cp -p or rsync
	// do, changes it).
	Mtime, Ctime int64
	// Missing: there was nothing at the path.
	Missing bool
}

// racyMargin is how far a settled stamp's times lie before the moment it
// was taken, in nanoseconds: more than the coarsest timestamp granularity
// (FAT's 2 s; the kernel's coarse clock ticks every few milliseconds).
var racyMargin atomic.Int64

func init() { racyMargin.Store(int64(3 * time.Second)) }

// SetRacyMargin sets the margin for a test whose files are all written
// within it (a test that then waits for the filesystem's clock to move on
// before changing them) and returns the restore.
func SetRacyMargin(d time.Duration) (restore func()) {
	old := racyMargin.Swap(int64(d))
	return func() { racyMargin.Store(old) }
}

// StampOf is info's stamp; ok is false where the system gives no inode
// and ctime (nothing can then be known unchanged).
func StampOf(info fs.FileInfo) (Stamp, bool) {
	dev, ino, ctime, ok := sysStat(info)
	if !ok {
		return Stamp{}, false
	}
	return Stamp{Dev: dev, Ino: ino, Size: info.Size(), Mode: info.Mode(), Mtime: info.ModTime().UnixNano(), Ctime: ctime}, true
}

// StampPath is the stamp of the file at abs (symlinks followed when
// follow), Missing when there is none.
func StampPath(abs string, follow bool) (Stamp, bool) {
	if s, ok, done := stampPathSys(abs, follow); done {
		return s, ok
	}
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	info, err := stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return Stamp{Missing: true}, true
		}
		return Stamp{}, false
	}
	return StampOf(info)
}

// Settled reports whether a change made after at would change the stamp:
// its times are older than at by more than any timestamp granularity
// (a missing path is settled: whatever creates it makes a stamp).
func (s Stamp) Settled(at time.Time) bool {
	if s.Missing {
		return true
	}
	limit := at.UnixNano() - racyMargin.Load()
	return s.Mtime < limit && s.Ctime < limit
}
