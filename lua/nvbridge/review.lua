--- The approval of what agents do before it is done (edit.Engine.Approve
--- and the tools' approvals in attached mode): a change, a save, a discard,
--- an undo, a program to run. A request waiting for the user announces
--- itself without taking anything from them (a one-line notification, the
--- statusline component, signs in the buffers it changes, User
--- NvbridgeApprove) and opens only when they ask (:NvbridgeReview, a
--- <Plug> mapping): no window, focus or key is taken before. The review
--- itself (review_view.lua) shows the diff hunk by hunk; the answer, or
--- TIMEOUT, ends the asynchronous operation (async.lua).
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local agents = require('nvbridge.agents')
local fail = require('nvbridge._error').fail
local user = require('nvbridge.user')
local state, log = user.state, user.log

M.ns = api.nvim_create_namespace('nvbridge_review')

---@class nvbridge.ReviewHunk one item of a change's diff (edit.Hunk)
---@field index integer 1-based
---@field file string relative to the workspace root
---@field path string absolute
---@field line integer where it changes the file now (1-based)
---@field kind string "hunk", or a whole file's op: create, delete, rename
---@field header string
---@field first integer its first line in the diff (0-based)
---@field last integer its last line in the diff
---@field old_start integer
---@field old_count integer
---@field new_start integer
---@field new_count integer

---@class nvbridge.ApprovalRequest (tools.approvalRequest)
---@field tool string
---@field kind string? change | save | discard | undo | run | call
---@field diff string
---@field files string[]
---@field changeset_id string?
---@field proposed nvbridge.ProposedFile[]?
---@field hunks nvbridge.ReviewHunk[]?
---@field note string?
---@field timeout_ms integer?

--- What each kind of request wants to do, for the user.
local WANTS = {
  change = 'change %d file(s)',
  save = 'save %d file(s)',
  discard = 'discard the unsaved changes of %d file(s)',
  undo = 'undo its change in %d file(s)',
  run = 'run a program',
  call = 'make a call',
}

--- One line saying what approval p wants.
---@param p table
---@return string
function M.describe(p)
  local tool = p.tool ~= '' and p.tool or 'an agent'
  local what = (WANTS[p.kind] or WANTS.call):format(#p.files)
  if #p.hunks > 1 then
    what = what .. (', %d hunks'):format(#p.hunks)
  end
  return tool .. ' wants to ' .. what
end

--- The approval waiting with key, else the oldest one waiting (nil: none).
---@param key string?
---@return table?
function M.waiting(key)
  for _, q in ipairs(state.pending) do
    if (key == nil or q.key == key) and not q.done then
      return q
    end
  end
end

-- Announcing ---------------------------------------------------------------

--- Signs in the loaded buffers a change would change, at each hunk.
local function place_signs(p)
  if not user.review_signs() then
    return
  end
  local find = require('nvbridge.buffers').buffer_index()
  for _, h in ipairs(p.hunks) do
    local b = h.path and find(h.path)
    if b and api.nvim_buf_is_loaded(b) then
      local row = math.max(0, math.min(h.line - 1, api.nvim_buf_line_count(b) - 1))
      local ok, id = pcall(api.nvim_buf_set_extmark, b, M.ns, row, 0, {
        sign_text = '»', sign_hl_group = 'DiagnosticInfo', priority = 15,
        virt_text = { { ' nvbridge: ' .. M.describe(p) .. ' (:NvbridgeReview)', 'Comment' } },
        virt_text_pos = 'eol',
      })
      if ok then
        table.insert(p.signs, { b, id })
      end
    end
  end
end

local function clear_signs(p)
  for _, s in ipairs(p.signs or {}) do
    if api.nvim_buf_is_valid(s[1]) then
      pcall(api.nvim_buf_del_extmark, s[1], M.ns, s[2])
    end
  end
  p.signs = {}
end

--- Redraws statuslines (the statusline component changed).
local function redraw()
  if #api.nvim_list_uis() > 0 then
    pcall(vim.cmd, 'redrawstatus!')
  end
end

--- Tells the user a request waits, in one line that fits the command line
--- (a longer one would stop them at a hit-enter prompt).
local function announce(p)
  local msg = 'nvbridge: ' .. M.describe(p) .. ' - :NvbridgeReview'
  local room = tonumber(vim.v.echospace) or 80
  if #api.nvim_list_uis() > 0 and vim.fn.strdisplaywidth(msg) > room - 1 then
    msg = vim.fn.strcharpart(msg, 0, math.max(room - 2, 10)) .. '…'
  end
  pcall(vim.notify, msg, vim.log.levels.INFO)
end

--- What the statusline shows while approvals wait: "" when none does.
---@return string
function M.statusline()
  local n = 0
  for _, q in ipairs(state.pending) do
    if not q.done then
      n = n + 1
    end
  end
  if n == 0 then
    return ''
  end
  return n == 1 and 'nvbridge: 1 to review' or ('nvbridge: %d to review'):format(n)
end

-- Answering ----------------------------------------------------------------

--- Ends approval p: it leaves the queue, its views close, its signs go,
--- and its agent gets nvbridge_done (unless it is gone).
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
  clear_signs(p)
  pcall(require('nvbridge.review_view').close, p)
  require('nvbridge.async').untrack(p.chan, p.id)
  if not p.gone then
    pcall(vim.rpcnotify, p.chan, 'nvbridge_done', p.id, err, err and vim.NIL or (result or 'true'))
  end
  redraw()
end
M.finish = finish

--- Asks the user to approve a request (async: answers nvbridge_done on
--- chan with id when they decide, or TIMEOUT after the bound). Nothing
--- opens: the request is announced, and User NvbridgeApprove runs with it
--- in data (scripts and tests answer from there).
---@param chan integer
---@param id integer
---@param req nvbridge.ApprovalRequest
function M.approve(chan, id, req)
  agents.sweep()
  local p = {
    key = chan .. ':' .. id, chan = chan, id = id, tool = req.tool or '', kind = req.kind or 'change', diff = req.diff or '',
    files = req.files or {}, changeset_id = req.changeset_id, proposed = req.proposed or {}, hunks = req.hunks or {},
    note = req.note, decisions = {}, signs = {},
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
  log(('approval requested: %s'):format(M.describe(p)))
  pcall(place_signs, p)
  announce(p)
  redraw()
  pcall(api.nvim_exec_autocmds, 'User', {
    pattern = 'NvbridgeApprove', modeline = false,
    data = { tool = p.tool, kind = p.kind, files = p.files, diff = p.diff, changeset_id = p.changeset_id, hunks = #p.hunks, key = p.key },
  })
end

--- Opens the review of an approval (the one with key, else the oldest
--- waiting), in layout ("float", "split" or "tab"; default approve_view):
--- the user asked for it, so it takes the focus.
---@param key string?
---@param layout string?
---@return boolean opened
function M.open(key, layout)
  agents.sweep()
  local p = M.waiting(key)
  if not p then
    return false
  end
  return require('nvbridge.review_view').open(p, layout or user.approve_view())
end

--- Opens the edit-then-accept review (a tab per file in diff mode).
---@param key string?
---@return boolean opened
function M.review(key)
  return M.open(key, 'tab')
end

--- Decides hunk index of approval key: accepted or not.
---@param key string
---@param index integer
---@param accepted boolean
---@return boolean decided
function M.decide(key, index, accepted)
  local p = M.waiting(key)
  if not p or not p.hunks[index] then
    return false
  end
  p.decisions[index] = accepted
  return true
end

--- The indexes of the hunks to apply (undecided ones are accepted), or nil
--- when the user decided no hunk (the whole is accepted).
local function accepted_hunks(p)
  if next(p.decisions) == nil then
    return nil
  end
  local out = {}
  for i = 1, #p.hunks do
    if p.decisions[i] ~= false then
      table.insert(out, i)
    end
  end
  return out
end

--- Answers an approval: the one with key, else the oldest waiting.
--- decision: "accept" (the hunks the user did not reject, with their edits
--- when they edited the proposal), "reject" (note: why, for the agent), or
--- "edit": open the review tabs where the user edits the proposed texts
--- before accepting. edited (texts by absolute path) and hunks (the
--- indexes to accept) give the same directly. Returns whether one was
--- waiting.
---@param decision string
---@param note string?
---@param key string?
---@param edited table<string, string>?
---@param hunks integer[]?
---@return boolean
function M.answer(decision, note, key, edited, hunks)
  local p = M.waiting(key)
  if not p or p.done then
    return false
  end
  if decision == 'edit' and edited == nil then
    -- Review first; the approval keeps waiting for accept or reject.
    return M.review(p.key)
  end
  if hunks then
    p.decisions = {}
    local yes = {}
    for _, i in ipairs(hunks) do
      yes[i] = true
    end
    for i = 1, #p.hunks do
      p.decisions[i] = yes[i] == true
    end
  end
  local accepted = (decision == 'accept' or decision == 'edit') and accepted_hunks(p)
  if accepted and #accepted == 0 then
    decision, note = 'reject', note or 'every hunk was rejected'
  end
  p.done = true
  if decision == 'accept' or decision == 'edit' then
    edited = edited or require('nvbridge.review_view').edits(p)
    local answer = {}
    if edited and next(edited) then
      answer.edited = edited
    end
    if accepted then
      answer.hunks = accepted
    end
    log(('approved%s%s: %s'):format(answer.edited and ' with the user\'s edits' or '',
      accepted and (' (hunks ' .. table.concat(accepted, ', ') .. ' of ' .. #p.hunks .. ')') or '', p.tool))
    finish(p, nil, next(answer) and vim.json.encode(answer) or nil)
  else
    log('rejected: ' .. p.tool .. (note and (' (' .. note .. ')') or ''))
    local what = p.kind == 'change' and 'change' or p.kind
    finish(p, fail('REJECTED', 'the user rejected the ' .. what .. (note and (': ' .. note) or '') .. ' (nothing was changed)',
      { remediation = 'do not do it again as is; take the user\'s note into account' }))
  end
  return true
end

--- How many approvals wait for the user.
---@return integer
function M.pending()
  agents.sweep()
  return #state.pending
end

--- The approvals waiting, oldest first: {key, tool, kind, files, hunks,
--- decisions} each (for :NvbridgeStatus and scripts).
---@return {key: string, tool: string, kind: string, files: string[], hunks: integer, decisions: table<integer, boolean>}[]
function M.list()
  agents.sweep()
  local out = {}
  for _, p in ipairs(state.pending) do
    table.insert(out, { key = p.key, tool = p.tool, kind = p.kind, files = p.files, hunks = #p.hunks, decisions = p.decisions })
  end
  return out
end

return M
