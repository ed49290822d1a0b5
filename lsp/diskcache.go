package lsp

// The lines of files read from the disk, kept while the file does not
// change. A read tool reads the target's line from the disk and the
// lines of every location its answer names in a file no buffer holds;
// warm reads name the same lines again and again, and each file was
// opened, read up to the line and split on every call (a tenth of a
// reference search's own time). A kept line is used only while its
// file's identity and times (device, inode, size, modification and change
// times) are those it was read with (workspace.Stamp, as the left-behind
// scan's index keeps files), and is kept only once that stamp is settled:
// a change made within the file system's timestamp granularity of the
// read would otherwise leave the times as they were (git's "racy"
// entries). The change time cannot be set back by a tool (touch sets the
// modification time only), so a changed file is a new read.

import (
	"sort"
	"sync"
	"time"

	"github.com/nvbridge/nvbridge/workspace"
)

const (
	// diskCacheBytes bounds the lines kept, all files together; the least
	// recently read files go first. The cache kept whole files (4 MiB of
	// texts and line starts after the std run, for the 127 lines a warm
	// find_references shows from about a hundred files, the 8-odd other
	// files the other reads name, and little else: the rest of each text
	// was never asked for); it now keeps the lines read, which warm reads
	// ask for again and again (a read asking for a line not kept reads the
	// file up to its last line wanted, as a first read does).
	diskCacheBytes = 1 << 20
	// diskLineCost is what a kept line costs beyond its text: its string
	// header and its map entry (about 40 bytes with the map's slack).
	diskLineCost = 48
)

// diskNow is the clock a file's settledness is judged by (tests move it).
var diskNow = time.Now

// diskFile is what is known of a file's lines at its stamp: the lines read
// so far (0-based, each as diskLines gives it) and, once a read reached
// the end, how many lines it has (lines at or past it do not exist).
type diskFile struct {
	stamp workspace.Stamp
	lines map[int]string
	count int    // the file's line count, -1 until a read reached its end
	bytes int    // what the kept lines cost (size)
	used  uint64 // diskCache.clock when last read (under its lock)
}

// size is the memory f holds, what diskCacheBytes bounds.
func (f *diskFile) size() int { return f.bytes }

var diskCache = struct {
	sync.Mutex
	files map[string]*diskFile
	bytes int
	clock uint64
}{files: map[string]*diskFile{}}

// answer fills out with the wanted lines f knows, reporting whether it
// knows every one of them (each kept, or past the end of the file, or
// negative). diskCache's lock held.
func (f *diskFile) answer(wanted []int, out map[int]string) bool {
	for _, l := range wanted {
		if text, ok := f.lines[l]; ok {
			out[l] = text
			continue
		}
		if l < 0 || f.count >= 0 && l >= f.count {
			continue
		}
		return false
	}
	return true
}

// cachedLines answers the wanted lines of path from what was kept of it
// when stamp (its stamp, just taken) says it has not changed since; ok is
// false (out may be partly filled) when any of them is not known.
func cachedLines(path string, stamp workspace.Stamp, wanted []int, out map[int]string) bool {
	diskCache.Lock()
	defer diskCache.Unlock()
	f := diskCache.files[path]
	if f == nil || f.stamp != stamp || !f.answer(wanted, out) {
		return false
	}
	diskCache.clock++
	f.used = diskCache.clock
	return true
}

// keepLines keeps the lines of path just read (read: those wanted, count
// the file's line count when the read reached its end, else -1), when
// stamp, taken before the read, allows: settled (a change within the file
// system's timestamp granularity of the read would otherwise leave the
// stamp as it was).
func keepLines(path string, stamp workspace.Stamp, read map[int]string, count int) {
	if !stamp.Settled(diskNow()) {
		return
	}
	diskCache.Lock()
	defer diskCache.Unlock()
	f := diskCache.files[path]
	if f == nil || f.stamp != stamp {
		if f != nil {
			diskCache.bytes -= f.bytes
		}
		f = &diskFile{stamp: stamp, lines: make(map[int]string, len(read)), count: -1}
		diskCache.files[path] = f
	}
	if count >= 0 {
		f.count = count
	}
	for l, text := range read {
		if _, ok := f.lines[l]; !ok {
			f.lines[l] = text
			f.bytes += len(text) + diskLineCost
			diskCache.bytes += len(text) + diskLineCost
		}
	}
	diskCache.clock++
	f.used = diskCache.clock
	if diskCache.bytes <= diskCacheBytes {
		return
	}
	paths := make([]string, 0, len(diskCache.files))
	for p := range diskCache.files {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool { return diskCache.files[paths[i]].used < diskCache.files[paths[j]].used })
	for _, p := range paths {
		if diskCache.bytes <= diskCacheBytes {
			break
		}
		diskCache.bytes -= diskCache.files[p].bytes
		delete(diskCache.files, p)
	}
}
