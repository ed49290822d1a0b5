--- The atomic application of a changeset's plan of edits to many buffers in
--- ONE call (Go package edit), with rollback: every file is checked first,
--- then all are edited (one undo step per buffer), then, with save or
--- deletions, the disk is changed through one commit (write.lua). Called
--- from Go (nvim/entrypoints.go); data arrives as arguments, never as
--- source, and nothing here waits on anything.
---
--- Positions are Neovim's: 0-based lines, 0-based byte columns. Errors are
--- returned as {err = nvbridge.Error}, never thrown.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local buffers, loaded = require('nvbridge.buffers'), require('nvbridge.loaded')
local compat = require('nvbridge._compat')
local fail = require('nvbridge._error').fail
local guard = require('nvbridge.guard').guard
local snapshot = require('nvbridge.snapshot')
local undo_log = require('nvbridge.undo_log')
local write = require('nvbridge.write')
local extensions = require('nvbridge.extensions')
local get_clients = compat.get_clients
local read_file, load, record_disk = buffers.read_file, buffers.load, buffers.record_disk
local fingerprint, is_empty, buffer_text = buffers.fingerprint, buffers.is_empty, buffers.buffer_text
local buffer_index, loaded_buffer, describe, reconcile = buffers.buffer_index, buffers.loaded_buffer, buffers.describe, buffers.check_disk
local as_loaded = snapshot.as_loaded
local undo_seq, modified_by_user = undo_log.undo_seq, undo_log.modified_by_user
local undo_enabled, break_undo, push_undo, pop_undo = undo_log.undo_enabled, undo_log.break_undo, undo_log.push_undo, undo_log.pop_undo
local disk_changed, prepare_write, commit = write.disk_changed, write.prepare_write, write.commit
local mark_written, old_file_removal = write.mark_written, write.old_file_removal

-- The buffers whose followers an apply paused: {b, tracked}.
local paused = {}

-- Validation -----------------------------------------------------------------

local function op_error(path, i, msg)
  return fail('INVALID_PARAMETER', string.format('%s: edit %d: %s', path, i, msg), { path = path })
end

--- Whether byte col (0-based) of line falls inside a multibyte character
--- (an ASCII byte there never does: no string call for most positions).
local function inside_char(line, col)
  if col <= 0 or col >= #line or line:byte(col + 1) < 0x80 then
    return false
  end
  return vim.str_utf_start(line, col + 1) ~= 0
end

--- The error of position (row, col) of line, or nil when it fits.
local function check_pos(path, i, line, row, col)
  if col < 0 or col > #line then
    return op_error(path, i, string.format('column %d is past the end of line %d (%d bytes)', col, row, #line))
  end
  if inside_char(line, col) then
    return op_error(path, i, string.format('position %d:%d is inside a multibyte character', row, col))
  end
end

--- Checks that ops (descending, [sr, sc, er, ec, text]) fit the buffer.
--- Returns nil (or the error) and, by op index, the line of a one-line op
--- as it is now: its old text is cut from it (apply_ops) instead of being
--- read again.
local function check_ops(b, path, ops)
  local count = api.nvim_buf_line_count(b)
  local lines = {}
  local prow, pcol
  for i, op in ipairs(ops) do
    local sr, sc, er, ec = op[1], op[2], op[3], op[4]
    if sr < 0 or er < sr or er >= count or (sr == er and ec < sc) then
      return op_error(path, i, string.format('range %d:%d-%d:%d is outside the buffer (%d lines)', sr, sc, er, ec, count)), lines
    end
    local sline = api.nvim_buf_get_lines(b, sr, sr + 1, true)[1]
    local eline = sline
    if er == sr then
      lines[i] = sline
    else
      eline = api.nvim_buf_get_lines(b, er, er + 1, true)[1]
    end
    local err = check_pos(path, i, sline, sr, sc) or check_pos(path, i, eline, er, ec)
    if err then
      return err, lines
    end
    if prow and (er > prow or (er == prow and ec > pcol)) then
      return op_error(path, i, 'edits overlap or are not in descending order'), lines
    end
    prow, pcol = sr, sc
  end
  return nil, lines
end

local function detach_clients(b)
  local ids = {}
  for _, client in ipairs(get_clients({ bufnr = b })) do
    table.insert(ids, client.id)
    vim.lsp.buf_detach_client(b, client.id)
  end
  return ids
end

local function attach_clients(b, ids)
  for _, id in ipairs(ids) do
    pcall(vim.lsp.buf_attach_client, b, id)
  end
end

--- Renames a buffer (not the file); language servers see didClose of the
--- old name and didOpen of the new one.
local function rename_buffer(b, name)
  local ids = detach_clients(b)
  local ok, err = pcall(api.nvim_buf_set_name, b, name)
  attach_clients(b, ids)
  if not ok then
    error(err, 0)
  end
end

--- Applies one file's text ops to its buffer t.b, recording what rollback
--- needs in t.
local function apply_ops(t, f, fail_at)
  local b = t.b
  local has_ops = #f.ops > 0 or f.clear or f.trim_tail
  t.modified_before = compat.buf_option(b, 'modified')
  t.user_modified = modified_by_user(b)
  t.eol_before = compat.buf_option(b, 'eol')
  if not has_ops and f.eol == nil then
    return
  end
  -- nvbridge's own followers of the buffer's lines need not see each op:
  -- paused here, they follow it again once the apply is over (apply).
  if #f.ops > 0 then
    paused[#paused + 1] = { b = b, tracked = buffers.untrack(b) }
    extensions.pause(b)
  end
  break_undo(b)
  t.seq_before = undo_seq(b)
  t.undo = undo_enabled(b)
  local inverse = {}
  t.inverse = inverse
  -- The line each op leaves its row with, by op index, when every op is
  -- one line (changes.lua lists them without reading the buffer again;
  -- the ops being in descending order, a row's last op leaves it final).
  local after = not (f.clear or f.trim_tail) and {} or nil
  local old_lines = t.lines or {}
  local prev_row, prev_line
  for i, op in ipairs(f.ops) do
    local sr, sc, er, ec = op[1], op[2], op[3], op[4]
    local text = op[5]
    -- Most edits are one line (a rename): no split for them.
    local multi = text:find('\n', 1, true)
    local lines = multi and vim.split(text, '\n', { plain = true }) or { text }
    -- The inverse of every op is kept (rollback without undo history; what
    -- an undo of this change reverts, shown to the user: changes.lua). A
    -- one-line op's old text is cut from its line as check_ops read it:
    -- the ops before it (descending) changed only what comes after it.
    local line = old_lines[i]
    local old
    if line then
      old = { line:sub(sc + 1, ec) }
    else
      old = api.nvim_buf_get_text(b, sr, sc, er, ec, {})
    end
    local last = #lines == 1 and sc + #lines[1] or #lines[#lines]
    api.nvim_buf_set_text(b, sr, sc, er, ec, lines)
    inverse[i] = { sr, sc, sr + #lines - 1, last, old }
    t.applied = true
    if after and line and not multi then
      local base = prev_row == sr and prev_line or line
      prev_row, prev_line = sr, base:sub(1, sc) .. text .. base:sub(ec + 1)
      after[i] = prev_line
    else
      after = nil
    end
  end
  t.after_lines = after
  if f.clear then
    table.insert(t.inverse, { 'lines', api.nvim_buf_get_lines(b, 0, -1, false) })
    api.nvim_buf_set_lines(b, 0, -1, false, {})
    t.applied = true
  end
  if f.trim_tail then
    local n = api.nvim_buf_line_count(b)
    local last = api.nvim_buf_get_lines(b, n - 1, n, true)[1]
    if n < 2 or last ~= '' then
      error(string.format('expected an empty last line to remove, found %q', last), 0)
    end
    local before = api.nvim_buf_get_lines(b, n - 2, n - 1, true)[1]
    table.insert(t.inverse, { n - 2, #before, n - 2, #before, { '', '' } })
    api.nvim_buf_set_text(b, n - 2, #before, n - 1, 0, { '' })
    t.applied = true
  end
  if f.eol ~= nil then
    vim.bo[b].eol = f.eol
  end
  local count = api.nvim_buf_line_count(b)
  if count ~= f.line_count then
    error(string.format('the buffer has %d lines after the edit, expected %d', count, f.line_count), 0)
  end
  if fail_at and fail_at == f.path then
    error('injected failure (test hook)', 0)
  end
  t.seq_after = undo_seq(b)
  if t.applied then
    -- An edit right after this one (by the user or a plugin, in the same
    -- moment) is an undo step of its own, not joined to nvbridge's: undo
    -- and the user-edit checks then see it.
    break_undo(b)
  end
  -- An 'eol'-only change is no undo step of Neovim's; the record still lets
  -- the undo tool restore 'eol'.
  if (t.applied and t.undo) or (not t.applied and f.eol ~= nil) then
    push_undo(b, {
      before = t.seq_before,
      after = t.seq_after,
      tick = vim.b[b].changedtick,
      eol = t.eol_before,
      clean = not t.modified_before,
    })
    t.pushed = true
  end
end

--- Undoes what apply_ops did to t.b.
local function revert_ops(t)
  local b = t.b
  if t.pushed then
    pop_undo(b)
  end
  if not t.applied then
    if t.eol_before ~= nil then
      vim.bo[b].eol = t.eol_before
      vim.bo[b].modified = t.modified_before
    end
    return
  end
  if t.undo then
    api.nvim_buf_call(b, function()
      vim.cmd('silent undo ' .. t.seq_before)
    end)
  else
    for i = #t.inverse, 1, -1 do
      local inv = t.inverse[i]
      if inv[1] == 'lines' then
        api.nvim_buf_set_lines(b, 0, -1, false, inv[2])
      else
        api.nvim_buf_set_text(b, inv[1], inv[2], inv[3], inv[4], inv[5])
      end
    end
  end
  vim.bo[b].eol = t.eol_before
  vim.bo[b].modified = t.modified_before
end

local function wipe(b)
  if b and api.nvim_buf_is_valid(b) then
    pcall(api.nvim_buf_delete, b, { force = true })
  end
end

--- Puts everything back as it was, newest first.
local function rollback(targets)
  for i = #targets, 1, -1 do
    local t = targets[i]
    if t.b and api.nvim_buf_is_valid(t.b) then
      pcall(revert_ops, t)
      if t.renamed_from then
        pcall(rename_buffer, t.b, t.renamed_from)
        vim.b[t.b].nvbridge_renamed_from = t.renamed_var_before
        vim.b[t.b].nvbridge_disk = t.disk_before
        vim.b[t.b].nvbridge_disk_hash = t.disk_hash_before
      end
    end
    if t.loaded_by_us then
      wipe(t.b)
    end
  end
end

--- Validates one file of a plan; returns its target or an error.
local function prepare(f, find, plan)
  local t = { f = f }
  local e = f.expect or {}
  local op = 'check'
  if f.kind == 'delete' or (f.kind == 'rename' and plan.save) then
    op = 'remove'
  elseif plan.save then
    op = 'write'
  end
  local gerr = guard(plan.guard, f.path, f.path, op)
    or (f.kind == 'rename' and guard(plan.guard, f.new_path, f.new_path, plan.save and 'write' or 'check'))
  if gerr then
    return nil, gerr
  end
  if f.kind == 'create' then
    local b = find(f.path)
    if uv.fs_stat(f.path) then
      return nil, fail('CONFLICT', f.path .. ' already exists', { path = f.path })
    end
    if b and api.nvim_buf_is_loaded(b) and not is_empty(b) then
      return nil, fail('CONFLICT', f.path .. ' is open in Neovim with unsaved content', { path = f.path })
    end
    t.b_existing = b
    t.existing_loaded = b ~= nil and api.nvim_buf_is_loaded(b)
    return t
  end
  local b = loaded_buffer(find, f.path)
  local released = loaded.released[f.path]
  if e.loaded and not b and released and released.bufnr == e.bufnr and released.changedtick == e.changedtick and released.hash then
    -- nvbridge unloaded this read-only buffer since the preview: the
    -- file must still hold what that buffer held.
    e = { loaded = false, fingerprint = released.hash }
  end
  if e.loaded then
    if b ~= e.bufnr then
      return nil, fail('CONFLICT', f.path .. ' was closed or reopened in Neovim since the preview', { path = f.path })
    end
    -- The content on disk is compared (deep) when this call writes or
    -- removes the file; an apply into the buffer alone compares the stat
    -- key (reading and hashing a large file would cost more than the
    -- edit), and the write that follows compares the content
    -- (write_buffer: disk_changed), as every write does.
    local err = reconcile(b, f.path, plan.save or f.kind == 'delete')
    if err then
      return nil, err
    end
    t.compared = plan.save and vim.b[b].nvbridge_disk_hash and vim.b[b].nvbridge_disk or nil -- see disk_changed
    local tick = vim.b[b].changedtick
    if tick ~= e.changedtick then
      return nil,
        fail(
          'CONFLICT',
          string.format('%s changed since it was read for this change (changedtick %d, now %d)', f.path, e.changedtick, tick),
          { path = f.path, moved = true } -- the Go side may plan a one-shot edit again
        )
    end
  elseif b then
    -- Opened since the preview: the disk must be as previewed and the
    -- buffer must hold what Neovim reads from it.
    local data = read_file(f.path)
    if data == nil or fingerprint(data) ~= e.fingerprint then
      return nil, fail('CONFLICT', f.path .. ' changed on disk since the preview', { path = f.path })
    end
    local text, bomb = as_loaded(data)
    if buffer_text(b) ~= text or compat.buf_option(b, 'bomb') ~= bomb then
      return nil, fail('CONFLICT', f.path .. ' was opened and changed in Neovim since the preview', { path = f.path })
    end
  else
    local data = read_file(f.path)
    if data == nil then
      return nil, fail('CONFLICT', f.path .. ' no longer exists', { path = f.path })
    end
    if fingerprint(data) ~= e.fingerprint then
      return nil, fail('CONFLICT', f.path .. ' changed on disk since the preview', { path = f.path })
    end
    if f.kind ~= 'delete' then
      local err
      b, err = load(f.path)
      if not b then
        return nil, fail('OPERATION_FAILED', 'cannot load ' .. f.path .. ': ' .. err, { path = f.path })
      end
      t.loaded_by_us = true
      t.b = b
      local text, bomb = as_loaded(data)
      if buffer_text(b) ~= text or compat.buf_option(b, 'bomb') ~= bomb then
        return t,
          fail(
            'OPERATION_FAILED',
            f.path .. ' reads differently in Neovim than on disk (encoding or line endings); open it in Neovim and retry',
            { path = f.path }
          )
      end
    end
  end
  t.b = b
  if f.kind == 'delete' then
    if b and compat.buf_option(b, 'modified') then
      return nil, fail('PRECONDITION_FAILED', f.path .. ' has unsaved changes in Neovim; save or discard them first', { path = f.path })
    end
    return t
  end
  if not compat.buf_option(b, 'modifiable') then
    return t, fail('PRECONDITION_FAILED', f.path .. " is not 'modifiable' in Neovim", { path = f.path })
  end
  if f.kind == 'rename' and not f.overwrite then
    local other = loaded_buffer(find, f.new_path)
    if uv.fs_stat(f.new_path) or (other and other ~= b) then
      return t, fail('CONFLICT', f.new_path .. ' already exists', { path = f.new_path })
    end
  end
  local err
  err, t.lines = check_ops(b, f.path, f.ops)
  return t, err
end

--- Applies a plan atomically: every file is validated first (changedtick or
--- content fingerprint, ranges, preconditions), then all edits are applied,
--- one undo step per buffer; on any failure every buffer and file is restored.
---@param plan nvbridge.Plan
---@return nvbridge.ApplyReply
function M.apply(plan)
  -- Buffers this apply loads must not make buffers.load release others it
  -- holds: releasing waits until the apply is over.
  loaded.hold()
  -- An apply may run inside another's wait for its disk commit (a second
  -- nvbridge on this Neovim): each keeps its own list.
  local outer = paused
  paused = {}
  local ok, reply = pcall(M._apply, plan)
  local mine = paused
  paused = outer
  -- Applied or rolled back, the paused buffers are followed again from
  -- their changedtick now.
  for _, p in ipairs(mine) do
    if api.nvim_buf_is_loaded(p.b) then
      if p.tracked then
        buffers.track(p.b)
      end
      extensions.resume(p.b)
    end
  end
  loaded.let_go()
  if not ok then
    error(reply, 0)
  end
  loaded.release_extra()
  return reply
end

--- apply's work, run under pcall while loaded.hold keeps every buffer it loads.
---@param plan nvbridge.Plan
---@return nvbridge.ApplyReply
function M._apply(plan)
  local find = buffer_index()
  local targets = {}
  for _, f in ipairs(plan.files) do
    f.ops = f.ops or {}
    local t, err = prepare(f, find, plan)
    if t then
      table.insert(targets, t)
    end
    if err then
      rollback(targets)
      return { err = err }
    end
  end

  -- save: every file of the changeset is saved, or none: a file that could
  -- not be written (the user's own unsaved changes, a file changed on disk)
  -- refuses the whole changeset before anything changes.
  if plan.save then
    local blocked = {}
    for _, t in ipairs(targets) do
      local b = t.b
      if b and t.f.kind ~= 'delete' and api.nvim_buf_is_loaded(b) then
        if modified_by_user(b) then
          table.insert(blocked, t.f.path .. ' has unsaved changes nvbridge did not make')
        elseif not t.f.overwrite and disk_changed(b, t.compared) then
          table.insert(blocked, t.f.path .. ' changed on disk since it was loaded')
        end
      end
    end
    if #blocked > 0 then
      rollback(targets)
      return {
        err = fail(
          'PRECONDITION_FAILED',
          'save: true saves every file of a changeset or none, and ' .. table.concat(blocked, '; ')
            .. ' (nothing was changed or saved)',
          {
            remediation = 'save or discard those changes in Neovim first, or apply without save'
              .. ' (the edits then stay unsaved in the buffers, shown to the user)',
          }
        ),
      }
    end
  end

  -- Buffers first (edits, creations, renames): nothing reaches the disk yet.
  for _, t in ipairs(targets) do
    local f = t.f
    local ok, err = pcall(function()
      if f.kind == 'delete' then
        return
      end
      if f.kind == 'create' then
        local b, load_err = load(f.path)
        if not b then
          error(load_err, 0)
        end
        t.b = b
        t.loaded_by_us = not (t.b_existing and t.b_existing == b and t.existing_loaded)
        if f.fileformat and f.fileformat ~= '' then
          vim.bo[b].fileformat = f.fileformat
        end
      elseif f.kind == 'rename' then
        t.renamed_var_before = vim.b[t.b].nvbridge_renamed_from
        t.renamed_from = f.path
        if f.overwrite then
          wipe(loaded_buffer(find, f.new_path))
        end
        t.disk_before = vim.b[t.b].nvbridge_disk
        t.disk_hash_before = vim.b[t.b].nvbridge_disk_hash
        rename_buffer(t.b, f.new_path)
        vim.b[t.b].nvbridge_renamed_from = t.renamed_var_before or f.path
        vim.b[t.b].nvbridge_disk = nil -- that record was of the old file
        vim.b[t.b].nvbridge_disk_hash = nil
      end
      apply_ops(t, f, plan.fail_at)
      if (f.kind == 'rename' or f.kind == 'create') and not compat.buf_option(t.b, 'modified') then
        vim.bo[t.b].modified = true -- the file does not hold this yet
        vim.b[t.b].nvbridge_marked = undo_seq(t.b) -- nvbridge's, not the user's
      end
    end)
    if not ok then
      rollback(targets)
      return { err = fail('OPERATION_FAILED', f.path .. ': ' .. tostring(err) .. ' (every change was rolled back)', { path = f.path }) }
    end
  end

  -- The disk: the deletions, and with save every file, in one commit
  -- (Go writes; see "Writing" above). A save's BufWritePre runs first, in
  -- each buffer, as :write would.
  local ops, writes, removed_at = {}, {}, {}
  for _, t in ipairs(targets) do
    if t.f.kind == 'delete' then
      table.insert(ops, { kind = 'remove', path = t.f.path })
      removed_at[t.f.path] = #ops
    end
  end
  if plan.save then
    -- prepare_write's lazy: no other write's BufWritePre runs before the commit.
    local lazy = #targets == 1 or plan.noautocmd or #api.nvim_get_autocmds({ event = 'BufWritePre' }) == 0
    for _, t in ipairs(targets) do
      local f = t.f
      if f.kind ~= 'delete' and not t.user_modified then
        local dest = f.new_path or f.path
        local w, err = prepare_write(t.b, dest, plan.noautocmd, lazy)
        if not w then
          rollback(targets)
          return { err = err }
        end
        w.t = t
        table.insert(writes, w)
        -- A file the changeset deletes and then renames onto is replaced.
        local replaced = removed_at[dest]
        if replaced then
          ops[replaced] = false
        end
        local op = { kind = 'write', path = dest, data = w.bytes, buffer = w.source }
        op.create = (f.kind == 'create' or f.kind == 'rename') and not replaced and not f.overwrite
        table.insert(ops, op)
        if f.kind == 'rename' then
          table.insert(ops, old_file_removal(f.path, dest) or false)
        end
      end
    end
  end
  local disk = {}
  for _, op in ipairs(ops) do
    if op then
      table.insert(disk, op)
    end
  end
  local state = {} -- path -> disk state after the commit
  local committed -- the commit's reply
  if #disk > 0 then
    local reply = commit(plan.guard, plan.id, disk)
    committed = reply
    for _, o in ipairs(reply.files or {}) do
      state[o.path] = o.disk
    end
    if reply.err then
      if reply.lost then
        -- nvbridge is gone: nobody reads this answer, and its journal
        -- settles the disk at its next start. The buffers keep the change.
        return { err = reply.err }
      end
      local kept = {}
      for _, w in ipairs(writes) do
        if state[w.path] == 'new' then
          kept[w.t] = true
          w.hash = write.committed_hash(reply, w.path)
          mark_written(w, plan.noautocmd, plan.guard.root)
        end
      end
      local undone = {}
      for _, t in ipairs(targets) do
        if not kept[t] then
          table.insert(undone, t)
        end
      end
      rollback(undone)
      return { err = reply.err }
    end
  end
  local written = {}
  for _, w in ipairs(writes) do
    written[w.t] = w
  end
  if committed then
    for _, w in ipairs(writes) do
      w.hash = write.committed_hash(committed, w.path)
    end
  end

  local out = {}
  for _, t in ipairs(targets) do
    local f = t.f
    local r = { path = f.path, new_path = f.new_path, kind = f.kind }
    if f.kind == 'delete' then
      wipe(t.b)
      r.note = 'file deleted'
    else
      local b = t.b
      local w = written[t]
      if w then
        r.saved, r.written_text = true, w.written
        r.note = mark_written(w, plan.noautocmd, plan.guard.root)
        if w.note then
          r.note = r.note and (r.note .. '; ' .. w.note) or w.note
        end
      elseif plan.save and t.user_modified then
        r.note = 'not saved: the buffer had unsaved changes (not made by nvbridge) before this edit; review them, then save_buffer'
      elseif f.kind == 'rename' then
        r.note = 'renamed in Neovim; the file moves on disk when the buffer is saved (save_buffer)'
      elseif f.kind == 'create' then
        r.note = 'created in Neovim; the file is written when the buffer is saved (save_buffer)'
      end
      local d = describe(b)
      r.bufnr, r.changedtick, r.modified, r.line_count = d.bufnr, d.changedtick, d.modified, d.line_count
      if buffers.untrack(b) then
        buffers.track(b) -- from the changedtick now
      end
      r.fileformat, r.eol, r.bomb = compat.buf_option(b, 'fileformat'), compat.buf_option(b, 'eol'), compat.buf_option(b, 'bomb')
    end
    r.saved = r.saved == true
    table.insert(out, r)
  end
  local ok_changes, changes = pcall(require, 'nvbridge.changes')
  if ok_changes then
    -- The change is made: what records it must not undo the answer, but
    -- a failure there is logged (:NvbridgeLog).
    local ok, err = pcall(changes.applied, plan, targets)
    if not ok then
      pcall(require('nvbridge.user').log, 'recording the change failed: ' .. tostring(err))
    end
  end
  return { files = out }
end

--- Puts the buffer of path back to the file's content on disk (:edit!). A
--- pending rename is undone; a buffer whose file does not exist is wiped.
---@return nvbridge.BufferReply
---@param path string absolute
---@param force boolean discard changes nvbridge did not make too
function M.discard(path, force)
  local st = uv.fs_stat(path)
  if st and st.type == 'directory' then
    return { err = fail('INVALID_PARAMETER', path .. ' is a directory, not a file', { path = path, remediation = 'name a file inside it' }) }
  end
  local b = loaded_buffer(buffer_index(), path)
  if not b then
    return { discarded = false, note = 'not open in Neovim: nothing to discard' }
  end
  if not force and modified_by_user(b) then
    return {
      err = fail(
        'CONFLICT',
        path .. ' has unsaved changes nvbridge did not make (the user\'s own edits); discarding would throw them away',
        { path = path }
      ),
    }
  end
  local from = vim.b[b].nvbridge_renamed_from
  if from then
    rename_buffer(b, from)
    vim.b[b].nvbridge_renamed_from = nil
  end
  local name = api.nvim_buf_get_name(b)
  if not uv.fs_stat(name) then
    wipe(b)
    return { discarded = true, note = 'the file does not exist on disk: its buffer was closed' }
  end
  local ok, err = pcall(api.nvim_buf_call, b, function()
    vim.cmd('silent keepalt keepjumps edit!')
  end)
  if not ok then
    return { err = fail('OPERATION_FAILED', 'cannot reload ' .. name .. ': ' .. tostring(err), { path = path }) }
  end
  record_disk(b, name)
  vim.b[b].nvbridge_conflict = nil
  local d = describe(b)
  d.discarded = true
  if from then
    d.note = 'the pending rename to ' .. path .. ' was undone: the buffer is ' .. name .. ' again'
  end
  return d
end
return M
