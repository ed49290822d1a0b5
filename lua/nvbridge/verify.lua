--- Waits for the language servers to have diagnosed a change: the buffers
--- the change touched and the buffers that depend on them (verified edits:
--- the diagnostics delta of apply_changeset and check previews).
---
--- The events, per server:
--- - a server that reports its diagnosis work with $/progress
---   ("diagnosing ...": gopls with verboseWorkDoneProgress) is done when,
---   after every pending didChange was sent and a request sent after them
---   was answered (so every "diagnosing" begin they caused has arrived),
---   no such work is active. gopls publishes only diagnostics that changed,
---   so no publish may come for a file whose diagnostics stayed the same:
---   its progress is the only event that says it re-checked dependants.
--- - a silent server (servers.silent: one that could report its diagnosis
---   runs but does not, gopls without verboseWorkDoneProgress, as nvbridge's
---   own gopls runs too) is asked (pull: textDocument/diagnostic) for each
---   touched buffer and dependant once its pending changes were sent: the
---   answer is the file's diagnostics of the text it holds, handled as its
---   publish (gopls publishes only diagnostics that changed, and its full
---   diagnosis comes after its diagnosticsDelay).
--- - any other server: a publish for each touched buffer's current text
---   (observe.unsettled_ms: by version, or unversioned after the change and
---   quiet), and a publish after the mark for each dependant.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop
local async = require('nvbridge.async')
local buffers = require('nvbridge.buffers')
local loaded = require('nvbridge.loaded')
local compat = require('nvbridge._compat')
local buf_option = compat.buf_option
local observe = require('nvbridge.observe')
local servers = require('nvbridge.servers')

-- Per client: what had been sent to it (sent_state) when a request that
-- it answered was sent.
---@type table<integer, string>
local answered_at = {}

-- Per silent client and buffer: what had been sent to it (sent_state)
-- when it answered a pull of the buffer's diagnostics, handled as its
-- publish; the same state again needs no new pull.
---@type table<integer, table<integer, string>>
local pulled_at = {}

-- What a client has been sent, as far as it may start a diagnosis run: the
-- document versions of its buffers (didOpen, didChange, didClose) and the
-- writes (didSave). Read after its pending changes were flushed.
local function sent_state(client)
  local parts = {}
  for bufnr in pairs(client.attached_buffers or {}) do
    table.insert(parts, bufnr .. ':' .. tostring(compat.lsp_version(bufnr)))
  end
  table.sort(parts)
  return table.concat(parts, ',') .. '|' .. observe.write_seq()
end

--- The moment a wait counts publishes from.
---@return integer
function M.mark()
  return observe.publish_seq()
end

local function attached(bufnr, client_id)
  return api.nvim_buf_is_loaded(bufnr) and #compat.get_clients({ bufnr = bufnr, id = client_id }) > 0
end

--- How long after a server answered pulled diagnostics the publish it
--- sends along (right behind the answer) is waited for.
M.after_pull_ms = 200

--- Completes (nvbridge_done: {complete, pending}) once the servers have
--- diagnosed a change: the buffers it touched and those that depend on
--- them (see the module comment), or after bound_ms with what is missing.
---@param chan integer
---@param id integer
---@param spec {mark: integer, touched: integer[], dependants: integer[], clients: integer[], pull_files: string[]?}
---@param bound_ms integer
function M.wait_settled(chan, id, spec, bound_ms)
  local finished = false
  local timer = uv.new_timer()
  local quiet = uv.new_timer()
  local autocmds = {}
  local pinged = {}
  -- Staged publishers (typescript-language-server) never publish a file
  -- whose diagnostics were empty and stay empty: for those whose spec has
  -- diagnostics_sync commands, per client and buffer, 'clean' when the
  -- server's synchronous diagnostics are empty and Neovim holds none of its
  -- diagnostics (no publish will come), else 'publish' (wait for one).
  local synced = {}
  -- Servers that answer pulled diagnostics once they checked a file
  -- (pyright): per client and buffer, {state = 'asked' | 'answered' |
  -- 'failed', at}.
  local pulled = {}
  -- Silent servers, per client and buffer: 'asked', 'answered' (the
  -- answer handled as its publish, for the text the buffer still has) or
  -- 'failed' (then its publishes are waited for).
  local silent_pulls = {}
  -- Silent servers, per client and file of spec.pull_files (not open):
  -- 'asked', 'answered' (handled as its publish) or the error's message.
  local silent_files = {}
  local check

  -- What is still missing: nil when settled, else {wait_ms?, pending}.
  local function missing()
    local pending = {}
    local wait = 0
    for _, client_id in ipairs(spec.clients) do
      local client = vim.lsp.get_client_by_id(client_id)
      if client then
        local reports, active = observe.diagnosis_progress(client_id)
        if reports then
          if not pinged[client_id] then
            table.insert(pending, { client = client.name, why = 'the server has not yet received the change' })
          elseif active > 0 then
            table.insert(pending, { client = client.name, why = string.format('%d diagnosis run(s) still in progress', active) })
          end
        end
        -- A server that reports its runs and also publishes what it
        -- re-checked (pyright) needs its publishes too. It publishes a
        -- file's list after each step of its analysis, the version it was
        -- sent with every one: an empty list as it opens a file, a changed
        -- file's parse and bind results before its check (requests'
        -- _internal_utils.py: empty, then the check's "not accessed"
        -- error), and each file of a batch as it checks it. It reports the
        -- analysis only when it takes a while, so a touched file is
        -- settled once a run ended since its text was sent, or after a
        -- quiet spell since the server's last publish of any file.
        -- One that answers pulled diagnostics once it has checked a file
        -- is asked (below): its answer is the file's diagnostics, handled
        -- as a publish, and a publish that comes with it is waited for
        -- briefly.
        local publishes = reports and servers.diagnosis_publishes(client)
        if publishes then
          for _, bufnr in ipairs(spec.touched) do
            local uri = vim.uri_from_bufnr(bufnr)
            local pull = (pulled[client_id] or {})[bufnr]
            if pull and pull.state == 'asked' then
              table.insert(pending, { client = client.name, bufnr = bufnr, why = 'the server has not answered for its diagnostics yet' })
            elseif pull and pull.state == 'answered' then
              uv.update_time()
              wait = math.max(wait, M.after_pull_ms - (uv.now() - pull.at))
            elseif attached(bufnr, client_id) and not observe.analysed_since_sent(client_id, uri) then
              uv.update_time()
              wait = math.max(wait, observe.unversioned_quiet_ms - (uv.now() - observe.last_any_publish(client_id)))
            end
          end
        end
        if not reports or publishes then
          local syncing = synced[client_id] ~= nil
          local silent = silent_pulls[client_id] or {}
          for path, state in pairs(silent_files[client_id] or {}) do
            if state == 'asked' then
              table.insert(pending, { client = client.name, file = path, why = 'the server has not answered for its diagnostics yet' })
            elseif state ~= 'answered' then
              table.insert(pending, { client = client.name, file = path, why = 'the server did not answer for its diagnostics: ' .. state })
            end
          end
          for _, bufnr in ipairs(spec.touched) do
            local sync = syncing and (synced[client_id] or {})[bufnr]
            if not attached(bufnr, client_id) or sync == 'clean' or silent[bufnr] == 'answered' then
              -- nothing to wait for
            elseif silent[bufnr] == 'asked' then
              table.insert(pending, { client = client.name, bufnr = bufnr, why = 'the server has not answered for its diagnostics yet' })
            elseif syncing and sync == nil then
              table.insert(pending, { client = client.name, bufnr = bufnr, why = 'the server has not answered for the new text yet' })
            else
              local ms = observe.unsettled_ms(bufnr, { client_id })
              if ms == nil then
                table.insert(pending, { client = client.name, bufnr = bufnr, why = 'no diagnostics published for the new text' })
              else
                wait = math.max(wait, ms)
              end
            end
          end
          for _, bufnr in ipairs(spec.dependants) do
            local sync = syncing and (synced[client_id] or {})[bufnr]
            -- A pulled answer comes once the server re-checked the file,
            -- or at once when the change does not reach it as the server
            -- resolves imports (requests' tests import the installed
            -- requests): no publish may come then.
            local pull = (pulled[client_id] or {})[bufnr]
            if silent[bufnr] == 'answered' then
              -- nothing to wait for
            elseif silent[bufnr] == 'asked' or (pull and pull.state == 'asked') then
              table.insert(pending, { client = client.name, bufnr = bufnr, why = 'the server has not answered for its diagnostics yet' })
            elseif pull and pull.state == 'answered' then
              uv.update_time()
              wait = math.max(wait, M.after_pull_ms - (uv.now() - pull.at))
            elseif syncing and sync == nil and attached(bufnr, client_id) then
              table.insert(pending, { client = client.name, bufnr = bufnr, why = 'the server has not answered for the change yet' })
            elseif attached(bufnr, client_id) and sync ~= 'clean' then
              local seen = observe.last_publish(client_id, vim.uri_from_bufnr(bufnr))
              if not seen or (seen.seq or 0) <= spec.mark then
                table.insert(pending, { client = client.name, bufnr = bufnr, why = 'no diagnostics published since the change' })
              elseif observe.staged(client_id) then
                uv.update_time()
                wait = math.max(wait, observe.unversioned_quiet_ms - (uv.now() - seen.at))
              end
            end
          end
        end
      end
    end
    return pending, wait
  end

  local function finish(complete, pending)
    if finished then
      return
    end
    finished = true
    async.release({ timer, quiet }, autocmds)
    for _, p in ipairs(pending or {}) do
      if p.bufnr and not p.file then
        p.file = api.nvim_buf_get_name(p.bufnr)
      end
    end
    async.done(chan, id, nil, vim.json.encode({ complete = complete, pending = pending or {} }))
  end

  check = function()
    if finished then
      return
    end
    local pending, wait = missing()
    if #pending == 0 then
      if wait <= 0 then
        return finish(true)
      end
      quiet:stop()
      quiet:start(wait, 0, vim.schedule_wrap(check))
    end
  end

  for _, pattern in ipairs({ 'NvbridgeDiagnostics', 'NvbridgeProgressEnd' }) do
    table.insert(autocmds, api.nvim_create_autocmd('User', { pattern = pattern, callback = vim.schedule_wrap(check) }))
  end
  async.track(chan, id, vim.schedule_wrap(function()
    finish(false, select(1, missing()))
  end))
  timer:start(bound_ms, 0, vim.schedule_wrap(function()
    finish(false, select(1, missing()))
  end))

  -- Staged publishers: ask the server for the diagnostics of the current
  -- text (a request answered after the change reached it).
  for _, client_id in ipairs(spec.clients) do
    local client = vim.lsp.get_client_by_id(client_id)
    if client and observe.staged(client_id) and not observe.diagnosis_progress(client_id)
      and servers.diagnostics_sync(client, '') then
      synced[client_id] = {}
      local bufs = {}
      for _, list in ipairs({ spec.touched, spec.dependants }) do
        for _, bufnr in ipairs(list) do
          if attached(bufnr, client_id) then
            table.insert(bufs, bufnr)
          end
        end
      end
      for _, bufnr in ipairs(bufs) do
        M.sync_diagnostics(client, bufnr, function(empty)
          local held = #vim.diagnostic.get(bufnr, { namespace = vim.lsp.diagnostic.get_namespace(client_id) })
          synced[client_id][bufnr] = (empty and held == 0) and 'clean' or 'publish'
          vim.schedule(check)
        end)
      end
    end
  end

  -- Progress reporters: send the pending changes, then a request; its
  -- answer comes after every "diagnosing" begin the changes caused. When
  -- nothing was sent to the server since an earlier such request was
  -- answered, that answer already says so (no round trip to the server).
  for _, client_id in ipairs(spec.clients) do
    local client = vim.lsp.get_client_by_id(client_id)
    if client and servers.diagnosis_publishes(client) then
      -- It publishes the version it diagnosed (pyright answers no unknown
      -- request): that publish says it received the change.
      compat.flush_changes(client)
      pinged[client_id] = true
      if servers.diagnosis_pulls(client) then
        pulled[client_id] = {}
        for _, bufnr in ipairs(vim.list_extend(vim.list_extend({}, spec.touched), spec.dependants)) do
          if attached(bufnr, client_id) and not pulled[client_id][bufnr] then
            local entry = { state = 'asked' }
            pulled[client_id][bufnr] = entry
            local uri = vim.uri_from_bufnr(bufnr)
            local params = { textDocument = { uri = uri } }
            local ok = pcall(compat.request, client, 'textDocument/diagnostic', params, function(err, result)
              -- The answer is the file's diagnostics, which the server
              -- then may not publish (pyright does not for a file it was
              -- asked about): handled as its publish.
              if not err and type(result) == 'table' and result.kind == 'full' and type(result.items) == 'table' then
                pcall(vim.lsp.diagnostic.on_publish_diagnostics, nil, { uri = uri, diagnostics = result.items },
                  { client_id = client_id, method = 'textDocument/publishDiagnostics' })
              end
              uv.update_time()
              entry.state, entry.at = err and 'failed' or 'answered', uv.now()
              vim.schedule(check)
            end, bufnr)
            if not ok then
              entry.state = 'failed'
            end
          end
        end
      end
    elseif client and servers.silent(client, (observe.diagnosis_progress(client_id))) then
      -- A silent server: asked for each buffer's diagnostics, behind its
      -- pending changes. An answer describes the text it holds when the
      -- request arrives; one for a buffer changed since is not used.
      compat.flush_changes(client)
      local state = sent_state(client)
      local asked = {}
      silent_pulls[client_id] = asked
      pulled_at[client_id] = pulled_at[client_id] or {}
      for _, bufnr in ipairs(vim.list_extend(vim.list_extend({}, spec.touched), spec.dependants)) do
        if attached(bufnr, client_id) and not asked[bufnr] then
          if pulled_at[client_id][bufnr] == state then
            asked[bufnr] = 'answered'
          else
            asked[bufnr] = 'asked'
            local uri = vim.uri_from_bufnr(bufnr)
            local version = compat.lsp_version(bufnr)
            local ok, sent = pcall(compat.request, client, 'textDocument/diagnostic', { textDocument = { uri = uri } },
              function(err, result)
                -- gopls leaves out kind ('full'): items are the full list.
                local full = not err and type(result) == 'table' and result.kind ~= 'unchanged' and type(result.items) == 'table'
                if full and api.nvim_buf_is_loaded(bufnr) and compat.lsp_version(bufnr) == version then
                  pcall(vim.lsp.diagnostic.on_publish_diagnostics, nil, { uri = uri, diagnostics = result.items },
                    { client_id = client_id, method = 'textDocument/publishDiagnostics' })
                  asked[bufnr] = 'answered'
                  pulled_at[client_id][bufnr] = state
                else
                  asked[bufnr] = 'failed'
                end
                vim.schedule(check)
              end, bufnr)
            if not ok or sent == false then
              asked[bufnr] = 'failed'
            end
          end
        end
      end
      -- Files of the change's scope that are not open (spec.pull_files:
      -- the change touches files of other servers too, so the pulled
      -- delta does not apply): asked too, each answer handled as its
      -- publish (Neovim then holds the file's diagnostics of the current
      -- texts, as after the server's own full diagnosis).
      local files = {}
      silent_files[client_id] = files
      for _, path in ipairs(spec.pull_files or {}) do
        local b = vim.fn.bufnr(path)
        if not (b > 0 and asked[b]) and not files[path] then
          files[path] = 'asked'
          local uri = vim.uri_from_fname(path)
          local ok, sent = pcall(compat.request, client, 'textDocument/diagnostic', { textDocument = { uri = uri } },
            function(err, result)
              if not err and type(result) == 'table' and result.kind ~= 'unchanged' and type(result.items) == 'table' then
                pcall(vim.lsp.diagnostic.on_publish_diagnostics, nil, { uri = uri, diagnostics = result.items },
                  { client_id = client_id, method = 'textDocument/publishDiagnostics' })
                files[path] = 'answered'
              else
                files[path] = tostring(err and (err.message or err.code) or 'no list of diagnostics')
              end
              vim.schedule(check)
            end)
          if not ok or sent == false then
            files[path] = 'the request could not be sent'
          end
        end
      end
    elseif client and observe.diagnosis_progress(client_id) then
      compat.flush_changes(client)
      local state = sent_state(client)
      if answered_at[client_id] == state then
        pinged[client_id] = true
      else
        local ok = pcall(compat.request, client, 'nvbridge/ping', vim.empty_dict(), function()
          answered_at[client_id] = state
          pinged[client_id] = true
          vim.schedule(check)
        end)
        if not ok then
          pinged[client_id] = true
        end
      end
    end
  end
  check()
end

-- The 0-based line of a file as Neovim holds it (its loaded buffer) or as
-- the disk has it, read once per file (lines[path]).
local function line_of(lines, path, lnum)
  if lines[path] == nil then
    local b = vim.fn.bufnr(path)
    if b > 0 and api.nvim_buf_is_loaded(b) then
      lines[path] = { bufnr = b }
    else
      local ok, read = pcall(vim.fn.readfile, path)
      lines[path] = ok and read or {}
    end
  end
  local l = lines[path]
  if l.bufnr then
    return api.nvim_buf_get_lines(l.bufnr, lnum, lnum + 1, false)[1] or ''
  end
  return l[lnum + 1] or ''
end

--- Asks a client for the diagnostics of files (pull: textDocument/diagnostic),
--- after sending it every pending change, so each answer describes the
--- text Neovim holds now. Answers (nvbridge_done) JSON {supported, files =
--- {path = diagnostic wires (status.diagnostics' shape)}, failed = {path =
--- message}}; supported is false when the server has no such method.
---@param chan integer
---@param id integer
---@param client_id integer
---@param paths string[] absolute
function M.pull(chan, id, client_id, paths)
  local client = vim.lsp.get_client_by_id(client_id)
  if not client or #paths == 0 then
    async.done(chan, id, nil, vim.json.encode({ supported = client ~= nil, files = vim.empty_dict(), failed = vim.empty_dict() }))
    return
  end
  compat.flush_changes(client)
  local files, failed, supported = {}, {}, true
  local left, finished = #paths, false
  local requests = {}
  local lines = {}
  local encoding = client.offset_encoding or 'utf-16'
  local forget_exit
  local function finish()
    if finished then
      return
    end
    finished = true
    if forget_exit then
      forget_exit()
    end
    async.untrack(chan, id)
    async.done(chan, id, nil, vim.json.encode({
      supported = supported,
      files = next(files) and files or vim.empty_dict(),
      failed = next(failed) and failed or vim.empty_dict(),
    }))
  end
  async.track(chan, id, function()
    for _, rid in ipairs(requests) do
      pcall(compat.cancel_request, client, rid)
    end
    if forget_exit then
      forget_exit()
    end
    finished = true
  end)
  -- A server that exits (killed, crashed) never answers what it was asked:
  -- the files it did not answer fail then, not at the caller's timeout.
  forget_exit = observe.when_exited(client, function()
    for _, path in ipairs(paths) do
      if not files[path] and not failed[path] then
        failed[path] = client.name .. ' exited before answering'
      end
    end
    finish()
  end)
  for _, path in ipairs(paths) do
    local function answer(err, result)
      if finished then
        return
      end
      if err then
        if err.code == -32601 then
          supported = false
        end
        failed[path] = tostring(err.message or err.code)
      else
        local out = {}
        for _, d in ipairs(type(result) == 'table' and result.items or {}) do
          local r = d.range or {}
          local s, e = r.start or {}, r['end'] or r.start or {}
          local sl, el = s.line or 0, e.line or s.line or 0
          table.insert(out, {
            file = path,
            lnum = sl,
            col = compat.byteindex(line_of(lines, path, sl), encoding, s.character or 0),
            end_lnum = el,
            end_col = compat.byteindex(line_of(lines, path, el), encoding, e.character or 0),
            severity = d.severity or 1,
            message = d.message or '',
            source = d.source or vim.NIL,
            code = d.code ~= nil and tostring(d.code) or vim.NIL,
          })
        end
        files[path] = out
      end
      left = left - 1
      if left == 0 then
        finish()
      end
    end
    local params = { textDocument = { uri = vim.uri_from_fname(path) } }
    local ok, sent, rid = pcall(compat.request, client, 'textDocument/diagnostic', params, answer)
    if ok and sent then
      table.insert(requests, rid)
    else
      answer({ message = 'the request could not be sent' }, nil)
    end
  end
end

--- The loaded buffers of some files (0 for a file without one), and the
--- language servers attached to them: JSON {bufnrs, clients = [{id, name,
--- server, reports_progress, silent, sent}]} (silent: servers.silent; sent:
--- what its buffers' texts and nvbridge's writes are at, as far as it may
--- diagnose them: equal states, equal diagnoses).
---@param paths string[] absolute paths
---@return string json
function M.buffers(paths)
  local by_name = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) then
      by_name[api.nvim_buf_get_name(b)] = b
    end
  end
  local bufnrs, clients, seen = {}, {}, {}
  for i, path in ipairs(paths) do
    local b = by_name[path] or 0
    bufnrs[i] = b
    if b ~= 0 then
      for _, c in ipairs(compat.get_clients({ bufnr = b })) do
        if not seen[c.id] then
          seen[c.id] = true
          local reports = observe.diagnosis_progress(c.id)
          local spec = servers.spec_of(c)
          local server = type(c.server_info) == 'table' and c.server_info.name or (spec and spec.name) or c.name
          table.insert(clients, { id = c.id, name = c.name, server = server, reports_progress = reports,
            silent = servers.silent(c, reports), sent = sent_state(c) })
        end
      end
    end
  end
  return vim.json.encode({ bufnrs = bufnrs, clients = clients })
end

--- The loaded buffers attached to any of the clients, except some: the
--- files a change does not touch but whose diagnostics it may change.
--- JSON [{bufnr, file}].
---@param client_ids integer[]
---@param except integer[] buffers
---@return string json
function M.dependants(client_ids, except)
  local skip = {}
  for _, b in ipairs(except) do
    skip[b] = true
  end
  local out = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and not skip[b] and api.nvim_buf_get_name(b) ~= '' then
      for _, id in ipairs(client_ids) do
        if #compat.get_clients({ bufnr = b, id = id }) > 0 then
          table.insert(out, { bufnr = b, file = api.nvim_buf_get_name(b) })
          break
        end
      end
    end
  end
  return vim.json.encode(out)
end

--- The loaded, named buffers under root with their text as Neovim holds
--- it (what a check's copy must show the servers): JSON [{file, text,
--- modified}].
---@param root string
---@return string json
function M.open_files(root)
  local out = {}
  local prefix = root:sub(-1) == '/' and root or (root .. '/')
  for _, b in ipairs(api.nvim_list_bufs()) do
    local name = api.nvim_buf_get_name(b)
    if api.nvim_buf_is_loaded(b) and buf_option(b, 'buftype') == '' and name:sub(1, #prefix) == prefix then
      table.insert(out, { file = name, modified = buf_option(b, 'modified'), text = buffers.buffer_text(b) })
    end
  end
  return vim.json.encode(out)
end

--- Asks a staged publisher for its diagnostics of a buffer's current text
--- with its spec's diagnostics_sync commands (answered after every change
--- sent before; tsserver's syntactic and semantic checks); on_done(empty)
--- says whether every answer is empty. An answer nvbridge cannot read
--- counts as not empty.
---@param client vim.lsp.Client
---@param bufnr integer
---@param on_done fun(empty: boolean)
function M.sync_diagnostics(client, bufnr, on_done)
  compat.flush_changes(client)
  local commands = servers.diagnostics_sync(client, vim.uri_from_bufnr(bufnr)) or {}
  local left, empty = #commands, true
  local function one(err, result)
    local body = type(result) == 'table' and (result.body or result) or nil
    if err or type(body) ~= 'table' or #body > 0 then
      empty = false
    end
    left = left - 1
    if left == 0 then
      on_done(empty)
    end
  end
  for _, command in ipairs(commands) do
    local ok = pcall(compat.request, client, 'workspace/executeCommand', command, one, bufnr)
    if not ok then
      one('failed', nil)
    end
  end
end

--- Replaces a buffer's whole text (the check's second Neovim only: never
--- called on the user's Neovim). Returns the new changedtick.
---@param bufnr integer
---@param text string
---@return integer changedtick
function M.set_text(bufnr, text)
  local lines = vim.split((text:gsub('\r\n', '\n')), '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  local cur = api.nvim_buf_get_lines(bufnr, 0, -1, false)
  if not vim.deep_equal(cur, lines) then
    api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  end
  return vim.b[bufnr].changedtick
end

--- Holds (on) or lets go of (off) the buffers a check loads in the check's
--- second Neovim (never called on the user's Neovim): buffers.load releases
--- the read-only buffers beyond max_loaded, and a check of more files than
--- that would lose its first ones before writing their new text.
---@param on boolean
function M.hold(on)
  if on then
    loaded.hold()
  else
    loaded.let_go()
    loaded.release_extra()
  end
end

--- Reloads a buffer from the disk, dropping its changes (the check's
--- second Neovim only).
---@param bufnr integer
function M.reload(bufnr)
  if api.nvim_buf_is_loaded(bufnr) then
    api.nvim_buf_call(bufnr, function()
      vim.cmd('silent! edit!')
    end)
    buffers.record_disk(bufnr, api.nvim_buf_get_name(bufnr))
  end
end

return M
