--- The buffers nvbridge loaded only to read (not listed, unmodified, in no
--- window): it keeps up to max_loaded of them loaded, as the servers answer
--- faster about open documents, and wipes the oldest beyond that. Loaded by
--- buffers.lua; held while an apply or a check needs every buffer it loads.
local M = {}

local api = vim.api
local buf_option = require('nvbridge._compat').buf_option

--- How many buffers nvbridge loaded only to read it keeps loaded (the
--- servers answer faster about open documents); beyond that the oldest
--- are wiped. The user sets it with vim.g.nvbridge_max_loaded.
M.max_loaded = 20
M.loaded_order = M.loaded_order or {}
-- Buffers release_extra wiped, by path: {bufnr, changedtick, hash}.
M.released = M.released or {}

--- Whether b is a buffer nvbridge loaded only to read and may wipe: not
--- listed (the user did not open it, nvbridge changed nothing in it left
--- unsaved), unmodified, shown in no window.
local function releasable(b)
  return api.nvim_buf_is_valid(b)
    and vim.b[b].nvbridge_loaded == true
    and not buf_option(b, 'buflisted')
    and not buf_option(b, 'modified')
    and #vim.fn.win_findbuf(b) == 0
end

--- While held (a count: an apply, a check), release_extra wipes nothing:
--- the holder needs every buffer it loads until it lets go.
M.holding = M.holding or 0

function M.hold()
  M.holding = M.holding + 1
end

function M.let_go()
  M.holding = math.max(M.holding - 1, 0)
end

--- Wipes the oldest read-only buffers beyond M.max_loaded (keep: the one
--- just loaded); all of them when max is 0 (stop).
---@param keep integer? the buffer just loaded
---@param max integer? how many to keep (default g:nvbridge_max_loaded or max_loaded)
function M.release_extra(keep, max)
  if M.holding > 0 and max ~= 0 then
    return
  end
  max = max or tonumber(vim.g.nvbridge_max_loaded) or M.max_loaded
  local live = {}
  for _, b in ipairs(M.loaded_order) do
    if api.nvim_buf_is_valid(b) and vim.b[b].nvbridge_loaded == true then
      table.insert(live, b)
    end
  end
  local excess = #live - max
  local kept = {}
  for _, b in ipairs(live) do
    if excess > 0 and b ~= keep and releasable(b) then
      excess = excess - 1
      -- A preview may hold this buffer's state: apply accepts the file
      -- again when its content is still the one this buffer held.
      M.released[api.nvim_buf_get_name(b)] = {
        bufnr = b, changedtick = vim.b[b].changedtick, hash = vim.b[b].nvbridge_disk_hash,
      }
      pcall(api.nvim_buf_delete, b, { force = false })
      if api.nvim_buf_is_valid(b) then
        pcall(vim.cmd, 'silent! bwipeout ' .. b)
      end
    elseif api.nvim_buf_is_valid(b) then
      table.insert(kept, b)
    end
  end
  M.loaded_order = kept
end

-- The buffer the last load asked release_later to keep; nil when no release
-- is pending.
local release_keep

--- Wipes the read-only buffers beyond the limit (release_extra, keeping
--- keep) once the call that loaded keep is done, not at once: wiping a
--- buffer sends its servers didClose, which they handle before the
--- requests the call then sends about the file it loaded (gopls handles
--- them in order: before the next one it starts re-diagnosing the closed
--- file's package, which competes with them, and with
--- verboseWorkDoneProgress it first asks the client for a progress token,
--- which Neovim answers from a scheduled callback).
--- Scheduled, the didClose follows those requests. Loads within one call
--- release once, keeping the last.
---@param keep integer the buffer just loaded
function M.release_later(keep)
  local pending = release_keep ~= nil
  release_keep = keep
  if pending then
    return
  end
  vim.schedule(function()
    local k = release_keep
    release_keep = nil
    M.release_extra(k)
  end)
end

return M
