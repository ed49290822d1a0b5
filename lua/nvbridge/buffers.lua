--- Buffers and the disk: loading a file into a buffer (and releasing the
--- buffers nvbridge loaded only to read), reconciling a loaded buffer with
--- the disk (the content fingerprint that decides "changed on disk"), the
--- bytes Neovim writes for a buffer. Synchronous: called directly by Go
--- (open) and by the changeset modules (snapshot, apply, write, undo_log),
--- read.lua and structure.lua. The asynchronous operations (LSP requests,
--- waits) are async.lua, wait.lua and read.lua.
local M = {}

local uv = vim.uv or vim.loop
local api = vim.api

local fail = require('nvbridge._error').fail
local loaded = require('nvbridge.loaded')
local buf_option = require('nvbridge._compat').buf_option
local watch = require('nvbridge.watch')
local settled = require('nvbridge.settled')

--- A file's bytes (nil when it cannot be read).
---@param path string
---@return string?
local function read_file(path)
  local fd = uv.fs_open(path, 'r', 438)
  if not fd then
    return nil
  end
  local stat = uv.fs_fstat(fd)
  local data = stat and uv.fs_read(fd, stat.size, 0) or nil
  uv.fs_close(fd)
  return data
end

--- The buffer has no lines at all (a loaded empty file), as opposed to one
--- empty line (a file holding "\n"): both look alike through the API; only
--- line2byte tells them apart (-1: no bytes at all).
---@param bufnr integer
---@return boolean
local function is_empty(bufnr)
  if api.nvim_buf_line_count(bufnr) ~= 1 or api.nvim_buf_get_lines(bufnr, 0, 1, false)[1] ~= '' then
    return false
  end
  return api.nvim_buf_call(bufnr, function()
    return vim.fn.line2byte(vim.fn.line('$') + 1)
  end) == -1
end

--- The bytes Neovim writes for the buffer when 'fixendofline' does not add a
--- newline (nvbridge's own writes honour 'eol' exactly), without the BOM.
---@param bufnr integer
---@return string
local function buffer_text(bufnr)
  if is_empty(bufnr) then
    return ''
  end
  local lines = api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local nl = buf_option(bufnr, 'fileformat') == 'dos' and '\r\n' or '\n'
  local text = table.concat(lines, nl)
  if buf_option(bufnr, 'eol') then
    text = text .. nl
  end
  return text
end

--- The bytes Neovim would write for the buffer, to compare with the disk.
---@param bufnr integer
---@return string
local function buffer_bytes(bufnr)
  local text = buffer_text(bufnr)
  if buf_option(bufnr, 'bomb') then
    text = '\239\187\191' .. text
  end
  return text
end

--- A quick "maybe changed" key: besides mtime and size, the inode and the
--- ctime, which every content write moves and no tool can put back (cp -p,
--- rsync, tar and git restore the mtime only).
---@param stat uv.fs_stat.result
---@return string
local function stat_key(stat)
  return string.format(
    '%d.%d:%d:%d:%d.%d',
    stat.mtime.sec,
    stat.mtime.nsec,
    stat.size,
    stat.ino,
    stat.ctime.sec,
    stat.ctime.nsec
  )
end

local fingerprints = require('nvbridge.fingerprint')
local fingerprint = fingerprints.fingerprint

--- Records the disk state a buffer now agrees with: the file's stat key
--- (mtime and size, a quick "maybe changed") and the fingerprint of its
--- bytes, which decides "changed on disk" (a rewrite at the same size with
--- the mtime put back, as cp -p, rsync, tar or git do, keeps the stat key).
--- data is the file's content when the caller has just read it, hash its
--- fingerprint when already computed.
---@param b integer
---@param path string
---@param data string? the file's bytes, when just read
---@param hash string? their fingerprint, when computed
local function record_disk(b, path, data, hash)
  local stat = uv.fs_stat(path)
  if not stat or stat.type ~= 'file' then
    vim.b[b].nvbridge_disk = nil
    vim.b[b].nvbridge_disk_hash = nil
    return
  end
  local key, w = stat_key(stat), M.just_written -- w: this disk state, as nvbridge's write of b just left it
  hash = hash or (not data and w and w.b == b and w.key == key and w.hash) or nil -- (write.mark_written: not read back)
  if not hash then
    data = data or read_file(path)
    hash = data and fingerprint(data) or nil
  end
  vim.b[b].nvbridge_disk, vim.b[b].nvbridge_disk_hash = key, hash
end

--- Whether the file's content differs from the one recorded for b (its
--- fingerprint); without a recorded fingerprint, whether its stat key
--- does. Returns changed, and the fingerprint of the bytes read (if read).
---@param b integer
---@param path string
---@param stat uv.fs_stat.result
---@return boolean changed, string? hash
local function disk_differs(b, path, stat)
  local seen_hash = vim.b[b].nvbridge_disk_hash
  if seen_hash then
    local data = read_file(path)
    local hash = data and fingerprint(data)
    return hash == nil or hash ~= seen_hash, hash
  end
  local seen = vim.b[b].nvbridge_disk
  return seen ~= nil and seen ~= stat_key(stat), nil
end

--- Records the disk state a buffer was just loaded from, as record_disk
--- does, from before: the file's stat taken before the load (a write
--- during the load moves its ctime, so the next reconcile compares the
--- content). The fingerprint, a second read of the file, is left to the
--- main loop's next turn: a read's request leaves first, and the server
--- works meanwhile. It is recorded only if the file's stat key is still
--- the one recorded (the bytes read are the ones loaded); until then the
--- buffer compares by that stat key, as one recorded without a
--- fingerprint does.
---@param b integer
---@param path string
---@param before uv.fs_stat.result
local function record_loaded(b, path, before)
  if before.type ~= 'file' then
    vim.b[b].nvbridge_disk = nil
    vim.b[b].nvbridge_disk_hash = nil
    return
  end
  local key = stat_key(before)
  vim.b[b].nvbridge_disk, vim.b[b].nvbridge_disk_hash = key, nil
  vim.schedule(function()
    if not api.nvim_buf_is_valid(b) or vim.b[b].nvbridge_disk ~= key or vim.b[b].nvbridge_disk_hash then
      return
    end
    local data = read_file(path)
    local now = data and uv.fs_stat(path)
    if now and stat_key(now) == key then
      vim.b[b].nvbridge_disk_hash = fingerprint(data)
    end
  end)
end

--- Loads path into a listed buffer without showing it or prompting, and
--- records the disk state it was loaded from (before: the file's stat
--- taken before the load, whose record record_loaded makes; else read
--- after it). Returns the buffer, or nil and the error. b: path's buffer
--- when the caller added it already (open).
---@param path string
---@param before uv.fs_stat.result?
---@param b integer?
---@return integer? bufnr, string? err
local function load(path, before, b)
  -- Named relative to the current directory when inside it, as :edit
  -- names it: a buffer the user is later shown (:ls) reads as theirs do.
  b = b or vim.fn.bufadd(vim.fn.fnamemodify(path, ':.'))
  -- shortmess+=A: an existing swap file must not stop us with a prompt
  -- (the embedded Neovim has it; a user's is set back after).
  local shortmess = vim.o.shortmess
  local add = not shortmess:find('A', 1, true)
  if add then
    vim.o.shortmess = shortmess .. 'A'
  end
  local ok, err = pcall(vim.fn.bufload, b)
  if add then
    vim.o.shortmess = shortmess
  end
  if not ok then
    return nil, tostring(err)
  end
  -- Loaded only to be read: not listed (the user's :ls and :bnext do not
  -- see it), remembered so that it is unloaded when no longer needed.
  if not buf_option(b, 'buflisted') then
    vim.b[b].nvbridge_loaded = true
    table.insert(loaded.loaded_order, b)
  end
  if before then
    record_loaded(b, path, before)
  else
    record_disk(b, path)
  end
  loaded.release_later(b)
  return b
end

-- Line changes since a cached text (linetrack.lua): snapshot and apply use
-- them through buffers.
local linetrack = require('nvbridge.linetrack')
M.track, M.changes, M.untrack = linetrack.track, linetrack.changes, linetrack.untrack

--- Runs :checktime for one modified buffer with a FileChangedShell handler
--- that only records what Neovim found (no prompt, no reload): whether
--- Neovim finds its file changed.
---@param bufnr integer
---@return boolean
local function neovim_sees_conflict(bufnr)
  local reason
  local group = api.nvim_create_augroup('nvbridge_checktime', { clear = true })
  api.nvim_create_autocmd('FileChangedShell', {
    group = group,
    buffer = bufnr,
    callback = function()
      reason = vim.v.fcs_reason
      vim.v.fcs_choice = ''
    end,
  })
  pcall(vim.cmd, 'checktime ' .. bufnr)
  api.nvim_del_augroup_by_id(group)
  return reason == 'conflict' or reason == 'changed'
end

M.reconciles = M.reconciles or 0 -- runs of reconcile (unchanged files have none)
M.passes = M.passes or 0 -- refresh_others's looks at every buffer (none while all is quiet)

--- Makes the buffer agree with the disk before a request runs against it, as
--- :checktime would, but without prompts: an unmodified buffer whose file
--- changed is reloaded (the servers see didClose/didOpen); a modified buffer
--- whose file also changed is a conflict.
---
--- "Changed" is decided by content: the fingerprint recorded when the
--- buffer was loaded, written or last reconciled, against the bytes on
--- disk. Unless deep is set, a file whose stat key did not move (mtime,
--- size, inode and ctime, which every write moves and no tool puts back)
--- is not read again: requests and previews pay nothing for an unchanged
--- file. Right before a write (apply, save) the content is always compared.
---@param deep boolean? compare content even when the stat key is the same
---@return string state "same" | "reloaded" | "conflict" | "deleted"
---@param bufnr integer
local function reconcile(bufnr, deep)
  M.reconciles = M.reconciles + 1
  local path = api.nvim_buf_get_name(bufnr)
  local stat = uv.fs_stat(path)
  if not stat then
    return 'deleted'
  end
  local now = stat_key(stat)
  local seen = vim.b[bufnr].nvbridge_disk
  if buf_option(bufnr, 'modified') then
    if vim.b[bufnr].nvbridge_conflict then
      return 'conflict'
    end
    local changed, hash = false, nil
    if seen and (deep or seen ~= now) then
      changed, hash = disk_differs(bufnr, path, stat)
    elseif not seen then
      changed = neovim_sees_conflict(bufnr)
    end
    if changed then
      vim.b[bufnr].nvbridge_conflict = true
      return 'conflict'
    end
    if seen ~= now or not vim.b[bufnr].nvbridge_disk_hash then
      record_disk(bufnr, path, nil, hash)
    end
    return 'same'
  end
  vim.b[bufnr].nvbridge_conflict = nil
  if seen == now and not deep then
    return 'same'
  end
  local data = read_file(path)
  local hash = data and fingerprint(data)
  local changed
  if vim.b[bufnr].nvbridge_disk_hash then
    changed = hash == nil or hash ~= vim.b[bufnr].nvbridge_disk_hash
  else
    changed = data ~= buffer_bytes(bufnr)
  end
  local state = 'same'
  if changed and M.shown_noautoread(bufnr) then
    -- The user shows this buffer and asked not to have it reloaded under
    -- them ('noautoread'): leave it, tell them, and let the caller say so.
    M.tell_stale(bufnr, path, hash)
    return 'stale'
  end
  if changed then
    api.nvim_buf_call(bufnr, function()
      vim.cmd('silent keepalt keepjumps edit!')
    end)
    state = 'reloaded'
  end
  record_disk(bufnr, path, data, hash)
  return state
end

--- Whether bufnr is shown in one of the user's windows with 'autoread'
--- off (its global-local value as Neovim applies it to this buffer).
---@param bufnr integer
---@return boolean
function M.shown_noautoread(bufnr)
  if #vim.fn.win_findbuf(bufnr) == 0 then
    return false
  end
  return vim.fn.getbufvar(bufnr, '&autoread') == 0
end

--- Tells the user, once per content on disk, that a buffer they show was
--- not reloaded.
---@param bufnr integer
---@param path string
---@param hash string? the content on disk's fingerprint
function M.tell_stale(bufnr, path, hash)
  if vim.b[bufnr].nvbridge_stale_told == (hash or '') then
    return
  end
  vim.b[bufnr].nvbridge_stale_told = hash or ''
  vim.schedule(function()
    vim.notify(
      'nvbridge: ' .. vim.fn.fnamemodify(path, ':~:.') .. " changed on disk; not reloaded ('noautoread'): :checktime or :edit to load it",
      vim.log.levels.WARN
    )
  end)
end

-- Buffers last found in agreement with their file: the file's stat (its
-- stat key's fields, as numbers) and the buffer's changedtick then. While
-- both hold, neither moved: open and refresh_others pass the buffer on one
-- stat (reconcile would agree the same way at several times the cost).
local agreed = {}
local refreshes = 0
-- path -> the buffer open found for it (bufadd stats the file every call).
local bufnr_of = {}

--- What agreed keeps of a buffer: its changedtick and its file's stat.
local function agreement(tick, stat)
  local m, c = stat.mtime, stat.ctime
  return { tick = tick, msec = m.sec, mnsec = m.nsec, size = stat.size, ino = stat.ino, csec = c.sec, cnsec = c.nsec }
end

--- Whether stat is the stat seen recorded (the same stat key).
local function same_stat(seen, stat)
  local m, c = stat.mtime, stat.ctime
  return seen.size == stat.size and seen.ino == stat.ino and seen.msec == m.sec and seen.mnsec == m.nsec
    and seen.csec == c.sec and seen.cnsec == c.nsec
end

--- A buffer that agreed with its file, covered (watched): it stands from
--- now on (settled.lua), until an event says otherwise.
---@param b integer
---@param name string
---@param watched boolean?
local function agree_settled(b, name, watched)
  if watched then
    settled.keep(b, name)
  end
end

--- Records that buffer b (named name) agrees with its file at changedtick
--- tick and stat, watched when the kernel covers the file (then it stands).
---@param b integer
---@param name string
---@param tick integer
---@param stat uv.fs_stat.result
---@param watched boolean?
local function agree(b, name, tick, stat, watched)
  agreed[b] = agreement(tick, stat)
  agreed[b].watched = watched
  agree_settled(b, name, watched)
end

--- Finds a buffer open just loaded in agreement with its file once the
--- call that loaded it is done (its request left first; the server works
--- meanwhile), as the next call's refresh_others would find it before its
--- own request left (a cover, a stat and a reconcile: a tenth of a
--- millisecond of every read after a load). The file is covered, then
--- stated: the same stat key as before (the stat taken before the load:
--- no write since, as every write moves the ctime) means the bytes loaded
--- are still the file's, and a change from now on is an event. A buffer
--- whose text moved, or that was unloaded or renamed, since its load, or a
--- file that moved, is left to the next refresh, as before.
---@param b integer
---@param path string
---@param before uv.fs_stat.result the file's stat taken before the load
local function agree_loaded(b, path, before)
  if before.type ~= 'file' then
    return
  end
  local key, tick = stat_key(before), api.nvim_buf_get_changedtick(b)
  vim.schedule(function()
    if agreed[b] or not api.nvim_buf_is_loaded(b) or api.nvim_buf_get_name(b) ~= path
      or api.nvim_buf_get_changedtick(b) ~= tick or buf_option(b, 'modified') or buf_option(b, 'buftype') ~= '' then
      return
    end
    local watched = watch.cover(path)
    local stat = uv.fs_stat(path)
    if stat and stat_key(stat) == key then
      agree(b, path, tick, stat, watched)
    end
  end)
end

-- Reloads every other loaded, unmodified file buffer whose file changed on
-- disk: requests read other files too (a definition in another file,
-- references), and a server must not answer from a stale buffer. Buffers
-- with unsaved changes keep them (a request that targets one reports the
-- conflict). A buffer that agreed with its file is passed over while its
-- text did not move and the kernel told of no change to the file since
-- (watch.lua: the queue read once here); where it cannot tell, a stat.
-- One that stands (settled.lua: no event told of a change of the buffer)
-- is passed over on the kernel's word alone, without asking Neovim.
-- drained: open read the queue just before, nothing run since: a second
-- read could only find what a write a moment later would, as the next does.
local function refresh_others(except, drained)
  if not drained then
    watch.drain()
  end
  if settled.still_quiet(watch.generation) then
    return
  end
  M.passes = M.passes + 1
  local quiet = settled.installed
  for _, b in ipairs(api.nvim_list_bufs()) do
    local path = settled.path(b)
    if b == except then -- open keeps (or drops) its own agreement
    elseif path and watch.covered(path) then -- it stands
    elseif api.nvim_buf_is_loaded(b) then
      local name = api.nvim_buf_get_name(b)
      local seen = agreed[b]
      local tick = api.nvim_buf_get_changedtick(b)
      if seen and seen.watched and seen.tick == tick and watch.covered(name) then
        settled.keep(b, name)
      else
        -- Covered before the stat: a change after it is an event.
        local watched = seen and watch.cover(name)
        local stat = seen and uv.fs_stat(name)
        if name ~= '' and not (stat and seen.tick == tick and same_stat(seen, stat)) then
          agreed[b] = nil
          settled.forget(b)
          if buf_option(b, 'buftype') == '' and not buf_option(b, 'modified') then
            -- Covered before reconcile reads the file (above, when it had
            -- agreed before).
            if not seen then
              watched = watch.cover(name)
            end
            local ok, state = pcall(reconcile, b)
            stat = ok and state == 'same' and uv.fs_stat(name)
            if stat then
              agree(b, name, api.nvim_buf_get_changedtick(b), stat, watched)
            end
          end
        elseif seen then
          seen.watched = watched
          agree_settled(b, name, watched)
        end
      end
      if quiet then
        local now = settled.path(b)
        quiet = now and watch.covered(now)
          or not agreed[b] and (name == '' or buf_option(b, 'buftype') ~= '')
      end
    elseif agreed[b] then
      agreed[b] = nil
      settled.forget(b)
    end
  end
  local own = except and settled.path(except)
  if quiet and (not except or own and watch.covered(own)) then
    settled.quiet(watch.generation)
  end
  -- Wiped buffers are not listed any more: forget them now and then.
  refreshes = refreshes + 1
  if refreshes % 256 == 0 then
    for b in pairs(agreed) do
      if not api.nvim_buf_is_valid(b) then
        agreed[b] = nil
      end
    end
  end
end

-- Shared with the changeset modules. reconcile(bufnr) serves callers that
-- already hold loaded buffers: open's refresh of every other buffer, per
-- call, would make a changeset over many files quadratic.
M.reconcile = reconcile
M.read_file = read_file
M.is_empty = is_empty
M.buffer_text = buffer_text
M.buffer_bytes = buffer_bytes
M.stat_key = stat_key
M.fingerprint = fingerprint
--- 'fnv64' when fingerprint is the FNV-1a one (LuaJIT), which nvbridge's
--- commit also computes for the bytes it writes (CommitReply files' fingerprint).
M.fingerprint_kind = fingerprints.kind
M.record_disk = record_disk
M.disk_differs = disk_differs
M.load = load
M.neovim_sees_conflict = neovim_sees_conflict

-- Finding and describing buffers (apply, write, undo_log, snapshot) ---------

local index = require('nvbridge.buffer_index')
M.buffer_index, M.loaded_buffer = index.buffer_index, index.loaded_buffer

--- Makes a loaded buffer agree with the disk (reconcile); a
--- buffer with unsaved changes whose file also changed is a CONFLICT. deep
--- compares the content even when the stat key did not move (right before
--- a change is applied).
---@param b integer
---@param path string
---@param deep boolean?
---@return nvbridge.Error?
function M.check_disk(b, path, deep)
  if reconcile(b, deep) == 'conflict' then
    return fail('CONFLICT', path .. ' has unsaved changes in Neovim and was also changed on disk', { path = path })
  end
end

--- What a buffer tool answers about a buffer (nvbridge.BufferReply).
---@param b integer
---@return {bufnr: integer, changedtick: integer, modified: boolean, line_count: integer}
function M.describe(b)
  return {
    bufnr = b,
    changedtick = vim.b[b].changedtick,
    modified = buf_option(b, 'modified'),
    line_count = api.nvim_buf_line_count(b),
  }
end

---@param bufnr integer
---@param state string what open did
---@return nvbridge.BufferState
local function buffer_state(bufnr, state)
  return { ---@type nvbridge.OpenReply
    bufnr = bufnr,
    changedtick = api.nvim_buf_get_changedtick(bufnr),
    modified = buf_option(bufnr, 'modified'),
    line_count = api.nvim_buf_line_count(bufnr),
    filetype = buf_option(bufnr, 'filetype'),
    fileformat = buf_option(bufnr, 'fileformat'),
    eol = buf_option(bufnr, 'eol'),
    state = state,
  }
end

--- A loaded buffer's state as open reports it (state: what open did).
M.state = buffer_state

--- Loads path into a buffer (without showing it) and reconciles it with the
--- disk. Returns the buffer state, or {err = {code, message}}; lazy: only
--- {bufnr, state}, the caller takes the rest (M.state) when it needs it.
---@param path string absolute, already confined to the workspace by the caller
---@param must_exist boolean
---@param lazy boolean
---@return nvbridge.OpenReply
local function open(path, must_exist, lazy)
  -- The target agreed with its file, its text did not move and the kernel
  -- told of no change to the file since (watch.lua): it is the same
  -- regular file, still there, and reconcile would find the same.
  -- One that stands (settled.lua) is all that on events alone.
  local known = bufnr_of[path]
  local stands = known and settled.path(known) == path
  local seen = known and agreed[known]
  if stands or seen and seen.watched and api.nvim_buf_is_loaded(known) and seen.tick == api.nvim_buf_get_changedtick(known) then
    watch.drain()
    if watch.covered(path) and (stands or api.nvim_buf_get_name(known) == path) then
      if not stands then
        settled.keep(known, path)
      end
      refresh_others(known, true)
      return lazy and { bufnr = known, state = 'same' } or buffer_state(known, 'same')
    end
  end
  local stat = uv.fs_stat(path)
  if stat and stat.type == 'directory' then
    return { err = fail('INVALID_PARAMETER', path .. ' is a directory, not a file', { remediation = 'name a file inside it' }) }
  end
  if stat and stat.type ~= 'file' then
    return { err = fail('INVALID_PARAMETER', path .. ' is not a regular file (' .. stat.type .. ')', { remediation = 'name a regular file' }) }
  end
  if must_exist and not stat and vim.fn.bufexists(path) == 0 then
    return { err = fail('RESOURCE_NOT_FOUND', 'no such file: ' .. path) }
  end
  local bufnr = bufnr_of[path]
  if not (bufnr and api.nvim_buf_is_valid(bufnr) and api.nvim_buf_get_name(bufnr) == path) then
    bufnr = vim.fn.bufadd(path)
    bufnr_of[path] = bufnr
  end
  local state = 'loaded'
  if api.nvim_buf_is_loaded(bufnr) then
    -- Neither text nor file moved since they last agreed: reconcile would
    -- find the same (at several times the cost, on every request).
    seen = agreed[bufnr]
    if seen and stat and seen.tick == api.nvim_buf_get_changedtick(bufnr) and same_stat(seen, stat) then
      state = 'same'
      if not seen.watched then
        -- Covered, then looked at again: still the file it agreed with,
        -- and from now on a change is told.
        local again = watch.cover(path) and uv.fs_stat(path)
        seen.watched = again and same_stat(seen, again) or false
      end
      agree_settled(bufnr, path, seen.watched)
    else
      agreed[bufnr] = nil
      settled.forget(bufnr)
      -- Covered before reconcile reads the file: a change after is told.
      local watched = not buf_option(bufnr, 'modified') and watch.cover(path)
      state = reconcile(bufnr)
      local now = state == 'same' and not buf_option(bufnr, 'modified') and uv.fs_stat(path)
      if now then
        agree(bufnr, path, api.nvim_buf_get_changedtick(bufnr), now, watched)
      end
    end
  else
    local b, load_err = load(path, stat, bufnr)
    if load_err then
      return { err = fail('OPERATION_FAILED', 'cannot load ' .. path .. ': ' .. load_err) }
    end
    if stat and b == bufnr then
      agree_loaded(bufnr, path, stat)
    end
  end
  if state == 'conflict' then
    return {
      err = fail('CONFLICT', path .. ' has unsaved changes in Neovim and was also changed on disk'),
    }
  end
  if state == 'stale' then
    return {
      err = fail(
        'PRECONDITION_FAILED',
        path .. " changed on disk, and the user shows it in Neovim with 'noautoread': it was not reloaded under them",
        { remediation = 'ask the user to reload it (:checktime or :edit), or read the file from disk with read_file' }
      ),
    }
  end
  refresh_others(bufnr)
  return lazy and { bufnr = bufnr, state = state } or buffer_state(bufnr, state)
end

--- open: the buffer state, or {err = {code, message}}.
---@param path string absolute, already confined to the workspace by the caller
---@param must_exist boolean
---@return nvbridge.OpenReply
function M.open(path, must_exist)
  return open(path, must_exist, false)
end

--- open, answering {bufnr, state} only (or {err}): the caller takes the
--- rest (M.state) when it needs it (read.lua: once its request went).
---@param path string
---@param must_exist boolean
---@return {bufnr: integer, state: string, err: nvbridge.Error?}
function M.open_lazy(path, must_exist)
  return open(path, must_exist, true)
end

return M
