--- What MCP exposes beyond tools (RPC side, registered like the others):
--- the changes MCP resources follow (buffer texts, diagnostics, the buffer
--- list, the editor context, servers that crashed), told to each watching
--- nvbridge as the notification nvbridge_event(kind, payload); the tools a
--- user registers from their config (require('nvbridge').tool{...}) and
--- their runs; the after_tool hooks; the agent events (User
--- NvbridgeAgentAttach, NvbridgeAgentDetach, NvbridgeToolProgress).
---
--- Nothing global changes: the autocmds live in the nvbridge_extensions
--- augroup (bridge.teardown removes it), buffers are followed with
--- nvim_buf_attach (each callback detaches once the generation it was
--- attached in has ended). State lives in package.loaded, so several
--- nvbridges on one Neovim and a re-registration share it.
local M = {}

local api = vim.api
local buf_option = require('nvbridge._compat').buf_option

local state = package.loaded['nvbridge._extensions_state']
if state then
  state.paused = state.paused or {} -- a state registered by an older version
  state.has_diag = state.has_diag or {}
else
  state = {
    -- channel -> {editor = boolean, texts = boolean}: the nvbridges that
    -- watch (M.watch, M.texts).
    channels = {},
    -- the generation of the current setup; a teardown starts another.
    generation = 0,
    attached = {}, -- bufnr -> generation it was attached in
    paused = {}, -- bufnr -> true: detach at the next on_lines (pause)
    pending = {}, -- kind -> {files = set} | true
    has_diag = {}, -- bufnr -> true: the buffers holding diagnostics (flush)
    flush_armed = false,
    setup_done = false,
  }
  package.loaded['nvbridge._extensions_state'] = state
end
M.state = state

local GROUP = 'nvbridge_extensions'

--- The file a buffer holds, or nil for buffers that are not files.
local function file_of(bufnr)
  if not api.nvim_buf_is_valid(bufnr) or buf_option(bufnr, 'buftype') ~= '' then
    return nil
  end
  local name = api.nvim_buf_get_name(bufnr)
  if name == '' then
    return nil
  end
  return name
end

--- Whether a watching channel follows the texts (M.texts): else a text
--- change is not even marked.
local function texts_followed()
  for _, opts in pairs(state.channels) do
    if opts.texts ~= false then
      return true
    end
  end
  return false
end

-- (A state an older version registered has channels and no flag.)
if state.texts_followed == nil then
  state.texts_followed = texts_followed()
end

--- Sends what changed since the last flush, once per kind, to every
--- watching channel; a channel that is gone is forgotten.
local function flush()
  state.flush_armed = false
  local pending = state.pending
  state.pending = {}
  -- Buffers whose text changed are named now, once each (an apply of
  -- 200,000 lines calls on_lines as often: it only marks the buffer).
  local diag = state.diag_bufs or {}
  state.diag_bufs = {}
  for b in pairs(diag) do
    pending.diagnostics = pending.diagnostics or { files = {} }
    local f = b ~= 0 and file_of(b)
    if f then
      pending.diagnostics.files[f] = true
    end
    -- Whether the files holding diagnostics (the resource list) moved: a
    -- publish that leaves a file with diagnostics, or without, does not,
    -- and the Go side then compares no list (two calls, most of a
    -- millisecond of this main loop, after every publish).
    local has = f and next(vim.diagnostic.count(b)) ~= nil or false
    if b == 0 or (state.has_diag[b] == true) ~= has then
      state.has_diag[b] = has or nil
      pending.diagnostics.list = true
    end
  end
  local dirty = state.dirty_bufs or {}
  state.dirty_bufs = {}
  for b in pairs(dirty) do
    local f = file_of(b)
    if f then
      pending.buffer = pending.buffer or { files = {} }
      pending.buffer.files[f] = true
    end
  end
  for kind, what in pairs(pending) do
    -- A channel that follows no text (M.texts) is told of a buffer's
    -- text, and of a file's diagnostics, only when the resource list may
    -- have moved: nothing its nvbridge is subscribed to needs the rest.
    local lists = kind ~= 'buffer' and (kind ~= 'diagnostics' or (type(what) == 'table' and what.list))
    local payload = { files = {} }
    if type(what) == 'table' then
      if what.files then
        payload.files = vim.tbl_keys(what.files)
      end
      if what.data then
        payload.data = vim.json.encode(what.data)
      end
      payload.list = what.list
    end
    for chan, opts in pairs(state.channels) do
      if (kind ~= 'editor' or opts.editor) and (lists or opts.texts ~= false) then
        if not pcall(vim.rpcnotify, chan, 'nvbridge_event', kind, payload) then
          state.channels[chan] = nil
          state.texts_followed = texts_followed()
        end
      end
    end
  end
end

--- Records a change of kind (for file, when given) and arms one flush for
--- the end of the current main-loop turn: a change made line by line (an
--- apply, a substitution) is told once, right after it.
---@param kind string
---@param file string?
---@param data table?
local function changed(kind, file, data)
  if next(state.channels) == nil then
    return
  end
  local p = state.pending[kind]
  if not p then
    p = { files = {} }
    state.pending[kind] = p
  end
  if file then
    p.files[file] = true
  end
  if data then
    p.data = data
  end
  if not state.flush_armed then
    state.flush_armed = true
    vim.schedule(flush)
  end
end
M.changed = changed

--- Marks a buffer's text changed (on_lines: called for every changed
--- line range, so it only records the buffer).
local function text_changed(bufnr)
  if not state.texts_followed then
    return
  end
  state.dirty_bufs = state.dirty_bufs or {}
  state.dirty_bufs[bufnr] = true
  if not state.flush_armed then
    state.flush_armed = true
    vim.schedule(flush)
  end
end

--- Follows a buffer's text changes (any source: the user typing, an API
--- call, an agent's apply, a reload), while a channel follows the texts:
--- else its changes are not even marked, and a load attaches nothing (a
--- read's load waits for it before its request; an apply's every line
--- would call on_lines). follow_texts follows every buffer once one does.
local function follow(bufnr)
  if not state.texts_followed or state.attached[bufnr] == state.generation or not api.nvim_buf_is_loaded(bufnr)
    or not file_of(bufnr) then
    return
  end
  local gen = state.generation
  local ok = api.nvim_buf_attach(bufnr, false, {
    on_lines = function(_, b)
      if state.generation ~= gen then
        return true -- detach: a teardown ended this generation
      end
      text_changed(b)
      if state.paused[b] then
        -- A change made whole (pause): detach now, resume attaches again.
        state.paused[b] = nil
        if state.attached[b] == gen then
          state.attached[b] = nil
        end
        return true
      end
    end,
    on_reload = function(_, b)
      if state.generation ~= gen then
        return true
      end
      text_changed(b)
    end,
    on_detach = function(_, b)
      if state.attached[b] == gen then
        state.attached[b] = nil
      end
    end,
  })
  if ok then
    state.attached[bufnr] = gen
  end
end

--- Recomputes whether a channel follows the texts, and follows every
--- loaded buffer when one now does (the loads since attached nothing).
local function follow_texts()
  local was = state.texts_followed
  state.texts_followed = texts_followed()
  if state.texts_followed and not was and state.setup_done then
    for _, b in ipairs(api.nvim_list_bufs()) do
      follow(b)
    end
  end
end

--- Stops following b's text for a change made whole (apply.lua): its
--- on_lines marks the buffer changed at the change's first line and
--- detaches instead of running for each of them; resume follows it again.
---@param bufnr integer
function M.pause(bufnr)
  if state.attached[bufnr] == state.generation then
    state.paused[bufnr] = true
  end
end

--- Follows b again after pause.
---@param bufnr integer
function M.resume(bufnr)
  state.paused[bufnr] = nil
  if state.setup_done then
    follow(bufnr)
  end
end

local function setup()
  if state.setup_done then
    return
  end
  state.setup_done = true
  state.generation = state.generation + 1
  -- The buffers holding diagnostics now: flush tells when that set moves.
  state.has_diag = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    if d.bufnr then
      state.has_diag[d.bufnr] = true
    end
  end
  local group = api.nvim_create_augroup(GROUP, { clear = true })
  for _, b in ipairs(api.nvim_list_bufs()) do
    follow(b)
  end
  api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
    group = group,
    callback = function(ev)
      follow(ev.buf)
      changed('buffer_list')
      text_changed(ev.buf)
    end,
  })
  -- The callbacks below only mark (no API call inside the event: a
  -- DiagnosticChanged callback that read buffer options hung an apply
  -- whose commit was paused); names are read at the flush.
  api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout', 'BufUnload' }, {
    group = group,
    callback = function()
      changed('buffer_list')
    end,
  })
  -- A write changes the unsaved diff (and 'modified') without a text change.
  api.nvim_create_autocmd({ 'BufWritePost', 'FileChangedShellPost' }, {
    group = group,
    callback = function(ev)
      text_changed(ev.buf)
    end,
  })
  -- 'modified' lists or unlists the unsaved diff.
  api.nvim_create_autocmd('BufModifiedSet', {
    group = group,
    callback = function()
      changed('buffer_list')
    end,
  })
  api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(ev)
      if next(state.channels) == nil then
        return
      end
      state.diag_bufs = state.diag_bufs or {}
      state.diag_bufs[ev.buf or 0] = true
      if not state.flush_armed then
        state.flush_armed = true
        vim.schedule(flush)
      end
    end,
  })
  api.nvim_create_autocmd({ 'CursorMoved', 'CursorMovedI', 'ModeChanged', 'BufEnter', 'WinEnter' }, {
    group = group,
    callback = function()
      changed('editor')
    end,
  })
  -- A server that crashed (observe.lua observes every client's exit); told
  -- after servers.lua decided about its restart.
  local observe = require('nvbridge.observe')
  local gen = state.generation
  table.insert(observe.exit_listeners, function(_, exit)
    if state.generation ~= gen then
      return
    end
    vim.schedule(function()
      local data = { name = exit.name, how = observe.describe_exit(exit), managed = exit.managed == true }
      if type(exit.restart) == 'table' then
        data.restart_attempt = exit.restart.attempt
        data.restart_max = exit.restart.max
        data.restart_delay_ms = exit.restart.delay_ms
      end
      data.gave_up = exit.gave_up == true
      changed('server', nil, data)
    end)
  end)
end

--- Starts telling chan about changes (nvim.Session.Watch), every buffer's
--- text and file's diagnostics changed included until M.texts says
--- otherwise. editor: also the cursor, selection and mode (attached mode).
---@param chan integer
---@param editor boolean
---@return boolean
function M.watch(chan, editor)
  state.channels[chan] = { editor = editor == true, texts = true }
  follow_texts()
  setup()
  return true
end

--- Whether chan is told of every buffer text and file's diagnostics that
--- changed (nvim.Session.WatchTexts), or, off, only of changes that may
--- move the resource list: nvbridge turns it on for its first subscriber
--- (a load and the publishes that follow it otherwise send three or four
--- events to an nvbridge that has no use for them).
---@param chan integer
---@param on boolean
---@return boolean
function M.texts(chan, on)
  local c = state.channels[chan]
  if c then
    c.texts = on == true
  end
  follow_texts()
  return c ~= nil
end

--- Stops following changes (bridge.teardown, :NvbridgeStop).
function M.teardown()
  pcall(api.nvim_del_augroup_by_name, GROUP)
  state.setup_done = false
  state.generation = state.generation + 1
  state.channels = {}
  state.texts_followed = false
  state.pending = {}
  state.dirty_bufs = {}
end

--- The loaded file buffers, as JSON: [{file, modified, listed}].
---@return string
function M.buffers()
  local out = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    local f = api.nvim_buf_is_loaded(b) and file_of(b)
    if f then
      table.insert(out, { file = f, modified = buf_option(b, 'modified'), listed = buf_option(b, 'buflisted') })
    end
  end
  return vim.json.encode(out)
end

--- The files Neovim holds diagnostics for, as JSON: [file].
---@return string
function M.diagnostic_files()
  local seen, seen_buf, out = {}, {}, {}
  for _, d in ipairs(vim.diagnostic.get()) do
    -- A buffer's file is looked up once, not once per diagnostic.
    local b = d.bufnr
    if b and not seen_buf[b] then
      seen_buf[b] = true
      local f = file_of(b)
      if f and not seen[f] then
        seen[f] = true
        table.insert(out, f)
      end
    end
  end
  return vim.json.encode(out)
end

--- What the resource list names of Neovim, in one call: {buffers,
--- diagnostic_files} (M.buffers' and M.diagnostic_files' answers), as JSON.
---@return string
function M.listed()
  return '{"buffers":' .. M.buffers() .. ',"diagnostic_files":' .. M.diagnostic_files() .. '}'
end

--- A loaded buffer's text as Neovim holds it (unsaved edits included), as
--- JSON: {loaded, text, modified, changedtick, line_count, filetype}.
--- loaded is false when no buffer holds path.
---@param path string absolute
---@return string
function M.buffer_text(path)
  local b = vim.fn.bufnr('^' .. vim.fn.fnameescape(path) .. '$')
  if b < 0 or not api.nvim_buf_is_loaded(b) or file_of(b) ~= path then
    b = nil
    for _, bb in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(bb) and file_of(bb) == path then
        b = bb
        break
      end
    end
  end
  if not b then
    return vim.json.encode({ loaded = false })
  end
  local lines = api.nvim_buf_get_lines(b, 0, -1, false)
  local text = table.concat(lines, '\n')
  if buf_option(b, 'eol') and not (#lines == 1 and lines[1] == '') then
    text = text .. '\n'
  end
  return vim.json.encode({
    loaded = true,
    text = text,
    modified = buf_option(b, 'modified'),
    changedtick = vim.b[b].changedtick,
    line_count = #lines,
    filetype = buf_option(b, 'filetype'),
  })
end

-- User-defined tools ---------------------------------------------------

--- The user plugin's module (require('nvbridge')), when it is loaded.
local function plugin()
  local p = package.loaded['nvbridge']
  return type(p) == 'table' and p or nil
end

--- The user's tools, as JSON: [{name, description, schema (JSON), writes}].
---@return string
function M.user_tools()
  local out = {}
  local p = plugin()
  for name, spec in pairs(p and p._tools or {}) do
    local schema = spec.schema or { type = 'object', properties = vim.empty_dict() }
    local ok, encoded = pcall(vim.json.encode, schema)
    table.insert(out, {
      name = name,
      description = spec.description or '',
      schema = ok and encoded or '',
      writes = spec.writes == true,
    })
  end
  return vim.json.encode(out)
end

--- The user's tools changed (require('nvbridge').tool): tell the nvbridges.
function M.tools_changed()
  changed('tools')
end

local function encode_result(v)
  local ok, encoded = pcall(vim.json.encode, { result = v == nil and vim.NIL or v })
  if not ok then
    return nil, encoded
  end
  return encoded
end

--- Runs a user tool (an asynchronous operation: nvbridge_done answers).
--- run(args, done, progress) answers by returning a value, or later through
--- done(result) / done(nil, err); an error it raises, or err (a string, or
--- {code, message, remediation}), fails the call. progress(percentage,
--- message) reports how far it is.
---@param chan integer
---@param id integer
---@param name string
---@param args_json string
---@return nil
function M.run_tool(chan, id, name, args_json)
  local async = require('nvbridge.async')
  local function done(err, result)
    async.untrack(chan, id)
    async.done(chan, id, err, result)
  end
  local p = plugin()
  local spec = p and p._tools and p._tools[name]
  if not spec then
    return done({ code = 'RESOURCE_NOT_FOUND', message = 'no user tool ' .. name .. ' in this Neovim',
      remediation = 'list the tools again: the user removed it or restarted Neovim' })
  end
  local ok_args, args = pcall(vim.json.decode, args_json, { luanil = { object = true, array = true } })
  if not ok_args then
    args = {}
  end
  local answered = false
  local function finish(result, err)
    if answered then
      return
    end
    answered = true
    if err ~= nil then
      local e = type(err) == 'table' and err or { message = tostring(err) }
      return done({
        code = e.code or 'OPERATION_FAILED',
        message = e.message or tostring(err),
        remediation = e.remediation or ('the user tool ' .. name .. ' failed in Neovim; ask the user or try other arguments'),
      })
    end
    local encoded, why = encode_result(result)
    if not encoded then
      return done({ code = 'OPERATION_FAILED', message = 'the result of ' .. name .. ' is not JSON: ' .. tostring(why),
        remediation = 'ask the user to return a table of strings, numbers and booleans from the tool' })
    end
    done(nil, encoded)
  end
  -- A cancelled call is answered at once; the user's function may still
  -- finish, unheard.
  async.track(chan, id, function()
    finish(nil, { code = 'CANCELLED', message = 'the agent cancelled ' .. name, remediation = 'call it again if it is still wanted' })
  end)
  -- progress(percentage, message): what the agent sees as
  -- notifications/progress (when it asked for progress).
  local function progress(pct, message)
    if not answered then
      pcall(vim.rpcnotify, chan, 'nvbridge_progress', id, { server = name, title = message, percentage = pct })
    end
  end
  local ok, result = pcall(spec.run, args, vim.schedule_wrap(finish), progress)
  if not ok then
    return finish(nil, result)
  end
  if result ~= nil then
    finish(result)
  end
end

--- Runs the user's after_tool hooks on a result (JSON of {structured,
--- text, is_error}); answers the changed result as JSON, or '' when no hook
--- changed it. A hook gets {tool, arguments, result, text, is_error} and
--- returns nothing (keep), or a table with result and/or text replaced.
---@param tool string
---@param args_json string
---@param result_json string
---@return string
function M.after_tool(tool, args_json, result_json)
  local p = plugin()
  local hooks = p and p._hooks and p._hooks.after_tool or {}
  if #hooks == 0 then
    return ''
  end
  local ok, res = pcall(vim.json.decode, result_json)
  if not ok or type(res) ~= 'table' then
    return ''
  end
  local aok, args = pcall(vim.json.decode, args_json)
  local ev = { tool = tool, arguments = aok and args or {}, result = res.structured, text = res.text, is_error = res.is_error == true }
  local changed_any = false
  for _, fn in ipairs(hooks) do
    local hok, out = pcall(fn, ev)
    if hok and type(out) == 'table' then
      if out.result ~= nil then
        ev.result = out.result
        changed_any = true
      end
      if out.text ~= nil then
        ev.text = tostring(out.text)
        changed_any = true
      end
    elseif not hok then
      pcall(require('nvbridge.user').log, tool .. ': after_tool hook failed: ' .. tostring(out))
    end
  end
  if not changed_any then
    return ''
  end
  local eok, encoded = pcall(vim.json.encode, { structured = ev.result, text = ev.text })
  return eok and encoded or ''
end

-- Agent events -------------------------------------------------------------

--- Runs User NvbridgeAgentAttach / NvbridgeAgentDetach /
--- NvbridgeToolProgress with data (JSON).
---@param pattern string
---@param data_json string
---@return boolean
function M.event(pattern, data_json)
  if pattern ~= 'NvbridgeAgentAttach' and pattern ~= 'NvbridgeAgentDetach' and pattern ~= 'NvbridgeToolProgress' then
    return false
  end
  local ok, data = pcall(vim.json.decode, data_json)
  pcall(api.nvim_exec_autocmds, 'User', { pattern = pattern, modeline = false, data = ok and data or {} })
  return true
end

return M
