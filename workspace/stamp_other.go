//go:build !linux && !darwin

package workspace

import "io/fs"

// Elsewhere nothing is stamped: every read reads again.
func sysStat(fs.FileInfo) (dev, ino uint64, ctime int64, ok bool) { return 0, 0, 0, false }

// stampPathSys: StampPath asks os.Stat.
func stampPathSys(string, bool) (s Stamp, ok, done bool) { return Stamp{}, false, false }

// rawStampSys: every stat is ordinary here.
func rawStampSys(string) (s Stamp, ok, done bool) { return Stamp{}, false, false }
