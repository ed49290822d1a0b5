--- The changes agents made this session: recorded as each changeset is
--- applied (apply.lua), shown briefly highlighted and as a quickfix list,
--- undone a whole changeset at a time (:NvbridgeUndo) or all of them
--- (:NvbridgeRevertAll), with what an undo reverts shown before it runs.
--- Buffers nvbridge listed because it left changes unsaved in them are
--- put back out of sight once saved or undone (settle).
local M = {}

local api = vim.api
local buf_option = require('nvbridge._compat').buf_option
local uv = vim.uv or vim.loop

local buffers = require('nvbridge.buffers')
local loaded = require('nvbridge.loaded')
local fail = require('nvbridge._error').fail
local undo_log = require('nvbridge.undo_log')
local user = require('nvbridge.user')
local state, log = user.state, user.log

local CHANGESETS_MAX = 64
-- The old text an undo of one changeset would bring back is kept up to
-- this size (what it reverts is shown to the user); beyond, it is not.
local INVERSE_MAX = 8 * 1024 * 1024

M.ns = api.nvim_create_namespace('nvbridge_changes')
--- How long changed ranges stay highlighted (ms); nil: the user's setting
--- (setup({highlight_ms = ...}), vim.g.nvbridge_highlight_ms, else 1500).
---@type integer?
M.highlight_ms = nil
--- The quickfix list of the changes keeps the last this many items (a
--- session of large changes would otherwise grow it without end).
M.changes_max = 10000

local group = api.nvim_create_augroup('nvbridge_changes', { clear = false })

--- The size of the text an inverse op list holds.
local function inverse_size(ops)
  local n = 0
  for _, op in ipairs(ops) do
    for _, l in ipairs(op[1] == 'lines' and op[2] or op[5]) do
      n = n + #l + 1
    end
  end
  return n
end

--- Puts b, which nvbridge listed because it left unsaved changes in it, out
--- of sight again once nothing is unsaved (after a save or an undo): not
--- listed, and among the buffers nvbridge loaded only to read, which it
--- unloads beyond g:nvbridge_max_loaded. A buffer the user showed in a
--- window is theirs and stays.
---@param b integer
function M.settle(b)
  if not api.nvim_buf_is_valid(b) or not vim.b[b].nvbridge_listed then
    return
  end
  if buf_option(b, 'modified') or #vim.fn.win_findbuf(b) > 0 then
    return
  end
  vim.b[b].nvbridge_listed = nil
  vim.bo[b].buflisted = false
  vim.b[b].nvbridge_loaded = true
  table.insert(loaded.loaded_order, b)
  loaded.release_extra()
end

--- Lists b: nvbridge left changes unsaved in it, which the user must see
--- (:ls, :qa); settle puts it back once they are saved or undone, unless
--- the user shows it meanwhile (then it is theirs).
local function show_unsaved(b)
  vim.bo[b].buflisted = true
  vim.b[b].nvbridge_loaded = nil
  vim.b[b].nvbridge_listed = true
  api.nvim_create_autocmd('BufWinEnter', {
    group = group,
    buffer = b,
    once = true,
    callback = function()
      vim.b[b].nvbridge_listed = nil
    end,
  })
end

--- Called by apply.lua after a changeset was applied: records its changed
--- ranges (quickfix, brief highlight), its buffers under its id (undo of
--- a whole changeset) and what undoing it reverts.
---@param plan nvbridge.Plan
--- targets: apply.lua's, one per file.
---@param targets {f: nvbridge.PlanFile, b: integer?, pushed: boolean?, inverse: table?, seq_after: integer?, eol_before: boolean?}[]
function M.applied(plan, targets)
  local paths, inverse, kept = {}, {}, 0
  local groups = {} -- one list of quickfix items per file, top down
  local ms = M.highlight_ms or user.highlight_ms()
  for _, t in ipairs(targets) do
    local f, b = t.f, t.b
    if f.kind ~= 'delete' and b and api.nvim_buf_is_valid(b) then
      local path = f.new_path or f.path
      if t.pushed then
        table.insert(paths, path)
        if t.inverse then
          kept = kept + inverse_size(t.inverse)
          inverse[path] = { seq = t.seq_after, ops = t.inverse, eol = t.eol_before }
        end
      end
      -- Buffers left with unsaved changes are shown to the user (listed).
      if buf_option(b, 'modified') and not buf_option(b, 'buflisted') then
        show_unsaved(b)
      end
      local n = api.nvim_buf_line_count(b)
      local shown = ms > 0 and #vim.fn.win_findbuf(b) > 0
      local prefix = plan.id and (plan.id .. ': ') or ''
      local ops = f.ops or {}
      -- The lines the ops left, when apply knows them (one-line ops);
      -- else each is read from the buffer.
      local after = t.after_lines
      local items = {}
      local row_done, row_text
      -- The ops come last line first: the list reads top down.
      for i = #ops, 1, -1 do
        local op = ops[i]
        local sr = op[1]
        local text
        if after and after[i] then
          if row_done ~= sr then
            -- A row's first op here is the last applied to it: its line is
            -- the row as it is now.
            row_done, row_text = sr, after[i]
          end
          text = row_text
        else
          local row = math.min(sr, n - 1)
          text = api.nvim_buf_get_lines(b, row, row + 1, false)[1] or ''
        end
        -- The item's text is made when the list is shown (quickfix_text).
        if #text > 512 then
          text = vim.trim(text):sub(1, 120)
        end
        items[#items + 1] = { filename = path, lnum = sr + 1, col = op[2] + 1, line = text, prefix = prefix }
        if shown and sr < n then
          -- The changed lines, whole (vim.highlight.range with an end
          -- column of -1 marks nothing in Neovim 0.10).
          local _, nl = op[5]:gsub('\n', '')
          local er = math.min(sr + nl, n - 1)
          local last = api.nvim_buf_get_lines(b, er, er + 1, false)[1] or ''
          pcall(api.nvim_buf_set_extmark, b, M.ns, sr, 0, { end_row = er, end_col = #last, hl_group = 'DiffText', hl_eol = true })
        end
      end
      groups[#groups + 1] = { path = path, items = items }
    end
  end
  -- File by file, in name order.
  table.sort(groups, function(x, y)
    return x.path < y.path
  end)
  local items = {}
  for _, g in ipairs(groups) do
    vim.list_extend(items, g.items)
  end
  vim.list_extend(state.changes, items)
  local over = #state.changes - M.changes_max
  if over > 0 then
    local list = state.changes
    table.move(list, over + 1, #list, 1)
    for i = #list, #list - over + 1, -1 do
      list[i] = nil
    end
  end
  if plan.id and plan.id ~= '' and #paths > 0 then
    table.insert(state.changesets, { id = plan.id, paths = paths, inverse = kept <= INVERSE_MAX and inverse or nil })
    while #state.changesets > CHANGESETS_MAX do
      table.remove(state.changesets, 1)
    end
  end
  log(('applied %s: %s'):format(plan.id or 'a change', table.concat(paths, ', ')))
  if ms > 0 then
    local timer = uv.new_timer()
    timer:start(ms, 0, vim.schedule_wrap(function()
      timer:close()
      for _, b in ipairs(api.nvim_list_bufs()) do
        pcall(api.nvim_buf_clear_namespace, b, M.ns, 0, -1)
      end
    end))
  end
end

--- The paths of changeset id (or the last one when id is nil).
---@param id string?
---@return {id: string, paths: string[], inverse: table?}?
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
  id = id ~= vim.NIL and id or nil
  local c = M.changeset(id)
  if not c then
    local msg = id and ('no applied changeset ' .. id .. ' in this Neovim') or 'no changeset was applied in this session'
    return { err = fail('RESOURCE_NOT_FOUND', msg) }
  end
  local r = undo_log.undo_all(c.paths)
  if not r.err then
    M.forget_changeset(c.id)
    log('undid ' .. c.id)
  end
  r.id = c.id
  return r
end

-- What an undo reverts ---------------------------------------------------

--- lines with the text from (sr, sc) to (er, ec) replaced by repl (a list
--- of lines), as nvim_buf_set_text does; lines is changed in place.
local function splice(lines, sr, sc, er, ec, repl)
  local first, last = lines[sr + 1] or '', lines[er + 1] or ''
  local new = {}
  for i, l in ipairs(repl) do
    new[i] = l
  end
  if #new == 0 then
    new[1] = ''
  end
  new[1] = first:sub(1, sc) .. new[1]
  new[#new] = new[#new] .. last:sub(ec + 1)
  local old_n, new_n = er - sr + 1, #new
  if new_n ~= old_n then
    local count = #lines
    table.move(lines, er + 2, count, sr + 1 + new_n)
    for i = count + new_n - old_n + 1, count do
      lines[i] = nil
    end
  end
  for i = 1, new_n do
    lines[sr + i] = new[i]
  end
end

--- The text of lines as a buffer of b's format writes it, the last line
--- ended when eol.
local function text_of(b, lines, eol)
  if #lines == 0 or (#lines == 1 and lines[1] == '') then
    return ''
  end
  local nl = buf_option(b, 'fileformat') == 'dos' and '\r\n' or '\n'
  return table.concat(lines, nl) .. (eol and nl or '')
end

--- The texts around undoing inv (a changeset's inverse for b) in lines
--- (b's lines now, or what earlier simulated undos left): {now, before}.
local function reverted(lines, inv)
  local out = lines
  for i = #inv.ops, 1, -1 do
    local op = inv.ops[i]
    if op[1] == 'lines' then
      out = vim.list_extend({}, op[2])
    else
      splice(out, op[1], op[2], op[3], op[4], op[5])
    end
  end
  return out
end

--- The buffer of path and the last nvbridge change recorded in it, or
--- the error that leaves nothing to undo there.
local function undo_top(find, path)
  local b = buffers.loaded_buffer(find, path)
  if not b then
    return nil, nil, nil, fail('PRECONDITION_FAILED', path .. ' is not open in Neovim: there is nothing to undo', { path = path })
  end
  local records = undo_log.undo_records(b)
  local top = records[#records]
  if not top then
    return nil, nil, nil, fail('PRECONDITION_FAILED', 'no nvbridge change to undo in ' .. path, { path = path })
  end
  return b, top, records
end

--- The inverse recorded for the change that left path's buffer at undo
--- state seq.
local function inverse_at(path, seq)
  for i = #state.changesets, 1, -1 do
    local inv = state.changesets[i].inverse and state.changesets[i].inverse[path]
    if inv and inv.seq == seq then
      return inv
    end
  end
end

---@class nvbridge.UndoPreviewFile
---@field path string absolute
---@field now string the buffer's text now
---@field before string? its text once undone (nil: not known)

--- What an undo would revert, checked as the undo itself checks it, without
--- changing anything: for path (its last nvbridge change) or for changeset
--- id (nil: the last one) when path is nil.
---@param path string?
---@param id string?
---@return {id: string?, files: nvbridge.UndoPreviewFile[]?, err: nvbridge.Error?}
function M.undo_preview(path, id)
  -- A nil from Go arrives as vim.NIL.
  path = path ~= vim.NIL and path or nil
  id = id ~= vim.NIL and id or nil
  local find = buffers.buffer_index()
  local paths, c = { path }, nil
  if not path then
    c = M.changeset(id)
    if not c then
      local msg = id and ('no applied changeset ' .. id .. ' in this Neovim') or 'no changeset was applied in this session'
      return { err = fail('RESOURCE_NOT_FOUND', msg) }
    end
    paths = c.paths
  end
  local files = {}
  for _, p in ipairs(paths) do
    local b, top, _, err = undo_top(find, p)
    if err then
      if c then
        err.message = err.message .. ' (the changeset cannot be undone)'
      end
      return { err = err }
    end
    local seq = undo_log.undo_seq(b)
    if seq ~= top.after then
      return {
        err = fail('CONFLICT', p .. ' was edited (or undone) after nvbridge changed it; nothing was undone', { path = p }),
      }
    end
    local inv = c and c.inverse and c.inverse[p] or (not c and inverse_at(p, top.after)) or nil
    local lines = api.nvim_buf_get_lines(b, 0, -1, false)
    local f = { path = p, now = text_of(b, lines, buf_option(b, 'eol')) }
    if inv then
      f.before = text_of(b, reverted(lines, inv), inv.eol)
    end
    table.insert(files, f)
  end
  return { id = c and c.id, files = files }
end

--- The changesets an undo of everything would take back, newest first:
--- each one not followed by an edit of the user's (nor by a change that
--- is, in the same buffer). Simulated on the undo records; with texts, the
--- files' texts now and once all of them are undone.
local function revert_plan(texts)
  local find = buffers.buffer_index()
  local sim = {} -- path -> {b, records, seq, lines, eol, known}
  local plan, skipped = {}, {}
  for i = #state.changesets, 1, -1 do
    local c = state.changesets[i]
    local why
    for _, p in ipairs(c.paths) do
      local s = sim[p]
      if not s then
        local b = buffers.loaded_buffer(find, p)
        s = { b = b, known = true }
        if b then
          s.records, s.seq = undo_log.undo_records(b), undo_log.undo_seq(b)
          s.eol = buf_option(b, 'eol')
        end
        sim[p] = s
      end
      local top = s.records and s.records[#s.records]
      if not s.b then
        why = p .. ' is no longer open in Neovim'
      elseif not top then
        why = 'already undone in ' .. p
      elseif top.after ~= s.seq then
        why = p .. ' was edited after it'
      end
      if why then
        break
      end
    end
    if why then
      table.insert(skipped, { id = c.id, reason = why })
    else
      table.insert(plan, c)
      for _, p in ipairs(c.paths) do
        local s = sim[p]
        local top = table.remove(s.records)
        s.seq = top.before
        if texts then
          if not s.lines then
            s.lines = api.nvim_buf_get_lines(s.b, 0, -1, false)
            s.now = text_of(s.b, s.lines, buf_option(s.b, 'eol'))
          end
          local inv = c.inverse and c.inverse[p]
          if inv and s.known then
            s.lines = reverted(s.lines, inv)
            s.eol = inv.eol
          else
            s.known = false
          end
        end
      end
    end
  end
  local files = {}
  if texts then
    for p, s in pairs(sim) do
      if s.lines then
        table.insert(files, { path = p, now = s.now, before = s.known and text_of(s.b, s.lines, s.eol) or nil })
      end
    end
    table.sort(files, function(x, y)
      return x.path < y.path
    end)
  end
  return plan, skipped, files
end

---@class nvbridge.RevertReply
---@field undone string[] the changesets undone (or that would be), newest first
---@field skipped {id: string, reason: string}[] those left: edited after, or no longer open
---@field files nvbridge.UndoPreviewFile[] (dry) the files' texts now and once undone
---@field err nvbridge.Error?

--- Undoes every changeset agents applied in this session that the user has
--- not edited after, newest first, each across its buffers (every window
--- keeps its view). dry: only says what it would undo, with the texts.
---@param dry boolean
---@return nvbridge.RevertReply
function M.revert_all(dry)
  local plan, skipped, files = revert_plan(dry)
  local out = { undone = {}, skipped = skipped, files = files }
  for _, c in ipairs(plan) do
    if not dry then
      local r = M.undo_changeset(c.id)
      if r.err then
        out.err = r.err
        return out
      end
    end
    table.insert(out.undone, c.id)
  end
  if not dry then
    log(('reverted %d changeset(s), %d left'):format(#out.undone, #skipped))
  end
  return out
end

--- Sets the quickfix list to the changes of this session.
---@return integer how many
function M.changes_to_quickfix()
  for _, it in ipairs(state.changes) do
    if it.line then
      -- The changeset's id, then the line (trimmed, cut) as the change left it.
      it.text = it.prefix .. vim.trim(it.line):sub(1, 120)
      it.line, it.prefix = nil, nil
    end
  end
  vim.fn.setqflist({}, ' ', { title = 'nvbridge changes', items = state.changes })
  return #state.changes
end

--- Removes what this module keeps in the user's Neovim: the highlights and
--- the autocmds of the buffers it listed (:NvbridgeStop).
function M.teardown()
  for _, b in ipairs(api.nvim_list_bufs()) do
    pcall(api.nvim_buf_clear_namespace, b, M.ns, 0, -1)
  end
  pcall(api.nvim_clear_autocmds, { group = group })
end

return M
