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
	"sort"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/workspace"
)

const (
	// diskCacheBytes bounds the texts kept and their line starts, all
	// files together (the memory goal is 64 MB over gopls for nvbridge
	// and its Neovim); the least recently read go first, so the files
	// warm reads name again and again stay (8 MiB taken in any order
	// held 5.5 MB after the std run).
	diskCacheBytes = 4 << 20
	// diskCacheFileBytes: a larger file is read as before, up to the
	// lines wanted.
	diskCacheFileBytes = 512 << 10
)

// diskNow is the clock a file's settledness is judged by (tests move it).
var diskNow = time.Now

// diskFile is a file's text as read, and where each of its lines starts
// (offsets below diskCacheFileBytes: 4 bytes a line).
type diskFile struct {
	stamp  workspace.Stamp
	data   []byte
	starts []int32
	used   uint64 // diskCache.clock when last read (under its lock)
}

// size is the memory f holds, what diskCacheBytes bounds: its text and
// its line starts.
func (f *diskFile) size() int { return cap(f.data) + 4*cap(f.starts) }

var diskCache = struct {
	sync.Mutex
	files map[string]*diskFile
	bytes int
	clock uint64
}{files: map[string]*diskFile{}}

// line is line n (0-based) without its newline and a trailing CR, as
// diskLines reads it.
func (f *diskFile) line(n int) (string, bool) {
	if n < 0 || n >= len(f.starts) {
		return "", false
	}
	start, end := int(f.starts[n]), len(f.data)
	if n+1 < len(f.starts) {
		end = int(f.starts[n+1]) - 1
	} else if end > start && f.data[end-1] == '\n' {
		end--
	}
	return string(bytes.TrimSuffix(f.data[start:end], []byte("\r"))), true
}

// newDiskFile indexes the lines of data (at most diskCacheFileBytes), its
// starts sized exactly.
func newDiskFile(stamp workspace.Stamp, data []byte) *diskFile {
	f := &diskFile{stamp: stamp, data: data}
	if len(data) == 0 {
		return f
	}
	n := bytes.Count(data, []byte("\n"))
	if data[len(data)-1] == '\n' {
		n-- // a final newline starts no line
	}
	f.starts = make([]int32, 1, n+1)
	for i := 0; ; {
		nl := bytes.IndexByte(data[i:], '\n')
		if nl < 0 || i+nl+1 >= len(data) {
			break
		}
		i += nl + 1
		f.starts = append(f.starts, int32(i))
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
	diskCache.clock++
	f.used = diskCache.clock
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
	data, ok := readSized(fh, int(st.Size()), diskCacheFileBytes)
	if !ok {
		return nil
	}
	f := newDiskFile(stamp, data)
	diskCache.Lock()
	defer diskCache.Unlock()
	if old := diskCache.files[path]; old != nil {
		diskCache.bytes -= old.size()
		delete(diskCache.files, path)
	}
	if diskCache.bytes+f.size() > diskCacheBytes {
		paths := make([]string, 0, len(diskCache.files))
		for p := range diskCache.files {
			paths = append(paths, p)
		}
		sort.Slice(paths, func(i, j int) bool { return diskCache.files[paths[i]].used < diskCache.files[paths[j]].used })
		for _, p := range paths {
			if diskCache.bytes+f.size() <= diskCacheBytes {
				break
			}
			diskCache.bytes -= diskCache.files[p].size()
			delete(diskCache.files, p)
		}
	}
	diskCache.clock++
	f.used = diskCache.clock
	diskCache.files[path] = f
	diskCache.bytes += f.size()
	return f
}

// readSized reads r to its end into a buffer of size+1 bytes (size: the
// file's size when it was stat'ed; io.ReadAll's doublings left up to
// half of each kept text's buffer unused), growing it only if the file
// grew since; false past limit bytes or on an error.
func readSized(r io.Reader, size, limit int) ([]byte, bool) {
	data := make([]byte, 0, min(size, limit)+1) // +1: the end seen without growing
	for {
		if len(data) == cap(data) {
			if len(data) > limit {
				return nil, false
			}
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
	}
	if len(data) > limit {
		return nil, false
	}
	return data, true
}
