--- Helpers for nvbridge's navigation tools that look beyond one buffer.
--- Called from Go (nvim/entrypoints.go); data arrives as arguments, never
--- as source. Nothing here blocks.
local M = {}

local api = vim.api

local compat = require('nvbridge._compat')
local get_clients = compat.get_clients
local supports = compat.supports
local stopped = compat.is_stopped

--- Every initialized client attached to a loaded buffer that supports
--- method ("" for any client), once per client, with one buffer it is
--- attached to (requests go through a buffer). Buffers are visited in number
--- order, so the answer is stable.
---@param method string e.g. "workspace/symbol", or ""
---@return string json nvbridge.WorkspaceClient[]
function M.workspace_clients(method)
  vim.validate({ method = { method, 'string' } })
  local out = {}
  local seen = {}
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(bufnr) then
      for _, client in ipairs(get_clients({ bufnr = bufnr })) do
        if
          not seen[client.id]
          and client.initialized
          and not stopped(client)
          and (method == '' or supports(client, method, bufnr))
        then
          seen[client.id] = true
          table.insert(out, {
            id = client.id,
            name = client.name,
            offset_encoding = client.offset_encoding or 'utf-16',
            root_dir = client.config and client.config.root_dir or vim.NIL,
            bufnr = bufnr,
          })
        end
      end
    end
  end
  return vim.json.encode(out)
end

return M
