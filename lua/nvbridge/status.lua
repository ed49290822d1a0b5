--- What the language servers are and support, as nvbridge answers it: the
--- clients ready for a buffer with the methods they support, every
--- client's state for get_status, and the diagnostics Neovim holds.
local M = {}

local api = vim.api

local compat = require('nvbridge._compat')
local observe = require('nvbridge.observe')
local get_clients = compat.get_clients
local supports = compat.supports
local is_stopped = compat.is_stopped

-- Neovim 0.10 does not map type hierarchy to its capability.
local type_hierarchy_methods = {
  ['textDocument/prepareTypeHierarchy'] = true,
  ['typeHierarchy/supertypes'] = true,
  ['typeHierarchy/subtypes'] = true,
}

--- Whether client supports method for bufnr (Neovim's capability check,
--- and the type hierarchy's, which Neovim 0.10 does not map).
---@param client vim.lsp.Client
---@param method string
---@param bufnr integer
---@return boolean
local function supports_method(client, method, bufnr)
  if type_hierarchy_methods[method] and (client.server_capabilities or {}).typeHierarchyProvider then
    return true
  end
  return supports(client, method, bufnr)
end

-- The methods the client supports for this buffer, by Neovim's own
-- capability check (static and dynamic registrations): every method, or
-- only those of the list wanted (a position tool names the few it may use:
-- checking and sending them all costs more than its request).
-- Every LSP method Neovim knows, and the type hierarchy ones, as a list;
-- made once (Neovim's table does not change while it runs).
local all_methods
local function every_method()
  if not all_methods then
    -- protocol.Methods is a read-only proxy: iterate the table behind it.
    local methods = vim.lsp.protocol.Methods or {}
    local mt = getmetatable(methods)
    if mt and type(mt.__index) == 'table' then
      methods = mt.__index
    end
    local seen = {}
    all_methods = {}
    for _, list in ipairs({ vim.tbl_values(methods), vim.tbl_keys(type_hierarchy_methods) }) do
      for _, method in ipairs(list) do
        if not seen[method] then
          seen[method] = true
          table.insert(all_methods, method)
        end
      end
    end
  end
  return all_methods
end

local function supported_methods(client, bufnr, wanted)
  local out = vim.empty_dict()
  if type(wanted) ~= 'table' then
    wanted = every_method()
  end
  for _, method in ipairs(wanted) do
    if supports_method(client, method, bufnr) then
      out[method] = true
    end
  end
  return out
end

local function describe(client, bufnr, wanted)
  return {
    id = client.id,
    name = client.name,
    offset_encoding = client.offset_encoding or 'utf-16',
    initialized = client.initialized == true,
    root_dir = client.config and client.config.root_dir or vim.NIL,
    methods = bufnr and supported_methods(client, bufnr, wanted) or vim.empty_dict(),
  }
end

-- The navigation methods (lsp's navigationMethods, which a test holds
-- these to): a read describes its servers with these, whatever its own
-- method, and the Go side sends only the methods beyond them, not these
-- with every read.
local navigation_methods = {
  'textDocument/definition',
  'textDocument/declaration',
  'textDocument/typeDefinition',
  'textDocument/implementation',
  'textDocument/references',
  'textDocument/hover',
  'textDocument/documentSymbol',
  'workspace/symbol',
  'textDocument/completion',
  'textDocument/signatureHelp',
  'textDocument/prepareCallHierarchy',
}

--- The navigation methods and extra (none: the navigation methods' own
--- list, shared: never changed).
---@param extra string[]?
---@return string[]
function M.position_methods(extra)
  if type(extra) ~= 'table' or #extra == 0 then
    return navigation_methods
  end
  local out = { unpack(navigation_methods) }
  for _, method in ipairs(extra) do
    table.insert(out, method)
  end
  return out
end

--- The buffer's initialized, running clients, as Neovim has them (a read
--- picks its server from these, and describes them once its request went).
---@param bufnr integer
---@return vim.lsp.Client[]
function M.ready(bufnr)
  local out = {}
  for _, client in ipairs(get_clients({ bufnr = bufnr })) do
    if client.initialized and not is_stopped(client) then
      table.insert(out, client)
    end
  end
  return out
end

--- Clients described (as ready_clients does) with the methods of wanted
--- each supports for bufnr (none without a bufnr).
---@param clients vim.lsp.Client[]
---@param bufnr integer?
---@param wanted boolean|string[]? true or nil: every method; a list: those of it
---@return nvbridge.Client[]
function M.describe(clients, bufnr, wanted)
  local out = {}
  for i, client in ipairs(clients) do
    out[i] = describe(client, bufnr, wanted)
  end
  return out
end

M.supports_method = supports_method

--- The buffer's initialized, running clients, described; with_methods
--- adds the methods each supports for the buffer (the costly part: one
--- capability check per LSP method), for the answer only.
---@param with_methods boolean|string[]? true: every supported method; a list: those of it
---@param bufnr integer
---@return nvbridge.Client[]
function M.ready_clients(bufnr, with_methods)
  return M.describe(M.ready(bufnr), with_methods and bufnr or nil, with_methods)
end

--- Diagnostics as LSP-shaped tables, for one buffer or (bufnr = nil) every
--- loaded buffer. Positions stay as Neovim holds them (0-based line, byte col).
---@param bufnr integer|nil nil (vim.NIL from Go): every loaded buffer
---@return string json
function M.diagnostics(bufnr)
  -- A Go nil arrives as vim.NIL, which vim.diagnostic.get rejects.
  if bufnr == vim.NIL then
    bufnr = nil
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, {
      bufnr = d.bufnr,
      file = api.nvim_buf_get_name(d.bufnr),
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum or d.lnum,
      end_col = d.end_col or d.col,
      severity = d.severity,
      message = d.message,
      source = d.source or vim.NIL,
      code = d.code ~= nil and tostring(d.code) or vim.NIL,
    })
  end
  return vim.json.encode(out)
end

--- Every language server client of this Neovim and every server that went
--- down (exited abnormally, not back), for get_status, as JSON: clients
--- {id, name, version, root_dir, initialized, stopped, indexing, work,
--- buffers, methods}, down {name, how, restart, gave_up, managed}.
---@return string json
function M.clients_status()
  local out = { clients = {} }
  for _, client in ipairs(get_clients()) do
    local work = {}
    for _, w in pairs(observe.work(client.id)) do
      if type(w) == 'table' then
        table.insert(work, { title = w.title or '', message = w.message or '', percentage = w.percentage or vim.NIL })
      end
    end
    local bufnrs = vim.tbl_keys(client.attached_buffers or {})
    local info = client.server_info or {}
    local stopped = compat.is_stopped(client)
    table.insert(out.clients, {
      id = client.id,
      name = client.name,
      version = type(info.version) == 'string' and info.version or '',
      root_dir = client.config and type(client.config.root_dir) == 'string' and client.config.root_dir or '',
      initialized = client.initialized == true,
      stopped = stopped == true,
      indexing = not stopped and observe.busy({ client }) or false,
      work = work,
      buffers = #bufnrs,
      methods = bufnrs[1] and supported_methods(client, bufnrs[1]) or vim.empty_dict(),
    })
  end
  out.down = observe.down_list()
  return vim.json.encode(out)
end

return M
