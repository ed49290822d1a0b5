--- The user's side of what agents do through nvbridge, in their Neovim:
--- the agents connected (stdio and HTTP), the User NvbridgeToolPre /
--- NvbridgeToolPost events and before_tool hooks, the pause, the approval
--- of changesets, the changes this session (quickfix, highlights) and the
--- log. Called from Go with data as arguments (nvim/entrypoints.go), and from the
--- plugin's commands.
---
--- State lives in package.loaded['nvbridge._user_state'], so that a new
--- version of this module registered by another nvbridge keeps it.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local fail = require('nvbridge._error').fail

local state = package.loaded['nvbridge._user_state']
if not state then
  state = {
    agents = {}, -- chan -> {chan, transport, since, calls = {{tool, ok, at, summary}}}
    paused = false,
    log = {}, -- lines
    changes = {}, -- quickfix items
    changesets = {}, -- {id, paths}, oldest first
    pending = {}, -- approvals waiting, oldest first
  }
  package.loaded['nvbridge._user_state'] = state
end
M.state = state

local LOG_MAX = 1000
local CALLS_MAX = 10
local CHANGESETS_MAX = 64

M.ns = api.nvim_create_namespace('nvbridge_changes')
M.highlight_ms = 1500

--- The user plugin's configuration (require('nvbridge').setup), when the
--- plugin is loaded.
local function config()
  local p = package.loaded['nvbridge']
  return type(p) == 'table' and type(p.config) == 'table' and p.config or {}
end

local function hooks(event)
  local p = package.loaded['nvbridge']
  local h = type(p) == 'table' and type(p._hooks) == 'table' and p._hooks[event]
  return h or {}
end

local function log(line)
  table.insert(state.log, os.date('%H:%M:%S ') .. line)
  while #state.log > LOG_MAX do
    table.remove(state.log, 1)
  end
  local b = state.log_buf
  if b and api.nvim_buf_is_valid(b) then
    vim.bo[b].modifiable = true
    api.nvim_buf_set_lines(b, -1, -1, false, { state.log[#state.log] })
    vim.bo[b].modifiable = false
    vim.bo[b].modified = false
  end
end
M.log = log

-- Agents -----------------------------------------------------------------------

--- Registers the nvbridge on channel chan (called by Go on connect).
---@param chan integer
---@param transport string "stdio" | "http ADDR" | ...
function M.register(chan, transport)
  state.agents[chan] = { chan = chan, transport = transport, since = os.time(), calls = {} }
  log(('agent connected: channel %d (%s)'):format(chan, transport))
  return true
end

--- Whether channel chan is open. (A closed channel's info is an empty
--- dictionary, which Lua sees as a table holding only a type marker: test
--- for its id, not for emptiness.)
local function alive(chan)
  local ok, info = pcall(api.nvim_get_chan_info, chan)
  return ok and type(info) == 'table' and info.id ~= nil
end

--- Drops what belongs to agents whose channel closed without a word (an
--- nvbridge killed, a crashed client): their approvals (the float or the
--- review tabs close) and their entries. Neovim has no event for a
--- channel closing, so every user-facing entry point sweeps.
local function sweep()
  for _, p in ipairs(vim.list_extend({}, state.pending)) do
    if not p.done and not alive(p.chan) then
      p.done, p.gone = true, true
      log(('approval for %s dropped: its agent disconnected'):format(p.tool))
      M._finish(p)
    end
  end
  for chan in pairs(state.agents) do
    if not alive(chan) then
      state.agents[chan] = nil
      log(('agent disconnected: channel %d'):format(chan))
    end
  end
end

--- The agents still connected (channels that closed are dropped).
function M.agents()
  sweep()
  local out = {}
  for _, a in pairs(state.agents) do
    table.insert(out, a)
  end
  table.sort(out, function(x, y)
    return x.chan < y.chan
  end)
  return out
end

--- Closes every agent's channel: each nvbridge sees its Neovim go away and
--- stops. Returns how many were disconnected.
function M.disconnect_all()
  local n = 0
  for _, a in ipairs(M.agents()) do
    if pcall(vim.fn.chanclose, a.chan) then
      n = n + 1
    end
    state.agents[a.chan] = nil
  end
  -- Approvals waiting for the user are answered: nobody will read them.
  for _, p in ipairs(vim.list_extend({}, state.pending)) do
    M.answer('reject', 'nvbridge was stopped by the user', p.key)
  end
  return n
end

-- Discovery ------------------------------------------------------------------------

--- The discovery file of this Neovim (nvbridge mcp --nvim auto reads every
--- such file): stdpath('state')/nvbridge/nvim-PID.json.
function M.discovery_path()
  return vim.fs.joinpath(vim.fn.stdpath('state'), 'nvbridge', 'nvim-' .. uv.os_getpid() .. '.json')
end

--- Writes the discovery file: this Neovim's address, cwd and pid.
function M.write_discovery()
  local addr = vim.v.servername
  if addr == nil or addr == '' then
    return false
  end
  local path = M.discovery_path()
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local body = vim.json.encode({ address = addr, cwd = vim.fn.getcwd(), pid = uv.os_getpid() })
  return pcall(vim.fn.writefile, { body }, path)
end

function M.remove_discovery()
  pcall(os.remove, M.discovery_path())
end

-- Tool events, hooks and the pause -----------------------------------------

--- Called by Go before every tool call. Runs User NvbridgeToolPre and the
--- before_tool hooks; returns {refuse = Error} when the call must not run
--- (paused, a hook refused), else {}.
---@param chan integer
---@param tool string
---@param args_json string
---@param writes boolean the tool may change buffers or files
function M.tool_pre(chan, tool, args_json, writes)
  local ok, args = pcall(vim.json.decode, args_json)
  if not ok then
    args = {}
  end
  local agent = state.agents[chan]
  if not agent then
    agent = { chan = chan, transport = 'unknown', since = os.time(), calls = {} }
    state.agents[chan] = agent
  end
  log(('%s %s'):format(tool, args_json:sub(1, 200)))
  local data = { tool = tool, arguments = args, writes = writes, channel = chan }
  pcall(api.nvim_exec_autocmds, 'User', { pattern = 'NvbridgeToolPre', modeline = false, data = data })
  if writes and state.paused then
    log(tool .. ' refused: paused')
    return { refuse = fail('PRECONDITION_FAILED', 'paused by the user: nvbridge does not change buffers or files now',
      { remediation = 'wait until the user resumes nvbridge (:NvbridgeResume); read-only tools still answer' }) }
  end
  for _, fn in ipairs(hooks('before_tool')) do
    local hok, allow, reason = pcall(fn, { tool = tool, arguments = args, writes = writes })
    if not hok then
      log(tool .. ': before_tool hook failed: ' .. tostring(allow))
    elseif allow == false then
      local msg = 'refused by the user\'s before_tool hook' .. (reason and (': ' .. tostring(reason)) or '')
      log(tool .. ' ' .. msg)
      return { refuse = fail('REJECTED', msg, { remediation = 'do not retry the same call; ask the user, or do something else' }) }
    end
  end
  return { mode = M.approve_mode() }
end

--- Called by Go after every tool call with its outcome: runs User
--- NvbridgeToolPost and records the call.
function M.tool_post(chan, tool, ok, summary)
  local agent = state.agents[chan]
  if agent then
    table.insert(agent.calls, { tool = tool, ok = ok, at = os.time(), summary = summary })
    while #agent.calls > CALLS_MAX do
      table.remove(agent.calls, 1)
    end
  end
  log(('%s -> %s %s'):format(tool, ok and 'ok' or 'error', (summary or ''):gsub('\n', ' '):sub(1, 200)))
  local data = { tool = tool, ok = ok, summary = summary, channel = chan }
  pcall(api.nvim_exec_autocmds, 'User', { pattern = 'NvbridgeToolPost', modeline = false, data = data })
  return true
end

function M.pause()
  state.paused = true
  log('paused by the user')
end

function M.resume()
  state.paused = false
  log('resumed by the user')
end

function M.paused()
  return state.paused
end

-- Approval -------------------------------------------------------------------------

--- The approval mode: "writes" (default), "always" or "never"; from
--- require('nvbridge').setup({approve = ...}) or vim.g.nvbridge_approve.
function M.approve_mode()
  -- Without the plugin's setup: "writes" when a UI shows Neovim (the
  -- approval float can be answered), "never" in a Neovim nobody sees.
  local default = #api.nvim_list_uis() > 0 and 'writes' or 'never'
  local mode = config().approve or vim.g.nvbridge_approve or default
  if mode ~= 'writes' and mode ~= 'always' and mode ~= 'never' then
    mode = 'writes'
  end
  return mode
end

--- How long an approval waits for the user (ms).
function M.approve_timeout_ms()
  return tonumber(config().approve_timeout_ms or vim.g.nvbridge_approve_timeout_ms) or 300000
end

--- How an approval is shown: "float" (the diff in a float; e opens the
--- review tabs) or "tab" (straight to the review tabs).
function M.approve_view()
  local v = config().approve_view or vim.g.nvbridge_approve_view
  return v == 'tab' and 'tab' or 'float'
end

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
M._finish = finish

local function show(p)
  if M.approve_view() == 'tab' and #p.proposed > 0 then
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
---@param req {tool: string, diff: string, files: string[], changeset_id: string?, timeout_ms: integer?, proposed: {path: string, rel: string, text: string}[]?}
function M.approve(chan, id, req)
  sweep()
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
  local bound = tonumber(req.timeout_ms) or M.approve_timeout_ms()
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

function M.pending()
  sweep()
  return #state.pending
end

-- Changes --------------------------------------------------------------------------

--- Called by apply.lua after a changeset was applied: records its changed
--- ranges (quickfix, brief highlight) and its buffers under its id (undo of
--- a whole changeset).
function M.applied(plan, targets)
  local paths = {}
  for _, t in ipairs(targets) do
    local f, b = t.f, t.b
    if f.kind ~= 'delete' and b and api.nvim_buf_is_valid(b) then
      local path = f.new_path or f.path
      if t.pushed then
        table.insert(paths, path)
      end
      -- Buffers left with unsaved changes are shown to the user (listed).
      if vim.bo[b].modified and not vim.bo[b].buflisted then
        vim.bo[b].buflisted = true
        vim.b[b].nvbridge_loaded = nil
      end
      local n = api.nvim_buf_line_count(b)
      for _, op in ipairs(f.ops or {}) do
        local sr = op[1]
        local nl = #vim.split(op[5], '\n', { plain = true })
        local er = math.min(sr + nl - 1, n - 1)
        local text = (api.nvim_buf_get_lines(b, math.min(sr, n - 1), math.min(sr, n - 1) + 1, false)[1] or '')
        table.insert(state.changes, {
          filename = path, lnum = sr + 1, col = op[2] + 1,
          text = (plan.id and (plan.id .. ': ') or '') .. vim.trim(text):sub(1, 120),
        })
        if #vim.fn.win_findbuf(b) > 0 then
          pcall(vim.hl and vim.hl.range or vim.highlight.range, b, M.ns, 'DiffText', { sr, 0 }, { er, -1 })
        end
      end
    end
  end
  if plan.id and plan.id ~= '' and #paths > 0 then
    table.insert(state.changesets, { id = plan.id, paths = paths })
    while #state.changesets > CHANGESETS_MAX do
      table.remove(state.changesets, 1)
    end
  end
  log(('applied %s: %s'):format(plan.id or 'a change', table.concat(paths, ', ')))
  local timer = uv.new_timer()
  timer:start(M.highlight_ms, 0, vim.schedule_wrap(function()
    timer:close()
    for _, b in ipairs(api.nvim_list_bufs()) do
      pcall(api.nvim_buf_clear_namespace, b, M.ns, 0, -1)
    end
  end))
end

--- The paths of changeset id (or the last one when id is nil).
function M.changeset(id)
  for i = #state.changesets, 1, -1 do
    local c = state.changesets[i]
    if id == nil or c.id == id then
      return c
    end
  end
end

function M.forget_changeset(id)
  for i, c in ipairs(state.changesets) do
    if c.id == id then
      table.remove(state.changesets, i)
      return
    end
  end
end

--- Undoes a whole changeset (the last one when id is nil) across its
--- buffers; returns undo_log.undo_all's reply plus the id.
function M.undo_changeset(id)
  local c = M.changeset(id)
  if not c then
    return { err = fail('RESOURCE_NOT_FOUND', id and ('no applied changeset ' .. id .. ' in this Neovim') or 'no changeset was applied in this session') }
  end
  local r = require('nvbridge.undo_log').undo_all(c.paths)
  if not r.err then
    M.forget_changeset(c.id)
    log('undid ' .. c.id)
  end
  r.id = c.id
  return r
end

-- Commands -------------------------------------------------------------------------

function M.changes_to_quickfix()
  vim.fn.setqflist({}, ' ', { title = 'nvbridge changes', items = state.changes })
  return #state.changes
end

function M.open_log()
  local b = state.log_buf
  if not (b and api.nvim_buf_is_valid(b)) then
    b = api.nvim_create_buf(false, true)
    pcall(api.nvim_buf_set_name, b, 'nvbridge://log')
    vim.bo[b].bufhidden = 'hide'
    state.log_buf = b
  end
  vim.bo[b].modifiable = true
  api.nvim_buf_set_lines(b, 0, -1, false, state.log)
  vim.bo[b].modifiable = false
  vim.bo[b].modified = false
  vim.cmd('botright split')
  api.nvim_win_set_buf(0, b)
  return b
end

--- Removes everything nvbridge installed in this Neovim: the bridge's
--- autocmds, buffers loaded only to read, highlights, the discovery file;
--- disconnects every agent. Returns a summary of what was done.
function M.stop_all()
  local n = M.disconnect_all()
  local bridge = package.loaded['nvbridge.bridge']
  if bridge then
    bridge.teardown()
  end
  for _, b in ipairs(api.nvim_list_bufs()) do
    pcall(api.nvim_buf_clear_namespace, b, M.ns, 0, -1)
  end
  M.remove_discovery()
  state.paused = false
  log(('stopped: %d agent(s) disconnected'):format(n))
  return { agents = n }
end

--- The editor as the user sees it, for get_editor_context.
function M.editor_context()
  local win = api.nvim_get_current_win()
  local b = api.nvim_win_get_buf(win)
  local cur = api.nvim_win_get_cursor(win)
  local line = api.nvim_buf_get_lines(b, cur[1] - 1, cur[1], false)[1] or ''
  local out = {
    file = api.nvim_buf_get_name(b),
    cursor = { line = cur[1], column = vim.fn.strchars(line:sub(1, cur[2])) },
    visible = { first = vim.fn.line('w0', win), last = vim.fn.line('w$', win) },
    mode = api.nvim_get_mode().mode,
    buffers = {},
  }
  local s, e = api.nvim_buf_get_mark(b, '<'), api.nvim_buf_get_mark(b, '>')
  if s[1] > 0 and e[1] > 0 then
    local sl = api.nvim_buf_get_lines(b, s[1] - 1, s[1], false)[1] or ''
    local el = api.nvim_buf_get_lines(b, e[1] - 1, e[1], false)[1] or ''
    out.selection = {
      start_line = s[1], start_column = vim.fn.strchars(sl:sub(1, s[2])),
      end_line = e[1], end_column = math.min(vim.fn.strchars(el:sub(1, e[2])) + 1, vim.fn.strchars(el)),
    }
  end
  for _, bb in ipairs(api.nvim_list_bufs()) do
    if vim.bo[bb].buflisted and api.nvim_buf_get_name(bb) ~= '' and vim.bo[bb].buftype == '' then
      table.insert(out.buffers, {
        file = api.nvim_buf_get_name(bb), modified = vim.bo[bb].modified,
        visible = #vim.fn.win_findbuf(bb) > 0, loaded = api.nvim_buf_is_loaded(bb),
      })
    end
  end
  return vim.json.encode(out)
end

return M
