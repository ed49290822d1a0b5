--- The Neovim half of nvbridge's changesets (Go package edit): snapshots of
--- files as Neovim holds them, and the atomic application of a plan of edits
--- to many buffers in ONE call, with rollback. Called from Go
--- (nvim/entrypoints.go); data arrives as arguments, never as source, and
--- nothing here waits on anything.
---
--- Positions are Neovim's: 0-based lines, 0-based byte columns. Errors are
--- returned as {err = {code = CODE, message = TEXT, path = PATH}}, never thrown.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local buffers = require('nvbridge.buffers')
local read_file, load = buffers.read_file, buffers.load
local fingerprint, record_disk = buffers.fingerprint, buffers.record_disk

local compat = require('nvbridge._compat')

-- How many nvbridge changes per buffer the undo tool remembers.
local UNDO_DEPTH = 100

local fail = require('nvbridge._error').fail

local get_clients = compat.get_clients

local BOM = '\239\187\191'

local function strip_bom(data)
  if data and data:sub(1, 3) == BOM then
    return data:sub(4), true
  end
  return data, false
end

--- Whether s is valid UTF-8 (as Neovim's 'fileencodings' entry "utf-8"
--- requires before it picks that encoding).
local function valid_utf8(s)
  if not s:find('[\128-\255]') then
    return true
  end
  local i, n = 1, #s
  local byte = string.byte
  while i <= n do
    local c = byte(s, i)
    local len
    if c < 0x80 then
      len = 1
    elseif c >= 0xC2 and c <= 0xDF then
      len = 2
    elseif c >= 0xE0 and c <= 0xEF then
      len = 3
    elseif c >= 0xF0 and c <= 0xF4 then
      len = 4
    else
      return false
    end
    for k = i + 1, i + len - 1 do
      local cc = byte(s, k)
      if not cc or cc < 0x80 or cc > 0xBF then
        return false
      end
    end
    if len == 3 then
      local c2 = byte(s, i + 1)
      if (c == 0xE0 and c2 < 0xA0) or (c == 0xED and c2 > 0x9F) then
        return false -- overlong, or a UTF-16 surrogate
      end
    elseif len == 4 then
      local c2 = byte(s, i + 1)
      if (c == 0xF0 and c2 < 0x90) or (c == 0xF4 and c2 > 0x8F) then
        return false
      end
    end
    i = i + len
  end
  return true
end

--- The text Neovim shows for a file's bytes when it loads them: converted to
--- UTF-8 by the first 'fileencodings' entry that fits (a Latin-1 file's
--- "caf\xe9" is "café"), without the BOM. Returns the text, whether there
--- was a BOM, and the encoding ('fileencoding' after loading). A buffer
--- loaded later is checked against this (prepare), so a case where Neovim
--- decides otherwise is refused, never edited at the wrong bytes.
local function as_loaded(data)
  for _, enc in ipairs(vim.split(vim.o.fileencodings, ',', { trimempty = true })) do
    if enc == 'ucs-bom' then
      if data:sub(1, 3) == BOM then
        return data:sub(4), true, 'utf-8'
      end
    elseif enc == 'utf-8' or enc == 'utf8' or enc == 'default' then
      if valid_utf8(data) then
        return data, false, 'utf-8'
      end
    else
      local text = vim.iconv(data, enc, 'utf-8')
      if text then
        return text, false, enc
      end
    end
  end
  local text, bomb = strip_bom(data)
  return text, bomb, ''
end

--- A file's bytes as text in a loaded buffer whose 'fileencoding' is fenc
--- (without the BOM), to compare with the buffer's text.
local function decode(data, fenc)
  if data == nil then
    return nil
  end
  if fenc ~= '' and fenc ~= 'utf-8' and fenc ~= 'utf8' then
    local text = vim.iconv(data, fenc, 'utf-8')
    if text then
      return text
    end
  end
  return (strip_bom(data))
end

-- Confinement at the moment of writing -------------------------------------
--
-- Go resolves every path to its real path inside the workspace root and
-- checks it against the policy on sensitive files right before calling
-- here; between that check and the write, a folder or file may be swapped
-- for a symlink. So every write, creation, rename and deletion below first
-- resolves the path again, in the same call that writes: it must still be
-- the real path Go checked (no symlink appeared on it), inside the root.
-- Neovim's :write follows links, which is why the check comes first.

--- Resolves path as the kernel would open or create it: every symlink is
--- followed, a dangling last one too; '..' applies after the symlinks
--- before it; components that do not exist are kept as written.
---@return string? real, string? err
local function real_path(path)
  local todo = vim.split(path, '/', { plain = true })
  local resolved = ''
  local links, missing = 0, false
  local i = 1
  while i <= #todo do
    local c = todo[i]
    i = i + 1
    if c == '' or c == '.' then
      -- nothing
    elseif c == '..' then
      resolved = resolved:match('^(.*)/[^/]*$') or ''
    elseif missing then
      resolved = resolved .. '/' .. c
    else
      local nxt = resolved .. '/' .. c
      local st, _, errname = uv.fs_lstat(nxt)
      if not st then
        if errname ~= 'ENOENT' and errname ~= 'ENOTDIR' then
          return nil, 'cannot inspect ' .. nxt .. ': ' .. tostring(errname)
        end
        missing = true
        resolved = nxt
      elseif st.type ~= 'link' then
        resolved = nxt
      else
        links = links + 1
        if links > 40 then
          return nil, 'too many levels of symbolic links'
        end
        local target = uv.fs_readlink(nxt)
        if not target then
          return nil, 'cannot read the symlink ' .. nxt
        end
        if target:sub(1, 1) == '/' then
          resolved = ''
        end
        local rest = vim.split(target, '/', { plain = true })
        for j = i, #todo do
          table.insert(rest, todo[j])
        end
        todo, i = rest, 1
      end
    end
  end
  return resolved == '' and '/' or resolved
end

local function inside(root, path)
  return path == root or path:sub(1, #root + 1) == root .. '/'
end

--- Checks, right before nvbridge writes to, creates, renames or deletes
--- path, that path resolves to expected (the real path Go confined and
--- checked just before this call) inside the root. op 'write' also requires
--- an existing target to be a regular file with no other hard link (a
--- hard link's other name may be outside the root, and no path tells),
--- unless g.allow_hardlinks; op 'remove' requires a regular file.
---@param g {root: string, allow_hardlinks: boolean}
---@param op 'write'|'remove'|'check'
---@return table? err
local function guard(g, path, expected, op)
  if type(g) ~= 'table' or type(g.root) ~= 'string' or g.root == '' then
    return fail('OPERATION_FAILED', 'refusing to write ' .. path .. ' without the workspace root to confine it to', { path = path })
  end
  local real, err = real_path(path)
  if not real then
    return fail('INVALID_PARAMETER', 'cannot resolve ' .. path .. ': ' .. err .. ' (nothing was written)', { path = path })
  end
  if not inside(g.root, real) then
    return fail(
      'INVALID_PARAMETER',
      path .. ' resolves (through a symlink) to ' .. real .. ', outside the workspace root ' .. g.root .. ' (nothing was written)',
      { path = path, remediation = 'nvbridge never writes through a symlink out of the workspace root; remove the link, then preview the change again' }
    )
  end
  if real ~= expected then
    return fail(
      'CONFLICT',
      path .. ' now resolves to ' .. real .. ': a symlink was created or changed on it since it was checked (nothing was written)',
      { path = path, remediation = 'check the path, then preview the change again' }
    )
  end
  if op == 'check' then
    return nil
  end
  local st = uv.fs_lstat(real)
  if st and st.type ~= 'file' then
    return fail('INVALID_PARAMETER', real .. ' is a ' .. st.type .. ', not a regular file (nothing was written)', { path = path })
  end
  if op == 'write' and st and st.nlink > 1 and not g.allow_hardlinks then
    return fail(
      'PRECONDITION_FAILED',
      string.format(
        '%s has %d hard links: writing it would also change the file under its other names, which may lie outside the workspace root (nothing was written)',
        real,
        st.nlink
      ),
      { path = path, remediation = 'break the link first (cp FILE FILE.tmp && mv FILE.tmp FILE), or, if every name is known to be safe, restart nvbridge with --allow-hardlinks (or "allow_hardlinks": true in the user config file $XDG_CONFIG_HOME/nvbridge/config.json, default ~/.config/nvbridge/config.json; the project file .nvbridge.json cannot allow it)' }
    )
  end
end

local is_empty, buffer_text = buffers.is_empty, buffers.buffer_text

--- Maps buffer names (and, lazily, their real paths) to buffer numbers, so a
--- file opened through a symlink is found under its real path too.
local function buffer_index()
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

local function loaded_buffer(find, path)
  local b = find(path)
  if b and api.nvim_buf_is_loaded(b) then
    return b
  end
end

--- The buffer's undo state (undotree().seq_cur), without building the
--- whole undo tree as undotree() does.
local function undo_seq(b)
  return api.nvim_buf_call(b, vim.fn.changenr)
end

-- The changes nvbridge made in a buffer, oldest first, live in the buffer
-- variable nvbridge_undo as "before:after:tick:eol:clean;..." (one string:
-- converting a list of dicts at every edit costs more than the edit).
-- before/after are undo states around the change, tick the changedtick
-- after it, eol the 'eol' value before it, clean whether the buffer had no
-- unsaved changes before it.

local function encode_undo(e)
  return string.format('%d:%d:%d:%d:%d', e.before, e.after, e.tick, e.eol and 1 or 0, e.clean and 1 or 0)
end

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
local function undo_records(b)
  local out = {}
  for entry in (vim.b[b].nvbridge_undo or ''):gmatch('[^;]+') do
    table.insert(out, decode_undo(entry))
  end
  return out
end

local function set_undo_records(b, records)
  local parts = {}
  for i = math.max(1, #records - UNDO_DEPTH + 1), #records do
    table.insert(parts, encode_undo(records[i]))
  end
  vim.b[b].nvbridge_undo = table.concat(parts, ';')
end

--- Whether the buffer has unsaved changes that nvbridge did not make: its
--- undo state is not reached from a clean state by nvbridge's changes alone.
local function modified_by_user(b)
  if not vim.bo[b].modified then
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

--- Makes a loaded buffer agree with the disk (buffers.reconcile); a
--- buffer with unsaved changes whose file also changed is a CONFLICT. deep
--- compares the content even when the stat key did not move (right before
--- a change is applied).
local function reconcile(b, path, deep)
  if buffers.reconcile(b, deep) == 'conflict' then
    return fail('CONFLICT', path .. ' has unsaved changes in Neovim and was also changed on disk', { path = path })
  end
end

local function describe(b)
  return {
    bufnr = b,
    changedtick = vim.b[b].changedtick,
    modified = vim.bo[b].modified,
    line_count = api.nvim_buf_line_count(b),
  }
end

--- Snapshots files as Neovim holds them: a loaded buffer's text (what a write
--- would produce), else the file on disk.
---@param paths string[] absolute, confined to the workspace by the caller
---@param opts nvbridge.SnapshotOptions
---@return nvbridge.FileSnapshot[] one entry per path
function M.snapshot(paths, opts)
  opts = opts or {}
  local find = buffer_index()
  local out = {}
  for i, path in ipairs(paths) do
    local s = { path = path }
    local b = loaded_buffer(find, path)
    local stat = uv.fs_stat(path)
    s.exists = stat ~= nil and stat.type == 'file'
    s.is_dir = stat ~= nil and stat.type == 'directory'
    if b and opts.reconcile then
      s.err = reconcile(b, path)
    end
    if b and not s.err then
      s.loaded = true
      s.bufnr = b
      s.changedtick = vim.b[b].changedtick
      s.lsp_version = compat.lsp_version(b)
      s.modified = vim.bo[b].modified
      s.user_modified = modified_by_user(b)
      s.modifiable = vim.bo[b].modifiable
      s.fileformat = vim.bo[b].fileformat
      s.bomb = vim.bo[b].bomb
      s.line_count = api.nvim_buf_line_count(b)
      s.eol = vim.bo[b].eol
      s.fileencoding = vim.bo[b].fileencoding
      local k = opts.known and opts.known[path]
      -- k: the Go side holds a text of this buffer; with these options it
      -- is still its bytes at k.changedtick.
      k = k and k.bufnr == b and k.fileformat == s.fileformat and k.eol == s.eol and k.bomb == s.bomb and k or nil
      -- Since k.changedtick, only the lines that changed (one line may be
      -- the empty buffer, whose text is not its line).
      local delta = k
        and k.changedtick ~= s.changedtick
        and s.line_count > 1
        and buffers.changes(b, k.changedtick)
      if k and k.changedtick == s.changedtick then
        s.same = true -- the caller has this text already
        buffers.track(b)
      elseif delta then
        s.delta = delta
        buffers.track(b)
      elseif opts.api_lines_min and s.line_count >= opts.api_lines_min then
        -- A large buffer: the Go side reads its lines with
        -- nvim_buf_get_lines, which serializes them straight from the
        -- buffer, instead of making a Lua string of every line and
        -- joining them here (3-5 times slower on 100,000 lines).
        s.fetch = true
      else
        s.text = buffer_text(b)
      end
      -- The Go side caches texts from track_min bytes: follow their changes.
      if not (s.same or s.delta) and opts.track_min and api.nvim_buf_get_offset(b, s.line_count) >= opts.track_min then
        buffers.track(b)
      end
      s.renamed_from = vim.b[b].nvbridge_renamed_from
      if opts.with_disk and s.exists then
        s.disk = decode(read_file(path), s.fileencoding)
      end
    elseif s.exists and not s.err then
      local data = read_file(path)
      if data == nil then
        s.err = fail('OPERATION_FAILED', 'cannot read ' .. path, { path = path })
      else
        s.fingerprint = fingerprint(data)
        s.text, s.bomb, s.fileencoding = as_loaded(data)
        s.disk = opts.with_disk and data or nil
      end
    end
    out[i] = s
  end
  return out
end

-- Validation -----------------------------------------------------------------

local function op_error(path, i, msg)
  return fail('INVALID_PARAMETER', string.format('%s: edit %d: %s', path, i, msg), { path = path })
end

local function inside_char(line, col)
  return col > 0 and col < #line and vim.str_utf_start(line, col + 1) ~= 0
end

--- Checks that ops (descending, [sr, sc, er, ec, text]) fit the buffer.
local function check_ops(b, path, ops)
  local count = api.nvim_buf_line_count(b)
  local prev
  for i, op in ipairs(ops) do
    local sr, sc, er, ec = op[1], op[2], op[3], op[4]
    if sr < 0 or er < sr or er >= count or (sr == er and ec < sc) then
      return op_error(path, i, string.format('range %d:%d-%d:%d is outside the buffer (%d lines)', sr, sc, er, ec, count))
    end
    local sline = api.nvim_buf_get_lines(b, sr, sr + 1, true)[1]
    local eline = er == sr and sline or api.nvim_buf_get_lines(b, er, er + 1, true)[1]
    for _, p in ipairs({ { sr, sc, sline }, { er, ec, eline } }) do
      local line = p[3]
      if p[2] < 0 or p[2] > #line then
        return op_error(path, i, string.format('column %d is past the end of line %d (%d bytes)', p[2], p[1], #line))
      end
      if inside_char(line, p[2]) then
        return op_error(path, i, string.format('position %d:%d is inside a multibyte character', p[1], p[2]))
      end
    end
    if prev and (er > prev[1] or (er == prev[1] and ec > prev[2])) then
      return op_error(path, i, 'edits overlap or are not in descending order')
    end
    prev = { sr, sc }
  end
end

--- Whether the file changed on disk since the buffer was loaded or written,
--- by content (buffers.record_disk), right before a write.
local function disk_changed(b)
  if vim.b[b].nvbridge_conflict then
    return true
  end
  local path = api.nvim_buf_get_name(b)
  local stat = uv.fs_stat(path)
  if not stat then
    return false -- deleted, or a new file: writing creates it
  end
  local changed
  if vim.b[b].nvbridge_disk then
    changed = buffers.disk_differs(b, path, stat)
  else
    changed = buffers.neovim_sees_conflict(b)
  end
  if changed then
    vim.b[b].nvbridge_conflict = true
  end
  return changed
end

-- Applying -------------------------------------------------------------------

local function undo_enabled(b)
  local ul = vim.bo[b].undolevels
  if ul == -123456 then
    ul = vim.go.undolevels
  end
  return ul >= 0
end

--- Starts a new undo block in b, so that this change is one undo step of its
--- own (setting 'undolevels' to itself breaks the undo sequence).
local function break_undo(b)
  api.nvim_buf_call(b, function()
    vim.bo.undolevels = vim.bo.undolevels
  end)
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

local function push_undo(b, record)
  local records = undo_records(b)
  table.insert(records, record)
  set_undo_records(b, records)
end

local function pop_undo(b)
  local records = undo_records(b)
  table.remove(records)
  set_undo_records(b, records)
end

--- Applies one file's text ops to its buffer t.b, recording what rollback
--- needs in t.
local function apply_ops(t, f, fail_at)
  local b = t.b
  local has_ops = #f.ops > 0 or f.clear or f.trim_tail
  t.modified_before = vim.bo[b].modified
  t.user_modified = modified_by_user(b)
  t.eol_before = vim.bo[b].eol
  if not has_ops and f.eol == nil then
    return
  end
  break_undo(b)
  t.seq_before = undo_seq(b)
  t.undo = undo_enabled(b)
  t.inverse = {}
  for _, op in ipairs(f.ops) do
    local sr, sc, er, ec = op[1], op[2], op[3], op[4]
    local text = op[5]
    -- Most edits are one line (a rename): no split for them.
    local lines = text:find('\n', 1, true) and vim.split(text, '\n', { plain = true }) or { text }
    if not t.undo then
      local old = api.nvim_buf_get_text(b, sr, sc, er, ec, {})
      local last = #lines == 1 and sc + #lines[1] or #lines[#lines]
      table.insert(t.inverse, { sr, sc, sr + #lines - 1, last, old })
    end
    api.nvim_buf_set_text(b, sr, sc, er, ec, lines)
    t.applied = true
  end
  if f.clear then
    if not t.undo then
      table.insert(t.inverse, { 'lines', api.nvim_buf_get_lines(b, 0, -1, false) })
    end
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
    if not t.undo then
      table.insert(t.inverse, { n - 2, #before, n - 2, #before, { '', '' } })
    end
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

-- Writing --------------------------------------------------------------------
--
-- Lua never writes to the disk. A save runs the user's BufWritePre, takes
-- the bytes Neovim would write for the buffer and hands every file of the
-- call to nvbridge's Go side as ONE commit (vim.rpcrequest 'nvbridge_commit':
-- workspace.Root.Commit writes through a handle on the workspace root that
-- no symlink can lead out of, all files or none, and completes or rolls
-- back after a crash). Neovim then takes each buffer as written: a :write
-- that only a buffer-local BufWriteCmd answers ('buftype' acwrite for the
-- time of it, so Neovim never writes the file itself) resets 'modified' and
-- lets Neovim do its own bookkeeping (undo states that know the buffer was
-- saved, the file's time and size for its change checks); then
-- BufWritePost runs (language servers get didSave).

-- The byte-order marks Neovim writes for 'bomb', by 'fileencoding'.
local BOMS = {
  ['utf-8'] = BOM,
  ['utf-16'] = '\254\255',
  ['ucs-2'] = '\254\255',
  ['utf-16le'] = '\255\254',
  ['ucs-2le'] = '\255\254',
  ['ucs-4'] = '\0\0\254\255',
  ['utf-32'] = '\0\0\254\255',
  ['ucs-4le'] = '\255\254\0\0',
  ['utf-32le'] = '\255\254\0\0',
}

local LINE_ENDINGS = { unix = '\n', dos = '\r\n', mac = '\r' }

--- The bytes Neovim writes for b: its lines joined by the 'fileformat''s
--- line ending, the last one ended when 'eol' (nvbridge's writes honour
--- 'eol' exactly), converted to 'fileencoding', after the BOM when 'bomb'.
---@return string? bytes, string? err
local function file_bytes(b)
  local text = ''
  if not is_empty(b) then
    local nl = LINE_ENDINGS[vim.bo[b].fileformat] or '\n'
    text = table.concat(api.nvim_buf_get_lines(b, 0, -1, false), nl)
    if vim.bo[b].eol then
      text = text .. nl
    end
  end
  local fenc = vim.bo[b].fileencoding
  if fenc == '' or fenc == 'utf8' then
    fenc = 'utf-8'
  end
  if fenc ~= 'utf-8' then
    local converted = vim.iconv(text, 'utf-8', fenc)
    if not converted then
      return nil, "its text cannot be converted to its 'fileencoding' (" .. fenc .. ')'
    end
    text = converted
  end
  if vim.bo[b].bomb and not vim.bo[b].binary and BOMS[fenc] then
    text = BOMS[fenc] .. text
  end
  return text
end

--- A BufWriteCmd autocmd of the user's (or a plugin's) that would answer
--- a :write of b: such a buffer is written by that code, not by nvbridge.
local function foreign_write_cmd(b)
  local name = api.nvim_buf_get_name(b)
  local tail = vim.fn.fnamemodify(name, ':t')
  for _, au in ipairs(api.nvim_get_autocmds({ event = 'BufWriteCmd' })) do
    if au.buffer == b then
      return au
    end
    if not au.buflocal and au.pattern then
      local ok, re = pcall(vim.regex, vim.fn.glob2regpat(au.pattern))
      if ok and (re:match_str(name) or (not au.pattern:find('/', 1, true) and re:match_str(tail))) then
        return au
      end
    end
  end
end

--- Gets b ready to be written: checks it is a file buffer nvbridge may
--- write, runs the user's BufWritePre (unless noautocmd) as :write would,
--- in b's context, and takes the bytes. The returned write carries the
--- text before and after the autocmds (a format-on-save).
---@return table? write, table? err
local function prepare_write(b, path, noautocmd)
  if vim.bo[b].buftype ~= '' then
    return nil, fail('PRECONDITION_FAILED', path .. " has 'buftype' " .. vim.bo[b].buftype .. ': not a file buffer', { path = path })
  end
  local au = foreign_write_cmd(b)
  if au then
    return nil,
      fail(
        'PRECONDITION_FAILED',
        path .. ' is written by a BufWriteCmd autocmd (' .. (au.desc or au.group_name or au.pattern or '?') .. '): nvbridge does not write it',
        { path = path, remediation = 'save it in Neovim' }
      )
  end
  local w = { b = b, path = path, before = buffer_text(b) }
  if not noautocmd then
    local ok, err = pcall(api.nvim_buf_call, b, function()
      api.nvim_exec_autocmds('BufWritePre', { buffer = b, modeline = false })
    end)
    if not ok then
      w.note = "the user's BufWritePre autocmds failed: " .. tostring(err)
    end
    if not api.nvim_buf_is_valid(b) then
      return nil, fail('OPERATION_FAILED', path .. ': a BufWritePre autocmd closed the buffer', { path = path })
    end
  end
  local after = buffer_text(b)
  if after ~= w.before then
    w.written = after
  end
  local bytes, err = file_bytes(b)
  if not bytes then
    return nil, fail('OPERATION_FAILED', path .. ': ' .. err .. ' (nothing was written)', { path = path })
  end
  w.bytes = bytes
  w.tick = vim.b[b].changedtick
  return w
end

--- Hands ops ({kind = 'write'|'remove', path, data?, create?}) to the Go
--- side as one commit. The reply's err says what happened; files where each
--- file stands ({path, disk = 'new'|'old'|'unknown'}). lost: nvbridge did
--- not answer (it ended): its journal settles the disk at its next start.
---@param g nvbridge.Guard
local function commit(g, id, ops)
  if #ops == 0 then
    return { files = {} }
  end
  if type(g) ~= 'table' or type(g.channel) ~= 'number' or g.channel == 0 then
    return { err = fail('OPERATION_FAILED', 'no channel to nvbridge to write through (nothing was written)') }
  end
  local ok, reply = pcall(vim.rpcrequest, g.channel, 'nvbridge_commit', id, ops)
  if not ok then
    return { err = fail('OPERATION_FAILED', 'nvbridge did not answer its commit: ' .. tostring(reply)), lost = true }
  end
  return reply
end

local write_group = api.nvim_create_augroup('nvbridge_write', { clear = true })

--- Takes b as written (the disk holds w.bytes): Neovim's own :write
--- bookkeeping through a BufWriteCmd that only resets 'modified', the disk
--- state recorded, the undo record's tick kept current, BufWritePost.
---@return string? note
local function mark_written(w, noautocmd, root)
  local b = w.b
  local note
  if vim.b[b].changedtick == w.tick then
    api.nvim_create_autocmd('BufWriteCmd', {
      group = write_group,
      buffer = b,
      callback = function()
        vim.bo[b].modified = false
      end,
    })
    -- 'eventignore' would silence the BufWriteCmd (acwrite then refuses
    -- the :write): cleared for the time of this call, put back after.
    local ei = vim.o.eventignore
    if ei ~= '' then
      vim.o.eventignore = ''
    end
    local ok, err = pcall(api.nvim_buf_call, b, function()
      vim.cmd('noautocmd setlocal buftype=acwrite')
      local wok, werr = pcall(vim.cmd, 'silent keepalt keepjumps write!')
      vim.cmd('noautocmd setlocal buftype=')
      if not wok then
        error(werr, 0)
      end
    end)
    if ei ~= '' then
      vim.o.eventignore = ei
    end
    api.nvim_clear_autocmds({ group = write_group, buffer = b })
    if not ok or vim.bo[b].modified then
      vim.bo[b].modified = false
      note = 'saved; Neovim did not take the buffer as written (' .. tostring(err) .. ")"
    end
  else
    -- Changed since the bytes were taken (an autocmd): the disk holds
    -- what was taken; the buffer keeps the rest unsaved.
    note = 'saved; the buffer changed again while it was written and keeps that change unsaved'
  end
  record_disk(b, w.path, w.bytes, fingerprint(w.bytes))
  vim.b[b].nvbridge_conflict = nil
  vim.b[b].nvbridge_renamed_from = nil
  -- A write changes changedtick: keep the undo record current.
  local records = undo_records(b)
  if #records > 0 and records[#records].after == undo_seq(b) then
    records[#records].tick = vim.b[b].changedtick
    set_undo_records(b, records)
  end
  -- 'undofile': Neovim writes the undo file with every :write; a
  -- BufWriteCmd write does not. Written here unless it would lie in the
  -- workspace (an 'undodir' of "."): nvbridge writes nothing there by
  -- name, and the user's next :write writes it.
  if vim.bo[b].undofile and root then
    local uf = vim.fn.undofile(api.nvim_buf_get_name(b))
    if uf ~= '' and not inside(root, vim.fs.normalize(uf)) then
      pcall(api.nvim_buf_call, b, function()
        vim.cmd.wundo({ uf, mods = { silent = true }, magic = { file = false } })
      end)
    end
  end
  if not noautocmd then
    pcall(api.nvim_buf_call, b, function()
      api.nvim_exec_autocmds('BufWritePost', { buffer = b, modeline = false })
    end)
  end
  return note
end

--- The disk operation that removes a renamed buffer's old file once the
--- new one is written, unless another loaded buffer holds it.
local function old_file_removal(from, to)
  if not from or from == to or not uv.fs_lstat(from) then
    return nil
  end
  local other = buffer_index()(from)
  if other and api.nvim_buf_is_loaded(other) then
    return nil
  end
  return { kind = 'remove', path = from }
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
  local released = buffers.released[f.path]
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
    local tick = vim.b[b].changedtick
    if tick ~= e.changedtick then
      local err = fail(
        'CONFLICT',
        string.format('%s changed since it was read for this change (changedtick %d, now %d)', f.path, e.changedtick, tick),
        { path = f.path, moved = true } -- the Go side may plan a one-shot edit again
      )
      return nil, err
    end
  elseif b then
    -- Opened since the preview: the disk must be as previewed and the
    -- buffer must hold what Neovim reads from it.
    local data = read_file(f.path)
    if data == nil or fingerprint(data) ~= e.fingerprint then
      return nil, fail('CONFLICT', f.path .. ' changed on disk since the preview', { path = f.path })
    end
    local text, bomb = as_loaded(data)
    if buffer_text(b) ~= text or vim.bo[b].bomb ~= bomb then
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
      if buffer_text(b) ~= text or vim.bo[b].bomb ~= bomb then
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
    if b and vim.bo[b].modified then
      return nil, fail('PRECONDITION_FAILED', f.path .. ' has unsaved changes in Neovim; save or discard them first', { path = f.path })
    end
    return t
  end
  if not vim.bo[b].modifiable then
    return t, fail('PRECONDITION_FAILED', f.path .. " is not 'modifiable' in Neovim", { path = f.path })
  end
  if f.kind == 'rename' and not f.overwrite then
    local other = loaded_buffer(find, f.new_path)
    if uv.fs_stat(f.new_path) or (other and other ~= b) then
      return t, fail('CONFLICT', f.new_path .. ' already exists', { path = f.new_path })
    end
  end
  return t, check_ops(b, f.path, f.ops)
end

--- Applies a plan atomically: every file is validated first (changedtick or
--- content fingerprint, ranges, preconditions), then all edits are applied,
--- one undo step per buffer; on any failure every buffer and file is restored.
---@param plan nvbridge.Plan
---@return nvbridge.ApplyReply
function M.apply(plan)
  -- Buffers this apply loads must not make buffers.load release others it
  -- holds: releasing waits until the apply is over.
  buffers.hold()
  local ok, reply = pcall(M._apply, plan)
  buffers.let_go()
  if not ok then
    error(reply, 0)
  end
  buffers.release_extra()
  return reply
end

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
        elseif not t.f.overwrite and disk_changed(b) then
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
          { remediation = 'save or discard those changes in Neovim first, or apply without save (the edits then stay unsaved in the buffers, shown to the user)' }
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
      if (f.kind == 'rename' or f.kind == 'create') and not vim.bo[t.b].modified then
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
    for _, t in ipairs(targets) do
      local f = t.f
      if f.kind ~= 'delete' and not t.user_modified then
        local dest = f.new_path or f.path
        local w, err = prepare_write(t.b, dest, plan.noautocmd)
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
        local op = { kind = 'write', path = dest, data = w.bytes }
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
  if #disk > 0 then
    local reply = commit(plan.guard, plan.id, disk)
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
      buffers.retrack(b) -- the Go side remembers the text it applied
      r.fileformat, r.eol, r.bomb = vim.bo[b].fileformat, vim.bo[b].eol, vim.bo[b].bomb
    end
    r.saved = r.saved == true
    table.insert(out, r)
  end
  local ok_user, user = pcall(require, 'nvbridge.user')
  if ok_user then
    pcall(user.applied, plan, targets)
  end
  return { files = out }
end

-- Buffer state tools ---------------------------------------------------------

--- The view (cursor, topline, ...) of every window showing b, for
--- restore_views after an undo (which moves the cursor to the change).
function M.save_views(b)
  local views = {}
  for _, w in ipairs(vim.fn.win_findbuf(b)) do
    views[w] = api.nvim_win_call(w, vim.fn.winsaveview)
  end
  return views
end

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

--- Writes the buffer of path. Refuses (CONFLICT) when the file changed on
--- disk since it was loaded, unless force; refuses, force or not, when the
--- file it would write is not path (a symlink appeared on the way), lies
--- outside the root or has other hard links (guard).
---@param g nvbridge.Guard
---@return nvbridge.BufferReply
function M.save(path, force, g, noautocmd, id)
  local st = uv.fs_stat(path)
  if st and st.type == 'directory' then
    return { err = fail('INVALID_PARAMETER', path .. ' is a directory, not a file', { path = path, remediation = 'name a file inside it' }) }
  end
  local b = loaded_buffer(buffer_index(), path)
  if not b then
    return { saved = false, note = 'not open in Neovim: nothing to save' }
  end
  if not vim.bo[b].modified and not vim.b[b].nvbridge_renamed_from and st then
    local d = describe(b)
    d.saved, d.note = false, 'no unsaved changes'
    return d
  end
  local gerr = guard(g, api.nvim_buf_get_name(b), path, 'write')
  if gerr then
    return { err = gerr }
  end
  local had_conflict = not force and disk_changed(b)
  if had_conflict then
    return {
      err = fail('CONFLICT', path .. ' changed on disk since it was loaded; saving would overwrite that change', { path = path }),
    }
  end
  local w, err = prepare_write(b, path, noautocmd == true)
  if not w then
    return { err = err }
  end
  local name = api.nvim_buf_get_name(b)
  -- A file that does not exist (a new or renamed buffer) is created: never
  -- over one that appeared meanwhile.
  local ops = { { kind = 'write', path = path, data = w.bytes, create = st == nil } }
  table.insert(ops, old_file_removal(vim.b[b].nvbridge_renamed_from, name))
  local reply = commit(g, id, ops)
  if reply.err then
    return { err = reply.err }
  end
  local note = mark_written(w, noautocmd == true, g.root)
  if w.note then
    note = note and (note .. '; ' .. w.note) or w.note
  end
  local d = describe(b)
  d.saved, d.note, d.written_text = true, note, w.written
  if w.written then
    d.before_text = w.before
  end
  return d
end

--- After nvbridge settled a commit an earlier nvbridge left unfinished
--- (workspace.Root.Recover), the buffers of its files follow the disk: a
--- buffer holding exactly the file's bytes is taken as written (without
--- the user's write autocmds: nothing is written now); any other keeps its
--- text, shown as unsaved.
---@param paths string[]
---@param root string the workspace root
function M.follow_disk(paths, root)
  local find = buffer_index()
  for _, path in ipairs(paths) do
    local b = loaded_buffer(find, path)
    if b and vim.bo[b].modified and vim.bo[b].buftype == '' then
      local data = read_file(path)
      local bytes = file_bytes(b)
      if data and bytes == data then
        mark_written({ b = b, path = path, bytes = bytes, tick = vim.b[b].changedtick }, true, root)
      end
    end
  end
end

--- Puts the buffer of path back to the file's content on disk (:edit!). A
--- pending rename is undone; a buffer whose file does not exist is wiped.
---@return nvbridge.BufferReply
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
