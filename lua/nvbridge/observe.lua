--- What nvbridge observes of the language servers through Neovim's events
--- (installed by bridge.setup in the nvbridge augroup): each client's
--- publishes of diagnostics and the document versions sent to it, its
--- $/progress work, and the servers that exited abnormally. The waits
--- (wait.lua, verify.lua) and the status (status.lua) read this state; it
--- lives here only.
local M = {}

local uv = vim.uv or vim.loop
local api = vim.api

local compat = require('nvbridge._compat')
local fail = require('nvbridge._error').fail
local buffers = require('nvbridge.buffers')
local servers = require('nvbridge.servers')
local get_clients = compat.get_clients

-- Per client and URI: the last publishDiagnostics seen, so a caller can wait
-- for diagnostics that describe the buffer's current text.
---@type table<integer, table<string, {version: integer?, tick: integer}>>
local published = {}

-- Per client and URI: the document version last sent (LspNotify).
---@type table<integer, table<string, integer>>
local sent = {}
-- One count over texts sent (didOpen, didChange) and diagnosis runs ended:
-- per client and URI the count when its text was last sent, per client
-- when its last diagnosis run ended (analysed_since_sent compares them).
local event_seq = 0
---@type table<integer, table<string, integer>>
local sent_seq = {}
---@type table<integer, integer>
local run_end_seq = {}
-- Per client: when (uv.now) it last published any file's diagnostics.
---@type table<integer, integer>
local last_any_publish = {}

-- How many buffers were written (BufWritePost: servers get didSave).
local writes = 0

-- Active $/progress work per client, from LspProgress events: token ->
-- {title, message, percentage} (the begin's title kept through reports).
---@type table<integer, table<any, {title: string?, message: string?, percentage: number?}>>
local progress = {}
-- Clients that ended $/progress work at least once, or whose wait for it
-- ran out (see busy: a server indexing after attaching).
local progress_ended = {}
-- Clients that said they are not quiescent (rust-analyzer's
-- experimental/serverStatus, which servers.lua asks for: still loading the
-- project or indexing), by client id. A file opened before the load ended
-- may first be diagnosed as outside every crate (a limit: its publish
-- counts).
---@type table<integer, boolean>
local not_quiescent = {}
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

-- Per client id: callbacks waiting for the client's exit, however it
-- exits (when_exited), each under a key of its own.
---@type table<integer, table<table, fun()>>
local exit_waiters = {}

-- Neovim's own rule (vim/lsp.lua on_client_exit): exit code 0 and no
-- signal but SIGTERM is a requested stop, anything else a crash.
local function abnormal(code, signal)
  return code ~= 0 or (signal ~= 0 and signal ~= 15)
end

local signal_names = { [1] = 'SIGHUP', [2] = 'SIGINT', [6] = 'SIGABRT', [9] = 'SIGKILL', [11] = 'SIGSEGV', [15] = 'SIGTERM' }

--- How a server ended, for messages: "was killed by signal 9 (SIGKILL)".
---@param e nvbridge.ServerExit
---@return string
function M.describe_exit(e)
  if e.signal and e.signal ~= 0 then
    local name = signal_names[e.signal]
    return string.format('was killed by signal %d%s', e.signal, name and (' (' .. name .. ')') or '')
  end
  return string.format('exited with code %d', e.code)
end

--- Observes a client's exit (its exit code and signal reach only the
--- client's on_exit callbacks). The callback is appended after Neovim's
--- own, and its work scheduled: it runs after Neovim detached the buffers
--- (LspDetach) and forgot the client, so a restart starts a fresh client.
--- It only records; the user's clients behave exactly as before.
---@param client vim.lsp.Client
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
      local waiters = exit_waiters[client.id]
      exit_waiters[client.id] = nil
      for _, fn in pairs(waiters or {}) do
        pcall(fn)
      end
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

--- Calls fn (scheduled) when client exits, however it exits: a client that
--- exits never answers its pending requests (Neovim 0.10 drops their
--- callbacks), and a request for a file without a buffer gets no LspDetach
--- either. Returns the function that forgets fn (call it once the
--- requests are answered). Nothing is called when the client's exit
--- cannot be observed (no _on_exit_cbs).
---@param client vim.lsp.Client
---@param fn fun()
---@return fun() forget
function M.when_exited(client, fn)
  hook_exit(client)
  local waiters = exit_waiters[client.id] or {}
  exit_waiters[client.id] = waiters
  local k = {}
  waiters[k] = fn
  return function()
    waiters[k] = nil
  end
end

--- Records that exit's server is down for bufnr (servers.lua, for the
--- buffers a client was started for but never attached to).
---@param bufnr integer
---@param exit nvbridge.ServerExit
function M.mark_down(bufnr, exit)
  down[bufnr] = down[bufnr] or {}
  down[bufnr][exit.name] = exit
end

--- The servers that exited abnormally while attached to bufnr and have not
--- come back (no client of that name attached since), as a list.
---@param bufnr integer
---@return {name: string, code: integer, signal: integer, restart: any, gave_up: boolean, managed: boolean, how: string}[]
function M.servers_down(bufnr)
  local out = {}
  for _, e in pairs(down[bufnr] or {}) do
    table.insert(out, { name = e.name, code = e.code, signal = e.signal, restart = e.restart or vim.NIL,
      gave_up = e.gave_up == true, managed = e.managed == true, how = M.describe_exit(e) })
  end
  return out
end

--- The PRECONDITION_FAILED answer for a buffer whose only servers are down,
--- or nil when none is (or a restart is under way: wait_clients waits for it).
---@param bufnr integer
---@return nvbridge.Error?
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
      remediation = remediation
        or 'restart it in Neovim (:LspRestart with nvim-lspconfig, or :edit the file so your configuration starts it again), then retry'
    end
    table.insert(parts, text)
  end
  table.sort(parts)
  return fail('PRECONDITION_FAILED', table.concat(parts, '; '),
    { remediation = remediation or 'retry once the language server runs again' })
end
M.down_error = down_error

--- Whether a client publishes one text's diagnostics in stages without a
--- document version (its spec says so: lang.ServerSpec.StagedPublishes):
--- only its last publish is complete, and nothing marks it.
---@param client_id integer
---@return boolean
local function staged(client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  return client ~= nil and servers.staged(client)
end

-- The version a server's publish for the current text carries.
local function buf_version(bufnr)
  return compat.lsp_version(bufnr) or vim.b[bufnr].changedtick
end

--- Whether a client reports $/progress work other than a diagnosis run
--- ("diagnosing ...", gopls with verboseWorkDoneProgress): a server answers
--- requests while it diagnoses; only the diagnostics waits (verify.lua) wait
--- for those runs to end.
local function working(client_id)
  for _, work in pairs(progress[client_id] or {}) do
    local title = type(work) == 'table' and work.title or nil
    if not (type(title) == 'string' and servers.diagnosis_title(title, vim.lsp.get_client_by_id(client_id))) then
      return true
    end
  end
  return false
end

--- A client is busy while it reports $/progress work (a diagnosis run
--- aside), and, when it indexes in the background right after attaching
--- (clangd), until that first work has ended: it begins a few milliseconds
--- after attachment, so "no work reported" does not yet mean ready.
---@param clients {id: integer, name: string, root_dir: any}[]
---@return boolean
function M.busy(clients)
  for _, client in ipairs(clients) do
    if working(client.id) or not_quiescent[client.id] then
      return true
    end
    if not progress_ended[client.id] and servers.indexes_after_attach(client) then
      return true
    end
  end
  return false
end

--- How long the diagnostics of bufnr's current text still need to settle:
--- 0 when they have, nil when some client has not published for the
--- current text. A server that publishes without a document version may
--- publish in stages for one text (typescript-language-server: syntax
--- first, semantic later), so its diagnostics count as settled only after a
--- quiet spell.
---@param bufnr integer
---@param client_ids integer[]
---@return integer? ms
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

--- How long an unversioned publisher must stay quiet before its
--- diagnostics count as settled. typescript-language-server publishes a
--- file's syntax diagnostics as soon as tsserver has them and the semantic
--- ones when its type check ends, which on a cold or loaded machine can be
--- most of a second later.
M.unversioned_quiet_ms = 1000

--- Records a server's experimental/serverStatus (rust-analyzer, asked for
--- by servers.lua's capabilities): while it is not quiescent (loading or
--- indexing the project) it counts as busy, so requests wait for the load.
---@param client_id integer
---@param status {quiescent: boolean?}
function M.server_status(client_id, status)
  not_quiescent[client_id] = type(status) == 'table' and status.quiescent == false or nil
  api.nvim_exec_autocmds('User', { pattern = 'NvbridgeServerStatus', modeline = false })
end

--- How many buffers were written so far (each write sends didSave to the
--- buffer's servers).
---@return integer
function M.write_seq()
  return writes
end

--- The number of the last publishDiagnostics handled (0: none yet).
---@return integer
function M.publish_seq()
  return publish_seq
end

--- The last publish a client sent for a URI: {version, tick, at, seq}.
---@param client_id integer
---@param uri string
---@return {version: integer?, tick: integer, at: integer, seq: integer?}?
function M.last_publish(client_id, uri)
  return (published[client_id] or {})[uri]
end

--- Whether a client reports its diagnosis work with $/progress
--- ("diagnosing ..."), and how many such tokens are active now.
---@param client_id integer
---@return boolean reports, integer active
function M.diagnosis_progress(client_id)
  local active = 0
  local client = vim.lsp.get_client_by_id(client_id)
  for _, title in pairs(progress_titles[client_id] or {}) do
    if servers.diagnosis_title(title, client) then
      active = active + 1
    end
  end
  local reports = reports_diagnosis[client_id] == true
  if not reports then
    -- A server may announce its diagnosis work only with a setting on
    -- (lang.ServerSpec.DiagnosisProgress).
    local settings = client and (client.settings or (client.config or {}).settings) or {}
    -- One whose spec says it reports its runs and publishes (pyright)
    -- does so from its first run on.
    reports = servers.reports_diagnosis(settings) or (client ~= nil and servers.diagnosis_publishes(client))
  end
  return reports, active
end

M.staged = staged

--- Whether a diagnosis run of a client ended after the text of uri was
--- last sent to it (true when none was sent): the run diagnosed that text.
---@param client_id integer
---@param uri string
---@return boolean
function M.analysed_since_sent(client_id, uri)
  local at = (sent_seq[client_id] or {})[uri]
  return at == nil or (run_end_seq[client_id] or 0) > at
end

--- When (uv.now, ms) a client last published any file's diagnostics (0:
--- never): a server checking a batch of files publishes each as it goes.
---@param client_id integer
---@return integer
function M.last_any_publish(client_id)
  return last_any_publish[client_id] or 0
end


--- The $/progress work a client has under way: token -> {title, message,
--- percentage}.
---@param client_id integer
---@return table<any, {title: string?, message: string?, percentage: number?}>
function M.work(client_id)
  return progress[client_id] or {}
end

--- Whether any client has $/progress work under way (a relay of the work
--- under way looks no further when none has).
---@return boolean
function M.any_work()
  for _, tokens in pairs(progress) do
    if next(tokens) ~= nil then
      return true
    end
  end
  return false
end

--- Counts a client's first $/progress work as ended: a wait gave up on it
--- (the bound is spent once per client, so a server that never ends its
--- work does not stall every later request).
---@param client_id integer
function M.stop_waiting_for_work(client_id)
  progress_ended[client_id] = true
end

--- Every server that went down (exited abnormally, not back), once per
--- name: {name, how, restart, gave_up, managed}.
---@return table[]
function M.down_list()
  local out, seen = {}, {}
  for _, entries in pairs(down) do
    for name, e in pairs(entries) do
      if not seen[name] then
        seen[name] = true
        table.insert(out, { name = name, how = M.describe_exit(e), restart = e.restart or vim.NIL,
          gave_up = e.gave_up == true, managed = e.managed == true })
      end
    end
  end
  return out
end

--- Installs the observing autocmds in group (bridge.setup), and starts
--- observing the clients already running.
---@param group integer
function M.install(group)
  M.installed = true

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
        event_seq = event_seq + 1
        sent_seq[data.client_id] = sent_seq[data.client_id] or {}
        sent_seq[data.client_id][doc.uri] = event_seq
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
        last_any_publish[client_id] = uv.now()
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
          if servers.diagnosis_title(value.title, vim.lsp.get_client_by_id(client_id)) then
            reports_diagnosis[client_id] = true
          end
        end
      elseif value.kind == 'end' then
        local title = progress_titles[client_id][params.token]
        if type(title) == 'string' and servers.diagnosis_title(title, vim.lsp.get_client_by_id(client_id)) then
          event_seq = event_seq + 1
          run_end_seq[client_id] = event_seq
        end
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
      writes = writes + 1
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

end

return M
