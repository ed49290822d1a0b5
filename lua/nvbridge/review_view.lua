--- The review of an approval, opened when the user asks (review.open):
--- the diff in a float or a split, each hunk marked with the user's
--- decision, or a tab per file in diff mode (the current text on the left,
--- the proposed one on the right, editable). Its keys are buffer-local,
--- normal mode, two keys each, in its own buffers only: nothing typed
--- elsewhere reaches them.
---   ga / gr   accept / reject the hunk under the cursor
---   gs, :w    send the decisions (hunks left undecided are accepted)
---   gA / gR   accept / reject everything, and send
---   ge        edit the proposal (the tab layout)
---   q         close the review; the request keeps waiting
local M = {}

local api = vim.api

local review = require('nvbridge.review')

local HELP = 'ga/gr: accept/reject the hunk under the cursor  gs: send (undecided hunks are accepted)  '
  .. 'gA/gR: accept/reject all  ge: edit  q: close (it keeps waiting)'

-- Views ----------------------------------------------------------------------

local function valid_win(w)
  return w and api.nvim_win_is_valid(w)
end

--- Closes p's tabs (the user is back in the tab they were in) and wipes
--- their scratch buffers.
local function close_tabs(p)
  local r = p.tabs
  if not r then
    return
  end
  p.tabs = nil
  if r.prev_tab and api.nvim_tabpage_is_valid(r.prev_tab) then
    pcall(api.nvim_set_current_tabpage, r.prev_tab)
  end
  for _, tab in ipairs(r.tabs) do
    if api.nvim_tabpage_is_valid(tab) then
      for _, w in ipairs(api.nvim_tabpage_list_wins(tab)) do
        pcall(api.nvim_win_close, w, true)
      end
    end
  end
  for _, b in ipairs(r.bufs) do
    if api.nvim_buf_is_valid(b) then
      pcall(api.nvim_buf_delete, b, { force = true })
    end
  end
  if r.prev_win and valid_win(r.prev_win) then
    pcall(api.nvim_set_current_win, r.prev_win)
  end
end

--- Closes p's float or split; the user is back in the window they were in.
local function close_diff(p)
  local v = p.view
  if not v then
    return
  end
  p.view = nil
  if valid_win(v.win) then
    pcall(api.nvim_win_close, v.win, true)
  end
  if v.buf and api.nvim_buf_is_valid(v.buf) then
    pcall(api.nvim_buf_delete, v.buf, { force = true })
  end
  if valid_win(v.prev_win) then
    pcall(api.nvim_set_current_win, v.prev_win)
  end
end

--- Closes every view of approval p.
---@param p table
function M.close(p)
  close_diff(p)
  close_tabs(p)
end

--- The hunk of p a view's cursor is on, or nil.
local function hunk_at(p, buf, row)
  local v = p.view
  if v and v.buf == buf then
    local line = row - v.offset
    local next_one
    for _, h in ipairs(p.hunks) do
      if line >= h.first and line <= h.last then
        return h
      end
      if not next_one and h.first > line then
        next_one = h -- on a file's header: its first hunk
      end
    end
    return next_one
  end
  local t = p.tabs and p.tabs.right[buf]
  if t then
    for _, m in ipairs(api.nvim_buf_get_extmarks(buf, review.ns, 0, -1, { details = true })) do
      local h = t.marks[m[1]]
      local er = m[4].end_row or m[2]
      if h and row >= m[2] and (row < er or row == m[2]) then
        return h
      end
    end
    return t.whole
  end
end

--- Shows p's decisions: a mark at each hunk of its views.
local function paint(p)
  local v = p.view
  local function mark(h)
    local d = p.decisions[h.index]
    if d == true then
      return { ('  ✓ accepted (hunk %d/%d)'):format(h.index, #p.hunks), 'DiagnosticOk' }
    elseif d == false then
      return { ('  ✗ rejected (hunk %d/%d)'):format(h.index, #p.hunks), 'DiagnosticError' }
    end
    return { ('  ? hunk %d/%d'):format(h.index, #p.hunks), 'Comment' }
  end
  if v and api.nvim_buf_is_valid(v.buf) then
    api.nvim_buf_clear_namespace(v.buf, review.ns, 0, -1)
    for _, h in ipairs(p.hunks) do
      pcall(api.nvim_buf_set_extmark, v.buf, review.ns, v.offset + h.first, 0, { virt_text = { mark(h) }, virt_text_pos = 'eol' })
      if p.decisions[h.index] == false then
        for l = h.first + 1, h.last do
          pcall(api.nvim_buf_set_extmark, v.buf, review.ns, v.offset + l, 0, { line_hl_group = 'Comment', priority = 200 })
        end
      end
    end
  end
  for buf, t in pairs(p.tabs and p.tabs.right or {}) do
    if api.nvim_buf_is_valid(buf) then
      for id, h in pairs(t.marks) do
        local m = api.nvim_buf_get_extmark_by_id(buf, review.ns, id, { details = true })
        if m[1] then
          pcall(api.nvim_buf_set_extmark, buf, review.ns, m[1], 0, {
            id = id, end_row = m[3].end_row, end_col = 0, right_gravity = false, end_right_gravity = true,
            virt_text = { mark(h) }, virt_text_pos = 'eol',
          })
        end
      end
    end
  end
end

--- Moves the cursor of the current view to the first undecided hunk after
--- h, if any.
local function next_undecided(p, h)
  local v = p.view
  if not (v and valid_win(v.win) and api.nvim_get_current_win() == v.win) then
    return
  end
  for i = h.index + 1, #p.hunks do
    if p.decisions[i] == nil then
      pcall(api.nvim_win_set_cursor, v.win, { v.offset + p.hunks[i].first + 1, 0 })
      return
    end
  end
end

--- In the tab layout, a rejected hunk's proposed lines are put back to the
--- current text in the proposal (and an accepted one's back again), so
--- that what is sent is what the user sees.
local function follow_decision(p, h, accepted)
  for buf, t in pairs(p.tabs and p.tabs.right or {}) do
    for id, mh in pairs(t.marks) do
      if mh == h and api.nvim_buf_is_valid(buf) then
        local m = api.nvim_buf_get_extmark_by_id(buf, review.ns, id, { details = true })
        if m[1] then
          local row, er = m[1], m[3].end_row or m[1]
          local lines
          if accepted then
            lines = t.kept[id]
          else
            t.kept[id] = t.kept[id] or api.nvim_buf_get_lines(buf, row, er, false)
            local first = h.old_start - (h.old_count > 0 and 1 or 0)
            lines = api.nvim_buf_get_lines(t.left, first, first + h.old_count, false)
          end
          if lines then
            api.nvim_buf_set_lines(buf, row, er, false, lines)
            api.nvim_buf_set_extmark(buf, review.ns, row, 0,
              { id = id, end_row = row + #lines, end_col = 0, right_gravity = false, end_right_gravity = true })
          end
        end
      end
    end
  end
end

--- Decides the hunk under the cursor of buf.
local function decide_here(p, buf, accepted)
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local h = hunk_at(p, buf, row)
  if not h then
    if #p.hunks == 0 then
      review.answer(accepted and 'accept' or 'reject', nil, p.key)
    end
    return
  end
  if p.decisions[h.index] ~= accepted then
    if p.tabs and h.kind == 'hunk' then
      follow_decision(p, h, accepted)
    end
    review.decide(p.key, h.index, accepted)
  end
  paint(p)
  next_undecided(p, h)
end

--- The user's note for a rejection (optional).
local function ask_note()
  local ok, note = pcall(vim.fn.input, 'reason (optional): ')
  return ok and note ~= '' and note or nil
end

--- The keys of a review buffer.
local function keys(p, buf)
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, desc = 'nvbridge review: ' .. desc })
  end
  map('ga', function() decide_here(p, buf, true) end, 'accept the hunk under the cursor')
  map('gr', function() decide_here(p, buf, false) end, 'reject the hunk under the cursor')
  map('gs', function() review.answer('accept', nil, p.key) end, 'send the decisions (undecided hunks are accepted)')
  map('gA', function()
    p.decisions = {}
    review.answer('accept', nil, p.key)
  end, 'accept everything')
  map('gR', function() review.answer('reject', ask_note(), p.key) end, 'reject everything')
  map('ge', function() review.open(p.key, 'tab') end, 'edit the proposal before accepting')
  map('q', function() M.close(p) end, 'close the review (the request keeps waiting)')
  api.nvim_create_autocmd('BufWriteCmd', {
    buffer = buf,
    callback = function()
      review.answer('accept', nil, p.key)
    end,
  })
end

--- The lines of a float or split review of p.
local function diff_lines(p)
  local lines = { 'nvbridge: ' .. review.describe(p), HELP }
  if p.note and p.note ~= '' then
    table.insert(lines, 'note: ' .. p.note)
  end
  table.insert(lines, '')
  local offset = #lines
  vim.list_extend(lines, vim.split(p.diff:gsub('\r\n', '\n'):gsub('\n$', ''), '\n', { plain = true }))
  return lines, offset
end

--- Opens p's diff in a float or a split (the focus goes there).
local function open_diff(p, layout)
  close_tabs(p)
  local v = p.view
  if v and valid_win(v.win) then
    api.nvim_set_current_win(v.win)
    return true
  end
  close_diff(p)
  local lines, offset = diff_lines(p)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  pcall(api.nvim_buf_set_name, buf, 'nvbridge://review/' .. p.key)
  vim.bo[buf].buftype = 'acwrite' -- :w sends, never writes a file
  vim.bo[buf].swapfile = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = p.kind == 'run' and 'sh' or 'diff'
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  v = { buf = buf, offset = offset, prev_win = api.nvim_get_current_win() }
  p.view = v
  if layout == 'split' then
    vim.cmd('botright ' .. math.max(5, math.min(#lines, math.floor(vim.o.lines / 2))) .. 'split')
    v.win = api.nvim_get_current_win()
    api.nvim_win_set_buf(v.win, buf)
  else
    local width = math.max(20, math.min(vim.o.columns - 4, 120))
    local height = math.max(1, math.min(vim.o.lines - 4, #lines))
    v.win = api.nvim_open_win(buf, true, {
      relative = 'editor', row = 1, col = math.max(0, math.floor((vim.o.columns - width) / 2)), width = width, height = height,
      border = 'rounded', title = ' nvbridge review ', style = 'minimal',
    })
  end
  vim.wo[v.win].wrap = false
  keys(p, buf)
  paint(p)
  local first = p.hunks[1]
  pcall(api.nvim_win_set_cursor, v.win, { first and (offset + first.first + 1) or 1, 0 })
  return true
end

--- A file's lines as the user has them: its loaded buffer, else the disk.
local function current_lines(path)
  local b = vim.fn.bufnr(path)
  if b > 0 and api.nvim_buf_is_loaded(b) then
    return api.nvim_buf_get_lines(b, 0, -1, false)
  end
  local f = io.open(path, 'rb')
  if not f then
    return {}
  end
  local data = f:read('*a')
  f:close()
  data = data:gsub('\r\n', '\n')
  if data:sub(-1) == '\n' then
    data = data:sub(1, -2)
  end
  return data == '' and {} or vim.split(data, '\n', { plain = true })
end

local function scratch(name, lines, editable, filetype)
  local b = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(b, 0, -1, false, lines)
  pcall(api.nvim_buf_set_name, b, name)
  vim.bo[b].buftype = 'acwrite' -- :w accepts, never writes a file
  vim.bo[b].swapfile = false
  vim.bo[b].bufhidden = 'wipe'
  vim.bo[b].modified = false
  vim.bo[b].modifiable = editable
  if filetype then
    vim.bo[b].filetype = filetype
  end
  return b
end

--- Opens p's review tabs: a tab per proposed file, the current text on the
--- left and the proposed text on the right (editable), in diff mode, its
--- hunks marked. The user's own tabs and windows are not touched.
local function open_tabs(p)
  if #p.proposed == 0 then
    return open_diff(p, 'float')
  end
  close_diff(p)
  if p.tabs then
    if api.nvim_tabpage_is_valid(p.tabs.tabs[1]) then
      api.nvim_set_current_tabpage(p.tabs.tabs[1])
    end
    return true
  end
  local r = { prev_tab = api.nvim_get_current_tabpage(), prev_win = api.nvim_get_current_win(), tabs = {}, bufs = {}, proposed = {}, right = {} }
  p.tabs = r
  for _, f in ipairs(p.proposed) do
    local ft = vim.filetype.match({ filename = f.path })
    local left = scratch('nvbridge://current/' .. f.rel, current_lines(f.path), false, ft)
    local text = f.text:gsub('\r\n', '\n')
    if text:sub(-1) == '\n' then
      text = text:sub(1, -2)
    end
    local right = scratch('nvbridge://proposed/' .. f.rel, text == '' and {} or vim.split(text, '\n', { plain = true }), true, ft)
    vim.list_extend(r.bufs, { left, right })
    r.proposed[right] = f
    local t = { left = left, marks = {}, kept = {} }
    r.right[right] = t
    for _, h in ipairs(p.hunks) do
      if h.path == f.path then
        if h.kind == 'hunk' then
          local row = math.max(0, h.new_start - (h.new_count > 0 and 1 or 0))
          local ok, id = pcall(api.nvim_buf_set_extmark, right, review.ns, row, 0,
            { end_row = row + h.new_count, end_col = 0, right_gravity = false, end_right_gravity = true })
          if ok then
            t.marks[id] = h
          end
        else
          t.whole = h
        end
      end
    end
    vim.cmd('tab split') -- a new tab whose window is then given the scratch buffers
    local tab = api.nvim_get_current_tabpage()
    table.insert(r.tabs, tab)
    local lw = api.nvim_get_current_win()
    api.nvim_win_set_buf(lw, left)
    vim.cmd('vertical rightbelow split')
    local rw = api.nvim_get_current_win()
    api.nvim_win_set_buf(rw, right)
    for _, w in ipairs({ lw, rw }) do
      api.nvim_win_call(w, function()
        vim.cmd('diffthis')
      end)
    end
    for _, b in ipairs({ left, right }) do
      keys(p, b)
    end
    vim.b[right].nvbridge_review = p.key
    local help = ('nvbridge: %s: edit the right side, ga/gr a hunk, gs (or :w) to send, gR to reject'):format(f.rel)
    pcall(api.nvim_echo, { { help, 'MoreMsg' } }, false, {})
  end
  paint(p)
  require('nvbridge.user').log(('reviewing %s in %d tab(s)'):format(p.tool, #r.tabs))
  return true
end

--- Opens p's review in layout: "float", "split" or "tab".
---@param p table
---@param layout string
---@return boolean opened
function M.open(p, layout)
  if layout == 'tab' then
    return open_tabs(p)
  end
  return open_diff(p, layout)
end

--- The texts the user changed in p's review tabs, by absolute path (nil
--- when none differs from the proposal).
---@param p table
---@return table<string, string>?
function M.edits(p)
  local r = p.tabs
  if not r then
    return nil
  end
  local edited
  for b, f in pairs(r.proposed) do
    if api.nvim_buf_is_valid(b) then
      local text = table.concat(api.nvim_buf_get_lines(b, 0, -1, false), '\n')
      local proposed = f.text:gsub('\r\n', '\n')
      if proposed:sub(-1) == '\n' or (proposed == '' and text ~= '') then
        text = text .. '\n'
      end
      if text ~= proposed then
        edited = edited or {}
        edited[f.path] = text
      end
    end
  end
  return edited
end

return M
