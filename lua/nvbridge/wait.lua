--- The waits on language servers a request needs first: for a buffer's
--- clients to be ready (attached, their loading work over) and for their
--- diagnostics of its current text. Each is an asynchronous operation
--- (async.lua: it answers with nvbridge_done), and each first checks
--- whether what it waits for has happened, then subscribes to the events
--- (observe.lua) that may bring it, within a bound.
local M = {}

local uv = vim.uv or vim.loop
local api = vim.api

local async = require('nvbridge.async')
local buffers = require('nvbridge.buffers')
local observe = require('nvbridge.observe')
local status = require('nvbridge.status')
local done, release, relay_progress = async.done, async.release, async.relay_progress
-- running: the buffer's ready clients as Neovim has them (the waits count
-- them and ask whether one is busy); only wait_clients' answer describes
-- them (ready_clients).
local running, ready_clients, busy, down_error = status.ready, status.ready_clients, observe.busy, observe.down_error

--- Calls ready(err, cancelled) once the buffer's clients are ready: at
--- least one attached and none reporting $/progress work (such as gopls
--- loading the workspace). When none is attached and none is expected (no
--- server was started for the filetype), at once; when one may still come
--- (attached mode: the user's config may start it), after up to grace_ms
--- for LspAttach. Progress is waited on for at most progress_ms after
--- attachment: a server that never ends a token must not stall every
--- request. err: the buffer's server went down (and no client is ready);
--- cancelled: operation id was cancelled meanwhile.
---@param chan integer
---@param id integer
---@param bufnr integer
---@param grace_ms integer
---@param progress_ms integer
---@param ready fun(err: nvbridge.Error?, cancelled: boolean?)
---@return nil # calls ready
function M.when_ready(chan, id, bufnr, grace_ms, progress_ms, ready)
  -- The usual case, at the cost of one look at the clients: one is ready
  -- and none is busy (what settled() below finds first).
  local now = running(bufnr)
  if #now > 0 and not busy(now) then
    return ready(nil)
  end
  local expected = vim.b[bufnr].nvbridge_lsp_expected
  -- The grace period is spent once per buffer: a filetype no configured
  -- server handles must not cost it on every call.
  if vim.b[bufnr].nvbridge_grace_spent then
    grace_ms = 0
  end
  local function settled()
    local clients = running(bufnr)
    if #clients > 0 then
      return not busy(clients)
    end
    return not expected and grace_ms <= 0
  end
  -- A buffer whose server died (and is not being restarted): say so at
  -- once, without a grace period for a server that is not coming.
  if #running(bufnr) == 0 and down_error(bufnr) then
    return ready(down_error(bufnr))
  end
  if settled() then
    return ready(nil)
  end
  local finished = false
  local attach_timer = uv.new_timer()
  local progress_timer = uv.new_timer()
  local autocmds = {}
  local stop_relay = relay_progress(chan, id, bufnr)
  local function finish(cancelled)
    if finished then
      return
    end
    finished = true
    release({ attach_timer, progress_timer }, autocmds)
    stop_relay()
    vim.b[bufnr].nvbridge_grace_spent = true
    if #running(bufnr) == 0 and down_error(bufnr) then
      return ready(down_error(bufnr), cancelled)
    end
    ready(nil, cancelled)
  end
  local progress_started = false
  local function check()
    if finished then
      return
    end
    if #running(bufnr) > 0 and not progress_started then
      progress_started = true
      attach_timer:stop()
      progress_timer:start(progress_ms, 0, vim.schedule_wrap(function()
        -- The bound is spent once per client: a server that never ends
        -- its work must not stall every later request.
        for _, client in ipairs(running(bufnr)) do
          observe.stop_waiting_for_work(client.id)
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
  table.insert(autocmds, api.nvim_create_autocmd('User', { pattern = 'NvbridgeServerStatus', callback = vim.schedule_wrap(check) }))
  async.track(chan, id, vim.schedule_wrap(function()
    finish(true)
  end))
  -- Bounds, not delays: an expected server that never attaches must not
  -- hang the caller (the Go side has its own timeout as well).
  attach_timer:start(expected and math.max(grace_ms, 60000) or grace_ms, 0, vim.schedule_wrap(finish))
  check()
end

--- Completes with the buffer's initialized clients once they are ready
--- (when_ready), each described with the methods it supports: all of
--- them, or only those of the list methods.
---@param methods string[]|nil
---@param chan integer
---@param id integer
---@param bufnr integer
---@param grace_ms integer
---@param progress_ms integer? (default 10000)
---@return nil # answers with nvbridge_done
function M.wait_clients(chan, id, bufnr, grace_ms, methods, progress_ms)
  local with_methods = type(methods) == 'table' and methods or true
  M.when_ready(chan, id, bufnr, grace_ms, progress_ms or 10000, function(err)
    if err then
      return done(chan, id, err)
    end
    done(chan, id, nil, vim.json.encode(ready_clients(bufnr, with_methods)))
  end)
end

--- Opens path (buffers.open: loads it, or reconciles the loaded buffer
--- with the disk), waits for its clients as wait_clients does, and answers
--- {buffer, clients, line}: the buffer's state, its ready clients, and the
--- text of 0-based line when line >= 0, read once the wait is over (as the
--- request that follows will see it). What a position tool needs before
--- its request, in one round trip. methods: as wait_clients.
---@param chan integer
---@param id integer
---@param path string absolute
---@param must_exist boolean
---@param line integer 0-based; -1: none
---@param grace_ms integer
---@param methods string[]|nil
---@return nil # answers with nvbridge_done
function M.open_wait(chan, id, path, must_exist, line, grace_ms, methods)
  local st = buffers.open(path, must_exist)
  if st.err then
    return done(chan, id, st.err)
  end
  local bufnr = st.bufnr
  async.on_final(chan, id, function(clients)
    if clients == '{}' then
      clients = '[]' -- vim.json.encode has no empty array
    end
    local now = buffers.state(bufnr, st.state)
    local text
    if line >= 0 then
      text = api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
    end
    return '{"clients":' .. clients .. ',"buffer":' .. vim.json.encode(now) .. ',"line":' .. vim.json.encode(text == nil and vim.NIL or text) .. '}'
  end)
  M.wait_clients(chan, id, bufnr, grace_ms, methods)
end

--- Completes once every listed client has published diagnostics for the
--- buffer's current text (by document version when the server sends one,
--- else by a publish after the last change), or after bound_ms.
---@param chan integer
---@param id integer
---@param bufnr integer
---@param client_ids integer[]
---@param bound_ms integer
---@return nil # answers with nvbridge_done
function M.wait_diagnostics(chan, id, bufnr, client_ids, bound_ms)
  local function unsettled_ms()
    return observe.unsettled_ms(bufnr, client_ids)
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
  async.track(chan, id, vim.schedule_wrap(function()
    finish(false)
  end))
  timer:start(bound_ms, 0, vim.schedule_wrap(function()
    finish(false)
  end))
  check()
end

return M
