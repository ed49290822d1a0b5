--- Language servers started by nvbridge in its embedded Neovim (attached to a
--- user's Neovim, nvbridge uses whatever clients the user configured).
--- A server starts when a buffer of its filetype loads, rooted at the nearest
--- folder holding one of its markers, and only when its executable exists.
local M = {}

local api = vim.api

---@class nvbridge.ServerSpec
---@field name string
---@field cmd string[]
---@field filetypes string[]
---@field markers string[]
---@field init_options table?
---@field settings table?
---@field env table<string, string>?

---@type nvbridge.ServerSpec[]
M.specs = {
  {
    name = 'gopls',
    cmd = { 'gopls' },
    filetypes = { 'go', 'gomod' },
    markers = { 'go.work', 'go.mod' },
  },
  {
    name = 'pyright',
    cmd = { 'pyright-langserver', '--stdio' },
    filetypes = { 'python' },
    markers = { 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'pyrightconfig.json' },
    settings = { python = { analysis = { diagnosticMode = 'openFilesOnly' } } },
  },
  {
    name = 'typescript-language-server',
    cmd = { 'typescript-language-server', '--stdio' },
    filetypes = { 'typescript', 'typescriptreact', 'javascript', 'javascriptreact' },
    markers = { 'tsconfig.json', 'jsconfig.json', 'package.json' },
    init_options = { supportsMoveToFileCodeAction = true },
  },
  {
    name = 'clangd',
    cmd = { 'clangd' },
    filetypes = { 'c', 'cpp', 'objc', 'objcpp' },
    markers = { 'compile_commands.json', 'compile_flags.txt' },
  },
  {
    name = 'rust-analyzer',
    cmd = { 'rust-analyzer' },
    filetypes = { 'rust' },
    markers = { 'Cargo.toml' },
  },
}

local function find_root(bufnr, markers, fallback)
  local path = api.nvim_buf_get_name(bufnr)
  local found = vim.fs.find(markers, { path = vim.fs.dirname(path), upward = true, stop = vim.uv.os_homedir() })[1]
  if found then
    return vim.fs.dirname(found)
  end
  return fallback
end

-- Servers added by the Go side (nvim.Options.ExtraServers), tried first.
---@type nvbridge.ServerSpec[]
local extra_specs = {}

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
  for _, spec in ipairs(vim.list_extend(vim.list_slice(extra_specs), M.specs)) do
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
---@param extra nvbridge.ServerSpec[]? servers to try before the built-in ones
---  (data from nvim.Options.ExtraServers: name, cmd, filetypes, markers, env)
function M.setup(workspace_root, extra)
  extra_specs = {}
  for _, spec in ipairs(extra or {}) do
    table.insert(extra_specs, {
      name = spec.name,
      cmd = spec.cmd,
      filetypes = spec.filetypes,
      markers = spec.markers or {},
      env = spec.env,
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
