package nvim

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/nvbridge/nvbridge/lang"
)

// ExtraServersEnv names the environment variable that adds language servers
// to the embedded Neovim's list (JSON: a list of ServerSpec). It is how tests
// start a scripted fake server, and how a user can add a server nvbridge
// does not know without writing Lua.
const ExtraServersEnv = "NVBRIDGE_EXTRA_SERVERS"

// ServerSpec describes a language server the embedded Neovim starts (see
// lang.ServerSpec: the registry declares the built-in ones).
type ServerSpec = lang.ServerSpec

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

// serversJSON encodes what servers.setup starts: the extra servers first,
// then the registry's for the workspace at root (lang.ServerSpecsFor: the
// project's indentation in the settings of a server that reads it).
func serversJSON(root string, extra []ServerSpec) (string, error) {
	specs := append(append([]ServerSpec{}, extra...), lang.ServerSpecsFor(root)...)
	b, err := json.Marshal(specs)
	return string(b), err
}
