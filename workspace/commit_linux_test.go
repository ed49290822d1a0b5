package workspace

import (
	"os"
	"syscall"
	"unsafe"
)

func unsafePointer(p *byte) unsafe.Pointer { return unsafe.Pointer(p) }

// setImmutable sets or clears a file's immutable attribute (chattr +i).
func setImmutable(path string, on bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	const (
		getFlags      = 0x80086601 // FS_IOC_GETFLAGS
		setFlags      = 0x40086602 // FS_IOC_SETFLAGS
		immutableFlag = 0x10       // FS_IMMUTABLE_FL
	)
	var flags int
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), getFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return e
	}
	if on {
		flags |= immutableFlag
	} else {
		flags &^= immutableFlag
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), setFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return e
	}
	return nil
}

// sysRenameat2 is renameat2's number on amd64 (syscall lacks the name).
const sysRenameat2 = 316
