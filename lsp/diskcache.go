package lsp

// The text of files read for their lines, kept while the file does not
// change. A read tool reads the target's line from the disk and the
// lines of every location its answer names in a file no buffer holds;
// warm reads name the same files again and again, and each was opened,
// read up to the line and split on every call (a tenth of a reference
// search's own time). A kept file is used only while its identity and
// times (device, inode, size, modification and change times) are those it
// was read with (workspace.Stamp, as the left-behind scan's index keeps
// files), and is kept only once that stamp is settled: a change made
// within the file system's timestamp granularity of the read would
// otherwise leave the times as they were (git's "racy" entries). The
// change time cannot be set back by a tool (touch sets the modification
// time only), so a changed file is a new read.

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/workspace"
)

const (
	// diskCacheBytes bounds the text kept, all files together (the
	// memory goal is 64 MB over gopls for nvbridge and its Neovim).
	diskCacheBytes = 8 << 20
	// diskCacheFileBytes: a larger file is read as before, up to the
	// lines wanted.
	diskCacheFileBytes = 512 << 10
)

// diskNow is the clock a file's settledness is judged by (tests move it).
var diskNow = time.Now

// diskFile is a file's text as read, and where each of its lines starts.
type diskFile struct {
	stamp  workspace.Stamp
	data   []byte
	starts []int
}

var diskCache = struct {
	sync.Mutex
	files map[string]*diskFile
	bytes int
}{files: map[string]*diskFile{}}

// line is line n (0-based) without its newline and a trailing CR, as
// diskLines reads it.
func (f *diskFile) line(n int) (string, bool) {
	if n < 0 || n >= len(f.starts) {
		return "", false
	}
	end := len(f.data)
	if n+1 < len(f.starts) {
		end = f.starts[n+1] - 1
	} else if end > f.starts[n] && f.data[end-1] == '\n' {
		end--
	}
	return string(bytes.TrimSuffix(f.data[f.starts[n]:end], []byte("\r"))), true
}

func newDiskFile(stamp workspace.Stamp, data []byte) *diskFile {
	f := &diskFile{stamp: stamp, data: data}
	if len(data) > 0 {
		f.starts = append(f.starts, 0)
	}
	for i, b := range data {
		if b == '\n' && i+1 < len(data) {
			f.starts = append(f.starts, i+1)
		}
	}
	return f
}

// cachedDisk is path's kept text when st (its stat, just taken) says it
// has not changed since; else nil.
func cachedDisk(path string, st os.FileInfo) *diskFile {
	stamp, ok := workspace.StampOf(st)
	if !ok {
		return nil
	}
	diskCache.Lock()
	defer diskCache.Unlock()
	f := diskCache.files[path]
	if f == nil || f.stamp != stamp {
		return nil
	}
	return f
}

// readKept reads path whole and keeps it, when st allows (a small file,
// its stamp settled); nil when it does not, or the read fails.
// The text read may be newer than st (a change between the stat and the
// read): it is then kept under the older stamp, which the next stat no
// longer matches.
func readKept(path string, st os.FileInfo) *diskFile {
	stamp, ok := workspace.StampOf(st)
	if !ok || st.Size() > diskCacheFileBytes || !stamp.Settled(diskNow()) {
		return nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, diskCacheFileBytes+1))
	if err != nil || len(data) > diskCacheFileBytes {
		return nil
	}
	f := newDiskFile(stamp, data)
	diskCache.Lock()
	defer diskCache.Unlock()
	if old := diskCache.files[path]; old != nil {
		diskCache.bytes -= len(old.data)
	}
	for p, k := range diskCache.files {
		if diskCache.bytes+len(data) <= diskCacheBytes {
			break
		}
		diskCache.bytes -= len(k.data)
		delete(diskCache.files, p)
	}
	diskCache.files[path] = f
	diskCache.bytes += len(data)
	return f
}
