--- Writing to the disk: saving buffers, and taking them as written.
---
--- Lua never writes to the disk. A save runs the user's BufWritePre, takes
--- the bytes Neovim would write for the buffer and hands every file of the
--- call to nvbridge's Go side as ONE commit (vim.rpcrequest 'nvbridge_commit':
--- workspace.Root.Commit writes through a handle on the workspace root that
--- no symlink can lead out of, all files or none, and completes or rolls
--- back after a crash). Neovim then takes each buffer as written: a :write
--- that only a buffer-local BufWriteCmd answers ('buftype' acwrite for the
--- time of it, so Neovim never writes the file itself) resets 'modified' and
--- lets Neovim do its own bookkeeping (undo states that know the buffer was
--- saved, the file's time and size for its change checks); then
--- BufWritePost runs (language servers get didSave).
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local buffers = require('nvbridge.buffers')
local fail = require('nvbridge._error').fail
local guard_mod = require('nvbridge.guard')
local undo_log = require('nvbridge.undo_log')
local guard, inside = guard_mod.guard, guard_mod.inside
local read_file, fingerprint, record_disk = buffers.read_file, buffers.fingerprint, buffers.record_disk
local is_empty, buffer_text = buffers.is_empty, buffers.buffer_text
local buffer_index, loaded_buffer, describe = buffers.buffer_index, buffers.loaded_buffer, buffers.describe
local undo_seq, undo_records, set_undo_records = undo_log.undo_seq, undo_log.undo_records, undo_log.set_undo_records
local modified_by_user = undo_log.modified_by_user

local BOM = '\239\187\191'

--- Whether the file changed on disk since the buffer was loaded or written,
--- by content (buffers.record_disk), right before a write. compared: the
--- stat key the buffer's record had when the caller compared the content
--- itself earlier in the same call (apply.lua: a deep reconcile); while the
--- file's stat key and the record are still that one, the file is not read
--- and hashed again.
---@param b integer
---@param compared string?
---@return boolean
local function disk_changed(b, compared)
  if vim.b[b].nvbridge_conflict then
    return true
  end
  local path = api.nvim_buf_get_name(b)
  local stat = uv.fs_stat(path)
  if not stat then
    return false -- deleted, or a new file: writing creates it
  end
  if compared and vim.b[b].nvbridge_disk == compared and buffers.stat_key(stat) == compared then
    return false
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
---@param b integer
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

--- The bytes of b as file_bytes makes them, left for the commit to read
--- (Go: nvim_buf_get_lines, serialized straight from the buffer, where the
--- Lua strings of 100,000 lines and their join cost 30 ms and 9 MB of
--- garbage): when b is UTF-8 and not empty, and the commit's fingerprint
--- is buffers.fingerprint's (mark_written records it).
---@param b integer
---@return nvbridge.BufferSource?
local function buffer_source(b)
  local fenc = vim.bo[b].fileencoding
  if buffers.fingerprint_kind ~= 'fnv64' or (fenc ~= '' and fenc ~= 'utf-8' and fenc ~= 'utf8') or is_empty(b) then
    return nil
  end
  return {
    bufnr = b,
    changedtick = vim.b[b].changedtick,
    line_count = api.nvim_buf_line_count(b),
    nl = LINE_ENDINGS[vim.bo[b].fileformat] or '\n',
    eol = vim.bo[b].eol,
    bom = (vim.bo[b].bomb and not vim.bo[b].binary) and BOM or '',
  }
end

---@class nvbridge.Write a buffer ready to be written (prepare_write)
---@field b integer
---@field path string the file it is written to
---@field bytes? string what the file will hold, unless source
---@field source? nvbridge.BufferSource the buffer the commit reads them from
---@field tick integer b's changedtick when the bytes were taken
---@field before? string the buffer's text before the user's BufWritePre (taken only when such autocmds exist)
---@field written string? the text written, when those autocmds changed it
---@field note string? what went wrong in those autocmds
---@field t table? apply.lua's target it belongs to

--- Gets b ready to be written: checks it is a file buffer nvbridge may
--- write, runs the user's BufWritePre (unless noautocmd) as :write would,
--- in b's context, and takes the bytes. The returned write carries the
--- text before and after the autocmds (a format-on-save). With lazy (the
--- write goes to a commit in the same call, and nothing but its own
--- BufWritePre changes b before it), the bytes are left for the commit to
--- read from the buffer when it can (source: buffer_source).
---@param b integer
---@param path string the file b is written to
---@param noautocmd boolean? without the user's write autocmds
---@param lazy boolean? the write goes to a commit, which may read the bytes
---@return nvbridge.Write? write, nvbridge.Error? err
local function prepare_write(b, path, noautocmd, lazy)
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
  local w = { b = b, path = path }
  -- The text before and after the autocmds is taken only when some run:
  -- with none the buffer cannot change, and each take of a 100,000-line
  -- buffer's text costs tens of ms.
  if not noautocmd and #api.nvim_get_autocmds({ event = 'BufWritePre' }) > 0 then
    w.before = buffer_text(b)
    local ok, err = pcall(api.nvim_buf_call, b, function()
      api.nvim_exec_autocmds('BufWritePre', { buffer = b, modeline = false })
    end)
    if not ok then
      w.note = "the user's BufWritePre autocmds failed: " .. tostring(err)
    end
    if not api.nvim_buf_is_valid(b) then
      return nil, fail('OPERATION_FAILED', path .. ': a BufWritePre autocmd closed the buffer', { path = path })
    end
    local after = buffer_text(b)
    if after ~= w.before then
      w.written = after
    end
  end
  w.source = lazy and buffer_source(b) or nil
  if not w.source then
    local bytes, err = file_bytes(b)
    if not bytes then
      return nil, fail('OPERATION_FAILED', path .. ': ' .. err .. ' (nothing was written)', { path = path })
    end
    w.bytes = bytes
  end
  w.tick = vim.b[b].changedtick
  return w
end

--- Hands ops ({kind = 'write'|'remove', path, data?, create?}) to the Go
--- side as one commit. The reply's err says what happened; files where each
--- file stands ({path, disk = 'new'|'old'|'unknown'}). lost: nvbridge did
--- not answer (it ended): its journal settles the disk at its next start.
---@param g nvbridge.Guard
---@param id string the commit's id (Go keeps its outcome by it)
---@param ops nvbridge.DiskOp[]
---@return {files: nvbridge.DiskState[]?, err: nvbridge.Error?, lost: boolean?}
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
---@param w nvbridge.Write
---@param noautocmd boolean? without BufWritePost
---@param root string? the workspace root (no undo file is written in it)
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
  -- The commit's own fingerprint of the bytes, when it is this one (a
  -- 5 MB file took 3.5 ms to hash here); bytes the commit read itself
  -- without one are read back.
  record_disk(b, w.path, w.bytes, w.hash or (w.bytes and fingerprint(w.bytes)))
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
    -- What a BufWritePost handler records of the disk (observe.lua's,
    -- as for any write) is what was just recorded: not read back.
    local disk, hash = vim.b[b].nvbridge_disk, vim.b[b].nvbridge_disk_hash
    buffers.just_written = disk and hash and { b = b, key = disk, hash = hash } or nil
    pcall(api.nvim_buf_call, b, function()
      api.nvim_exec_autocmds('BufWritePost', { buffer = b, modeline = false })
    end)
    buffers.just_written = nil
  end
  return note
end

--- The disk operation that removes a renamed buffer's old file once the
--- new one is written, unless another loaded buffer holds it.
---@param from string? the old path
---@param to string the new path
---@return nvbridge.DiskOp?
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

M.disk_changed = disk_changed
M.file_bytes = file_bytes
M.prepare_write = prepare_write
M.commit = commit
M.mark_written = mark_written

--- The fingerprint nvbridge's commit computed for the bytes it wrote to
--- path (reply: a CommitReply), when it is the kind buffers.fingerprint
--- makes; nil otherwise (the caller hashes the bytes itself).
---@param reply nvbridge.CommitReply
---@param path string
---@return string?
function M.committed_hash(reply, path)
  if buffers.fingerprint_kind ~= 'fnv64' then
    return nil
  end
  for _, o in ipairs(reply.files or {}) do
    if o.path == path and o.disk == 'new' and type(o.fingerprint) == 'string' and o.fingerprint:sub(1, 6) == 'fnv64:' then
      return o.fingerprint
    end
  end
  return nil
end
M.old_file_removal = old_file_removal

--- b's state before the user's write autocmds run for a preview (or a save
--- whose result is refused): what unchanged puts back.
local function mark_state(b)
  undo_log.break_undo(b)
  return {
    tick = vim.b[b].changedtick,
    seq = undo_seq(b),
    undo = undo_log.undo_enabled(b),
    lines = api.nvim_buf_get_lines(b, 0, -1, false),
    modified = vim.bo[b].modified,
    eol = vim.bo[b].eol,
    views = undo_log.save_views(b),
  }
end

--- Puts b back as mark_state found it, when the write autocmds changed it:
--- by undo when b keeps undo history (the user's u and the undo records
--- stay as they were), else by setting its lines back; every window keeps
--- its view.
local function unchanged(b, mark)
  if not api.nvim_buf_is_valid(b) or vim.b[b].changedtick == mark.tick then
    return
  end
  if mark.undo and undo_seq(b) ~= mark.seq then
    pcall(api.nvim_buf_call, b, function()
      vim.cmd('silent undo ' .. mark.seq)
    end)
  end
  if not vim.deep_equal(api.nvim_buf_get_lines(b, 0, -1, false), mark.lines) then
    api.nvim_buf_set_lines(b, 0, -1, false, mark.lines)
  end
  vim.bo[b].eol = mark.eol
  vim.bo[b].modified = mark.modified
  undo_log.restore_views(mark.views)
end

---@class nvbridge.SaveOptions
---@field force boolean? overwrite a file changed on disk
---@field noautocmd boolean? without the user's write autocmds
---@field ours_only boolean? refuse a buffer holding unsaved changes nvbridge did not make (the user's)
---@field expect string? the fingerprint of the bytes the user approved: anything else is not written

--- The buffer of path if it has something to save, else nil and the
--- reply that says why not (an error, or nothing to save).
---@return integer? b, nvbridge.BufferReply? reply, uv.fs_stat.result? stat
local function saveable(path, g, opts)
  local st = uv.fs_stat(path)
  if st and st.type == 'directory' then
    local err = fail('INVALID_PARAMETER', path .. ' is a directory, not a file', { path = path, remediation = 'name a file inside it' })
    return nil, { err = err }
  end
  local b = loaded_buffer(buffer_index(), path)
  if not b then
    return nil, { saved = false, note = 'not open in Neovim: nothing to save' }
  end
  if not vim.bo[b].modified and not vim.b[b].nvbridge_renamed_from and st then
    local d = describe(b)
    d.saved, d.note = false, 'no unsaved changes'
    return nil, d
  end
  if opts.ours_only and modified_by_user(b) then
    return nil, {
      err = fail(
        'PRECONDITION_FAILED',
        path .. " has unsaved changes the user made (not nvbridge): nvbridge saves only its own changes, never the user's (nothing was saved)",
        {
          path = path,
          remediation = 'ask the user to save the file themselves (:w) or to undo their edits; your changes stay in the buffer meanwhile',
        }
      ),
    }
  end
  local gerr = guard(g, api.nvim_buf_get_name(b), path, 'write')
  if gerr then
    return nil, { err = gerr }
  end
  if not opts.force and disk_changed(b) then
    return nil, {
      err = fail('CONFLICT', path .. ' changed on disk since it was loaded; saving would overwrite that change', { path = path }),
    }
  end
  return b, nil, st
end

---@class nvbridge.SavePreview
---@field text string? what would be written (the buffer's text after the user's write autocmds)
---@field disk string? what the file holds now (nil: it does not exist)
---@field from string? a pending rename's old file, whose content disk is
---@field hash string? the fingerprint of the bytes that would be written
---@field formatted boolean? the user's write autocmds change the text
---@field note string?
---@field nothing nvbridge.BufferReply? nothing to save: the reply save gives
---@field err nvbridge.Error?

--- What saving the buffer of path would write, checked as the save checks
--- it, for the user's approval: the user's BufWritePre runs (their
--- format-on-save) and what it changed is put back at once (undone).
---@param path string absolute
---@param g nvbridge.Guard
---@param opts nvbridge.SaveOptions
---@return nvbridge.SavePreview
function M.preview(path, g, opts)
  opts = opts or {}
  local b, reply = saveable(path, g, opts)
  if not b then
    if reply.err then
      return { err = reply.err }
    end
    return { nothing = reply }
  end
  local mark = mark_state(b)
  local w, err = prepare_write(b, path, opts.noautocmd == true)
  unchanged(b, mark)
  if not w then
    return { err = err }
  end
  local out = { text = w.written or w.before, hash = fingerprint(w.bytes), formatted = w.written ~= nil, note = w.note }
  local from = vim.b[b].nvbridge_renamed_from
  local data = read_file(from or path)
  if data then
    out.disk = require('nvbridge.snapshot').as_loaded(data)
    out.from = from
  end
  return out
end

--- Writes the buffer of path. Refuses (CONFLICT) when the file changed on
--- disk since it was loaded, unless force; refuses, force or not, when the
--- file it would write is not path (a symlink appeared on the way), lies
--- outside the root or has other hard links (guard); with ours_only, when
--- the buffer holds the user's unsaved changes; with expect, when what
--- would be written is not what the user approved (their write autocmds'
--- change is then put back).
---@param path string absolute
---@param g nvbridge.Guard
---@param id string the commit's id
---@param opts nvbridge.SaveOptions
---@return nvbridge.BufferReply
function M.save(path, g, id, opts)
  opts = opts or {}
  local noautocmd = opts.noautocmd == true
  local b, reply, st = saveable(path, g, opts)
  if not b then
    return reply
  end
  local mark = opts.expect and mark_state(b)
  local w, err = prepare_write(b, path, noautocmd, not opts.expect)
  if not w then
    return { err = err }
  end
  if opts.expect and fingerprint(w.bytes) ~= opts.expect then
    unchanged(b, mark)
    return {
      err = fail(
        'CONFLICT',
        path .. ' would not be written as the user approved it: the buffer or what its write autocmds make of it changed since (nothing was saved)',
        { path = path, remediation = 'call save_buffer again: the user is shown what it writes now' }
      ),
    }
  end
  local name = api.nvim_buf_get_name(b)
  -- A file that does not exist (a new or renamed buffer) is created: never
  -- over one that appeared meanwhile.
  local ops = { { kind = 'write', path = path, data = w.bytes, buffer = w.source, create = st == nil } }
  table.insert(ops, old_file_removal(vim.b[b].nvbridge_renamed_from, name))
  local cr = commit(g, id, ops)
  if cr.err then
    return { err = cr.err }
  end
  w.hash = M.committed_hash(cr, path)
  local note = mark_written(w, noautocmd, g.root)
  if w.note then
    note = note and (note .. '; ' .. w.note) or w.note
  end
  local d = describe(b)
  d.saved, d.note, d.written_text = true, note, w.written
  if w.written then
    d.before_text = w.before
  end
  -- A buffer nvbridge listed for its unsaved change is put back out of
  -- sight once saved (changes.lua).
  local changes = package.loaded['nvbridge.changes']
  if changes then
    pcall(changes.settle, b)
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

return M
