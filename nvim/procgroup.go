package nvim

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/nvbridge/nvbridge/internal/safego"
)

// EndChild ends cmd, a child started in a process group of its own and
// already asked to exit: it waits up to wait for the exit, ends whatever of
// the group is left (EndProcessGroup with grace: the servers it started)
// and reaps cmd.
func EndChild(cmd *exec.Cmd, wait, grace time.Duration) {
	exited := make(chan struct{})
	safego.Go("waiting for a child process", func() {
		defer close(exited)
		_ = cmd.Wait()
	}, nil)
	select {
	case <-exited:
	case <-time.After(wait):
	}
	EndProcessGroup(cmd.Process.Pid, grace)
	<-exited
}

// EndProcessGroup ends process group pgid (a Neovim started in a group of
// its own and the language servers it started): SIGTERM first, SIGKILL for
// whatever is still alive after grace; it returns when no member is alive
// (or, where /proc cannot be read, after the SIGKILL). A server that ignores
// SIGTERM, or a helper process of its own (gopls's telemetry child), must
// not outlive nvbridge.
func EndProcessGroup(pgid int, grace time.Duration) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for {
		alive, known := groupAlive(pgid)
		if known && !alive {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		// Processes that are not our children give no event on exit.
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for {
		alive, known := groupAlive(pgid)
		if !known || !alive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// groupAlive reports whether a process of group pgid is alive (zombies
// waiting to be reaped do not count). known is false where /proc cannot be
// read; the caller then assumes the worst.
func groupAlive(pgid int) (alive, known bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return false, false
	}
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // exited while we looked
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parens.
		end := bytes.LastIndexByte(data, ')')
		if end < 0 {
			continue
		}
		fields := bytes.Fields(data[end+1:])
		if len(fields) < 3 || string(fields[0]) == "Z" {
			continue
		}
		if pgrp, err := strconv.Atoi(string(fields[2])); err == nil && pgrp == pgid {
			return true, true
		}
	}
	return false, true
}
