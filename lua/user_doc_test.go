package lua_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestHelpTags: :helptags on doc/ runs clean (no duplicate or bad tags),
// the committed doc/tags is what it generates, :help nvbridge opens the
// file, and every user command of the plugin is documented with a tag.
func TestHelpTags(t *testing.T) {
	testenv.Require(t, "nvim")
	repo := testenv.RepoRoot(t)
	tmp := t.TempDir()
	doc := filepath.Join(tmp, "doc")
	if err := os.MkdirAll(doc, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(repo, "doc", "nvbridge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(doc, "nvbridge.txt"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out.txt")
	script := `
local lines = {}
local ok, err = pcall(vim.cmd, 'helptags ' .. vim.fn.fnameescape(vim.env.DOC))
table.insert(lines, 'helptags=' .. tostring(ok) .. ' ' .. tostring(err or ''))
table.insert(lines, 'messages=' .. vim.fn.execute('messages'):gsub('\n', ' '))
vim.opt.rtp:prepend(vim.env.TMP)
local hok, herr = pcall(vim.cmd, 'help nvbridge')
table.insert(lines, 'help=' .. tostring(hok) .. ' ' .. tostring(herr or '') .. ' ' .. vim.fn.expand('%:t'))
table.insert(lines, 'helpline=' .. vim.fn.line('.'))
local cmds = {}
for name in pairs(vim.api.nvim_get_commands({})) do
  if name:match('^Nvbridge') then table.insert(cmds, name) end
end
table.sort(cmds)
table.insert(lines, 'commands=' .. table.concat(cmds, ','))
vim.fn.writefile(lines, vim.env.OUT)
`
	cmd := exec.Command("nvim", "--headless", "--clean", "-n", "-i", "NONE",
		"--cmd", "set rtp^="+repo, "-c", "runtime plugin/nvbridge.lua", "-c", "lua "+script, "-c", "qa!")
	cmd.Env = append(cmd.Environ(), "OUT="+out, "DOC="+doc, "TMP="+tmp, "XDG_CONFIG_HOME="+tmp, "XDG_STATE_HOME="+tmp, "XDG_DATA_HOME="+tmp)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(got)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		res[k] = v
	}
	if res["helptags"] != "true " || strings.Contains(res["messages"], "E1") {
		t.Errorf(":helptags not clean: %s / messages %q", res["helptags"], res["messages"])
	}
	if !strings.HasPrefix(res["help"], "true") || !strings.HasSuffix(res["help"], "nvbridge.txt") {
		t.Errorf(":help nvbridge: %s", res["help"])
	}
	// :help nvbridge opens the file at its top (its own *nvbridge* tag),
	// not at a tag that merely starts with the word.
	if n, err := strconv.Atoi(res["helpline"]); err != nil || n > 3 {
		t.Errorf(":help nvbridge lands on line %s, not at the top of the file", res["helpline"])
	}
	generated, err := os.ReadFile(filepath.Join(doc, "tags"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(repo, "doc", "tags"))
	if err != nil {
		t.Fatalf("doc/tags is not committed: %v", err)
	}
	if string(generated) != string(committed) {
		t.Errorf("doc/tags is stale: regenerate it (nvim --headless --clean -c 'helptags doc' -c q)")
	}
	for _, c := range strings.Split(res["commands"], ",") {
		if !strings.Contains(string(committed), ":"+c+"\t") {
			t.Errorf(":%s has no help tag in doc/nvbridge.txt", c)
		}
	}
	if len(strings.Split(res["commands"], ",")) < 10 {
		t.Errorf("commands %s: the plugin did not define them", res["commands"])
	}
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// TestMain removes the binary nvbridgeBinary built (70 copies of it, 1.5 GB,
// had piled up in /tmp).
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// nvbridgeBinary builds the nvbridge binary once per test run.
func nvbridgeBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nvbridge-bin-")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		binPath = filepath.Join(dir, "nvbridge")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/nvbridge")
		cmd.Dir = testenv.RepoRoot(t)
		if b, err := cmd.CombinedOutput(); err != nil {
			binErr = err
			binPath = string(b)
		}
	})
	if binErr != nil {
		t.Fatalf("build nvbridge: %v\n%s", binErr, binPath)
	}
	return binPath
}

// healthText runs :checkhealth nvbridge in the user's Neovim and returns
// its buffer.
func (u *userNvim) healthText() string {
	u.t.Helper()
	var text string
	u.lua(`vim.cmd('checkhealth nvbridge')
local t = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
vim.cmd('bwipeout')
return t`, &text)
	return text
}

// TestCheckhealth: without a language server checkhealth says so and what
// to do; with the user's gopls it lists it with its filetype and the
// capabilities the tools need; versions, the agent and the approval mode
// are shown.
func TestCheckhealth(t *testing.T) {
	testenv.Require(t, "nvim", "gopls", "go")
	bin := nvbridgeBinary(t)
	root := testenv.CopySample(t, "go")
	u := startUser(t, root, `require('nvbridge').setup({ cmd = vim.env.NVBRIDGE_BIN })
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(ev)
    vim.lsp.start({ name = 'user-gopls', cmd = { 'gopls' }, root_dir = vim.fs.root(ev.buf, { 'go.mod' }) })
  end,
})
`, "--cmd", "let $NVBRIDGE_BIN = '"+bin+"'")
	text := u.healthText()
	for _, want := range []string{"plugin version", "binary " + bin + ": nvbridge", "agent on channel", "(stdio)", "approval: writes",
		"no language server is running", "open a file of your project"} {
		if !strings.Contains(text, want) {
			t.Errorf("checkhealth without a server lacks %q:\n%s", want, text)
		}
	}
	u.env.LSP.AttachGrace = 3 * time.Second
	u.lua(`vim.cmd.edit(...)`, nil, u.abs("main.go"))
	u.mustCall("get_buffer_info", `{"file":"main.go","include_content":false}`) // waits for the user's gopls
	text = u.healthText()
	if !regexp.MustCompile(`user-gopls \(id \d+, utf-16\) for go: .*definition.*references.*rename`).MatchString(text) {
		t.Errorf("checkhealth with gopls:\n%s", text)
	}
	if strings.Contains(text, "no language server is running") {
		t.Errorf("checkhealth still says no server:\n%s", text)
	}
}

// TestStartBusyPort: :NvbridgeStart on a busy address reports an error
// (not success), and :NvbridgeStatus does not claim a server.
func TestStartBusyPort(t *testing.T) {
	bin := nvbridgeBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	root := writeFiles(t, map[string]string{"a.txt": "a\n"})
	u := startUser(t, root, `require('nvbridge').setup({ cmd = vim.env.NVBRIDGE_BIN })`, "--cmd", "let $NVBRIDGE_BIN = '"+bin+"'")
	notes := make(chan string, 16)
	if err := u.s.Handle("test_notify", func(args ...any) {
		if len(args) > 0 {
			if s, ok := args[0].(string); ok {
				notes <- s
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	u.lua(`local chan = ...
vim.notify = function(msg, level) vim.rpcnotify(chan, 'test_notify', (level == vim.log.levels.ERROR and 'ERROR ' or '') .. msg) end
vim.cmd('NvbridgeStart ' .. select(2, ...))`, nil, u.s.Channel(), ln.Addr().String())
	ctx := testenv.Context(t)
	for {
		select {
		case n := <-notes:
			if strings.HasPrefix(n, "ERROR nvbridge could not start") {
				if !strings.Contains(n, "address already in use") {
					t.Errorf("the error does not say why: %s", n)
				}
				var status []string
				u.lua(`return require('nvbridge').status_lines()`, &status)
				if strings.Contains(strings.Join(status, "\n"), "HTTP") {
					t.Errorf("status claims a server: %v", status)
				}
				return
			}
			if strings.Contains(n, "MCP at") || strings.Contains(n, "HTTP:") {
				t.Fatalf("reported success on a busy port: %s", n)
			}
		case <-ctx.Done():
			t.Fatal("no error reported for the busy port")
		}
	}
}
