package workspace

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelRealPath asks the kernel where abs leads. First with no symlink
// allowed on the way (plainRealPath): a path the kernel opens so is its
// own real path, cleaned; most paths a tool is given are such, and this
// costs an open and a close. Otherwise abs is opened with O_PATH (no
// access to the file's contents is asked for: a FIFO does not block, a
// file without read permission opens), every symlink followed, and the
// kernel says which path it keeps for what it opened (/proc/self/fd).
// The kernel resolves the whole path at one instant, where RealPath's walk
// lstats one component at a time (a syscall and several allocations each:
// some 20 µs of every read tool's call). false when it cannot tell (abs or
// a component missing: RealPath keeps such components as written; no
// /proc; a path the kernel reports as deleted or unreachable): RealPath
// then walks.
func kernelRealPath(abs string) (string, bool) {
	switch real, how := plainRealPath(abs); how {
	case plainOpened:
		return real, true
	case plainMissing:
		return "", false
	}
	fd, err := unix.Open(abs, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	buf := make([]byte, 512)
	for {
		n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
		if err != nil {
			return "", false
		}
		if n < len(buf) {
			p := string(buf[:n])
			// "(unreachable)/..." is not absolute; a deleted file's path
			// ends " (deleted)" (a file may be named so too: walk then).
			if !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") || filepath.Clean(p) != p {
				return "", false
			}
			return p, true
		}
		if len(buf) >= 1<<16 {
			return "", false
		}
		buf = make([]byte, 2*len(buf))
	}
}

// plainHow is what plainRealPath could tell.
type plainHow int

const (
	// plainOpened: the kernel opened the path without meeting a symlink.
	plainOpened plainHow = iota
	// plainMissing: a component is missing, or one that is not a folder
	// has more after it, before any symlink: opened with symlinks
	// followed, the path fails the same way.
	plainMissing
	// plainUnknown: a symlink on the way, or openat2 refused (a kernel
	// before 5.6, a seccomp filter, ...): ask otherwise.
	plainUnknown
)

// noOpenat2 is set once openat2 is known not to be there.
var noOpenat2 atomic.Bool

// plainRealPath opens abs with O_PATH and RESOLVE_NO_SYMLINKS: the kernel
// refuses (ELOOP) at the first symlink on the way, the last component's
// included (magic links, /proc/self/..., too). When it opens, no component
// is a symlink, each but the last is a folder, and each ".." went up from
// a folder reached by name: the path leads where its cleaned text says,
// which is then its real path (the walk's answer: it follows nothing and
// applies ".." to what it reached). Nothing is cached: each answer is the
// kernel's of the moment, as the /proc answer is.
func plainRealPath(abs string) (string, plainHow) {
	if noOpenat2.Load() {
		return "", plainUnknown
	}
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	now := time.Now().UnixNano()
	var fd int
	var err error
	if isHot(abs, now) {
		// Raw (hot.go): the kernel's entries for abs are cached.
		rawCalls.Add(1)
		if fd, err = rawOpenat2(abs, how); err == nil {
			rawClose(fd)
		}
	} else if fd, err = unix.Openat2(unix.AT_FDCWD, abs, how); err == nil {
		unix.Close(fd)
	}
	switch {
	case err == nil:
		markHot(abs, now)
		return filepath.Clean(abs), plainOpened
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
		return "", plainMissing
	case errors.Is(err, unix.ENOSYS):
		noOpenat2.Store(true)
	}
	return "", plainUnknown
}

func mkfifo(path string) error { return unix.Mkfifo(path, 0o644) }

// rawOpenat2 is unix.Openat2(AT_FDCWD, path, how) made as a raw system
// call (hot.go).
func rawOpenat2(path string, how *unix.OpenHow) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	for {
		fd, _, e := syscall.RawSyscall6(unix.SYS_OPENAT2, atFDCWD, uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(how)), unsafe.Sizeof(*how), 0, 0)
		switch e {
		case 0:
			return int(fd), nil
		case syscall.EINTR:
			continue
		}
		return -1, e
	}
}

// rawClose closes fd with a raw system call (hot.go).
func rawClose(fd int) {
	syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
}

// atFDCWD is AT_FDCWD (-100) as a system call's argument.
var atFDCWD = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()
