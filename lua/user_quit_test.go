package lua_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gonvim "github.com/neovim/go-client/nvim"
	"golang.org/x/sys/unix"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestQuitWithServer: quitting Neovim while :NvbridgeStart's server runs
// ends the server with it and says nothing about it (it used to print
// "nvbridge exited with code 141" as Neovim quit); Neovim exits 0 and
// leaves no process behind.
func TestQuitWithServer(t *testing.T) {
	testenv.Require(t, "nvim")
	testenv.Isolate(t)
	bin := nvbridgeBinary(t)
	root := writeFiles(t, map[string]string{"a.txt": "one\n"})
	// Every message goes to stderr, where the test reads it.
	init := `require('nvbridge').setup({ cmd = ` + luaString(bin) + `, approve = 'never' })
vim.notify = function(msg) io.stderr:write('notify: ' .. msg .. '\n') end
`
	initPath := filepath.Join(t.TempDir(), "init.lua")
	if err := os.WriteFile(initPath, []byte(init), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "nvim.sock")
	cmd := exec.Command("nvim", "--headless", "--clean", "-n", "-i", "NONE", "--listen", sock,
		"--cmd", "set rtp^="+testenv.RepoRoot(t), "-c", "runtime plugin/nvbridge.lua", "-c", "luafile "+initPath)
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

	var v *gonvim.Nvim
	deadline := time.Now().Add(testenv.Timeout())
	for {
		var err error
		if v, err = gonvim.Dial(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Neovim did not listen:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond) // a socket gives no event to wait on
	}
	defer v.Close()
	// The server starts, and says so once it listens.
	var up bool
	if err := v.ExecLua(`local serving = false
local notify = vim.notify
vim.notify = function(msg, ...) if msg:find('http://', 1, true) then serving = true end return notify(msg, ...) end
vim.cmd('NvbridgeStart 127.0.0.1:0')
return vim.wait(60000, function() return serving end, 20)`, &up); err != nil || !up {
		t.Fatalf(":NvbridgeStart did not serve (%v):\n%s", err, stderr.String())
	}
	server := childWith(cmd.Process.Pid, "mcp --http")
	if server == 0 {
		t.Fatal("no nvbridge mcp --http process under Neovim")
	}
	// The user quits: the request ends with the connection.
	_ = v.Command("qa")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("Neovim exited with %v:\n%s", err, stderr.String())
		}
	case <-testenv.Context(t).Done():
		t.Fatalf("Neovim did not quit:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "exited with code") || strings.Contains(stderr.String(), "could not start") {
		t.Errorf("quitting said:\n%s", stderr.String())
	}
	// The server does not outlive Neovim (it was stopped before Neovim
	// exited): wait for its end on a pidfd, an event.
	fd, err := unix.PidfdOpen(server, 0)
	if err != nil {
		if !errors.Is(err, syscall.ESRCH) {
			t.Fatal(err)
		}
		return
	}
	defer unix.Close(fd)
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(testenv.Timeout()/time.Millisecond))
	if err != nil || n == 0 {
		t.Errorf("the server (pid %d) outlived Neovim (%v)", server, err)
	}
}

// childWith is the pid of a child of parent whose command line holds
// word, or 0.
func childWith(parent int, word string) int {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(parent) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), word) {
			return pid
		}
	}
	return 0
}

// luaString quotes s for Lua source.
func luaString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
