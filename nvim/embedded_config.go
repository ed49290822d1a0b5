package nvim

import (
	"github.com/neovim/go-client/nvim"

	bridgelua "github.com/nvbridge/nvbridge/lua"
)

// ConfigureAsEmbedded configures v, a Neovim the caller started itself
// (the bench's floor: Neovim's own LSP client with nothing of nvbridge's
// on the way), as nvbridge configures the Neovim it embeds: it registers
// embedded.lua alone (no other nvbridge module) and calls its configure,
// the entry point a Session's init calls, with root. The caller then
// starts its servers with require('nvbridge.embedded').capabilities() and
// its on_init, as servers.lua does.
func ConfigureAsEmbedded(v *nvim.Nvim, root string) error {
	src, err := bridgelua.Modules.ReadFile("nvbridge/embedded.lua")
	if err != nil {
		return err
	}
	// Fixed source; the module's text and name travel as arguments.
	const load = `
local name, src = ...
package.preload[name] = function()
  return assert(loadstring(src, '@nvbridge/' .. name))()
end
package.loaded[name] = nil
`
	if err := v.ExecLua(load, nil, luaEmbeddedConfigure.f.module, string(src)); err != nil {
		return err
	}
	return luaEmbeddedConfigure.callOn(v, nil, root)
}
