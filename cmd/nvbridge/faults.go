package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/nvbridge/nvbridge/edit"
	"github.com/nvbridge/nvbridge/workspace"
)

// testPauseEnv names a step of the disk commit ("temp:25", "journal:0",
// "rename:49", "done:0": workspace.CommitHooks) at which nvbridge stops,
// says so on stderr and waits for SIGUSR1. The fault tests kill nvbridge,
// Neovim or a language server there, at a moment they choose, by event
// rather than by timing. Unset, nothing is installed.
const testPauseEnv = "NVBRIDGE_TEST_PAUSE_AT"

func installTestFaults() {
	at := os.Getenv(testPauseEnv)
	if at == "" {
		return
	}
	resume := make(chan os.Signal, 1)
	signal.Notify(resume, syscall.SIGUSR1)
	edit.TestCommitHooks = &workspace.CommitHooks{Pause: func(step string, i int) {
		if fmt.Sprintf("%s:%d", step, i) != at {
			return
		}
		fmt.Fprintf(os.Stderr, "nvbridge-test: paused at %s\n", at)
		<-resume
	}}
}
