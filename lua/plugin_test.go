package lua_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestPluginLoadsHeadless runs the user plugin in a clean headless Neovim:
// the commands exist, the guard makes a second load a no-op, and
// :checkhealth nvbridge runs its checks.
func TestPluginLoadsHeadless(t *testing.T) {
	testenv.Require(t, "nvim")
	repo := testenv.RepoRoot(t)
	home := t.TempDir()
	out := filepath.Join(home, "out.txt")
	script := `
local lines = {}
table.insert(lines, 'start=' .. vim.fn.exists(':NvbridgeStart'))
table.insert(lines, 'stop=' .. vim.fn.exists(':NvbridgeStop'))
table.insert(lines, 'status=' .. vim.fn.exists(':NvbridgeStatus'))
table.insert(lines, 'debug=' .. vim.fn.exists(':NvbridgeDebug'))
vim.cmd('runtime plugin/nvbridge.lua')
table.insert(lines, 'loaded=' .. tostring(vim.g.loaded_nvbridge))
vim.cmd('checkhealth nvbridge')
local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
table.insert(lines, 'health_neovim=' .. tostring(health:find('Neovim', 1, true) ~= nil))
table.insert(lines, 'health_binary=' .. tostring(health:find('nvbridge', 1, true) ~= nil))
vim.fn.writefile(lines, vim.env.OUT)
`
	cmd := exec.Command("nvim", "--headless", "--clean", "-n", "-i", "NONE",
		"--cmd", "set rtp^="+repo, "-c", "runtime plugin/nvbridge.lua", "-c", "lua "+script, "-c", "qa!")
	cmd.Env = append(cmd.Environ(), "OUT="+out, "XDG_CONFIG_HOME="+home, "XDG_STATE_HOME="+home, "XDG_DATA_HOME="+home)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "start=2\nstop=2\nstatus=2\ndebug=2\nloaded=true\nhealth_neovim=true\nhealth_binary=true\n"
	if strings.TrimSpace(string(got)) != strings.TrimSpace(want) {
		t.Fatalf("plugin state:\n%s\nwant:\n%s", got, want)
	}
}
