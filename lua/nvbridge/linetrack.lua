--- Line changes since a cached text. The Go side caches a large buffer's
--- text at a changedtick (nvim/snapshot.go). Once the tick moves, Neovim's
--- on_lines (what its LSP client's incremental sync reads too) says which
--- lines changed: a snapshot sends those lines and Go splices them into its
--- cached text, instead of reading the whole buffer again (about 10 ms for
--- 100,000 lines). Used through buffers (track, changes, untrack).
local M = {}

local api = vim.api

--- tracked[b]: since changedtick `tick` (when b had `count` lines), the
--- current lines [lo, new_hi) replaced lines [lo, old_hi) of that text;
--- lo is nil while nothing changed. One envelope over every change: lines
--- inside it that did not change are sent again, which is harmless.
local tracked = {}
local attached = {} -- buffers whose on_lines callback is still registered

local function on_lines(_, b, _, first, last_old, last_new)
  local t = tracked[b]
  if not t then
    attached[b] = nil
    return true -- detach: nothing to track any more
  end
  if not t.lo then
    t.lo, t.old_hi, t.new_hi = first, last_old, last_new
    return
  end
  -- first..last_old are current lines; past new_hi they are base lines
  -- shifted by (new_hi - old_hi).
  local reach = math.max(t.new_hi, last_old)
  t.old_hi = t.old_hi + math.max(0, last_old - t.new_hi)
  t.new_hi = reach + (last_new - last_old)
  t.lo = math.min(t.lo, first)
end

local function forget(_, b)
  tracked[b] = nil
end

--- Starts (or restarts) tracking b's changes from its current changedtick:
--- the Go side now holds its text at that tick.
---@param b integer
function M.track(b)
  tracked[b] = { tick = vim.b[b].changedtick, count = api.nvim_buf_line_count(b) }
  if not attached[b] then
    attached[b] = api.nvim_buf_attach(b, false, {
      on_lines = on_lines,
      on_reload = forget, -- the whole text may have changed
      on_detach = function(_, buf)
        tracked[buf], attached[buf] = nil, nil
      end,
    }) or nil
    if not attached[b] then
      tracked[b] = nil
    end
  end
end

--- The lines of b that changed since changedtick `since`, as
--- {first, old_end, base_count, lines}: lines [first, old_end) of the text
--- at that tick (base_count lines) are now `lines`. nil when b's changes
--- are not tracked from that tick.
---@param b integer
---@param since integer changedtick
---@return nvbridge.LineDelta?
function M.changes(b, since)
  local t = tracked[b]
  if not t or t.tick ~= since then
    return nil
  end
  if not t.lo then
    return { first = 0, old_end = 0, base_count = t.count, lines = {} }
  end
  if t.new_hi - t.lo > api.nvim_buf_line_count(b) / 4 then
    return nil -- most of the buffer: reading it whole is faster
  end
  return {
    first = t.lo,
    old_end = t.old_hi,
    base_count = t.count,
    lines = api.nvim_buf_get_lines(b, t.lo, t.new_hi, true),
  }
end

--- Stops tracking b, or every buffer when b is nil (teardown): each
--- callback detaches at its buffer's next change. Returns whether b was
--- tracked (apply.lua tracks it again from the changedtick after a change).
---@param b integer?
---@return boolean
function M.untrack(b)
  local was = b ~= nil and tracked[b] ~= nil
  if b == nil then
    tracked = {}
  end
  tracked[b or 0] = nil
  return was
end

return M
