package nvim_test

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"reflect"
	"syscall"
	"testing"
	"time"

	gonvim "github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/internal/testenv"
	"github.com/nvbridge/nvbridge/nvim"
)

// embeddedState reads what embedded.lua sets (the options, the current
// directory) and the capabilities and on_init it gives servers, as JSON.
const embeddedState = `
local e = require('nvbridge.embedded')
local client = { server_capabilities = { semanticTokensProvider = {}, hoverProvider = true } }
e.on_init(client)
local caps = e.capabilities()
return vim.json.encode({
  providers = { vim.g.loaded_python3_provider, vim.g.loaded_ruby_provider, vim.g.loaded_perl_provider, vim.g.loaded_node_provider },
  filetype = vim.fn.execute('filetype'),
  syntax = vim.g.syntax_on == nil,
  cwd = vim.fn.getcwd(),
  log = vim.lsp.log.get_level(),
  semantic = caps.textDocument.semanticTokens == nil,
  diagnostic = caps.textDocument.diagnostic == nil,
  type_hierarchy = caps.textDocument.typeHierarchy ~= nil,
  status = caps.experimental.serverStatusNotification,
  on_init = client.server_capabilities.semanticTokensProvider == nil and client.server_capabilities.hoverProvider,
})`

// TestConfigureAsEmbedded: a Neovim the bench starts itself (its floor,
// Neovim's own client) and configures with ConfigureAsEmbedded is set up
// as nvbridge's embedded Neovim is, by the same entry point: the same
// options, directory, log level, capabilities and on_init, and those are
// what embedded.lua means (not Neovim's defaults).
func TestConfigureAsEmbedded(t *testing.T) {
	testenv.Require(t, "nvim")
	root := t.TempDir()
	s, _ := testenv.Embedded(t, root)
	var want string
	if err := s.ExecLua(testenv.Context(t), embeddedState, &want); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("nvim", "--embed", "--headless", "--clean", "-n", "-i", "NONE")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nvim.EndChild(cmd, 3*time.Second, 2*time.Second) })
	v, err := gonvim.New(bufio.NewReader(stdout), stdin, stdin, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = v.Serve() }()
	t.Cleanup(func() { v.Close() })
	// Before: Neovim's defaults, which the configuration changes (so the
	// comparison below means something).
	var before string
	if err := v.ExecLua(`return vim.fn.execute('filetype')`, &before); err != nil {
		t.Fatal(err)
	}
	if before != "\nfiletype detection:ON  plugin:ON  indent:ON" {
		t.Fatalf("before configure: %q", before)
	}
	if err := nvim.ConfigureAsEmbedded(v, root); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := v.ExecLua(embeddedState, &got); err != nil {
		t.Fatal(err)
	}
	var gotMap, wantMap map[string]any
	if err := json.Unmarshal([]byte(got), &gotMap); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &wantMap); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotMap, wantMap) {
		t.Fatalf("configured as embedded:\n%s\nnvbridge's embedded Neovim:\n%s", got, want)
	}
	var st struct {
		Providers     []int  `json:"providers"`
		Filetype      string `json:"filetype"`
		Syntax        bool   `json:"syntax"`
		Cwd           string `json:"cwd"`
		Log           int    `json:"log"`
		Semantic      bool   `json:"semantic"`
		Diagnostic    bool   `json:"diagnostic"`
		TypeHierarchy bool   `json:"type_hierarchy"`
		Status        bool   `json:"status"`
		OnInit        bool   `json:"on_init"`
	}
	if err := json.Unmarshal([]byte(got), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Providers) != 4 || st.Filetype != "\nfiletype detection:ON  plugin:OFF  indent:OFF" || !st.Syntax || st.Cwd != root ||
		st.Log != 5 || !st.Semantic || !st.Diagnostic || !st.TypeHierarchy || !st.Status || !st.OnInit {
		t.Fatalf("not embedded.lua's configuration: %s", got)
	}
	for _, p := range st.Providers {
		if p != 0 {
			t.Fatalf("providers %v, want all 0", st.Providers)
		}
	}
}
