package workspace

import (
	"io/fs"
	"syscall"
	"unsafe"
)

func sysStat(info fs.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), st.Ino, st.Ctim.Nano(), true
}

// stampPathSys is StampPath asked of the system itself: the stamp os.Stat
// (os.Lstat) and StampOf would make, without the FileInfo they allocate
// (a workspace scan stamps every file of a language).
func stampPathSys(abs string, follow bool) (s Stamp, ok, done bool) {
	var st syscall.Stat_t
	var err error
	for {
		if follow {
			err = syscall.Stat(abs, &st)
		} else {
			err = syscall.Lstat(abs, &st)
		}
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ENOENT {
		return Stamp{Missing: true}, true, true
	}
	if err != nil {
		return Stamp{}, false, true
	}
	return stampOfStat(&st), true, true
}

// stampOfStat is the stamp of what st describes.
func stampOfStat(st *syscall.Stat_t) Stamp {
	return Stamp{Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size, Mode: fileMode(st.Mode),
		Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}

// fileMode is the fs.FileMode os.Stat gives a file of the system's mode m.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// rawStampSys is stampPathSys(abs, true) made as a raw system call
// (hot.go).
func rawStampSys(abs string) (s Stamp, ok, done bool) {
	p, err := syscall.BytePtrFromString(abs)
	if err != nil {
		return Stamp{}, false, true
	}
	var st syscall.Stat_t
	for {
		_, _, e := syscall.RawSyscall6(syscall.SYS_NEWFSTATAT, atFDCWD, uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&st)), 0, 0, 0)
		switch e {
		case 0:
			return stampOfStat(&st), true, true
		case syscall.EINTR:
			continue
		case syscall.ENOENT:
			return Stamp{Missing: true}, true, true
		}
		return Stamp{}, false, true
	}
}
