package workspace

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Changes follows by inotify the files of the directories a scan asks it
// to watch under one root, so that a file whose stamp a scan confirmed
// need not be stamped again by the next scans while nothing happened to
// it: each scan drains the notifications queued since the last one (a
// read of the instance's descriptor, which the kernel filled in the
// writer's own system call: a change made before the drain is in it),
// then asks, for each file it kept something of, whether anything
// happened to it since the moment it was last confirmed (Unchanged).
//
// Notifications are trusted only where they tell every change of a file
// by its path: a directory on a local file system (ext2/3/4, XFS, Btrfs,
// tmpfs, F2FS: not NFS, FUSE, 9p, SMB or overlayfs, where another
// machine's or layer's change is not told), watched with its every
// directory up to the root (a directory moved or replaced above it is
// told by its parent's watch), a regular file watched itself too (a
// change by another hard link, made before or after, is told to the
// file's watch, not to its directory's). Anything else, and
// whatever makes the queue untrustworthy (an overflow, a watched
// directory moved or removed, the root replaced above it, the watches
// limit reached), falls back on the stamps: Unchanged says no.
// A change inotify never tells (a write through a shared memory mapping,
// a file bind-mounted from elsewhere) is not seen until the file's stamp
// is taken again (after any other change, or the next overflow).
type Changes struct {
	root string

	mu sync.Mutex
	// fd is the inotify instance (-1: none could be made, or closed).
	fd int
	// rootDev and rootIno are the root directory's device and inode when
	// its watch was added: a root replaced since by a move above it (its
	// path another directory, its watch told nothing) is noticed by
	// Begin.
	rootDev, rootIno uint64
	// dirs: the directories watched (absolute, cleaned); wds: which
	// directories each watch descriptor stands for (one directory
	// reached by two paths shares its descriptor); files: which files
	// (one file of several links: all its paths watched).
	dirs  map[string]bool
	wds   map[int32][]string
	files map[int32][]string
	// watches counts the watches added (dirs and files) in this epoch.
	watches int
	// changed: the files a notification named, with the sequence number
	// of the drain that read it.
	changed map[string]uint64
	// seq counts the drains that read something; epoch, everything that
	// made the notifications untrustworthy (every moment of an earlier
	// epoch is then void).
	seq, epoch uint64
	buf        []byte
}

// Moment is a point in a Changes' notifications: a file confirmed
// unchanged at it is unchanged as long as no notification names it
// after it. The zero Moment is none (Unchanged says no).
type Moment struct {
	epoch, seq uint64
	ok         bool
}

// OK reports whether m is a moment (Begin of a Changes that follows):
// two moments of one Changes are equal when no drain between them read
// a notification and nothing made them untrustworthy.
func (m Moment) OK() bool { return m.ok }

// maxWatches bounds the watches (directories and files) one Changes
// adds (inotify's per-user limit, 8192 on older kernels, is shared with
// every other program: beyond, files are stamped); maxChanged bounds the
// files it remembers a notification of (beyond, it forgets them all and
// starts another epoch).
const (
	maxWatches = 2048
	maxChanged = 1 << 16
)

// dirMask is what a watched directory tells: any change of an entry's
// content, metadata or name, and the directory's own end; fileMask, what
// a watched file tells: any change of its content or metadata (its links
// counted) by whichever path, and its end.
const (
	dirMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
		unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
	fileMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW
)

// epochs numbers the epochs of every Changes of the process: a moment of
// one Changes is never of another's epoch, so Unchanged of another
// Changes (a root followed again after its Changes was closed, whose
// counts start again from where the first's did) says no, whoever keeps
// it.
var epochs atomic.Uint64

func newEpoch() uint64 { return epochs.Add(1) }

// NewChanges follows changes under root (absolute, cleaned; nothing is
// watched until Watch asks). Close ends it.
func NewChanges(root string) *Changes {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		fd = -1
	}
	return &Changes{root: filepath.Clean(root), fd: fd, epoch: newEpoch(), dirs: map[string]bool{}, wds: map[int32][]string{},
		files: map[int32][]string{}, changed: map[string]uint64{}, buf: make([]byte, 64<<10)}
}

// Close ends the following (Unchanged says no from then on).
func (c *Changes) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
	c.epoch = newEpoch()
}

// Begin drains the notifications queued and returns the moment a scan
// starting now confirms files at (Watch, then their stamps).
func (c *Changes) Begin() Moment {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd < 0 {
		return Moment{}
	}
	c.drain()
	if len(c.dirs) > 0 {
		// Raw (hot.go): the root is on a local file system and watched
		// (its inode held by the watch), reached by every scan (a rename
		// begins two in its look-ahead: diskText, namingFiles).
		var st unix.Stat_t
		if rawStat(c.root, &st) != nil || uint64(st.Dev) != c.rootDev || st.Ino != c.rootIno {
			c.forgetAll()
		}
	}
	return Moment{epoch: c.epoch, seq: c.seq, ok: true}
}

// Watch watches abs, its directory and every directory above it up to
// the root, before abs's stamp is taken: whether notifications will tell
// abs's changes from now on (false: abs is not a regular file under the
// root, or it or its directories cannot be watched or trusted).
func (c *Changes) Watch(abs string) bool {
	dir := filepath.Dir(abs)
	if dir != c.root && !strings.HasPrefix(dir, c.root+string(filepath.Separator)) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.watchDir(dir) {
		return false
	}
	var st unix.Stat_t
	if unix.Lstat(abs, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || c.watches >= maxWatches {
		return false
	}
	// Added again each time: a file replaced since is another inode.
	wd, err := unix.InotifyAddWatch(c.fd, abs, fileMask)
	if err != nil {
		return false
	}
	if !slices.Contains(c.files[int32(wd)], abs) {
		c.files[int32(wd)] = append(c.files[int32(wd)], abs)
		c.watches++
	}
	return true
}

// WatchDir watches the directory dir (under the root, or the root) and
// every directory above it up to the root: whether notifications will
// tell from now on what happens to dir's entries, by their paths (a file
// created, removed, renamed, written or its metadata changed there:
// Unchanged of its path says no once drained), whether or not they exist
// yet.
func (c *Changes) WatchDir(dir string) bool {
	if dir != c.root && !strings.HasPrefix(dir, c.root+string(filepath.Separator)) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watchDir(dir)
}

// watchDir watches dir and the directories above it up to the root (c.mu
// held; dir is under the root).
func (c *Changes) watchDir(dir string) bool {
	if c.fd < 0 {
		return false
	}
	if c.dirs[dir] {
		return true
	}
	// From the root down: a directory is watched only below watched ones
	// (what moves above it is told).
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if d == c.root {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if !c.dirs[chain[i]] && !c.watch(chain[i]) {
			return false
		}
	}
	return true
}

// watch adds d's watch (c.mu held).
func (c *Changes) watch(d string) bool {
	if c.watches >= maxWatches {
		return false
	}
	var fs unix.Statfs_t
	if unix.Statfs(d, &fs) != nil || !localFS(fs.Type) {
		return false
	}
	wd, err := unix.InotifyAddWatch(c.fd, d, dirMask)
	if err != nil {
		return false
	}
	if d == c.root {
		var st unix.Stat_t
		if unix.Stat(d, &st) != nil {
			return false
		}
		c.rootDev, c.rootIno = uint64(st.Dev), st.Ino
	}
	c.dirs[d] = true
	c.wds[int32(wd)] = append(c.wds[int32(wd)], d)
	c.watches++
	return true
}

// localFS reports whether a file system of type t tells every change by
// inotify.
func localFS(t int64) bool {
	switch uint32(t) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.F2FS_SUPER_MAGIC:
		return true
	}
	return false
}

// Unchanged reports whether nothing happened to abs since at, as of the
// last drain (Begin): at is a moment of this epoch, abs's directories are
// still watched and no notification named abs after at.
func (c *Changes) Unchanged(abs string, at Moment) bool {
	if !at.ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fd < 0 || at.epoch != c.epoch || c.changed[abs] > at.seq {
		return false
	}
	return c.dirs[filepath.Dir(abs)]
}

// drain reads every notification queued (c.mu held).
func (c *Changes) drain() {
	read := false
	for {
		// Raw: the descriptor is non-blocking (an empty queue answers
		// EAGAIN), and a scan that finds it empty, as most do, makes no
		// ordinary system call for it (hot.go says why that matters).
		n, err := rawRead(c.fd, c.buf)
		if err == unix.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			break // EAGAIN: the queue is empty
		}
		if !read {
			read = true
			c.seq++
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&c.buf[off]))
			nameLen := int(ev.Len)
			name := ""
			if nameLen > 0 {
				b := c.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
				if i := indexNUL(b); i >= 0 {
					b = b[:i]
				}
				name = string(b)
			}
			off += unix.SizeofInotifyEvent + nameLen
			c.event(ev.Wd, ev.Mask, name)
		}
	}
}

func indexNUL(b []byte) int {
	for i, x := range b {
		if x == 0 {
			return i
		}
	}
	return -1
}

// event records one notification (c.mu held).
func (c *Changes) event(wd int32, mask uint32, name string) {
	switch {
	case mask&unix.IN_Q_OVERFLOW != 0:
		c.forgetAll()
	case c.files[wd] != nil:
		// A watched file's own notification: changed by whichever path;
		// once gone (removed, its watch dropped), no longer followed.
		c.remember()
		for _, p := range c.files[wd] {
			c.changed[p] = c.seq
		}
		if mask&unix.IN_IGNORED != 0 {
			delete(c.files, wd)
		}
	case mask&(unix.IN_IGNORED|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_UNMOUNT) != 0:
		// The directory is gone, moved or its watch removed: its paths
		// name other files now. (A watch forgetAll removed is not known
		// any more: its end changes nothing.)
		if ds, ok := c.wds[wd]; ok {
			for _, d := range ds {
				delete(c.dirs, d)
			}
			delete(c.wds, wd)
			c.epoch = newEpoch()
		}
	case name != "":
		c.remember()
		for _, d := range c.wds[wd] {
			c.changed[filepath.Join(d, name)] = c.seq
		}
	}
}

// remember makes room for a notification in changed (c.mu held).
func (c *Changes) remember() {
	if len(c.changed) >= maxChanged {
		clear(c.changed)
		c.epoch = newEpoch()
	}
}

// forgetAll drops every watch and starts another epoch: the next scans
// stamp every file and watch its directories again (c.mu held).
func (c *Changes) forgetAll() {
	for wd := range c.wds {
		_, _ = unix.InotifyRmWatch(c.fd, uint32(wd))
	}
	for wd := range c.files {
		_, _ = unix.InotifyRmWatch(c.fd, uint32(wd))
	}
	clear(c.dirs)
	clear(c.wds)
	clear(c.files)
	c.watches = 0
	clear(c.changed)
	c.epoch = newEpoch()
}

// rawRead is read(2) made as a raw system call, for a non-blocking
// descriptor only (it never blocks).
func rawRead(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// rawStat is stat(2) made as a raw system call, for a path reached on
// every call (its kernel entries cached: it answers without I/O).
func rawStat(path string, st *unix.Stat_t) error {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	for {
		_, _, e := unix.RawSyscall6(unix.SYS_NEWFSTATAT, atFDCWD, uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(st)), 0, 0, 0)
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}
