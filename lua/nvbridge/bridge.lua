--- The RPC-side half of nvbridge, registered in Neovim by the nvbridge
--- binary on connect (nvim/session.go); the Go process calls its functions
--- with nvim_exec_lua, always passing data as arguments, never as Lua
--- source (nvim/entrypoints.go declares every function it calls). The
--- modules, by concern:
---   bridge     setting up and tearing down what nvbridge installs
---   observe    what the language servers do, from Neovim's events
---   async      the asynchronous operations and nvbridge_done
---   wait       the waits for a buffer's servers and their diagnostics
---   status     what the servers are and support, the diagnostics held
---   buffers    loading, reconciling with the disk, reading lines
---   watch      which files changed on disk, told by the kernel (inotify)
---   settled    the buffers that agree with their files until an event says not
---   fingerprint  the content fingerprint that decides a file changed
---   apply, guard, undo_log, write    changesets into buffers and the disk
---   verify, actions, navigation, structure, syntax, servers, debug_ui
---   user, agents, review, changes    the user's side (attached mode)
---   extensions  MCP resources' change events, the user's own tools, after_tool
local M = {}

local api = vim.api

local buffers = require('nvbridge.buffers')
local loaded = require('nvbridge.loaded')

--- Installs the event hooks once per Neovim (idempotent: the Go side calls
--- it on every connect and several bridges may share one Neovim). Both
--- halves are installed again when either module is new (registered by
--- another nvbridge version), in a fresh nvbridge augroup.
function M.setup()
  local observe, async = require('nvbridge.observe'), require('nvbridge.async')
  if observe.installed and async.installed then
    return
  end
  local group = api.nvim_create_augroup('nvbridge', { clear = true })
  observe.install(group)
  async.install(group)
  require('nvbridge.settled').install(group)
end

--- Removes everything setup installed (the augroup and its autocmds),
--- answers the operations in flight and wipes the buffers nvbridge loaded
--- only to read: nothing of nvbridge's is left in the user's Neovim
--- (:NvbridgeStop). A later connect sets up again.
function M.teardown()
  pcall(api.nvim_del_augroup_by_name, 'nvbridge')
  require('nvbridge.extensions').teardown()
  local observe, async = require('nvbridge.observe'), require('nvbridge.async')
  observe.installed, async.installed = false, false
  loaded.release_extra(nil, 0)
  buffers.untrack()
  require('nvbridge.settled').clear()
  require('nvbridge.watch').close()
  async.cancel_all()
end

return M
