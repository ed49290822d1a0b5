--- The loaded buffers known to agree with their files until an event says
--- otherwise: each agreed with its file, the kernel watches the file
--- (watch.lua), and Neovim calls back on the buffer's first change. Before
--- every request, buffers.refresh_others passes such a buffer over on one
--- table lookup and the kernel's word, where it used to ask Neovim the
--- buffer's state (loaded, name, changedtick): a request's cost no longer
--- grows with the buffers the user keeps loaded.
---
--- What ends a buffer's standing, each by an event rather than a look:
---   its text changes (on_lines) or it is unloaded (on_detach):
---   nvim_buf_attach's callbacks;
---   it is renamed (:file, :saveas, nvim_buf_set_name): BufFilePost, in
---   nvbridge's augroup (install);
---   its file changes on disk: watch.covered turns false (the caller asks).
--- Without install (a module loaded on its own) no buffer is kept: the
--- caller looks at every buffer, as before.
local M = {}

local api = vim.api

-- bufnr -> the path the buffer agreed with, while it stands.
local settled = {}
-- bufnr -> true while this module's callbacks are attached to the buffer
-- (an attachment is made once and ends at the first text change or an
-- unload, so that a buffer is never attached twice).
local attached = {}

--- Moves with every event that can make a buffer need refresh_others's
--- look: a buffer's standing ended, or a buffer was made, loaded, named,
--- written, unloaded or wiped, or its 'buftype' or 'modified' set. While
--- it (and watch.generation) stays, a pass that found every buffer
--- standing, or one no look would change, would find the same.
M.generation = 0

-- quiet_at: the generations (this module's, watch's) after a pass of
-- refresh_others that left every buffer standing, unloaded without an
-- agreement, or one whose look does nothing (unnamed, or not a file's).
local quiet_at

local function moved()
  M.generation = M.generation + 1
end

--- Records that refresh_others's pass left every buffer quiet (see
--- quiet_at), watch being at watch_generation.
---@param watch_generation integer
function M.quiet(watch_generation)
  quiet_at = { M.generation, watch_generation }
end

--- Whether nothing moved since the last quiet pass: the next would find
--- the same, and is skipped (a pass over 23 loaded buffers took about
--- 30 µs of Neovim's CPU on every request, and grows with them).
---@param watch_generation integer
---@return boolean
function M.still_quiet(watch_generation)
  return M.installed and quiet_at ~= nil and quiet_at[1] == M.generation and quiet_at[2] == watch_generation
end

--- The buffer's text changed: it no longer stands, and the callbacks
--- detach (returning true): the next agreement attaches again.
local function on_lines(_, bufnr)
  settled[bufnr] = nil
  attached[bufnr] = nil
  moved()
  return true
end

--- Unloaded or wiped: the attachment is gone.
local function on_detach(_, bufnr)
  settled[bufnr] = nil
  attached[bufnr] = nil
  moved()
end

-- A reload (:edit!) reads the file as it is: the text it agreed with, or
-- the kernel told of the change that made it differ. A changedtick moved
-- without a text change leaves the text as it agreed.
local callbacks = { on_lines = on_lines, on_detach = on_detach }

--- Records that bufnr agrees with its file path, which the kernel watches
--- (watch.cover said so). False when it cannot stand (not installed, or
--- Neovim refused the attachment): the caller looks at it every time.
---@param bufnr integer
---@param path string
---@return boolean
function M.keep(bufnr, path)
  if not M.installed then
    return false
  end
  if not attached[bufnr] then
    if not api.nvim_buf_attach(bufnr, false, callbacks) then
      return false
    end
    attached[bufnr] = true
  end
  settled[bufnr] = path
  return true
end

--- The path bufnr agreed with, while nothing told of a change of the
--- buffer since (the caller asks watch.covered about the file).
---@param bufnr integer
---@return string?
function M.path(bufnr)
  return settled[bufnr]
end

--- Ends bufnr's standing (its agreement was dropped).
---@param bufnr integer
function M.forget(bufnr)
  settled[bufnr] = nil
  moved()
end

--- Installs the rename hook in group (bridge.setup).
---@param group integer
function M.install(group)
  M.installed = true
  api.nvim_create_autocmd('BufFilePost', {
    group = group,
    callback = function(ev)
      settled[ev.buf] = nil
      moved()
    end,
  })
  api.nvim_create_autocmd({
    'BufNew', 'BufAdd', 'BufNewFile', 'BufReadPost', 'BufWritePost',
    'FileChangedShellPost', 'BufUnload', 'BufDelete', 'BufWipeout',
  }, {
    group = group,
    callback = moved,
  })
  api.nvim_create_autocmd('OptionSet', {
    group = group,
    pattern = { 'buftype', 'modified' },
    callback = moved,
  })
end

--- Forgets every buffer (bridge.teardown): the callbacks still attached
--- detach at their buffer's next change.
function M.clear()
  M.installed = false
  settled = {}
  moved()
end

return M
