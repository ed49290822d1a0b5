package workspace

import (
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// kernelRealPath asks the kernel where abs leads: abs opened with O_PATH
// (no access to the file's contents is asked for: a FIFO does not block,
// a file without read permission opens), every symlink followed, then the
// path the kernel keeps for what it opened (/proc/self/fd). The kernel
// resolves the whole path at one instant, where RealPath's walk lstats
// one component at a time (a syscall and several allocations each: some
// 20 µs of every read tool's call). false when it cannot tell (abs or a
// component missing: RealPath keeps such components as written; no
// /proc; a path the kernel reports as deleted or unreachable): RealPath
// then walks.
func kernelRealPath(abs string) (string, bool) {
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

func mkfifo(path string) error { return unix.Mkfifo(path, 0o644) }
