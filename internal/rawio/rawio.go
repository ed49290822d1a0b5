// Package rawio reads and writes the non-blocking pipes nvbridge talks
// over (to Neovim, and its own stdin) with read(2) and write(2) made as
// raw system calls, waiting in the runtime's poller when they would block.
//
// Why: a system call made the ordinary way (os.File's Read and Write)
// enters the scheduler's syscall state, and the first one made after the
// process was wholly idle wakes the runtime's monitor thread (sysmon),
// which then polls every 20 µs until it finds the process idle again.
// A read is two such wakes (the request's line read, Neovim's answer
// read), each followed by sysmon's polling through the busy stretch after
// it: in perf, sysmon's 20 µs sleeps were 15% of the Go process's time on
// back-to-back find_references. A read or write of a non-blocking pipe
// never blocks (it answers EAGAIN instead, and the wait is the poller's),
// so it needs none of the syscall state's care for a thread that may
// block.
//
// Only a file the runtime polls is read raw; anything else (a blocking
// descriptor, a file the poller would not take) is read and written as
// before, through os.File.
package rawio

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// File is what NewReader and NewWriter take: an *os.File, or what wraps one
// (exec's StdinPipe) and gives its raw connection.
type File interface {
	SyscallConn() (syscall.RawConn, error)
}

// Reader reads a pollable, non-blocking file with raw read(2) calls.
type Reader struct {
	r    io.Reader
	rc   syscall.RawConn
	name string
	// plain: the raw way failed once (the file is not pollable): every
	// read from then on goes through r.
	plain bool
}

// NewReader reads r raw when it is a non-blocking file (File), else it
// returns r itself.
func NewReader(r io.Reader) io.Reader {
	rc, name, ok := rawConn(r)
	if !ok {
		return r
	}
	return &Reader{r: r, rc: rc, name: name}
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.plain || len(p) == 0 {
		return r.r.Read(p)
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			r1, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // the poller waits for more
			}
			n, errno = int(r1), e
			return true
		}
	})
	switch {
	case err != nil:
		// Closed, or not a file the poller waits on: os.File says
		// which, and reads it from now on if it can.
		r.plain = true
		return r.r.Read(p)
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: r.name, Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Writer writes a pollable, non-blocking file with raw write(2) calls.
type Writer struct {
	w     io.Writer
	rc    syscall.RawConn
	name  string
	plain bool
}

// NewWriter writes w raw when it is a non-blocking file (File), else it
// returns w itself.
func NewWriter(w io.Writer) io.Writer {
	rc, name, ok := rawConn(w)
	if !ok {
		return w
	}
	return &Writer{w: w, rc: rc, name: name}
}

func (w *Writer) Write(p []byte) (int, error) {
	if w.plain || len(p) == 0 {
		return w.w.Write(p)
	}
	written := 0
	var errno syscall.Errno
	err := w.rc.Write(func(fd uintptr) bool {
		for written < len(p) {
			r1, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[written])), uintptr(len(p)-written))
			switch e {
			case 0:
				written += int(r1)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the pipe is full: the poller waits for room
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		w.plain = true
		n, err := w.w.Write(p[written:])
		return written + n, err
	case errno != 0:
		return written, &os.PathError{Op: "write", Path: w.name, Err: errno}
	}
	return written, nil
}

// rawConn is f's raw connection when f is a file in non-blocking mode (the
// runtime polls such a file: os.Pipe's, a NewFile of a non-blocking
// descriptor).
func rawConn(f any) (syscall.RawConn, string, bool) {
	sf, ok := f.(File)
	if !ok {
		return nil, "", false
	}
	rc, err := sf.SyscallConn()
	if err != nil {
		return nil, "", false
	}
	nonblocking := false
	if err := rc.Control(func(fd uintptr) {
		flags, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		nonblocking = e == 0 && flags&syscall.O_NONBLOCK != 0
	}); err != nil || !nonblocking {
		return nil, "", false
	}
	name := ""
	if n, ok := f.(interface{ Name() string }); ok {
		name = n.Name()
	}
	return rc, name, true
}
