--- The log of the changes nvbridge made in each buffer (the undo tool, and
--- the user's changes told apart from nvbridge's), and the undo of the
--- last change of a buffer or of a whole changeset. The log lives in each
--- buffer's variable nvbridge_undo only.
local M = {}

local api = vim.api

local buffers = require('nvbridge.buffers')
local fail = require('nvbridge._error').fail
local buf_option = require('nvbridge._compat').buf_option
local buffer_index, loaded_buffer, describe = buffers.buffer_index, buffers.loaded_buffer, buffers.describe

-- How many nvbridge changes per buffer the undo tool remembers.
local UNDO_DEPTH = 100

--- The buffer's undo state (undotree().seq_cur), without building the
--- whole undo tree as undotree() does.
---@param b integer
---@return integer
local function undo_seq(b)
  return api.nvim_buf_call(b, vim.fn.changenr)
end

-- The changes nvbridge made in a buffer, oldest first, live in the buffer
-- variable nvbridge_undo as "before:after:tick:eol:clean;..." (one string:
-- converting a list of dicts at every edit costs more than the edit).
-- before/after are undo states around the change, tick the changedtick
-- after it, eol the 'eol' value before it, clean whether the buffer had no
-- unsaved changes before it.

---@class nvbridge.UndoRecord
---@field before integer the undo state before the change
---@field after integer the undo state after it
---@field tick integer the changedtick after it
---@field eol boolean 'eol' before it
---@field clean boolean the buffer had no unsaved changes before it

---@param e nvbridge.UndoRecord
---@return string
local function encode_undo(e)
  return string.format('%d:%d:%d:%d:%d', e.before, e.after, e.tick, e.eol and 1 or 0, e.clean and 1 or 0)
end

---@param s string
---@return nvbridge.UndoRecord
local function decode_undo(s)
  local before, after, tick, eol, clean = s:match('^(%d+):(%d+):(%d+):(%d):(%d)$')
  return {
    before = tonumber(before),
    after = tonumber(after),
    tick = tonumber(tick),
    eol = eol == '1',
    clean = clean == '1',
  }
end

--- The records of nvbridge's changes in b, oldest first.
---@param b integer
---@return nvbridge.UndoRecord[]
local function undo_records(b)
  local out = {}
  for entry in (vim.b[b].nvbridge_undo or ''):gmatch('[^;]+') do
    table.insert(out, decode_undo(entry))
  end
  return out
end

--- Stores b's records, the last UNDO_DEPTH of them.
---@param b integer
---@param records nvbridge.UndoRecord[]
local function set_undo_records(b, records)
  local parts = {}
  for i = math.max(1, #records - UNDO_DEPTH + 1), #records do
    table.insert(parts, encode_undo(records[i]))
  end
  vim.b[b].nvbridge_undo = table.concat(parts, ';')
end

--- Whether the buffer has unsaved changes that nvbridge did not make: its
--- undo state is not reached from a clean state by nvbridge's changes alone.
---@param b integer
---@return boolean
local function modified_by_user(b)
  -- buf_option: vim.bo switches into the autocmd window and back for a
  -- buffer not current (about 20 us of every snapshot of a loaded buffer).
  if not buf_option(b, 'modified') then
    return false
  end
  local stack = undo_records(b)
  local seq = undo_seq(b)
  for i = #stack, 1, -1 do
    local e = stack[i]
    if e.after ~= seq then
      return true
    end
    if e.clean then
      return false
    end
    seq = e.before
  end
  -- A rename or creation nvbridge made without text edits sets 'modified'
  -- on a clean buffer, at this undo state.
  return vim.b[b].nvbridge_marked ~= seq
end

--- Whether b keeps undo history ('undolevels' >= 0).
---@param b integer
---@return boolean
local function undo_enabled(b)
  local ul = vim.bo[b].undolevels
  if ul == -123456 then
    ul = vim.go.undolevels
  end
  return ul >= 0
end

--- Starts a new undo block in b, so that this change is one undo step of its
--- own (setting 'undolevels' to itself breaks the undo sequence).
---@param b integer
local function break_undo(b)
  api.nvim_buf_call(b, function()
    vim.bo.undolevels = vim.bo.undolevels
  end)
end

--- Records a change nvbridge made in b.
---@param b integer
---@param record nvbridge.UndoRecord
local function push_undo(b, record)
  local records = undo_records(b)
  table.insert(records, record)
  set_undo_records(b, records)
end

--- Forgets the last change recorded in b (undone or rolled back).
---@param b integer
local function pop_undo(b)
  local records = undo_records(b)
  table.remove(records)
  set_undo_records(b, records)
end

M.undo_seq = undo_seq
M.undo_records = undo_records
M.set_undo_records = set_undo_records
M.modified_by_user = modified_by_user
M.undo_enabled = undo_enabled
M.break_undo = break_undo
M.push_undo = push_undo
M.pop_undo = pop_undo

--- The view (cursor, topline, ...) of every window showing b, for
--- restore_views after an undo (which moves the cursor to the change).
---@param b integer
---@return table<integer, table> views by window
function M.save_views(b)
  local views = {}
  for _, w in ipairs(vim.fn.win_findbuf(b)) do
    views[w] = api.nvim_win_call(w, vim.fn.winsaveview)
  end
  return views
end

--- Puts back the views save_views took, in the windows still there.
---@param views table<integer, table>
function M.restore_views(views)
  for w, view in pairs(views) do
    if api.nvim_win_is_valid(w) then
      pcall(api.nvim_win_call, w, function()
        vim.fn.winrestview(view)
      end)
    end
  end
end

--- The buffer of path, its nvbridge undo records and the last of them, or
--- the error that leaves nothing to undo (gone: what to say, after the
--- path, when no buffer holds it).
local function undo_target(find, path, gone)
  local b = loaded_buffer(find, path)
  if not b then
    return nil, nil, nil, fail('PRECONDITION_FAILED', path .. gone, { path = path })
  end
  local records = undo_records(b)
  local top = records[#records]
  if not top then
    return nil, nil, nil, fail('PRECONDITION_FAILED', 'no nvbridge change to undo in ' .. path, { path = path })
  end
  return b, records, top
end

--- Undoes the last nvbridge change in the buffer of path, unless the buffer
--- was edited after it.
---@return nvbridge.BufferReply
---@param path string absolute
function M.undo(path)
  local b, records, top, err = undo_target(buffer_index(), path, ' is not open in Neovim: there is nothing to undo')
  if err then
    return { err = err }
  end
  local seq = undo_seq(b)
  if seq ~= top.after then
    return {
      err = fail(
        'CONFLICT',
        string.format(
          '%s was edited (or undone) after nvbridge changed it (undo state %d, nvbridge left %d); use u in Neovim instead',
          path,
          seq,
          top.after
        ),
        { path = path }
      ),
    }
  end
  if top.before ~= top.after then
    local views = M.save_views(b)
    api.nvim_buf_call(b, function()
      vim.cmd('silent undo ' .. top.before)
    end)
    M.restore_views(views)
  end
  if undo_seq(b) ~= top.before then
    return { err = fail('OPERATION_FAILED', 'Neovim could not undo the change in ' .. path, { path = path }) }
  end
  vim.bo[b].eol = top.eol
  pop_undo(b)
  -- A buffer nvbridge listed for its unsaved change, now clean, is put
  -- back out of sight (changes.lua).
  local changes = package.loaded['nvbridge.changes']
  if changes then
    pcall(changes.settle, b)
  end
  local d = describe(b)
  d.remaining = #records - 1
  return d
end

--- Undoes the last nvbridge change in every buffer of paths as one step:
--- all are checked first (each buffer's last nvbridge change must be the
--- one it holds, nothing typed since), then all are undone; nothing is
--- undone when one refuses. Every window keeps its view.
---@param paths string[]
---@return {files: nvbridge.BufferReply[], err: nvbridge.Error?}
function M.undo_all(paths)
  local find = buffer_index()
  for _, path in ipairs(paths) do
    local b, _, top, err = undo_target(find, path, ' is no longer open in Neovim: the changeset cannot be undone')
    if err then
      return { err = err }
    end
    if undo_seq(b) ~= top.after then
      return {
        err = fail('CONFLICT', path .. ' was edited (or undone) after the changeset; nothing was undone', { path = path }),
      }
    end
  end
  local out = {}
  for _, path in ipairs(paths) do
    local d = M.undo(path)
    d.path = path
    if d.err then
      d.err.message = d.err.message .. ' (earlier files of the changeset were undone)'
      return { err = d.err }
    end
    table.insert(out, d)
  end
  return { files = out }
end

return M
