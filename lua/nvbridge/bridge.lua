--- RPC-side half of nvbridge (the async endpoint; buffers and reconcile are
--- buffers.lua): the Go process calls these functions with
--- nvim_exec_lua, always passing data as arguments (never as Lua source).
---
--- Long operations (LSP requests, waiting for a server to attach or for
--- diagnostics) never block Neovim's main loop: the call returns at once and
--- the outcome arrives later as the notification
---   nvbridge_done(id, err, result_json)
--- on the caller's channel. err is nil or {code = CODE, message = TEXT}.
local M = {}

local uv = vim.uv or vim.loop
local api = vim.api

local compat = require('nvbridge._compat')
local buffers = require('nvbridge.buffers')
local get_clients = compat.get_clients
local supports = compat.supports
local client_request = compat.request
local client_cancel = compat.cancel_request
local is_stopped = compat.is_stopped

---@type table<string, {client: table, request_id: integer}>
local in_flight = {}

-- Per client and URI: the last publishDiagnostics seen, so a caller can wait
-- for diagnostics that describe the buffer's current text.
---@type table<integer, table<string, {version: integer?, tick: integer}>>
local published = {}

-- Per client and URI: the document version last sent (LspNotify).
---@type table<integer, table<string, integer>>
local sent = {}

-- Active $/progress work per client, from LspProgress events: token ->
-- {title, message, percentage} (the begin's title kept through reports).
---@type table<integer, table<any, {title: string?, message: string?, percentage: number?}>>
local progress = {}
-- Clients that ended $/progress work at least once, or whose wait for it
-- ran out (see busy: a server indexing after attaching).
local progress_ended = {}
-- Every publishDiagnostics handled gets the next number (verify.lua marks
-- a moment and waits for publishes after it).
local publish_seq = 0
-- Per client: the titles of its active $/progress tokens, and whether it
-- ever reported diagnosis work ("diagnosing ...": gopls with
-- verboseWorkDoneProgress, whose end says every file is re-diagnosed).
---@type table<integer, table<any, string>>
local progress_titles = {}
---@type table<integer, boolean>
local reports_diagnosis = {}

---@class nvbridge.ServerExit
---@field name string the client's name
---@field code integer exit code
---@field signal integer signal that ended it (0: none)
---@field restart {attempt: integer, max: integer, delay_ms: integer}? a restart nvbridge scheduled
---@field gave_up boolean? nvbridge stopped restarting it (too many exits)
---@field managed boolean? started by nvbridge (embedded mode), else by the user's config

-- Servers that exited abnormally (crash, kill), per buffer they were
-- attached to and client name, until a client of that name attaches again.
---@type table<integer, table<string, nvbridge.ServerExit>>
local down = {}

-- Clients whose exit is observed (client id -> true).
local exit_hooked = {}

-- Called (scheduled, after Neovim's own cleanup of the client) with the
-- client's name, config, exit record and buffers, for every abnormal exit.
-- servers.lua registers one in embedded mode to restart its servers.
---@type fun(client_id: integer, exit: nvbridge.ServerExit, bufnrs: integer[])[]
M.exit_listeners = {}

-- Neovim's own rule (vim/lsp.lua on_client_exit): exit code 0 and no
-- signal but SIGTERM is a requested stop, anything else a crash.
local function abnormal(code, signal)
  return code ~= 0 or (signal ~= 0 and signal ~= 15)
end

local signal_names = { [1] = 'SIGHUP', [2] = 'SIGINT', [6] = 'SIGABRT', [9] = 'SIGKILL', [11] = 'SIGSEGV', [15] = 'SIGTERM' }

--- How a server ended, for messages: "was killed by signal 9 (SIGKILL)".
function M.describe_exit(e)
  if e.signal and e.signal ~= 0 then
    local name = signal_names[e.signal]
    return string.format('was killed by signal %d%s', e.signal, name and (' (' .. name .. ')') or '')
  end
  return string.format('exited with code %d', e.code)
end

-- Observes a client's exit (its exit code and signal reach only the
-- client's on_exit callbacks). The callback is appended after Neovim's
-- own, and its work scheduled: it runs after Neovim detached the buffers
-- (LspDetach) and forgot the client, so a restart starts a fresh client.
-- It only records; the user's clients behave exactly as before.
local function hook_exit(client)
  if exit_hooked[client.id] or type(client._on_exit_cbs) ~= 'table' then
    return
  end
  exit_hooked[client.id] = true
  table.insert(client._on_exit_cbs, function(code, signal)
    local bufnrs = vim.tbl_keys(client.attached_buffers or {})
    local config = client.config
    vim.schedule(function()
      exit_hooked[client.id] = nil
      progress[client.id] = nil
      if not abnormal(code, signal) then
        return
      end
      local exit = { name = client.name, code = code, signal = signal, config = config }
      for _, bufnr in ipairs(bufnrs) do
        down[bufnr] = down[bufnr] or {}
        down[bufnr][client.name] = exit
      end
      for _, listener in ipairs(M.exit_listeners) do
        pcall(listener, client.id, exit, bufnrs)
      end
    end)
  end)
end

M.observe_exit = hook_exit

--- Records that exit's server is down for bufnr (servers.lua, for the
--- buffers a client was started for but never attached to).
function M.mark_down(bufnr, exit)
  down[bufnr] = down[bufnr] or {}
  down[bufnr][exit.name] = exit
end

--- The servers that exited abnormally while attached to bufnr and have not
--- come back (no client of that name attached since), as a list.
function M.servers_down(bufnr)
  local out = {}
  for _, e in pairs(down[bufnr] or {}) do
    table.insert(out, { name = e.name, code = e.code, signal = e.signal, restart = e.restart or vim.NIL,
      gave_up = e.gave_up == true, managed = e.managed == true, how = M.describe_exit(e) })
  end
  return out
end

-- The PRECONDITION_FAILED answer for a buffer whose only servers are down,
-- or nil when none is (or a restart is under way: wait_clients waits for it).
local function down_error(bufnr)
  local entries = down[bufnr]
  if not entries or next(entries) == nil or vim.b[bufnr].nvbridge_lsp_expected then
    return nil
  end
  local parts, remediation = {}, nil
  for _, e in pairs(entries) do
    local text = e.name .. ', the language server of this file, ' .. M.describe_exit(e)
    if e.gave_up then
      text = text .. string.format('; it exited %d times in a row, so nvbridge stopped restarting it', e.restart and e.restart.max or 0)
      remediation = remediation or ('check that ' .. e.name .. ' runs (its log: :LspLog in Neovim), then restart nvbridge')
    elseif e.restart then
      text = text .. string.format('; nvbridge restarts it (attempt %d of %d, %.1f s after the exit)',
        e.restart.attempt, e.restart.max, e.restart.delay_ms / 1000)
      remediation = remediation or 'retry in a moment: the restarted server takes over the open buffers'
    elseif not e.managed then
      text = text .. '; nvbridge does not restart the servers your Neovim configuration starts'
      remediation = remediation or 'restart it in Neovim (:LspRestart with nvim-lspconfig, or :edit the file so your configuration starts it again), then retry'
    end
    table.insert(parts, text)
  end
  table.sort(parts)
  return { code = 'PRECONDITION_FAILED', message = table.concat(parts, '; '),
    remediation = remediation or 'retry once the language server runs again' }
end
M.down_error = down_error

local function key(chan, id)
  return chan .. ':' .. id
end

-- Progress relays of requests in flight (relay_progress), stopped by done.
local relays = {}
-- Completions that add to an operation's answer before it is sent
-- (open_wait: the buffer and a line read once the wait is over).
local finals = {}

local function done(chan, id, err, result)
  in_flight[key(chan, id)] = nil
  local stop = relays[key(chan, id)]
  if stop then
    relays[key(chan, id)] = nil
    stop()
  end
  local final = finals[key(chan, id)]
  if final then
    finals[key(chan, id)] = nil
    if not err then
      result = final(result)
    end
  end
  vim.rpcnotify(chan, 'nvbridge_done', id, err, result)
end

local function fail(code, message, remediation)
  return { code = code, message = message, remediation = remediation }
end

--- Clients that publish one text's diagnostics in stages without a document
--- version (typescript-language-server: tsserver's syntax, semantic and
--- suggestion checks arrive as separate events, each published, debounced
--- by 50 ms): only their last publish is complete, and nothing marks it.
M.staged_publishers = { ['typescript-language-server'] = true, tsserver = true, ts_ls = true, vtsls = true }

local function staged(client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  return client ~= nil and M.staged_publishers[client.name] == true
end

-- The version a server's publish for the current text carries.
local function buf_version(bufnr)
  return compat.lsp_version(bufnr) or vim.b[bufnr].changedtick
end

-- Neovim 0.10 does not map type hierarchy to its capability.
local type_hierarchy_methods = {
  ['textDocument/prepareTypeHierarchy'] = true,
  ['typeHierarchy/supertypes'] = true,
  ['typeHierarchy/subtypes'] = true,
}

local function supports_method(client, method, bufnr)
  if type_hierarchy_methods[method] and (client.server_capabilities or {}).typeHierarchyProvider then
    return true
  end
  return supports(client, method, bufnr)
end

-- The methods the client supports for this buffer, by Neovim's own
-- capability check (static and dynamic registrations): every method, or
-- only those of the list wanted (a position tool names the few it may use:
-- checking and sending them all costs more than its request).
-- Every LSP method Neovim knows, and the type hierarchy ones, as a list;
-- made once (Neovim's table does not change while it runs).
local all_methods
local function every_method()
  if not all_methods then
    -- protocol.Methods is a read-only proxy: iterate the table behind it.
    local methods = vim.lsp.protocol.Methods or {}
    local mt = getmetatable(methods)
    if mt and type(mt.__index) == 'table' then
      methods = mt.__index
    end
    local seen = {}
    all_methods = {}
    for _, list in ipairs({ vim.tbl_values(methods), vim.tbl_keys(type_hierarchy_methods) }) do
      for _, method in ipairs(list) do
        if not seen[method] then
          seen[method] = true
          table.insert(all_methods, method)
        end
      end
    end
  end
  return all_methods
end

local function supported_methods(client, bufnr, wanted)
  local out = vim.empty_dict()
  if type(wanted) ~= 'table' then
    wanted = every_method()
  end
  for _, method in ipairs(wanted) do
    if supports_method(client, method, bufnr) then
      out[method] = true
    end
  end
  return out
end

local function describe(client, bufnr, wanted)
  return {
    id = client.id,
    name = client.name,
    offset_encoding = client.offset_encoding or 'utf-16',
    initialized = client.initialized == true,
    root_dir = client.config and client.config.root_dir or vim.NIL,
    methods = bufnr and supported_methods(client, bufnr, wanted) or vim.empty_dict(),
  }
end

--- Removes everything setup installed (the augroup and its autocmds) and
--- wipes the buffers nvbridge loaded only to read: nothing of nvbridge's is
--- left in the user's Neovim (:NvbridgeStop). A later connect sets up again.
function M.teardown()
  pcall(api.nvim_del_augroup_by_name, 'nvbridge')
  pcall(function() require('nvbridge.extensions').teardown() end)
  M._setup_done = false
  buffers.release_extra(nil, 0)
  buffers.untrack_all()
  for k, op in pairs(in_flight) do
    if op.cancel then
      pcall(op.cancel)
    end
    in_flight[k] = nil
  end
end

--- Asks the user to approve a change (user.lua; async like the LSP
--- requests: nvbridge_done answers).
function M.approve(chan, id, req)
  return require('nvbridge.user').approve(chan, id, req)
end

--- Lets another module (user.lua's approvals) be cancelled like an
--- operation of this one (bridge.cancel).
function M.track(chan, id, cancel)
  in_flight[key(chan, id)] = { cancel = cancel }
end

function M.untrack(chan, id)
  in_flight[key(chan, id)] = nil
end

--- Runs a user-defined tool (extensions.lua; async: nvbridge_done answers).
function M.run_user_tool(chan, id, name, args_json)
  return require('nvbridge.extensions').run_tool(chan, id, name, args_json, function(err, result)
    M.untrack(chan, id)
    done(chan, id, err, result)
  end)
end

--- Installs the event hooks once per Neovim (idempotent: the Go side calls it
--- on every connect and several bridges may share one Neovim).
function M.setup()
  if M._setup_done then
    return
  end
  M._setup_done = true
  local group = api.nvim_create_augroup('nvbridge', { clear = true })

  -- Publishes are observed with DiagnosticChanged in nvbridge's own
  -- augroup (removed by teardown): the user's publishDiagnostics handler
  -- is never replaced. Neovim runs the event for each publish it handles,
  -- with the buffer and the diagnostics (each naming its namespace, so its
  -- client); an empty publish names no namespace: it is the publish of
  -- every attached client that holds no diagnostics for the buffer now.
  -- The event carries no document version: a publish is recorded for the
  -- version the document has when it arrives (servers publish for the
  -- latest version they received).
  -- The version of each document last sent to each server (didOpen,
  -- didChange): a publish describes at most that version (Neovim sends
  -- didChange debounced, so the buffer's own version may be ahead).
  api.nvim_create_autocmd('LspNotify', {
    group = group,
    callback = function(ev)
      local data = ev.data or {}
      if data.method ~= 'textDocument/didChange' and data.method ~= 'textDocument/didOpen' then
        return
      end
      local doc = data.params and data.params.textDocument
      if doc and doc.uri and doc.version and data.client_id then
        sent[data.client_id] = sent[data.client_id] or {}
        sent[data.client_id][doc.uri] = doc.version
      end
    end,
  })

  api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(ev)
      local bufnr = ev.buf
      if not bufnr or not api.nvim_buf_is_valid(bufnr) then
        return
      end
      local uri = vim.uri_from_bufnr(bufnr)
      local by_ns = {}
      for name, ns in pairs(api.nvim_get_namespaces()) do
        local id = name:match('^vim%.lsp%..*%.(%d+)$')
        if id then
          by_ns[ns] = tonumber(id)
        end
      end
      local clients = {}
      local diags = ev.data and ev.data.diagnostics or {}
      if #diags > 0 then
        for _, d in ipairs(diags) do
          if d.namespace and by_ns[d.namespace] then
            clients[by_ns[d.namespace]] = true
          end
        end
      else
        for _, client in ipairs(get_clients({ bufnr = bufnr })) do
          local ns
          for n, id in pairs(by_ns) do
            if id == client.id then
              ns = n
            end
          end
          if ns and #vim.diagnostic.get(bufnr, { namespace = ns }) == 0 then
            clients[client.id] = true
          end
        end
      end
      local loaded = api.nvim_buf_is_loaded(bufnr)
      for client_id in pairs(clients) do
        publish_seq = publish_seq + 1
        published[client_id] = published[client_id] or {}
        publish_seq = publish_seq + 1
        published[client_id][uri] = {
          seq = publish_seq,
          -- Staged publishers (no version, several publishes per text)
          -- keep the quiet-window rule of wait_diagnostics.
          version = (loaded and not staged(client_id)) and ((sent[client_id] or {})[uri] or buf_version(bufnr)) or nil,
          tick = loaded and vim.b[bufnr].changedtick or 0,
          at = uv.now(),
        }
      end
      if next(clients) then
        api.nvim_exec_autocmds('User', { pattern = 'NvbridgeDiagnostics', modeline = false })
      end
    end,
  })

  -- A buffer the user opens in a window is theirs: nvbridge no longer
  -- unloads it.
  api.nvim_create_autocmd('BufWinEnter', {
    group = group,
    callback = function(ev)
      if vim.b[ev.buf].nvbridge_loaded then
        vim.b[ev.buf].nvbridge_loaded = nil
      end
    end,
  })

  -- Every client's exit is observed; a client attaching brings its
  -- server's buffers back up.
  local namespaces = api.nvim_get_namespaces()
  for _, client in ipairs(get_clients()) do
    hook_exit(client)
    -- Attached to a running Neovim: buffers a server diagnosed before
    -- nvbridge connected must not wait for a publish that already
    -- happened. The client's diagnostic namespace exists once Neovim has
    -- handled a publish of it; a buffer it is attached to, unchanged since
    -- its didOpen (version 0) or holding its diagnostics, counts as
    -- published for its current text.
    local ns = namespaces[string.format('vim.lsp.%s.%d', client.name, client.id)]
    if ns and client.initialized then
      for bufnr in pairs(client.attached_buffers or {}) do
        if api.nvim_buf_is_loaded(bufnr) and (buf_version(bufnr) == 0 or #vim.diagnostic.get(bufnr, { namespace = ns }) > 0) then
          published[client.id] = published[client.id] or {}
          published[client.id][vim.uri_from_bufnr(bufnr)] = {
            version = buf_version(bufnr),
            tick = vim.b[bufnr].changedtick,
            at = 0,
            seeded = true,
          }
        end
      end
    end
  end
  api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(ev)
      local client = ev.data and vim.lsp.get_client_by_id(ev.data.client_id)
      if client then
        hook_exit(client)
        if down[ev.buf] then
          down[ev.buf][client.name] = nil
        end
      end
    end,
  })

  api.nvim_create_autocmd('LspProgress', {
    group = group,
    callback = function(ev)
      local data = ev.data or {}
      local params = data.params or {}
      local value = params.value or {}
      local client_id = data.client_id
      if not client_id or params.token == nil then
        return
      end
      progress[client_id] = progress[client_id] or {}
      progress_titles[client_id] = progress_titles[client_id] or {}
      if value.kind == 'begin' or value.kind == 'report' then
        local prev = progress[client_id][params.token]
        progress[client_id][params.token] = {
          title = value.title or (type(prev) == 'table' and prev.title) or nil,
          message = value.message,
          percentage = value.percentage,
        }
        if value.kind == 'begin' and type(value.title) == 'string' then
          progress_titles[client_id][params.token] = value.title
          if value.title:find('^diagnosing') then
            reports_diagnosis[client_id] = true
          end
        end
      elseif value.kind == 'end' then
        progress[client_id][params.token] = nil
        progress_titles[client_id][params.token] = nil
        progress_ended[client_id] = true
        api.nvim_exec_autocmds('User', { pattern = 'NvbridgeProgressEnd', modeline = false })
      end
    end,
  })

  api.nvim_create_autocmd('BufWritePost', {
    group = group,
    callback = function(ev)
      vim.b[ev.buf].nvbridge_conflict = nil
      vim.b[ev.buf].nvbridge_disk = nil
      vim.b[ev.buf].nvbridge_disk_hash = nil
      -- A write of the buffer to its own file: the disk now holds what the
      -- buffer wrote (":w other" leaves the record cleared).
      local name = api.nvim_buf_get_name(ev.buf)
      if name ~= '' and vim.fn.fnamemodify(ev.file, ':p') == name then
        buffers.record_disk(ev.buf, name)
      end
    end,
  })

  -- Neovim drops the result callback of a request the server answers with
  -- RequestCancelled (-32800): it assumes it cancelled the request itself.
  -- Both the reply notice (LspRequest "complete", which runs this autocmd)
  -- and the result callback are scheduled when the reply arrives, in that
  -- order, so a check scheduled from here runs after the callback would
  -- have: an operation still in flight then got that reply.
  api.nvim_create_autocmd('LspRequest', {
    group = group,
    callback = function(ev)
      local data = ev.data or {}
      if not data.request or data.request.type ~= 'complete' then
        return
      end
      for k, op in pairs(in_flight) do
        if op.client and op.client.id == data.client_id and op.request_id == data.request_id then
          vim.schedule(function()
            if in_flight[k] == op then
              done(op.chan, op.id, fail('TIMEOUT', string.format(
                '%s cancelled %s (RequestCancelled) without an answer', op.client.name, op.method)))
            end
          end)
        end
      end
    end,
  })

  -- A server that exits (crash) or detaches never answers its pending
  -- requests (Neovim 0.10 drops their callbacks): fail them now rather than
  -- let the caller wait for its timeout.
  api.nvim_create_autocmd('LspDetach', {
    group = group,
    callback = function(ev)
      local client_id = ev.data and ev.data.client_id
      -- No client is on its way any more: wait_clients must not wait for
      -- one (a FileType event that starts a server sets the flag again).
      if api.nvim_buf_is_valid(ev.buf) then
        vim.b[ev.buf].nvbridge_lsp_expected = nil
      end
      for _, op in pairs(in_flight) do
        if op.client and op.client.id == client_id and op.bufnr == ev.buf then
          done(op.chan, op.id, fail('OPERATION_FAILED', string.format(
            '%s stopped (exited or detached from the buffer) before answering %s', op.client.name, op.method)))
        end
      end
    end,
  })
end

--- The buffer's initialized, running clients, described; with_methods
--- adds the methods each supports for the buffer (the costly part: one
--- capability check per LSP method), for the answer only.
---@param with_methods boolean|string[]? true: every supported method; a list: those of it
local function ready_clients(bufnr, with_methods)
  local out = {}
  for _, client in ipairs(get_clients({ bufnr = bufnr })) do
    if client.initialized and not is_stopped(client) then
      table.insert(out, describe(client, with_methods and bufnr or nil, with_methods))
    end
  end
  return out
end

--- Whether a client reports $/progress work other than a diagnosis run
--- ("diagnosing ...", gopls with verboseWorkDoneProgress): a server answers
--- requests while it diagnoses; only the diagnostics waits (verify.lua) wait
--- for those runs to end.
local function working(client_id)
  for _, work in pairs(progress[client_id] or {}) do
    local title = type(work) == 'table' and work.title or nil
    if not (type(title) == 'string' and title:find('^diagnosing')) then
      return true
    end
  end
  return false
end

-- A client is busy while it reports $/progress work (a diagnosis run
-- aside), and, when it indexes in the background right after attaching
-- (clangd), until that first work has ended: it begins a few milliseconds
-- after attachment, so "no work reported" does not yet mean ready.
local function busy(clients)
  local servers = require('nvbridge.servers')
  for _, client in ipairs(clients) do
    if working(client.id) then
      return true
    end
    if not progress_ended[client.id] and servers.indexes_after_attach(client) then
      return true
    end
  end
  return false
end

--- Relays the $/progress of the buffer's clients to the caller of async
--- operation id while it waits (a server indexing before it can answer), as
--- nvbridge_progress(id, {server, title, message, percentage}): the work
--- under way now, then each LspProgress of those clients. Returns the
--- function that stops relaying.
local function relay_progress(chan, id, bufnr)
  local stopped = false
  local function relay(client, work)
    if stopped or type(work) ~= 'table' then
      return
    end
    vim.rpcnotify(chan, 'nvbridge_progress', id, {
      server = client.name,
      title = work.title,
      message = work.message,
      percentage = work.percentage,
    })
  end
  for _, client in ipairs(get_clients({ bufnr = bufnr })) do
    for _, work in pairs(progress[client.id] or {}) do
      relay(client, work)
    end
  end
  local autocmd = api.nvim_create_autocmd('LspProgress', {
    callback = function(ev)
      local data = ev.data or {}
      local params = data.params or {}
      if not data.client_id or params.token == nil then
        return
      end
      for _, client in ipairs(get_clients({ bufnr = bufnr })) do
        if client.id == data.client_id then
          local value = params.value or {}
          local work = (progress[client.id] or {})[params.token]
          relay(client, work or { title = value.title, message = value.message or (value.kind == 'end' and 'finished' or nil) })
        end
      end
    end,
  })
  return function()
    if not stopped then
      stopped = true
      pcall(api.nvim_del_autocmd, autocmd)
    end
  end
end

--- Stops and closes a wait's timers and deletes its autocmds (once the
--- wait is over, however it ended).
---@param timers uv.uv_timer_t[]
---@param autocmds integer[]
local function release(timers, autocmds)
  for _, t in ipairs(timers) do
    t:stop()
    t:close()
  end
  for _, a in ipairs(autocmds) do
    pcall(api.nvim_del_autocmd, a)
  end
end
M.release = release

--- Completes with the buffer's initialized clients once they are ready: at
--- least one attached and none reporting $/progress work (such as gopls
--- loading the workspace). When none is attached and none is expected (no
--- server was started for the filetype), completes at once with an empty
--- list; when one may still come (attached mode: the user's config may start
--- it), waits up to grace_ms for LspAttach. Progress is waited on for at
--- most progress_ms after attachment: a server that never ends a token must
--- not stall every request. Each client is described with the methods it
--- supports: all of them, or only those of the list methods.
---@param methods string[]|nil
function M.wait_clients(chan, id, bufnr, grace_ms, methods, progress_ms)
  progress_ms = progress_ms or 10000
  local with_methods = type(methods) == 'table' and methods or true
  local expected = vim.b[bufnr].nvbridge_lsp_expected
  -- The grace period is spent once per buffer: a filetype no configured
  -- server handles must not cost it on every call.
  if vim.b[bufnr].nvbridge_grace_spent then
    grace_ms = 0
  end
  local function settled()
    local clients = ready_clients(bufnr)
    if #clients > 0 then
      return not busy(clients)
    end
    return not expected and grace_ms <= 0
  end
  -- A buffer whose server died (and is not being restarted): say so at
  -- once, without a grace period for a server that is not coming.
  if #ready_clients(bufnr) == 0 and down_error(bufnr) then
    return done(chan, id, down_error(bufnr))
  end
  if settled() then
    return done(chan, id, nil, vim.json.encode(ready_clients(bufnr, with_methods)))
  end
  local finished = false
  local attach_timer = uv.new_timer()
  local progress_timer = uv.new_timer()
  local autocmds = {}
  local stop_relay = relay_progress(chan, id, bufnr)
  local function finish()
    if finished then
      return
    end
    finished = true
    release({ attach_timer, progress_timer }, autocmds)
    stop_relay()
    vim.b[bufnr].nvbridge_grace_spent = true
    if #ready_clients(bufnr) == 0 and down_error(bufnr) then
      return done(chan, id, down_error(bufnr))
    end
    done(chan, id, nil, vim.json.encode(ready_clients(bufnr, with_methods)))
  end
  local progress_started = false
  local function check()
    if finished then
      return
    end
    if #ready_clients(bufnr) > 0 and not progress_started then
      progress_started = true
      attach_timer:stop()
      progress_timer:start(progress_ms, 0, vim.schedule_wrap(function()
        -- The bound is spent once per client: a server that never ends
        -- its work must not stall every later request.
        for _, client in ipairs(ready_clients(bufnr)) do
          progress_ended[client.id] = true
        end
        finish()
      end))
    end
    if settled() then
      finish()
    end
  end
  table.insert(autocmds, api.nvim_create_autocmd('LspAttach', { buffer = bufnr, callback = vim.schedule_wrap(check) }))
  table.insert(autocmds, api.nvim_create_autocmd('LspProgress', { callback = vim.schedule_wrap(check) }))
  in_flight[key(chan, id)] = { cancel = vim.schedule_wrap(finish) }
  -- Bounds, not delays: an expected server that never attaches must not
  -- hang the caller (the Go side has its own timeout as well).
  attach_timer:start(expected and math.max(grace_ms, 60000) or grace_ms, 0, vim.schedule_wrap(finish))
  check()
end

--- Opens path (buffers.open: loads it, or reconciles the loaded buffer
--- with the disk), waits for its clients as wait_clients does, and answers
--- {buffer, clients, line}: the buffer's state, its ready clients, and the
--- text of 0-based line when line >= 0, read once the wait is over (as the
--- request that follows will see it). What a position tool needs before
--- its request, in one round trip. methods: as wait_clients.
function M.open_wait(chan, id, path, must_exist, line, grace_ms, methods)
  local st = buffers.open(path, must_exist)
  if st.err then
    return done(chan, id, st.err)
  end
  local bufnr = st.bufnr
  finals[key(chan, id)] = function(clients)
    if clients == '{}' then
      clients = '[]' -- vim.json.encode has no empty array
    end
    local now = buffers.state(bufnr, st.state)
    local text
    if line >= 0 then
      text = api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
    end
    return '{"clients":' .. clients .. ',"buffer":' .. vim.json.encode(now) .. ',"line":' .. vim.json.encode(text == nil and vim.NIL or text) .. '}'
  end
  M.wait_clients(chan, id, bufnr, grace_ms, methods)
end

--- Sends one request through a client attached to the buffer. The result
--- arrives as nvbridge_done(id, err, json).
---@param client_id integer 0 picks the first attached client supporting method
function M.request(chan, id, bufnr, client_id, method, params_json)
  local params = vim.json.decode(params_json)
  local chosen
  local names = {}
  for _, client in ipairs(get_clients({ bufnr = bufnr })) do
    table.insert(names, client.name)
    if (client_id == 0 or client.id == client_id) and not chosen and supports(client, method, bufnr) then
      chosen = client
    end
  end
  if not chosen then
    if #names == 0 then
      return done(chan, id, fail('UNSUPPORTED', 'no language server is attached to this buffer'))
    end
    return done(chan, id, fail('UNSUPPORTED', table.concat(names, ', ') .. ' does not support ' .. method))
  end
  -- Neovim flushes (debounced) didChange only for the request's own buffer;
  -- a request about several files (rename after a multi-buffer edit or
  -- undo) must see every buffer's current text, so send all pending changes.
  compat.flush_changes(chosen)
  -- A server still loading answers late: relay its $/progress meanwhile.
  relays[key(chan, id)] = relay_progress(chan, id, bufnr)
  local ok, request_id = client_request(chosen, method, params, function(err, result)
    if err then
      if err.code == -32601 then
        -- Neovim deems methods it has no capability mapping for supported
        -- (0.10: textDocument/moniker, ...); the server's MethodNotFound
        -- is the real answer.
        return done(chan, id, fail('UNSUPPORTED', string.format('%s does not implement %s (%s)',
          chosen.name, method, err.message or 'method not found')))
      end
      local code = err.code == -32800 and 'TIMEOUT' or 'OPERATION_FAILED'
      return done(chan, id, fail(code, chosen.name .. ': ' .. (err.message or vim.inspect(err))))
    end
    -- The result alone: the Go side decodes it once, into its own type.
    done(chan, id, nil, vim.json.encode(result == nil and vim.NIL or result))
  end, bufnr)
  if not ok then
    return done(chan, id, fail('OPERATION_FAILED', chosen.name .. ' refused ' .. method .. ' (server stopped?)'))
  end
  in_flight[key(chan, id)] = {
    client = chosen,
    request_id = request_id,
    bufnr = bufnr,
    method = method,
    chan = chan,
    id = id,
  }
end

-- The operations start_ops may start.
local startable = {
  request = true,
  approve = true,
  open_wait = true,
  wait_clients = true,
  wait_diagnostics = true,
  wait_settled = true,
  run_user_tool = true,
  cancel = true,
}

--- Starts several asynchronous operations in one call (the Go side
--- batches the starts its callers make together): each op is {fn, id,
--- count, args...}, run as M[fn](chan, id, args...) under pcall, so that
--- one's error ends that operation (nvbridge_done with the error) and not
--- the others.
---@param ops table[]
function M.start_ops(chan, ops)
  for _, op in ipairs(ops) do
    local fn, id, count = op[1], op[2], op[3]
    local ok, err
    if startable[fn] then
      ok, err = pcall(M[fn], chan, id, unpack(op, 4, 3 + count))
    else
      ok, err = false, 'not an operation: ' .. tostring(fn)
    end
    if not ok then
      done(chan, id, type(err) == 'table' and err or fail('OPERATION_FAILED', tostring(err)))
    end
  end
end

--- Cancels an operation started by request or a wait (the LSP request gets
--- $/cancelRequest). Completes the operation with a TIMEOUT error unless it
--- has already completed.
function M.cancel(chan, id)
  local op = in_flight[key(chan, id)]
  if not op then
    return false
  end
  if op.cancel then
    op.cancel()
    return true
  end
  client_cancel(op.client, op.request_id)
  done(chan, id, fail('TIMEOUT', 'request cancelled'))
  return true
end

--- How long the diagnostics of bufnr's current text still need to settle:
--- 0 when they have, nil when some client has not published for the
--- current text. A server that publishes without a document version may
--- publish in stages for one text (typescript-language-server: syntax
--- first, semantic later), so its diagnostics count as settled only after a
--- quiet spell.
function M.unsettled_ms(bufnr, client_ids)
  local uri = vim.uri_from_bufnr(bufnr)
  local version = buf_version(bufnr)
  local tick = vim.b[bufnr].changedtick
  local wait = 0
  for _, client_id in ipairs(client_ids) do
    local seen = (published[client_id] or {})[uri]
    if not seen then
      return nil
    end
    if seen.version ~= nil and seen.version ~= vim.NIL then
      if seen.version < version then
        return nil
      end
    elseif seen.tick < tick then
      return nil
    elseif version == 0 and not staged(client_id) then
      -- A publish without a version, received after the last change
      -- (tick), while the document is still at the version 0 of its
      -- didOpen (Neovim 0.10): it is for the current text (gopls
      -- publishes so for a document opened at version 0). The buffer
      -- was loaded from the disk unchanged, so even a publish sent
      -- before the didOpen describes this text; a reload from the disk
      -- moves the tick.
    else
      uv.update_time()
      wait = math.max(wait, M.unversioned_quiet_ms - (uv.now() - seen.at))
    end
  end
  return wait
end

--- Completes once every listed client has published diagnostics for the
--- buffer's current text (by document version when the server sends one,
--- else by a publish after the last change), or after bound_ms.
function M.wait_diagnostics(chan, id, bufnr, client_ids, bound_ms)
  local function unsettled_ms()
    return M.unsettled_ms(bufnr, client_ids)
  end
  if unsettled_ms() == 0 then
    return done(chan, id, nil, 'true')
  end
  local finished = false
  local timer = uv.new_timer()
  local quiet = uv.new_timer()
  local autocmd
  local stop_relay = relay_progress(chan, id, bufnr)
  local function finish(complete)
    if finished then
      return
    end
    finished = true
    release({ timer, quiet }, { autocmd })
    stop_relay()
    done(chan, id, nil, complete and 'true' or 'false')
  end
  local function check()
    if finished then
      return
    end
    local wait = unsettled_ms()
    if wait == 0 then
      finish(true)
    elseif wait then
      quiet:stop()
      quiet:start(wait, 0, vim.schedule_wrap(check))
    end
  end
  autocmd = api.nvim_create_autocmd('User', {
    pattern = 'NvbridgeDiagnostics',
    callback = vim.schedule_wrap(check),
  })
  in_flight[key(chan, id)] = {
    cancel = vim.schedule_wrap(function()
      finish(false)
    end),
  }
  timer:start(bound_ms, 0, vim.schedule_wrap(function()
    finish(false)
  end))
  check()
end

--- The number of the last publishDiagnostics handled (0: none yet).
function M.publish_seq()
  return publish_seq
end

--- The last publish a client sent for a URI: {version, tick, at, seq}.
function M.last_publish(client_id, uri)
  return (published[client_id] or {})[uri]
end

--- Whether a client reports its diagnosis work with $/progress
--- ("diagnosing ..."), and how many such tokens are active now.
function M.diagnosis_progress(client_id)
  local active = 0
  for _, title in pairs(progress_titles[client_id] or {}) do
    if title:find('^diagnosing') then
      active = active + 1
    end
  end
  local reports = reports_diagnosis[client_id] == true
  if not reports then
    -- gopls announces its diagnosis work only with this setting on.
    local client = vim.lsp.get_client_by_id(client_id)
    local settings = client and (client.settings or (client.config or {}).settings) or {}
    reports = type(settings.gopls) == 'table' and settings.gopls.verboseWorkDoneProgress == true
  end
  return reports, active
end

M.staged = staged
M.done = done

--- Registers what cancels an async operation (bridge.cancel calls it).
function M.on_cancel(chan, id, fn)
  in_flight[key(chan, id)] = { cancel = fn }
end

--- verify.lua's wait, under the module Session.Async calls.
function M.wait_settled(chan, id, spec, bound_ms)
  return require('nvbridge.verify').wait_settled(chan, id, spec, bound_ms)
end

--- How long an unversioned publisher must stay quiet before its
--- diagnostics count as settled. typescript-language-server publishes a
--- file's syntax diagnostics as soon as tsserver has them and the semantic
--- ones when its type check ends, which on a cold or loaded machine can be
--- most of a second later.
M.unversioned_quiet_ms = 1000

--- Diagnostics as LSP-shaped tables, for one buffer or (bufnr = nil) every
--- loaded buffer. Positions stay as Neovim holds them (0-based line, byte col).
function M.diagnostics(bufnr)
  -- A Go nil arrives as vim.NIL, which vim.diagnostic.get rejects.
  if bufnr == vim.NIL then
    bufnr = nil
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, {
      bufnr = d.bufnr,
      file = api.nvim_buf_get_name(d.bufnr),
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum or d.lnum,
      end_col = d.end_col or d.col,
      severity = d.severity,
      message = d.message,
      source = d.source or vim.NIL,
      code = d.code ~= nil and tostring(d.code) or vim.NIL,
    })
  end
  return vim.json.encode(out)
end

--- Every language server client of this Neovim and every server that went
--- down (exited abnormally, not back), for get_status, as JSON: clients
--- {id, name, version, root_dir, initialized, stopped, indexing, work,
--- buffers, methods}, down {name, how, restart, gave_up, managed}.
function M.clients_status()
  local out = { clients = {}, down = {} }
  for _, client in ipairs(get_clients()) do
    local work = {}
    for _, w in pairs(progress[client.id] or {}) do
      if type(w) == 'table' then
        table.insert(work, { title = w.title or '', message = w.message or '', percentage = w.percentage or vim.NIL })
      end
    end
    local bufnrs = vim.tbl_keys(client.attached_buffers or {})
    local info = client.server_info or {}
    local stopped = compat.is_stopped(client)
    table.insert(out.clients, {
      id = client.id,
      name = client.name,
      version = type(info.version) == 'string' and info.version or '',
      root_dir = client.config and type(client.config.root_dir) == 'string' and client.config.root_dir or '',
      initialized = client.initialized == true,
      stopped = stopped == true,
      indexing = not stopped and busy({ client }) or false,
      work = work,
      buffers = #bufnrs,
      methods = bufnrs[1] and supported_methods(client, bufnrs[1]) or vim.empty_dict(),
    })
  end
  local seen = {}
  for _, entries in pairs(down) do
    for name, e in pairs(entries) do
      if not seen[name] then
        seen[name] = true
        table.insert(out.down, { name = name, how = M.describe_exit(e), restart = e.restart or vim.NIL,
          gave_up = e.gave_up == true, managed = e.managed == true })
      end
    end
  end
  return vim.json.encode(out)
end

return M
