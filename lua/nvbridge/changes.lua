--- The changes agents made this session: recorded as each changeset is
--- applied (apply.lua), shown briefly highlighted and as a quickfix list,
--- and undone a whole changeset at a time (:NvbridgeUndo).
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local fail = require('nvbridge._error').fail
local user = require('nvbridge.user')
local state, log = user.state, user.log

local CHANGESETS_MAX = 64

M.ns = api.nvim_create_namespace('nvbridge_changes')
M.highlight_ms = 1500

--- Called by apply.lua after a changeset was applied: records its changed
--- ranges (quickfix, brief highlight) and its buffers under its id (undo of
--- a whole changeset).
---@param plan nvbridge.Plan
---@param targets {f: nvbridge.PlanFile, b: integer?, pushed: boolean?}[] apply.lua's, one per file
function M.applied(plan, targets)
  local paths = {}
  for _, t in ipairs(targets) do
    local f, b = t.f, t.b
    if f.kind ~= 'delete' and b and api.nvim_buf_is_valid(b) then
      local path = f.new_path or f.path
      if t.pushed then
        table.insert(paths, path)
      end
      -- Buffers left with unsaved changes are shown to the user (listed).
      if vim.bo[b].modified and not vim.bo[b].buflisted then
        vim.bo[b].buflisted = true
        vim.b[b].nvbridge_loaded = nil
      end
      local n = api.nvim_buf_line_count(b)
      -- Asked once per buffer, not per change (a 1,000-edit change paid a
      -- Vimscript call per edit).
      local shown = #vim.fn.win_findbuf(b) > 0
      local highlight = vim.hl and vim.hl.range or vim.highlight.range
      local prefix = plan.id and (plan.id .. ': ') or ''
      for _, op in ipairs(f.ops or {}) do
        local sr = op[1]
        local row = math.min(sr, n - 1)
        local text = (api.nvim_buf_get_lines(b, row, row + 1, false)[1] or '')
        table.insert(state.changes, {
          filename = path, lnum = sr + 1, col = op[2] + 1,
          text = prefix .. vim.trim(text):sub(1, 120),
        })
        if shown then
          local _, nl = op[5]:gsub('\n', '')
          pcall(highlight, b, M.ns, 'DiffText', { sr, 0 }, { math.min(sr + nl, n - 1), -1 })
        end
      end
    end
  end
  if plan.id and plan.id ~= '' and #paths > 0 then
    table.insert(state.changesets, { id = plan.id, paths = paths })
    while #state.changesets > CHANGESETS_MAX do
      table.remove(state.changesets, 1)
    end
  end
  log(('applied %s: %s'):format(plan.id or 'a change', table.concat(paths, ', ')))
  local timer = uv.new_timer()
  timer:start(M.highlight_ms, 0, vim.schedule_wrap(function()
    timer:close()
    for _, b in ipairs(api.nvim_list_bufs()) do
      pcall(api.nvim_buf_clear_namespace, b, M.ns, 0, -1)
    end
  end))
end

--- The paths of changeset id (or the last one when id is nil).
---@param id string?
---@return {id: string, paths: string[]}?
function M.changeset(id)
  for i = #state.changesets, 1, -1 do
    local c = state.changesets[i]
    if id == nil or c.id == id then
      return c
    end
  end
end

--- Forgets changeset id (it was undone).
---@param id string
function M.forget_changeset(id)
  for i, c in ipairs(state.changesets) do
    if c.id == id then
      table.remove(state.changesets, i)
      return
    end
  end
end

--- Undoes a whole changeset (the last one when id is nil) across its
--- buffers; returns undo_log.undo_all's reply plus the id.
---@param id string?
---@return {id: string?, files: nvbridge.BufferReply[]?, err: nvbridge.Error?}
function M.undo_changeset(id)
  local c = M.changeset(id)
  if not c then
    local msg = id and ('no applied changeset ' .. id .. ' in this Neovim') or 'no changeset was applied in this session'
    return { err = fail('RESOURCE_NOT_FOUND', msg) }
  end
  local r = require('nvbridge.undo_log').undo_all(c.paths)
  if not r.err then
    M.forget_changeset(c.id)
    log('undid ' .. c.id)
  end
  r.id = c.id
  return r
end

--- Sets the quickfix list to the changes of this session.
---@return integer how many
function M.changes_to_quickfix()
  vim.fn.setqflist({}, ' ', { title = 'nvbridge changes', items = state.changes })
  return #state.changes
end


return M
