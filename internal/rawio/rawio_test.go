package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// A pipe's ends (os.Pipe's: non-blocking, polled) are read and written raw;
// what goes in comes out whole and in order, a write larger than the pipe
// holds waits in the poller for the reader (EAGAIN), and the end of the
// writer is io.EOF.
func TestPipeRaw(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rr, ww := NewReader(r), NewWriter(w)
	if _, ok := rr.(*Reader); !ok {
		t.Fatalf("NewReader(os.Pipe's read end) = %T, want the raw *Reader", rr)
	}
	if _, ok := ww.(*Writer); !ok {
		t.Fatalf("NewWriter(os.Pipe's write end) = %T, want the raw *Writer", ww)
	}
	// 1 MiB: sixteen times a pipe's default capacity.
	want := make([]byte, 1<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	wrote := make(chan error, 1)
	go func() {
		n, err := ww.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		w.Close()
		wrote <- err
	}()
	got, err := io.ReadAll(rr)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}
	if n, err := rr.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("read after the end = %d, %v; want 0, io.EOF", n, err)
	}
}

// A write to a pipe whose reader is gone fails as os.File's does (EPIPE,
// which the session takes for a closed connection).
func TestWriteBrokenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	_, err = NewWriter(w).Write([]byte("x"))
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a pipe without reader: %v, want EPIPE", err)
	}
}

// A file in blocking mode (as exec hands a child its stdin) and a reader
// that is no file are used as they are: a raw read of a blocking
// descriptor would hold its thread without the scheduler knowing.
func TestBlockingUntouched(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// Fd puts the descriptor in blocking mode; the dup is a file of its
	// own to close.
	fd, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	blocking := os.NewFile(uintptr(fd), "blocking")
	defer blocking.Close()
	if got := NewReader(blocking); got != io.Reader(blocking) {
		t.Fatalf("NewReader(a blocking file) = %T, want the file itself", got)
	}
	var buf bytes.Buffer
	if got := NewWriter(&buf); got != io.Writer(&buf) {
		t.Fatalf("NewWriter(a buffer) = %T, want the buffer itself", got)
	}
}

// A closed file's read fails as os.File's does.
func TestReadClosed(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rr := NewReader(r)
	r.Close()
	if _, err := rr.Read(make([]byte, 4)); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("read of a closed file: %v, want os.ErrClosed", err)
	}
}
