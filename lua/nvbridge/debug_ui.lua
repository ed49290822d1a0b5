--- Shows nvbridge's debug sessions (dap/display.go pushes the view): breakpoint
--- signs and the stopped line as extmarks in the namespace 'nvbridge_dap', and
--- the :NvbridgeDebug panel, a scratch buffer with where the program stopped,
--- the stack and the locals, whose keys continue, step or stop the session.
--- A control sent from here (vim.rpcnotify to nvbridge) runs exactly as the
--- agent's control_execution does. Everything is cleared when the sessions end.
local M = {}

local ns = vim.api.nvim_create_namespace('nvbridge_dap')
local group_name = 'nvbridge_dap'

---@class nvbridge.DebugMark
---@field file string absolute path
---@field line integer 1-based
---@field verified boolean
---@field kind string? 'breakpoint'|'conditional'|'log'

---@class nvbridge.DebugSession
---@field id string
---@field language string
---@field program string
---@field state string
---@field stopped nvbridge.DebugMark?
---@field breakpoints nvbridge.DebugMark[]
---@field panel string[]

---@class nvbridge.DebugView
---@field channel integer nvbridge's RPC channel
---@field sessions nvbridge.DebugSession[]

---@type nvbridge.DebugView?
local view
---@type integer? the panel buffer
local panel_buf
---@type boolean whether this module created :NvbridgeDebug
local own_command = false

local signs = {
  breakpoint = { '●', '○' },
  conditional = { '◆', '◇' },
  log = { '▶', '▷' },
}

local function norm(path)
  return vim.fs.normalize(vim.fn.fnamemodify(path, ':p'))
end

--- Marks of one buffer from the current view.
local function paint(buf)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  if not view or not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' then
    return
  end
  name = norm(name)
  local count = vim.api.nvim_buf_line_count(buf)
  local function place(line, opts)
    if line >= 1 and line <= count then
      pcall(vim.api.nvim_buf_set_extmark, buf, ns, line - 1, 0, opts)
    end
  end
  for _, s in ipairs(view.sessions) do
    for _, b in ipairs(s.breakpoints) do
      if norm(b.file) == name then
        local pair = signs[b.kind or 'breakpoint'] or signs.breakpoint
        place(b.line, {
          sign_text = b.verified and pair[1] or pair[2],
          sign_hl_group = b.verified and 'DiagnosticError' or 'DiagnosticHint',
          priority = 20,
        })
      end
    end
    if s.stopped and norm(s.stopped.file) == name then
      place(s.stopped.line, { sign_text = '→', sign_hl_group = 'DiagnosticWarn', line_hl_group = 'CursorLine', priority = 30 })
    end
  end
end

local function paint_all()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    paint(buf)
  end
end

local function panel_lines()
  if not view or #view.sessions == 0 then
    return { 'no nvbridge debug session' }
  end
  local lines = {}
  for i, s in ipairs(view.sessions) do
    if i > 1 then
      table.insert(lines, '')
    end
    vim.list_extend(lines, s.panel)
  end
  return lines
end

local function update_panel()
  if panel_buf and vim.api.nvim_buf_is_valid(panel_buf) then
    vim.bo[panel_buf].modifiable = true
    vim.api.nvim_buf_set_lines(panel_buf, 0, -1, false, panel_lines())
    vim.bo[panel_buf].modifiable = false
  end
end

--- The session a control applies to: the only one, else the first stopped.
local function current_session()
  if not view then
    return nil
  end
  for _, s in ipairs(view.sessions) do
    if s.state == 'stopped' then
      return s
    end
  end
  return view.sessions[1]
end

--- Sends a control to nvbridge: continue, step_over, step_into, step_out,
--- pause or stop.
---@param action string
function M.action(action)
  vim.validate({ action = { action, 'string' } })
  local s = current_session()
  if not view or not s then
    vim.notify('nvbridge: no debug session', vim.log.levels.WARN)
    return
  end
  vim.rpcnotify(view.channel, 'nvbridge_debug_action', s.id, action)
end

local actions = {
  continue = 'continue',
  next = 'step_over',
  step_over = 'step_over',
  step = 'step_into',
  step_into = 'step_into',
  out = 'step_out',
  step_out = 'step_out',
  pause = 'pause',
  stop = 'stop',
}

--- :NvbridgeDebug [action]: without an action, opens the panel.
---@param arg string?
function M.command(arg)
  if arg and arg ~= '' then
    local a = actions[arg]
    if not a then
      vim.notify('nvbridge: unknown debug action ' .. arg, vim.log.levels.ERROR)
      return
    end
    M.action(a)
    return
  end
  M.open()
end

--- The completion of :NvbridgeDebug's argument.
---@return string[]
function M.complete()
  return { 'continue', 'step_over', 'step_into', 'step_out', 'pause', 'stop' }
end

--- Opens the panel in a split below (or focuses it).
---@return integer bufnr the panel's
function M.open()
  if not (panel_buf and vim.api.nvim_buf_is_valid(panel_buf)) then
    panel_buf = vim.api.nvim_create_buf(false, true)
    vim.bo[panel_buf].bufhidden = 'wipe'
    vim.bo[panel_buf].filetype = 'nvbridge-debug'
    pcall(vim.api.nvim_buf_set_name, panel_buf, 'nvbridge://debug')
    local map = function(lhs, action)
      vim.keymap.set('n', lhs, function()
        M.action(action)
      end, { buffer = panel_buf, nowait = true, desc = 'nvbridge debug: ' .. action })
    end
    map('c', 'continue')
    map('n', 'step_over')
    map('s', 'step_into')
    map('o', 'step_out')
    map('p', 'pause')
    map('x', 'stop')
    vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = panel_buf, nowait = true, desc = 'close the debug panel' })
  end
  update_panel()
  local win = vim.fn.bufwinid(panel_buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
    return panel_buf
  end
  vim.cmd('botright 15split')
  vim.api.nvim_win_set_buf(0, panel_buf)
  return panel_buf
end

--- The panel's lines (for tests and :checkhealth).
---@return string[]
function M.panel()
  return panel_lines()
end

local function ensure_command()
  if vim.fn.exists(':NvbridgeDebug') == 2 then
    return
  end
  -- Without the plugin (plugin/nvbridge.lua defines it), the command exists
  -- while there are sessions.
  own_command = true
  vim.api.nvim_create_user_command('NvbridgeDebug', function(opts)
    M.command(opts.args)
  end, { nargs = '?', complete = M.complete, desc = "Show nvbridge's debug session; continue, step or stop it" })
end

--- Called by nvbridge with the JSON view of every session.
---@param json string
---@return true
function M.render(json)
  vim.validate({ json = { json, 'string' } })
  view = vim.json.decode(json)
  if #view.sessions > 0 then
    ensure_command()
    local group = vim.api.nvim_create_augroup(group_name, { clear = true })
    vim.api.nvim_create_autocmd({ 'BufWinEnter', 'BufReadPost' }, {
      group = group,
      callback = function(ev)
        paint(ev.buf)
      end,
    })
  else
    pcall(vim.api.nvim_del_augroup_by_name, group_name)
    if own_command then
      pcall(vim.api.nvim_del_user_command, 'NvbridgeDebug')
      own_command = false
    end
  end
  paint_all()
  update_panel()
  return true
end

--- Closes the panel's windows and wipes its buffer (:NvbridgeStop).
function M.close_panel()
  if panel_buf and vim.api.nvim_buf_is_valid(panel_buf) then
    for _, w in ipairs(vim.fn.win_findbuf(panel_buf)) do
      pcall(vim.api.nvim_win_close, w, true)
    end
    pcall(vim.api.nvim_buf_delete, panel_buf, { force = true })
  end
  panel_buf = nil
end

--- Removes every mark, the autocmds and the command this module made.
---@return true
function M.clear()
  view = nil
  pcall(vim.api.nvim_del_augroup_by_name, group_name)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    end
  end
  update_panel()
  if own_command then
    pcall(vim.api.nvim_del_user_command, 'NvbridgeDebug')
    own_command = false
  end
  return true
end

---@param msg string
---@return true
function M.notify(msg)
  vim.notify(msg, vim.log.levels.WARN)
  return true
end

--- The marks in a file's buffer, for tests: {line, sign, stopped}.
---@param file string
---@return {line: integer, sign: string, stopped: boolean}[]
function M.marks(file)
  local buf = vim.fn.bufnr(norm(file))
  local out = {}
  if buf == -1 then
    return out
  end
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    local d = m[4]
    table.insert(out, { line = m[2] + 1, sign = vim.trim(d.sign_text or ''), stopped = d.line_hl_group ~= nil })
  end
  return out
end

return M
