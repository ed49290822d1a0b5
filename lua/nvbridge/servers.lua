--- Language servers started by nvbridge in its embedded Neovim (attached to a
--- user's Neovim, nvbridge uses whatever clients the user configured).
--- A server starts when a buffer of its filetype loads, rooted at the nearest
--- folder holding one of its markers, and only when its executable exists.
local M = {}

local api = vim.api

-- nvbridge.ServerSpec: see _meta.lua (Go: lang.ServerSpec).

--- The servers setup was given, in the order they are tried: the Go
--- registry's (package lang, one file per language), after any extra ones.
---@type nvbridge.ServerSpec[]
M.specs = {}

local function find_root(bufnr, markers, fallback)
  local path = api.nvim_buf_get_name(bufnr)
  local found = vim.fs.find(markers, { path = vim.fs.dirname(path), upward = true, stop = vim.uv.os_homedir() })[1]
  if found then
    return vim.fs.dirname(found)
  end
  return fallback
end

-- Neovim's client capabilities, plus what nvbridge handles that Neovim
-- 0.10 does not declare (LSP 3.17 type hierarchy: nvbridge sends those
-- requests itself).
local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.textDocument = caps.textDocument or {}
  caps.textDocument.typeHierarchy = caps.textDocument.typeHierarchy or { dynamicRegistration = false }
  return caps
end

local function start_for(bufnr, workspace_root)
  local ft = vim.bo[bufnr].filetype
  for _, spec in ipairs(M.specs) do
    if vim.tbl_contains(spec.filetypes, ft) and vim.fn.executable(spec.cmd[1]) == 1 then
      local root = find_root(bufnr, spec.markers, workspace_root)
      -- Tells bridge.wait_clients that a client is on its way to this buffer.
      vim.b[bufnr].nvbridge_lsp_expected = true
      vim.lsp.start({
        name = spec.name,
        cmd = spec.cmd,
        root_dir = root,
        init_options = spec.init_options,
        settings = spec.settings,
        cmd_env = spec.env,
        capabilities = capabilities(),
      }, { bufnr = bufnr })
      return
    end
  end
end

--- Installs the FileType autocmd that starts servers (embedded mode only).
---@param workspace_root string
---@param specs nvbridge.ServerSpec[] the servers to try, first match wins
---  (data from Go: nvim.Options.ExtraServers, then lang.ServerSpecs())
function M.setup(workspace_root, specs)
  vim.validate({ workspace_root = { workspace_root, 'string' }, specs = { specs, 'table' } })
  M.specs = {}
  for _, spec in ipairs(specs) do
    table.insert(M.specs, {
      name = spec.name,
      cmd = spec.cmd,
      filetypes = spec.filetypes,
      markers = spec.markers or {},
      init_options = spec.init_options,
      settings = spec.settings,
      env = spec.env,
      indexed_with = spec.indexed_with,
    })
  end
  local group = api.nvim_create_augroup('nvbridge_servers', { clear = true })
  api.nvim_create_autocmd('FileType', {
    group = group,
    callback = function(ev)
      if vim.bo[ev.buf].buftype == '' then
        start_for(ev.buf, workspace_root)
      end
    end,
  })
end

--- Records the server specs without starting anything (attached mode: the
--- user's configuration starts the servers; the specs still say how they
--- behave, see indexes_after_attach).
---@param specs nvbridge.ServerSpec[]
function M.known(specs)
  vim.validate({ specs = { specs, 'table' } })
  M.specs = specs
end

--- Reports whether a client indexes its workspace in the background right
--- after attaching (its spec's indexed_with file is in its root): requests
--- wait for that first $/progress work to end.
---@param client {name: string, root_dir: string|userdata}
---@return boolean
function M.indexes_after_attach(client)
  local root = type(client.root_dir) == 'string' and client.root_dir or nil
  if not root then
    return false
  end
  for _, spec in ipairs(M.specs) do
    if spec.name == client.name then
      for _, file in ipairs(spec.indexed_with or {}) do
        if (vim.uv or vim.loop).fs_stat(root .. '/' .. file) then
          return true
        end
      end
    end
  end
  return false
end

--- Reports which servers are configured and whether each is installed.
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
