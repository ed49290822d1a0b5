--- Helpers for nvbridge's refactoring tools (rename, code actions, organize
--- imports, extract). Called from Go (nvim/entrypoints.go); data arrives as
--- arguments, never as source. Nothing here blocks: requests themselves go
--- through async.request (asynchronous).
---
--- Capturing server edits. A code action that carries a command makes the
--- server send workspace/applyEdit back while workspace/executeCommand runs;
--- Neovim's default handler would apply it at once, behind the caller's
--- back. begin_capture installs, for one client, handlers that record those
--- edits (answering the server that they were applied: the caller applies
--- them later, as one changeset), the requests that name a symbol the
--- command introduced (the servers' rename_hints: lang.ServerSpec) and
--- window/showDocument (not shown); end_capture removes the handlers and
--- returns what was recorded. The server sends its applyEdit before it
--- answers executeCommand, so everything has arrived when the command's
--- answer has.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local compat = require('nvbridge._compat')
local fail = require('nvbridge._error').fail
local servers = require('nvbridge.servers')

local APPLY_EDIT = 'workspace/applyEdit'
local SHOW_DOCUMENT = 'window/showDocument'

---@class nvbridge.Capture
---@field client_id integer
---@field edits table[] ApplyWorkspaceEditParams received
---@field renames table[] rename hints received (servers.rename_hints)
---@field shown table[] window/showDocument params received
---@field saved table<string, any> the client's own handlers, restored at the end
---@field timer uv.uv_timer_t?

---@type table<integer, nvbridge.Capture> by token
local captures = {}
---@type table<integer, integer> client id -> token of its active capture
local by_client = {}
local next_token = 0

local function client_by_id(client_id)
  return vim.lsp.get_client_by_id(client_id)
end

local function offset_encoding(client)
  return client.offset_encoding or 'utf-16'
end

--- The diagnostics of one client on lines [first, last] (0-based, inclusive)
--- of a buffer, as LSP Diagnostic objects in the client's encoding, for a
--- code action request's context. Neovim keeps the server's own object in
--- user_data.lsp; a diagnostic without it (set by another source under the
--- client's namespace) is converted from Neovim's byte columns.
---@return string json Diagnostic[]
---@param bufnr integer
---@param client_id integer
---@param first integer 0-based line
---@param last integer 0-based line, inclusive
function M.diagnostics(bufnr, client_id, first, last)
  vim.validate({
    bufnr = { bufnr, 'number' },
    client_id = { client_id, 'number' },
    first = { first, 'number' },
    last = { last, 'number' },
  })
  local client = client_by_id(client_id)
  local out = {}
  if not client or not api.nvim_buf_is_loaded(bufnr) then
    return vim.json.encode(out)
  end
  local enc = offset_encoding(client)
  local seen = {}
  for _, pull in ipairs({ false, true }) do
    local ns = vim.lsp.diagnostic.get_namespace(client_id, pull)
    if not seen[ns] then
      seen[ns] = true
      for _, d in ipairs(vim.diagnostic.get(bufnr, { namespace = ns })) do
        local end_lnum = d.end_lnum or d.lnum
        if d.lnum <= last and end_lnum >= first then
          local lsp_diag = d.user_data and d.user_data.lsp
          if not lsp_diag then
            local lines = api.nvim_buf_get_lines(bufnr, d.lnum, end_lnum + 1, false)
            local start_text = lines[1] or ''
            local end_text = lines[#lines] or ''
            lsp_diag = {
              range = {
                start = { line = d.lnum, character = compat.utfindex(start_text, enc, d.col) },
                ['end'] = { line = end_lnum, character = compat.utfindex(end_text, enc, d.end_col or d.col) },
              },
              severity = d.severity,
              message = d.message,
              source = d.source,
              code = d.code,
            }
          end
          table.insert(out, lsp_diag)
        end
      end
    end
  end
  return vim.json.encode(out)
end

--- What a client offers for code actions and commands.
---@return string json {code_action_kinds, resolve, commands, prepare_rename}
---@param client_id integer
function M.capabilities(client_id)
  local client = client_by_id(client_id)
  if not client then
    return vim.json.encode({ err = fail('UNSUPPORTED', 'the language server is no longer running') })
  end
  local caps = client.server_capabilities or {}
  local cap = caps.codeActionProvider
  local kinds = {}
  local resolve = false
  if type(cap) == 'table' then
    kinds = cap.codeActionKinds or {}
    resolve = cap.resolveProvider == true
  end
  local ecp = caps.executeCommandProvider
  local commands = type(ecp) == 'table' and (ecp.commands or {}) or {}
  local rp = caps.renameProvider
  return vim.json.encode({
    code_action_kinds = kinds,
    code_actions = cap ~= nil and cap ~= false,
    resolve = resolve,
    commands = commands,
    prepare_rename = type(rp) == 'table' and rp.prepareProvider == true,
  })
end

local function finish(token)
  local cap = captures[token]
  if not cap then
    return nil
  end
  captures[token] = nil
  if by_client[cap.client_id] == token then
    by_client[cap.client_id] = nil
  end
  if cap.timer then
    cap.timer:stop()
    cap.timer:close()
    cap.timer = nil
  end
  local client = client_by_id(cap.client_id)
  if client then
    for method, handler in pairs(cap.saved) do
      client.handlers[method] = handler ~= vim.NIL and handler or nil
    end
  end
  return cap
end

--- Starts recording the edits a client pushes (see the module comment).
--- bound_ms is a safety net: should the caller vanish, the client's handlers
--- are restored after it.
---@return nvbridge.CaptureBegin
---@param client_id integer
---@param bound_ms integer
function M.begin_capture(client_id, bound_ms)
  vim.validate({ client_id = { client_id, 'number' }, bound_ms = { bound_ms, 'number' } })
  local client = client_by_id(client_id)
  if not client then
    return { err = fail('UNSUPPORTED', 'the language server is no longer running') }
  end
  if by_client[client_id] then
    return { err = fail('CONFLICT', client.name .. ' is already running a command for another caller') }
  end
  next_token = next_token + 1
  local token = next_token
  local cap = { client_id = client_id, edits = {}, renames = {}, shown = {}, saved = {} }
  local hints = servers.rename_hints()
  for _, method in ipairs(vim.list_extend({ APPLY_EDIT, SHOW_DOCUMENT }, hints)) do
    local own = rawget(client.handlers, method)
    cap.saved[method] = own == nil and vim.NIL or own
  end
  client.handlers[APPLY_EDIT] = function(_, params)
    table.insert(cap.edits, params or vim.NIL)
    -- Applied from the server's point of view: the caller applies (or
    -- discards) the changeset, and the servers see that as didChange.
    return { applied = true }
  end
  for _, method in ipairs(hints) do
    client.handlers[method] = function(_, params)
      table.insert(cap.renames, params or vim.NIL)
      return vim.NIL
    end
  end
  -- gopls shows the file a command created (add_test); in a preview that
  -- file does not exist yet, and opening it would create an empty buffer.
  client.handlers[SHOW_DOCUMENT] = function(_, params)
    table.insert(cap.shown, params or vim.NIL)
    return { success = false }
  end
  captures[token] = cap
  by_client[client_id] = token
  local timer = uv.new_timer()
  cap.timer = timer
  timer:start(
    bound_ms,
    0,
    vim.schedule_wrap(function()
      finish(token)
    end)
  )
  return { token = token }
end

--- Stops a capture and returns what it recorded.
---@return string json {edits = ApplyWorkspaceEditParams[], renames = table[]}
---@param token integer begin_capture's
function M.end_capture(token)
  local cap = finish(token)
  if not cap then
    return vim.json.encode({ expired = true, edits = {}, renames = {}, shown = {} })
  end
  return vim.json.encode({ edits = cap.edits, renames = cap.renames, shown = cap.shown })
end

return M
