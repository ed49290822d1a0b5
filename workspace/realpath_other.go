//go:build !linux

package workspace

// kernelRealPath is the Linux kernel's answer (realpath_linux.go); here
// RealPath walks.
func kernelRealPath(string) (string, bool) { return "", false }

func mkfifo(string) error { return nil }
