package lsp

import (
	"os"
	"syscall"
	"time"
)

// fileStamp is what says a file is the one read: its identity and times.
type fileStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

func stampOf(st os.FileInfo) (fileStamp, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{dev: uint64(s.Dev), ino: s.Ino, size: s.Size, mtime: s.Mtim, ctime: s.Ctim}, true
}

// changed is the later of the file's modification and change times.
func (s fileStamp) changed() time.Time {
	m, c := time.Unix(s.mtime.Unix()), time.Unix(s.ctime.Unix())
	if m.After(c) {
		return m
	}
	return c
}
