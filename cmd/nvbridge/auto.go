package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/nvbridge/nvbridge/apierr"
)

// `--nvim auto`: attach to the running Neovim whose working directory
// contains the workspace root. Each Neovim with the plugin writes a
// discovery file, stdpath('state')/nvbridge/nvim-PID.json (lua/nvbridge/
// user.lua: write_discovery), naming its address and cwd; files of
// Neovims that are gone are skipped (and removed).

// discovered is one discovery file's content.
type discovered struct {
	Address string `json:"address"`
	Cwd     string `json:"cwd"`
	PID     int    `json:"pid"`
	file    string
	mod     time.Time
}

// discoveryDir is Neovim's stdpath('state')/nvbridge: $XDG_STATE_HOME/nvim
// (else ~/.local/state/nvim), as Neovim computes it with NVIM_APPNAME.
func discoveryDir() string {
	app := os.Getenv("NVIM_APPNAME")
	if app == "" {
		app = "nvim"
	}
	state := os.Getenv("XDG_STATE_HOME")
	if state == "" {
		home, _ := os.UserHomeDir()
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, app, "nvbridge")
}

// discoverNvim returns the address of the live Neovim whose cwd contains
// root (the deepest such cwd; the newest file among equals).
func discoverNvim(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	dir := discoveryDir()
	paths, _ := filepath.Glob(filepath.Join(dir, "nvim-*.json"))
	var live, matching []discovered
	for _, p := range paths {
		d, ok := readDiscovery(p)
		if !ok {
			continue
		}
		live = append(live, d)
		cwd := d.Cwd
		if real, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = real
		}
		if abs == cwd || strings.HasPrefix(abs, cwd+string(filepath.Separator)) {
			d.Cwd = cwd
			matching = append(matching, d)
		}
	}
	if len(matching) == 0 {
		var seen []string
		for _, d := range live {
			seen = append(seen, d.Cwd)
		}
		msg := fmt.Sprintf("--nvim auto: no running Neovim with the nvbridge plugin has a working directory containing %s", abs)
		if len(seen) > 0 {
			msg += " (running: " + strings.Join(seen, ", ") + ")"
		}
		return "", apierr.New(apierr.ResourceNotFound, msg,
			"start Neovim in the project (:cd there) with the nvbridge plugin on its runtimepath (it writes "+dir+"/nvim-PID.json), or pass --nvim ADDR")
	}
	sort.SliceStable(matching, func(i, j int) bool {
		if len(matching[i].Cwd) != len(matching[j].Cwd) {
			return len(matching[i].Cwd) > len(matching[j].Cwd)
		}
		return matching[i].mod.After(matching[j].mod)
	})
	return matching[0].Address, nil
}

// readDiscovery reads one file; a file whose Neovim is gone (no process,
// or nothing listens at its address) is removed and skipped.
func readDiscovery(path string) (discovered, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return discovered{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return discovered{}, false
	}
	var d discovered
	if json.Unmarshal(data, &d) != nil || d.Address == "" || d.Cwd == "" {
		return discovered{}, false
	}
	d.file, d.mod = path, fi.ModTime()
	if d.PID > 0 && syscall.Kill(d.PID, 0) == syscall.ESRCH {
		_ = os.Remove(path)
		return discovered{}, false
	}
	network := "unix"
	if strings.Contains(d.Address, ":") && !strings.HasPrefix(d.Address, "/") {
		network = "tcp"
	}
	conn, err := net.DialTimeout(network, d.Address, 2*time.Second)
	if err != nil {
		return discovered{}, false
	}
	conn.Close()
	return d, true
}
