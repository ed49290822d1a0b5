package workspace

import (
	"io/fs"
	"syscall"
)

func sysStat(info fs.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), st.Ino, st.Ctimespec.Nano(), true
}

// stampPathSys: StampPath asks os.Stat.
func stampPathSys(string, bool) (s Stamp, ok, done bool) { return Stamp{}, false, false }

// rawStampSys: every stat is ordinary here.
func rawStampSys(string) (s Stamp, ok, done bool) { return Stamp{}, false, false }
