package nvim

import (
	"encoding/json"
	"fmt"
	"os"
)

// ExtraServersEnv names the environment variable that adds language servers
// to the embedded Neovim's list (JSON: a list of ServerSpec). It is how tests
// start a scripted fake server, and how a user can add a server nvbridge
// does not know without writing Lua.
const ExtraServersEnv = "NVBRIDGE_EXTRA_SERVERS"

// ServerSpec describes a language server the embedded Neovim starts for
// buffers of some filetypes (see lua/nvbridge/servers.lua). It is data: it
// travels to Lua as JSON, never as source.
type ServerSpec struct {
	Name      string   `json:"name"`
	Cmd       []string `json:"cmd"`
	Filetypes []string `json:"filetypes"`
	// Markers are root markers (files or folders); the nearest folder
	// holding one is the server's root, else the workspace root.
	Markers []string `json:"markers,omitempty"`
	// Env is added to the server's environment (vim.lsp.start cmd_env).
	Env map[string]string `json:"env,omitempty"`
}

// ExtraServersFromEnv parses $NVBRIDGE_EXTRA_SERVERS (nil when unset).
func ExtraServersFromEnv() ([]ServerSpec, error) {
	raw := os.Getenv(ExtraServersEnv)
	if raw == "" {
		return nil, nil
	}
	var specs []ServerSpec
	if err := json.Unmarshal([]byte(raw), &specs); err != nil {
		return nil, fmt.Errorf("$%s: want a JSON list of {name, cmd, filetypes, markers}: %w", ExtraServersEnv, err)
	}
	for i, s := range specs {
		if s.Name == "" || len(s.Cmd) == 0 || len(s.Filetypes) == 0 {
			return nil, fmt.Errorf("$%s: entry %d needs name, cmd and filetypes", ExtraServersEnv, i)
		}
	}
	return specs, nil
}

// extraServersJSON encodes specs for servers.setup ("[]" when none).
func extraServersJSON(specs []ServerSpec) (string, error) {
	if specs == nil {
		specs = []ServerSpec{}
	}
	b, err := json.Marshal(specs)
	return string(b), err
}
