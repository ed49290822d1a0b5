--- The agents connected to this Neovim (stdio and HTTP nvbridges): their
--- registration and last calls, the User NvbridgeToolPre / NvbridgeToolPost
--- events and before_tool hooks around each call, the pause, the discovery
--- file, the editor's context, and stopping everything (:NvbridgeStop).
local M = {}

local api = vim.api
local buf_option = require('nvbridge._compat').buf_option
local uv = vim.uv or vim.loop

local fail = require('nvbridge._error').fail
local user = require('nvbridge.user')
local state, log = user.state, user.log

local CALLS_MAX = 10

--- Registers the nvbridge on channel chan (called by Go on connect).
---@param chan integer
---@param transport string "stdio" | "http ADDR" | ...
---@return true
function M.register(chan, transport)
  state.agents[chan] = { chan = chan, transport = transport, since = os.time(), calls = {} }
  log(('agent connected: channel %d (%s)'):format(chan, transport))
  M.follow_selection()
  return true
end

--- Remembers which buffer the user last selected text in (leaving visual
--- mode), so that range: "selection" finds it after they moved to another
--- buffer. An autocmd in the augroup nvbridge_user, removed by stop_all.
function M.follow_selection()
  if state.selection_group then
    return
  end
  state.selection_group = api.nvim_create_augroup('nvbridge_user', { clear = true })
  api.nvim_create_autocmd('ModeChanged', {
    group = state.selection_group,
    pattern = { 'v:*', 'V:*', '\22:*', 'vs:*', 'Vs:*', '\22s:*' },
    callback = function(ev)
      local to = (vim.v.event or {}).new_mode or ''
      if not to:match('^[vV\22]') then
        state.last_selection = ev.buf
      end
    end,
  })
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
function M.sweep()
  for _, p in ipairs(vim.list_extend({}, state.pending)) do
    if not p.done and not alive(p.chan) then
      p.done, p.gone = true, true
      log(('approval for %s dropped: its agent disconnected'):format(p.tool))
      require('nvbridge.review').finish(p)
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
---@return {chan: integer, transport: string, since: integer, calls: {tool: string, ok: boolean, at: integer, summary: string?}[]}[] by channel
function M.agents()
  M.sweep()
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
---@return integer
function M.disconnect_all()
  -- Approvals waiting for the user are answered first (their agents are
  -- still there to read it): nobody will answer them.
  for _, p in ipairs(vim.list_extend({}, state.pending)) do
    require('nvbridge.review').answer('reject', 'nvbridge was stopped by the user', p.key)
  end
  local n = 0
  for _, a in ipairs(M.agents()) do
    -- Said first, so that the agent's nvbridge knows the user stopped it
    -- (it then exits 0, not as if Neovim had gone away).
    pcall(vim.rpcnotify, a.chan, 'nvbridge_stop')
    if pcall(vim.fn.chanclose, a.chan) then
      n = n + 1
    end
    state.agents[a.chan] = nil
  end
  return n
end

--- The discovery file of this Neovim (nvbridge mcp --nvim auto reads every
--- such file): stdpath('state')/nvbridge/nvim-PID.json.
---@return string
function M.discovery_path()
  return vim.fs.joinpath(vim.fn.stdpath('state'), 'nvbridge', 'nvim-' .. uv.os_getpid() .. '.json')
end

--- Writes the discovery file: this Neovim's address, cwd and pid.
---@return boolean written
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

--- Called by Go before every tool call. Runs User NvbridgeToolPre and the
--- before_tool hooks; returns {refuse = Error} when the call must not run
--- (paused, a hook refused), else {}.
---@param chan integer
---@param tool string
---@param args_json string
---@param writes boolean the tool may change buffers or files
---@return {refuse: nvbridge.Error?, mode: string?}
function M.tool_pre(chan, tool, args_json, writes)
  local ok, args = pcall(vim.json.decode, args_json)
  if not ok then
    args = {}
  end
  local agent = state.agents[chan]
  if not agent then
    -- An nvbridge that did not register (an older one): listed all the
    -- same, by its channel's client name when it gave one.
    local got, info = pcall(api.nvim_get_chan_info, chan)
    local name = got and type(info) == 'table' and type(info.client) == 'table' and info.client.name or nil
    agent = { chan = chan, transport = name or 'unregistered', since = os.time(), calls = {} }
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
  for _, fn in ipairs(user.hooks('before_tool')) do
    local hok, allow, reason = pcall(fn, { tool = tool, arguments = args, writes = writes })
    if not hok then
      log(tool .. ': before_tool hook failed: ' .. tostring(allow))
    elseif allow == false then
      local msg = 'refused by the user\'s before_tool hook' .. (reason and (': ' .. tostring(reason)) or '')
      log(tool .. ' ' .. msg)
      return { refuse = fail('REJECTED', msg, { remediation = 'do not retry the same call; ask the user, or do something else' }) }
    end
  end
  return { mode = user.approve_mode() }
end

--- Called by Go after every tool call with its outcome: runs User
--- NvbridgeToolPost and records the call.
---@param chan integer
---@param tool string
---@param ok boolean the call succeeded
---@param summary string
---@return true
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

---@return boolean
function M.paused()
  return state.paused
end

--- Removes everything nvbridge installed in this Neovim: the bridge's
--- autocmds, buffers loaded only to read, highlights, the discovery file;
--- disconnects every agent. Returns a summary of what was done.
---@return {agents: integer} how many agents were disconnected
function M.stop_all()
  local n = M.disconnect_all()
  local bridge = package.loaded['nvbridge.bridge']
  if bridge then
    bridge.teardown()
  end
  require('nvbridge.changes').teardown()
  -- Every window and buffer of nvbridge's: the debug panel and signs,
  -- the log, the reviews (their approvals were answered above).
  local debug_ui = require('nvbridge.debug_ui')
  pcall(debug_ui.clear)
  pcall(debug_ui.close_panel)
  user.close_log()
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b):find('^nvbridge://') then
      for _, w in ipairs(vim.fn.win_findbuf(b)) do
        pcall(api.nvim_win_close, w, true)
      end
      pcall(api.nvim_buf_delete, b, { force = true })
    end
  end
  if state.selection_group then
    pcall(api.nvim_del_augroup_by_id, state.selection_group)
    state.selection_group, state.last_selection = nil, nil
  end
  M.remove_discovery()
  state.paused = false
  log(('stopped: %d agent(s) disconnected'):format(n))
  return { agents = n }
end

--- A selection as get_editor_context reports it: 1-based lines, 0-based
--- character columns, the end exclusive; file: its buffer's.
local function selection(b, s, e, linewise)
  local sl = api.nvim_buf_get_lines(b, s[1] - 1, s[1], false)[1] or ''
  local el = api.nvim_buf_get_lines(b, e[1] - 1, e[1], false)[1] or ''
  local ec = vim.fn.strchars(el)
  if not linewise then
    ec = math.min(vim.fn.strchars(el:sub(1, e[2])) + 1, ec)
  end
  return {
    file = api.nvim_buf_get_name(b),
    start_line = s[1], start_column = linewise and 0 or vim.fn.strchars(sl:sub(1, s[2])),
    end_line = e[1], end_column = ec,
  }
end

--- The user's selection: the live one in visual mode (in the current
--- window), else the last one they made (the '< and '> marks of the buffer
--- they last selected in, else of the current buffer), or nil.
---@param win integer
---@return table?
local function current_selection(win)
  local b = api.nvim_win_get_buf(win)
  local mode = api.nvim_get_mode().mode
  if mode:match('^[vV\22]') then
    local v = vim.fn.getpos('v')
    local c = api.nvim_win_get_cursor(win)
    local s, e = { v[2], v[3] - 1 }, { c[1], c[2] }
    if e[1] < s[1] or (e[1] == s[1] and e[2] < s[2]) then
      s, e = e, s
    end
    local out = selection(b, s, e, mode:sub(1, 1) == 'V')
    out.live = true
    return out
  end
  local from = state.last_selection
  if not (from and api.nvim_buf_is_valid(from) and api.nvim_buf_is_loaded(from)) then
    from = b
  end
  local s, e = api.nvim_buf_get_mark(from, '<'), api.nvim_buf_get_mark(from, '>')
  if s[1] > 0 and e[1] > 0 then
    -- A linewise selection's '> is at the end of its line: the same span.
    return selection(from, s, e, false)
  end
end

--- The editor as the user sees it, for get_editor_context.
---@return string json {file, cursor, visible, mode, buffers, selection?}
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
  out.selection = current_selection(win)
  for _, bb in ipairs(api.nvim_list_bufs()) do
    if buf_option(bb, 'buflisted') and api.nvim_buf_get_name(bb) ~= '' and buf_option(bb, 'buftype') == '' then
      table.insert(out.buffers, {
        file = api.nvim_buf_get_name(bb), modified = buf_option(bb, 'modified'),
        visible = #vim.fn.win_findbuf(bb) > 0, loaded = api.nvim_buf_is_loaded(bb),
      })
    end
  end
  return vim.json.encode(out)
end

return M
