--- The approval of a change before it is applied (edit.Engine.Approve in
--- attached mode): the diff in a float (a: accept, r: reject, e: edit) or
--- review tabs where the user edits the proposed texts before accepting; the
--- answer, or TIMEOUT, ends the asynchronous operation (async.lua).
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local agents = require('nvbridge.agents')
local fail = require('nvbridge._error').fail
local user = require('nvbridge.user')
local state, log = user.state, user.log

--- Closes an approval's review tabs (edit then accept) and wipes their
--- scratch buffers; the user is back in the tab they were in.
local function close_review(p)
  local r = p.review
  if not r then
    return
  end
  p.review = nil
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
end

local function close_view(p)
  if p.win and api.nvim_win_is_valid(p.win) then
    pcall(api.nvim_win_close, p.win, true)
  end
  if p.buf and api.nvim_buf_is_valid(p.buf) then
    pcall(api.nvim_buf_delete, p.buf, { force = true })
  end
  close_review(p)
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

--- The approval waiting with key, else the oldest one waiting (nil: none).
local function waiting(key)
  for _, q in ipairs(state.pending) do
    if (key == nil or q.key == key) and not q.done then
      return q
    end
  end
end

--- Opens the review of approval p: a tab per proposed file, the current
--- text on the left and the proposed text on the right (editable), in
--- diff mode. The user edits the right side and accepts (ga, or :w, or
--- :NvbridgeApprove accept): the edited texts are what is applied. gr
--- rejects (with a note). The user's own tabs and windows are not touched.
---@param key string? the approval's (chan:id); nil: the oldest waiting
---@return boolean opened
function M.review(key)
  local p = waiting(key)
  if not p then
    return false
  end
  if p.review then
    return true
  end
  if #p.proposed == 0 then
    log('nothing to edit in ' .. p.tool .. ' (no file is edited or created)')
    return false
  end
  if p.win and api.nvim_win_is_valid(p.win) then
    pcall(api.nvim_win_close, p.win, true)
  end
  local r = { prev_tab = api.nvim_get_current_tabpage(), tabs = {}, bufs = {}, proposed = {} }
  p.review = r
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
      local function map(lhs, fn, desc)
        vim.keymap.set('n', lhs, fn, { buffer = b, nowait = true, desc = desc })
      end
      map('ga', function() M.answer('accept', nil, p.key) end, 'nvbridge: accept (with your edits)')
      map('gr', function()
        local note = vim.fn.input('reason (optional): ')
        M.answer('reject', note ~= '' and note or nil, p.key)
      end, 'nvbridge: reject')
      api.nvim_create_autocmd('BufWriteCmd', {
        buffer = b,
        callback = function() M.answer('accept', nil, p.key) end,
      })
    end
    vim.b[right].nvbridge_review = p.key
    pcall(api.nvim_echo, { { ('nvbridge: %s: edit the right side, then ga (or :w) to accept, gr to reject'):format(f.rel), 'MoreMsg' } }, false, {})
  end
  log(('reviewing %s in %d tab(s)'):format(p.tool, #r.tabs))
  return true
end

--- The texts the user changed in the review of p, by absolute path (nil
--- when none differs from the proposal).
local function review_edits(p)
  local r = p.review
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

--- Ends approval p: it leaves the queue, its float or tabs close, and its
--- agent gets nvbridge_done (unless it is gone).
---@param p table the approval
---@param err nvbridge.Error?
---@param result string? JSON (default true)
local function finish(p, err, result)
  for i, q in ipairs(state.pending) do
    if q == p then
      table.remove(state.pending, i)
      break
    end
  end
  if p.timer then
    p.timer:stop()
    p.timer:close()
    p.timer = nil
  end
  close_view(p)
  require('nvbridge.async').untrack(p.chan, p.id)
  if not p.gone then
    pcall(vim.rpcnotify, p.chan, 'nvbridge_done', p.id, err, err and vim.NIL or (result or 'true'))
  end
end
M.finish = finish

local function show(p)
  if user.approve_view() == 'tab' and #p.proposed > 0 then
    return M.review(p.key) -- tabs need no UI: a script may answer there too
  end
  if #api.nvim_list_uis() == 0 then
    return -- headless: the user answers with :NvbridgeApprove
  end
  local lines = {
    ('nvbridge: %s wants to change %d file(s). a: accept  r: reject  e: edit then accept  q: reject'):format(
      p.tool ~= '' and p.tool or 'an agent', #p.files),
  }
  vim.list_extend(lines, vim.split(p.diff, '\n', { plain = true }))
  local b = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].filetype = 'diff'
  vim.bo[b].modifiable = false
  vim.bo[b].bufhidden = 'wipe'
  local width = math.min(vim.o.columns - 4, 120)
  local height = math.min(vim.o.lines - 4, #lines)
  p.buf = b
  p.win = api.nvim_open_win(b, true, {
    relative = 'editor', row = 1, col = math.floor((vim.o.columns - width) / 2), width = width, height = height,
    border = 'rounded', title = ' nvbridge approval ', style = 'minimal',
  })
  local function map(lhs, fn)
    vim.keymap.set('n', lhs, fn, { buffer = b, nowait = true })
  end
  map('a', function() M.answer('accept', nil, p.key) end)
  map('e', function() M.answer('edit', nil, p.key) end)
  map('r', function()
    local note = vim.fn.input('reason (optional): ')
    M.answer('reject', note ~= '' and note or nil, p.key)
  end)
  map('q', function() M.answer('reject', nil, p.key) end)
end

--- Asks the user to approve a change (async: answers nvbridge_done on
--- chan with id when they decide, or TIMEOUT after the bound). Runs User
--- NvbridgeApprove with the request in data (tests answer from there).
---@param req {tool: string, diff: string, files: string[], changeset_id: string?, timeout_ms: integer?, proposed: nvbridge.ProposedFile[]?}
---@param chan integer
---@param id integer
function M.approve(chan, id, req)
  agents.sweep()
  local p = {
    key = chan .. ':' .. id, chan = chan, id = id, tool = req.tool or '', diff = req.diff or '',
    files = req.files or {}, changeset_id = req.changeset_id, proposed = req.proposed or {},
  }
  table.insert(state.pending, p)
  require('nvbridge.async').track(chan, id, vim.schedule_wrap(function()
    if not p.done then
      p.done = true
      log('approval cancelled by the agent')
      finish(p, fail('TIMEOUT', 'cancelled'))
    end
  end))
  local bound = tonumber(req.timeout_ms) or user.approve_timeout_ms()
  p.timer = uv.new_timer()
  p.timer:start(bound, 0, vim.schedule_wrap(function()
    if not p.done then
      p.done = true
      log('approval timed out after ' .. bound .. ' ms')
      finish(p, fail('TIMEOUT', ('the user did not answer the approval request within %d ms (nothing was changed)'):format(bound),
        { remediation = 'ask the user to look at Neovim and retry; the bound is approve_timeout_ms in the plugin setup' }))
    end
  end))
  log(('approval requested: %s, %d file(s)'):format(p.tool, #p.files))
  pcall(show, p)
  pcall(api.nvim_exec_autocmds, 'User', {
    pattern = 'NvbridgeApprove', modeline = false,
    data = { tool = p.tool, files = p.files, diff = p.diff, changeset_id = p.changeset_id },
  })
end

--- Answers an approval: the one with key, else the oldest waiting.
--- decision: "accept" (with the user's edits when they reviewed it),
--- "reject", or "edit": open the review tabs where the user edits the
--- proposed texts before accepting (edited, by absolute path, gives such
--- texts directly). Returns whether one was waiting.
---@param decision string
---@param note string?
---@param key string?
---@param edited table<string, string>?
---@return boolean
function M.answer(decision, note, key, edited)
  local p = waiting(key)
  if not p or p.done then
    return false
  end
  if decision == 'edit' and edited == nil then
    -- Review first; the approval keeps waiting for accept or reject.
    return M.review(p.key) or false
  end
  p.done = true
  if decision == 'accept' or decision == 'edit' then
    edited = edited or review_edits(p)
    if edited and next(edited) then
      local n = 0
      for _ in pairs(edited) do
        n = n + 1
      end
      log(('approved with the user\'s edits in %d file(s): %s'):format(n, p.tool))
      finish(p, nil, vim.json.encode({ edited = edited }))
    else
      log('approved: ' .. p.tool)
      finish(p, nil)
    end
  else
    log('rejected: ' .. p.tool .. (note and (' (' .. note .. ')') or ''))
    finish(p, fail('REJECTED', 'the user rejected the change' .. (note and (': ' .. note) or '') .. ' (nothing was changed)',
      { remediation = 'do not apply it again as is; take the user\'s note into account' }))
  end
  return true
end

--- How many approvals wait for the user.
---@return integer
function M.pending()
  agents.sweep()
  return #state.pending
end


return M
