package nvim

import (
	"context"
)

// NeovimInfo is what get_status says about Neovim.
type NeovimInfo struct {
	Mode    string `json:"mode"` // embedded | attached
	Version string `json:"version"`
	// Address is Neovim's listen address (v:servername; for an attached
	// Neovim also the address nvbridge dialled).
	Address string `json:"address,omitempty"`
	Dialled string `json:"dialled,omitempty"`
	Cwd     string `json:"cwd"`
}

// Info asks Neovim for its version, address and working directory.
func (s *Session) Info(ctx context.Context) (NeovimInfo, error) {
	out := NeovimInfo{Mode: "attached", Dialled: s.addr}
	if s.embedded {
		out.Mode = "embedded"
	}
	var r struct {
		Version    string `msgpack:"version"`
		Servername string `msgpack:"servername"`
		Cwd        string `msgpack:"cwd"`
	}
	const code = "return { version = tostring(vim.version()), servername = vim.v.servername, cwd = vim.fn.getcwd() }"
	if err := s.ExecLua(ctx, code, &r); err != nil {
		return out, err
	}
	out.Version, out.Address, out.Cwd = r.Version, r.Servername, r.Cwd
	return out, nil
}

// ExtraServers are the servers added to the embedded Neovim's list
// ($NVBRIDGE_EXTRA_SERVERS), before the registry's.
func (s *Session) ExtraServers() []ServerSpec { return s.extra }

// Closed reports whether the connection to Neovim has ended.
func (s *Session) Closed() bool { return s.isClosed() }
