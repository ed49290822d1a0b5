--- The user's own formatter (attached mode): the formatters conform.nvim
--- would run for a buffer, and the text they make of it, computed without
--- touching the buffer (format previews it like every edit). conform.nvim
--- is used only when the user's configuration loaded it: nothing here
--- requires (and so loads) a plugin.
local M = {}

local api = vim.api
local async = require('nvbridge.async')
local fail = require('nvbridge._error').fail

local function conform()
  local c = package.loaded['conform']
  if type(c) == 'table' and type(c.list_formatters_to_run) == 'function' and type(c.format_lines) == 'function' then
    return c
  end
  return nil
end

--- The formatters the user's conform.nvim runs for bufnr, as JSON
--- {tool, formatters}; "" when conform.nvim is not loaded or runs none
--- (LSP formatting only included).
---@param bufnr integer
---@return string
function M.user_formatters(bufnr)
  local c = conform()
  if not c or not api.nvim_buf_is_loaded(bufnr) then
    return ''
  end
  local ok, list = pcall(c.list_formatters_to_run, bufnr)
  if not ok or type(list) ~= 'table' then
    return ''
  end
  local names = {}
  for _, f in ipairs(list) do
    if f.available ~= false and type(f.name) == 'string' then
      table.insert(names, f.name)
    end
  end
  if #names == 0 then
    return ''
  end
  return vim.json.encode({ tool = 'conform.nvim', formatters = names })
end

--- Completes (nvbridge_done: {lines, changedtick}) with the text
--- conform.nvim's formatters make of bufnr's lines (and the changedtick of
--- the text they formatted); the buffer is not changed.
---@param chan integer
---@param id integer
---@param bufnr integer
---@param names string[]
function M.conform_text(chan, id, bufnr, names)
  local c = conform()
  if not c then
    async.done(chan, id, fail('PRECONDITION_FAILED', 'conform.nvim is not loaded'), nil)
    return
  end
  if not api.nvim_buf_is_loaded(bufnr) then
    async.done(chan, id, fail('PRECONDITION_FAILED', 'the buffer is not loaded'), nil)
    return
  end
  local finished = false
  async.track(chan, id, function()
    finished = true
  end)
  local lines = api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local tick = vim.b[bufnr].changedtick
  local ok, err = pcall(c.format_lines, names, lines, { bufnr = bufnr, async = true, quiet = true }, function(ferr, new_lines)
    vim.schedule(function()
      if finished then
        return
      end
      finished = true
      async.untrack(chan, id)
      if ferr or type(new_lines) ~= 'table' then
        local msg = type(ferr) == 'table' and tostring(ferr.message) or 'no text'
        async.done(chan, id, fail('OPERATION_FAILED', 'conform.nvim: ' .. msg), nil)
        return
      end
      async.done(chan, id, nil, vim.json.encode({ lines = new_lines, changedtick = tick }))
    end)
  end)
  if not ok then
    finished = true
    async.untrack(chan, id)
    async.done(chan, id, fail('OPERATION_FAILED', 'conform.nvim: ' .. tostring(err)), nil)
  end
end

return M
