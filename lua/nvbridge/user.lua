--- The user's side of what agents do through nvbridge, in their Neovim
--- (attached mode). By concern:
---   user      the state they share, the log, the plugin's configuration and
---             hooks, the approval settings
---   agents    the agents connected, the tool events, hooks and the pause
---   review    the approval of changesets (a float, or review tabs)
---   changes   the changes this session (quickfix, highlights, undo)
--- Called from Go with data as arguments (nvim/entrypoints.go), and from the
--- plugin's commands (init.lua).
---
--- The state lives in package.loaded['nvbridge._user_state'], so that a new
--- version of these modules registered by another nvbridge keeps it.
local M = {}

local api = vim.api

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

--- The user plugin's configuration (require('nvbridge').setup), when the
--- plugin is loaded.
local function config()
  local p = package.loaded['nvbridge']
  return type(p) == 'table' and type(p.config) == 'table' and p.config or {}
end

--- The functions the user registered for a hook event (init.lua: on).
---@param event string
---@return function[]
function M.hooks(event)
  local p = package.loaded['nvbridge']
  local h = type(p) == 'table' and type(p._hooks) == 'table' and p._hooks[event]
  return h or {}
end

--- Adds a line to nvbridge's log (:NvbridgeLog), with the time.
---@param line string
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

--- Shows the log in a split below.
---@return integer bufnr the log's
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

--- Closes the log's windows and wipes its buffer (:NvbridgeStop); the
--- lines stay for the next :NvbridgeLog.
function M.close_log()
  local b = state.log_buf
  state.log_buf = nil
  if b and api.nvim_buf_is_valid(b) then
    for _, w in ipairs(vim.fn.win_findbuf(b)) do
      pcall(api.nvim_win_close, w, true)
    end
    pcall(api.nvim_buf_delete, b, { force = true })
  end
end

--- The approval mode: "writes" (default), "always" or "never"; from
--- require('nvbridge').setup({approve = ...}) or vim.g.nvbridge_approve.
---@return 'writes'|'always'|'never'
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
---@return integer
function M.approve_timeout_ms()
  return tonumber(config().approve_timeout_ms or vim.g.nvbridge_approve_timeout_ms) or 300000
end

--- How a review opens when the user asks for it (:NvbridgeReview): "float"
--- (the diff in a float), "split" (the diff in a split below) or "tab" (a
--- tab per file in diff mode, the proposed text editable).
---@return 'float'|'split'|'tab'
function M.approve_view()
  local v = config().approve_view or vim.g.nvbridge_approve_view
  return (v == 'tab' or v == 'split') and v or 'float'
end

--- How long changed ranges stay highlighted (ms; 0: not highlighted).
---@return integer
function M.highlight_ms()
  return tonumber(config().highlight_ms or vim.g.nvbridge_highlight_ms) or 1500
end

--- Whether a change waiting for approval shows signs in the buffers it
--- changes (review_signs, default true).
---@return boolean
function M.review_signs()
  local v = config().review_signs
  if v == nil then
    v = vim.g.nvbridge_review_signs
  end
  return v ~= false and v ~= 0
end

return M
