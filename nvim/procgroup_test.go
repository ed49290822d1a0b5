package nvim

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A process group member that ignores SIGTERM is killed after the grace.
func TestEndGroupKillsWhatIgnoresTerm(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap "" TERM; echo ready; while :; do sleep 1; done`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the trap is installed (the shell printed "ready").
	if _, err := out.Read(make([]byte, 5)); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	if alive, known := groupAlive(pgid); !known || !alive {
		t.Fatalf("groupAlive = %v, %v before ending the group; want true, true", alive, known)
	}
	EndProcessGroup(pgid, 200*time.Millisecond)
	err = cmd.Wait()
	status, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !status.Signaled() || status.Signal() != syscall.SIGKILL {
		t.Fatalf("the shell ended with %v (%v); want killed by SIGKILL", cmd.ProcessState, err)
	}
	if alive, _ := groupAlive(pgid); alive {
		t.Fatal("a member of the group is still alive")
	}
}
