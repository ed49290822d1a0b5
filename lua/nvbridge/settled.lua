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

--- The buffer's text changed: it no longer stands, and the callbacks
--- detach (returning true): the next agreement attaches again.
local function on_lines(_, bufnr)
  settled[bufnr] = nil
  attached[bufnr] = nil
  return true
end

--- Unloaded or wiped: the attachment is gone.
local function on_detach(_, bufnr)
  settled[bufnr] = nil
  attached[bufnr] = nil
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
end

--- Installs the rename hook in group (bridge.setup).
---@param group integer
function M.install(group)
  M.installed = true
  api.nvim_create_autocmd('BufFilePost', {
    group = group,
    callback = function(ev)
      settled[ev.buf] = nil
    end,
  })
end

--- Forgets every buffer (bridge.teardown): the callbacks still attached
--- detach at their buffer's next change.
function M.clear()
  M.installed = false
  settled = {}
end

return M
