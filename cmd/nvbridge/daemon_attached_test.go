package main

import (
	"testing"

	gonvim "github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestDaemonNamedInNeovim: a `nvbridge call` daemon attached to the user's
// Neovim is listed there as what it is (:NvbridgeStatus), not as an
// "unknown" agent.
func TestDaemonNamedInNeovim(t *testing.T) {
	root := testenv.CopySample(t, "go")
	addr := testenv.Listening(t, root)
	c := newCLI(t, "--root", root, "--nvim", addr)
	c.call(0, "get_buffer_info", `{"file":"main.go","include_content":false}`)
	v, err := gonvim.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var transports []string
	if err := v.ExecLua(`local out = {}
for _, a in ipairs(require('nvbridge.agents').agents()) do table.insert(out, a.transport) end
return out`, &transports); err != nil {
		t.Fatal(err)
	}
	if len(transports) != 1 || transports[0] != "nvbridge call daemon" {
		t.Errorf("agents listed in Neovim: %q, want the daemon by name", transports)
	}
}
