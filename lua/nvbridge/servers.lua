--- Language servers started by nvbridge in its embedded Neovim (attached to a
--- user's Neovim, nvbridge uses whatever clients the user configured).
--- A server starts when a buffer of its filetype loads, rooted at the nearest
--- folder holding one of its markers, and only when its executable exists.
local M = {}

local api = vim.api
local buf_option = require('nvbridge._compat').buf_option
-- The embedded Neovim's options (set by Go before setup), capabilities and
-- on_init: one module, which the bench's floor uses too.
local embedded = require('nvbridge.embedded')

-- nvbridge.ServerSpec: see _meta.lua (Go: lang.ServerSpec).

--- The servers setup was given, in the order they are tried: the Go
--- registry's (package lang, one file per language), after any extra ones.
---@type nvbridge.ServerSpec[]
M.specs = {}

--- The nearest folder holding one of markers (file or folder names), from
--- the folder of bufnr's file up, the home folder excepted (above the
--- first folder), else fallback: vim.fs.find(markers, {upward = true, stop
--- = home}) without its argument checks and path normalizing, a tenth of a
--- millisecond of every file's load.
---@param bufnr integer
---@param markers string[]
---@param fallback string?
---@return string?
local function find_root(bufnr, markers, fallback)
  local dir = vim.fs.dirname(api.nvim_buf_get_name(bufnr))
  local home = (vim.uv or vim.loop).os_homedir()
  local first = true
  while dir do
    if not first and dir == home then
      break
    end
    first = false
    for _, marker in ipairs(markers) do
      if (vim.uv or vim.loop).fs_stat(dir == '/' and '/' .. marker or dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fs.dirname(dir)
    if parent == dir then
      break
    end
    dir = parent
  end
  return fallback
end

--- Restarts of crashed servers: the first after restart_delay_ms, each
--- next one twice as late (at most restart_max_delay_ms), at most
--- max_restarts in a row; a server that then ran for stable_ms counts as
--- recovered (the next crash starts the count again).
M.restart_delay_ms = 500
M.restart_max_delay_ms = 30000
M.max_restarts = 5
M.stable_ms = 60000

-- Clients this module started: client id -> restart key and the buffers
-- it was started for (a client that dies before attaching has none
-- attached, yet those buffers wait for it).
---@type table<integer, {key: string, bufs: table<integer, boolean>}>
local started = {}

---@class nvbridge.Restart
---@field attempts integer crashes in a row
---@field started_at integer? uv.now() of the last (re)start
---@field timer userdata? pending restart
---@field armed_at integer? uv.now() when the pending restart was armed
---@field run fun()? starts it

---@type table<string, nvbridge.Restart>
local restarts = {}

--- The running client vim.lsp.start would reuse for a server named name
--- rooted at root (its default reuse_client: the same name, root among
--- its workspace folders), when it is initialized.
---@param name string
---@param root string?
---@return vim.lsp.Client?
local function running(name, root)
  if not root then
    return nil
  end
  for _, client in ipairs(vim.lsp.get_clients({ name = name })) do
    for _, dir in ipairs(client.workspace_folders or {}) do
      if dir.name == root then
        return client
      end
    end
  end
end

--- Attaches bufnr to the client of config, starting it unless it runs
--- (client: the running one, found by the caller).
---@param config vim.lsp.ClientConfig|fun(): vim.lsp.ClientConfig the config, or how to make it
---@param bufnr integer
---@param client vim.lsp.Client?
local function start_client(config, bufnr, client)
  vim.b[bufnr].nvbridge_lsp_expected = true
  local id
  if client then
    id = vim.lsp.buf_attach_client(bufnr, client.id) and client.id or nil
  else
    id = vim.lsp.start(type(config) == 'function' and config() or config, { bufnr = bufnr })
  end
  if id then
    client = vim.lsp.get_client_by_id(id)
    local key = client and (client.name .. '\0' .. (client.config.root_dir or '')) or ''
    started[id] = started[id] or { key = key, bufs = {} }
    started[id].bufs[bufnr] = true
    if client then
      require('nvbridge.observe').observe_exit(client)
    end
  end
  return id
end

local function arm(r, delay)
  if r.timer then
    r.timer:stop()
    r.timer:close()
    r.timer = nil
  end
  if delay <= 0 then
    r.run()
    return
  end
  r.armed_at = vim.uv.now()
  r.timer = vim.uv.new_timer()
  r.timer:start(delay, 0, vim.schedule_wrap(r.run))
end

-- Called by the bridge after a client exited abnormally (and Neovim has
-- forgotten it): restarts it, with backoff, on the buffers it served.
local function on_exit(client_id, exit, bufnrs)
  local own = started[client_id]
  started[client_id] = nil
  if not own or not exit.config then
    return
  end
  local key = own.key
  for _, bufnr in ipairs(bufnrs) do
    own.bufs[bufnr] = true
  end
  bufnrs = vim.tbl_keys(own.bufs)
  local observe = require('nvbridge.observe')
  for _, bufnr in ipairs(bufnrs) do
    if api.nvim_buf_is_valid(bufnr) then
      -- Nothing is on its way until the restart begins.
      vim.b[bufnr].nvbridge_lsp_expected = nil
      observe.mark_down(bufnr, exit)
    end
  end
  exit.managed = true
  local now = vim.uv.now()
  local r = restarts[key] or { attempts = 0 }
  restarts[key] = r
  if r.started_at and now - r.started_at >= M.stable_ms then
    r.attempts = 0
  end
  r.started_at = nil
  r.attempts = r.attempts + 1
  if r.attempts > M.max_restarts then
    exit.gave_up = true
    exit.restart = { attempt = r.attempts - 1, max = M.max_restarts, delay_ms = 0 }
    return
  end
  local delay = math.min(M.restart_delay_ms * 2 ^ (r.attempts - 1), M.restart_max_delay_ms)
  exit.restart = { attempt = r.attempts, max = M.max_restarts, delay_ms = delay }
  r.run = function()
    if r.timer then
      r.timer:stop()
      r.timer:close()
      r.timer = nil
    end
    r.armed_at, r.run = nil, nil
    r.started_at = vim.uv.now()
    for _, bufnr in ipairs(bufnrs) do
      if api.nvim_buf_is_loaded(bufnr) then
        start_client(exit.config, bufnr)
      end
    end
  end
  arm(r, delay)
end

--- Sets the first restart's delay (tests hold restarts with a large one to
--- see the "down" answers, then release them with 0). Pending restarts are
--- re-armed: due at once when the new delay has already passed.
---@param ms integer
function M.set_restart_delay(ms)
  M.restart_delay_ms = ms
  local now = vim.uv.now()
  for _, r in pairs(restarts) do
    if r.run and r.armed_at then
      local delay = math.min(ms * 2 ^ (r.attempts - 1), M.restart_max_delay_ms)
      arm(r, math.max(0, delay - (now - r.armed_at)))
    end
  end
end

-- Notifications of the servers this module starts that Neovim does not
-- handle itself.
local handlers = {
  ['experimental/serverStatus'] = function(_, result, ctx)
    require('nvbridge.observe').server_status(ctx.client_id, result)
  end,
}

-- The specs by filetype, in M.specs' order (setup makes it): a file's load
-- looked through every spec's list.
local by_filetype = {}

local function start_for(bufnr, workspace_root)
  local ft = buf_option(bufnr, 'filetype')
  for _, spec in ipairs(by_filetype[ft] or {}) do
    local root = find_root(bufnr, spec.markers, workspace_root)
    -- Every file after the first of a workspace: its server runs. The
    -- config (its capabilities, a tenth of a millisecond to make) would
    -- only be compared and dropped by vim.lsp.start's reuse.
    local client = running(spec.name, root)
    if client or vim.fn.executable(spec.cmd[1]) == 1 then
      start_client(function()
        return {
          name = spec.name,
          cmd = spec.cmd,
          root_dir = root,
          init_options = spec.init_options,
          settings = spec.settings,
          cmd_env = spec.env,
          capabilities = embedded.capabilities(),
          on_init = embedded.on_init,
          handlers = handlers,
        }
      end, bufnr, client)
      return
    end
  end
end

--- Sets up the servers of the embedded Neovim nvbridge started (nobody
--- sees it; nothing here runs in a user's Neovim; Go configures it first:
--- embedded.configure) and installs the FileType autocmd that starts
--- servers for the buffers that load.
---@param workspace_root string
---@param specs_json string nvbridge.ServerSpec[] as JSON, the servers to try, first match wins
---  (data from Go: nvim.Options.ExtraServers, then lang.ServerSpecs())
function M.setup(workspace_root, specs_json)
  vim.validate({ workspace_root = { workspace_root, 'string' }, specs_json = { specs_json, 'string' } })
  M.specs = vim.json.decode(specs_json)
  by_filetype = {}
  for _, spec in ipairs(M.specs) do
    spec.markers = spec.markers or {}
    for _, ft in ipairs(type(spec.filetypes) == 'table' and spec.filetypes or {}) do
      by_filetype[ft] = by_filetype[ft] or {}
      table.insert(by_filetype[ft], spec)
    end
  end
  local observe = require('nvbridge.observe')
  if not vim.tbl_contains(observe.exit_listeners, on_exit) then
    table.insert(observe.exit_listeners, on_exit)
  end
  local group = api.nvim_create_augroup('nvbridge_servers', { clear = true })
  api.nvim_create_autocmd('FileType', {
    group = group,
    callback = function(ev)
      if buf_option(ev.buf, 'buftype') == '' then
        start_for(ev.buf, workspace_root)
      end
    end,
  })
end

--- Records the server specs without starting anything (attached mode: the
--- user's configuration starts the servers; the specs still say how they
--- behave, see indexes_after_attach).
---@param specs_json string nvbridge.ServerSpec[] as JSON
function M.known(specs_json)
  vim.validate({ specs_json = { specs_json, 'string' } })
  M.specs = vim.json.decode(specs_json)
end

-- A spec's list field, or an empty list (absent, or JSON null: vim.NIL).
local function list(v)
  return type(v) == 'table' and v or {}
end

--- The spec of a client: the one whose name is the client's, or that
--- lists it among its client_names (a user's configuration names its
--- clients: nvim-lspconfig's ts_ls), else the one whose command the
--- client runs (vim.lsp.start({name = 'my-gopls', cmd = {'gopls'}})). nil
--- for a server nvbridge does not know.
---@param client {name: string, config: table?}
---@return nvbridge.ServerSpec?
function M.spec_of(client)
  for _, spec in ipairs(M.specs) do
    if spec.name == client.name or vim.tbl_contains(list(spec.client_names), client.name) then
      return spec
    end
  end
  local cmd = type(client.config) == 'table' and client.config.cmd
  local exe = type(cmd) == 'table' and type(cmd[1]) == 'string' and vim.fs.basename(cmd[1]) or nil
  if exe then
    for _, spec in ipairs(M.specs) do
      if list(spec.cmd)[1] == exe then
        return spec
      end
    end
  end
end

--- Whether a client's server could report its diagnosis runs (its spec has
--- diagnosis_progress) but does not (the setting that turns it on is off):
--- such a server publishes only diagnostics that changed, and nothing says
--- when it is done.
---@param client vim.lsp.Client
---@param reports boolean whether it reports them
---@return boolean
function M.silent(client, reports)
  local spec = M.spec_of(client)
  return not reports and spec ~= nil and type(spec.diagnosis_progress) == 'table'
end

--- Reports whether a client indexes its workspace in the background right
--- after attaching (its spec's indexed_with file is in its root): requests
--- wait for that first $/progress work to end.
---@param client {name: string, root_dir: string|userdata}
---@return boolean
function M.indexes_after_attach(client)
  local root = type(client.root_dir) == 'string' and client.root_dir or nil
  local spec = root and M.spec_of(client)
  for _, file in ipairs(list(spec and spec.indexed_with)) do
    if (vim.uv or vim.loop).fs_stat(root .. '/' .. file) then
      return true
    end
  end
  return false
end

--- Reports whether a client publishes one text's diagnostics in stages,
--- without a document version (its spec's staged_publishes).
---@param client {name: string}
---@return boolean
function M.staged(client)
  local spec = M.spec_of(client)
  return spec ~= nil and spec.staged_publishes == true
end

--- The commands that answer a client's diagnostics of a document at once
--- (its spec's diagnostics_sync), with the document's URI in their
--- arguments; nil when its spec has none.
---@param client {name: string}
---@param uri string
---@return nvbridge.ServerCommand[]?
function M.diagnostics_sync(client, uri)
  local spec = M.spec_of(client)
  if not spec or #list(spec.diagnostics_sync) == 0 then
    return nil
  end
  local function fill(v)
    if v == '${uri}' then
      return uri
    elseif type(v) == 'table' then
      local out = {}
      for k, x in pairs(v) do
        out[k] = fill(x)
      end
      return out
    end
    return v
  end
  return fill(spec.diagnostics_sync)
end

--- Reports whether a $/progress title is that of a diagnosis run (a spec's
--- diagnosis_progress title begins it), whichever server reports it; an
--- empty title only for the client's own spec when it says untitled work is
--- its diagnosis (pyright).
---@param title string
---@param client? {name: string}
---@return boolean
function M.diagnosis_title(title, client)
  if title == '' then
    local spec = client and M.spec_of(client)
    local p = spec and spec.diagnosis_progress
    return type(p) == 'table' and p.untitled == true
  end
  for _, spec in ipairs(M.specs) do
    local p = spec.diagnosis_progress
    if type(p) == 'table' and type(p.title) == 'string' and p.title ~= '' and title:sub(1, #p.title) == p.title then
      return true
    end
  end
  return false
end

--- Reports whether a client also publishes every file it re-checked while
--- it reports its diagnosis runs (its spec's diagnosis_progress.publishes):
--- a wait needs both its publishes and the end of its runs.
---@param client {name: string}
---@return boolean
function M.diagnosis_publishes(client)
  local spec = M.spec_of(client)
  local p = spec and spec.diagnosis_progress
  return type(p) == 'table' and p.publishes == true
end

--- Reports whether a client answers textDocument/diagnostic for a file
--- once it has checked the file's current text (its spec's
--- diagnosis_progress.pulls), whatever the client declared.
---@param client table
---@return boolean
function M.diagnosis_pulls(client)
  local spec = M.spec_of(client)
  local p = spec and spec.diagnosis_progress
  return type(p) == 'table' and p.pulls == true
end

--- Reports whether settings (a client's) turn on a spec's diagnosis
--- progress setting, whichever the client: a user's client of a known
--- server may have any name.
---@param settings table
---@return boolean
function M.reports_diagnosis(settings)
  for _, spec in ipairs(M.specs) do
    local p = spec.diagnosis_progress
    if type(p) == 'table' and #list(p.setting) > 0 then
      local v = settings
      for _, key in ipairs(p.setting) do
        v = type(v) == 'table' and v[key] or nil
      end
      if v == true then
        return true
      end
    end
  end
  return false
end

--- The requests servers send to name a symbol a command introduced (each
--- spec's rename_hints), which a capture records with the command's edits.
---@return string[]
function M.rename_hints()
  local out = {}
  for _, spec in ipairs(M.specs) do
    if type(spec.rename_hints) == 'string' and spec.rename_hints ~= '' and not vim.tbl_contains(out, spec.rename_hints) then
      table.insert(out, spec.rename_hints)
    end
  end
  return out
end

--- Reports which servers are configured and whether each is installed.
---@return {name: string, executable: string, installed: boolean, filetypes: string[]}[]
function M.status()
  local out = {}
  for _, spec in ipairs(M.specs) do
    table.insert(out, {
      name = spec.name,
      executable = spec.cmd[1],
      installed = vim.fn.executable(spec.cmd[1]) == 1,
      filetypes = spec.filetypes,
    })
  end
  return out
end

return M
