--- Finding buffers by the file they name (apply, write, undo_log,
--- snapshot; buffers.lua passes them on).
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

--- Maps buffer names (and, lazily, their real paths) to buffer numbers, so a
--- file opened through a symlink is found under its real path too.
---@return fun(path: string): integer? find
function M.buffer_index()
  local by_name = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    local name = api.nvim_buf_get_name(b)
    if name ~= '' and (not by_name[name] or api.nvim_buf_is_loaded(b)) then
      by_name[name] = b
    end
  end
  local by_real
  return function(path)
    if by_name[path] then
      return by_name[path]
    end
    if not by_real then
      by_real = {}
      for name, b in pairs(by_name) do
        local real = uv.fs_realpath(name)
        if real and (not by_real[real] or api.nvim_buf_is_loaded(b)) then
          by_real[real] = b
        end
      end
    end
    return by_real[path]
  end
end

--- The loaded buffer of path, found with find (buffer_index).
---@param find fun(path: string): integer?
---@param path string
---@return integer?
function M.loaded_buffer(find, path)
  local b = find(path)
  if b and api.nvim_buf_is_loaded(b) then
    return b
  end
end

return M
