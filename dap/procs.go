package dap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Process bookkeeping. An adapter runs in a process group of its own, but
// the programs it debugs need not stay in it (dlv starts its debuggee in a
// new group; debugpy's launcher may too), and when an adapter is killed its
// children are re-parented and can no longer be found from it. So a session
// records the adapter's descendants (pid and start time, which tells a pid
// reused later apart) whenever the program stops or is launched, and ends
// whatever of them is still alive when the session ends.

type procStat struct {
	pid, ppid, pgrp int
	start           uint64
	zombie          bool
}

func readStat(pid int) (procStat, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, false
	}
	return parseStat(pid, data)
}

// parseStat reads "pid (comm) state ppid pgrp ... starttime(22)"; comm may
// hold spaces and parentheses.
func parseStat(pid int, data []byte) (procStat, bool) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(data[end+1:])
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(string(f[1]))
	pgrp, _ := strconv.Atoi(string(f[2]))
	start, _ := strconv.ParseUint(string(f[19]), 10, 64)
	return procStat{pid: pid, ppid: ppid, pgrp: pgrp, start: start, zombie: string(f[0]) == "Z"}, true
}

// descendants returns the live processes below pid.
func descendants(pid int) []procStat {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	children := map[int][]procStat{}
	for _, path := range stats {
		p, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if st, ok := parseStat(p, data); ok && !st.zombie {
			children[st.ppid] = append(children[st.ppid], st)
		}
	}
	var out []procStat
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}

// alive reports whether the process recorded as st still runs (same pid,
// same start time, not a zombie).
func alive(st procStat) bool {
	now, ok := readStat(st.pid)
	return ok && now.start == st.start && !now.zombie
}

// endProcesses kills the recorded processes that are still alive (and the
// groups they lead, unless it is nvbridge's own), then waits, bounded, for
// them to be gone. Debuggees may be stopped under ptrace, where only
// SIGKILL acts.
func endProcesses(procs []procStat, bound time.Duration) {
	own := syscall.Getpgrp()
	for _, st := range procs {
		if !alive(st) {
			continue
		}
		if st.pgrp == st.pid && st.pgrp != own {
			_ = syscall.Kill(-st.pgrp, syscall.SIGKILL)
		}
		_ = syscall.Kill(st.pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(bound)
	for _, st := range procs {
		waitExit(st, deadline)
	}
}

// waitExit waits until the process recorded as st has exited (a zombie
// counts as exited), or the deadline: on a pidfd, an event, not a poll.
func waitExit(st procStat, deadline time.Time) {
	fd, err := unix.PidfdOpen(st.pid, 0)
	if err != nil {
		return // gone already (ESRCH) or no pidfds: nothing to wait on
	}
	defer unix.Close(fd)
	if !alive(st) {
		return // exited, or the pid was reused before we opened it
	}
	for {
		left := int(time.Until(deadline) / time.Millisecond)
		if left <= 0 {
			return
		}
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, left)
		if !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}
