--- The asynchronous operations (LSP requests, the waits, approvals): the
--- Go side starts one with an id and gets its outcome later, as the
--- notification
---   nvbridge_done(id, err, result_json)
--- on the caller's channel (err: nil or an nvbridge.Error). Nothing here
--- blocks Neovim's main loop. The operations in flight live here only, so
--- that cancel, a server's exit and teardown can answer them.
local M = {}

local api = vim.api

local compat = require('nvbridge._compat')
local fail = require('nvbridge._error').fail
local observe = require('nvbridge.observe')
local get_clients = compat.get_clients
local supports = compat.supports
local client_cancel = compat.cancel_request

-- Operations in flight by channel and id: LSP requests through one client
-- {client, bufnr, chan, id, pending = {request_id = i}, methods, settle}
-- (send), or {cancel} for the others.
---@type table<string, table>
local in_flight = {}

local function key(chan, id)
  return chan .. ':' .. id
end

-- Progress relays of requests in flight (relay_progress), stopped by done.
local relays = {}
-- Completions that add to an operation's answer before it is sent
-- (open_wait: the buffer and a line read once the wait is over).
local finals = {}

--- Answers operation id of channel chan (nvbridge_done): its relay of
--- progress stops, and a completion registered with on_final adds to a
--- successful result.
---@param chan integer
---@param id integer
---@param err nvbridge.Error?
---@param result string? JSON
local function done(chan, id, err, result)
  local k = key(chan, id)
  in_flight[k] = nil
  local stop = relays[k]
  if stop then
    relays[k] = nil
    stop()
  end
  local final = finals[k]
  if final then
    finals[k] = nil
    if not err then
      result = final(result)
    end
  end
  vim.rpcnotify(chan, 'nvbridge_done', id, err, result)
end

M.done = done

--- Lets an operation of another module (a wait, an approval) be cancelled
--- like a request (cancel, teardown): cancel ends it.
---@param chan integer
---@param id integer
---@param cancel fun()
function M.track(chan, id, cancel)
  in_flight[key(chan, id)] = { cancel = cancel }
end

--- Forgets an operation track registered (it ended by itself).
---@param chan integer
---@param id integer
function M.untrack(chan, id)
  in_flight[key(chan, id)] = nil
end

--- Registers a completion of operation id's successful answer: final(result)
--- is what nvbridge_done sends (open_wait adds the buffer and a line read
--- once the wait is over).
---@param chan integer
---@param id integer
---@param final fun(result: string): string
function M.on_final(chan, id, final)
  finals[key(chan, id)] = final
end

-- The relays in place (relay_progress) as keys: {chan, id, bufnr}.
-- async.install's one LspProgress autocmd relays for them all: an autocmd
-- made and deleted per request cost more than the rest of its relay
-- (nvim_del_autocmd alone takes tens of microseconds).
---@type table<{chan: integer, id: integer, bufnr: integer}, true>
local relaying = {}

--- Sends one piece of a client's work to the caller of operation id.
local function relay(chan, id, client, work)
  if type(work) ~= 'table' then
    return
  end
  vim.rpcnotify(chan, 'nvbridge_progress', id, {
    server = client.name,
    title = work.title,
    message = work.message,
    percentage = work.percentage,
  })
end

--- An LspProgress event, relayed to operation r if the reporting client is
--- attached to its buffer.
---@param r {chan: integer, id: integer, bufnr: integer}
---@param ev table
local function relay_event(r, ev)
  local data = ev.data or {}
  local params = data.params or {}
  if not data.client_id or params.token == nil then
    return
  end
  for _, client in ipairs(get_clients({ bufnr = r.bufnr })) do
    if client.id == data.client_id then
      local value = params.value or {}
      local work = observe.work(client.id)[params.token]
      relay(r.chan, r.id, client, work or { title = value.title, message = value.message or (value.kind == 'end' and 'finished' or nil) })
    end
  end
end

--- install's LspProgress autocmd: the event, relayed to every operation
--- relaying.
---@param ev table
local function on_progress(ev)
  for r in pairs(relaying) do
    relay_event(r, ev)
  end
end

--- Relays the $/progress of the buffer's clients to the caller of async
--- operation id while it waits (a server indexing before it can answer), as
--- nvbridge_progress(id, {server, title, message, percentage}): the work
--- under way now, then each LspProgress of those clients. Returns the
--- function that stops relaying.
---@param chan integer
---@param id integer
---@param bufnr integer
---@return fun() stop
function M.relay_progress(chan, id, bufnr)
  if observe.any_work() then
    for _, client in ipairs(get_clients({ bufnr = bufnr })) do
      for _, work in pairs(observe.work(client.id)) do
        relay(chan, id, client, work)
      end
    end
  end
  local r = { chan = chan, id = id, bufnr = bufnr }
  local autocmd
  if M.installed then
    relaying[r] = true
  else
    -- Without install's autocmd (a module loaded on its own), one of its own.
    autocmd = api.nvim_create_autocmd('LspProgress', {
      callback = function(ev)
        relay_event(r, ev)
      end,
    })
  end
  local stopped = false
  return function()
    if not stopped then
      stopped = true
      relaying[r] = nil
      if autocmd then
        pcall(api.nvim_del_autocmd, autocmd)
      end
    end
  end
end
local relay_progress = M.relay_progress

--- Stops and closes a wait's timers and deletes its autocmds (once the
--- wait is over, however it ended).
---@param timers uv.uv_timer_t[]
---@param autocmds integer[]
function M.release(timers, autocmds)
  for _, t in ipairs(timers) do
    t:stop()
    t:close()
  end
  for _, a in ipairs(autocmds) do
    pcall(api.nvim_del_autocmd, a)
  end
end

--- The error an LSP error answer to method is.
---@param client vim.lsp.Client
---@param method string
---@param err table the answer's error
---@return nvbridge.Error
local function request_error(client, method, err)
  if err.code == -32601 then
    -- Neovim deems methods it has no capability mapping for supported
    -- (0.10: textDocument/moniker, ...); the server's MethodNotFound
    -- is the real answer.
    return fail('UNSUPPORTED', string.format('%s does not implement %s (%s)', client.name, method, err.message or 'method not found'))
  end
  local code = err.code == -32800 and 'TIMEOUT' or 'OPERATION_FAILED'
  return fail(code, client.name .. ': ' .. (err.message or vim.inspect(err)))
end

--- Sends requests through one client as operation id of channel chan, all
--- at once, and calls finish(answers) once every one has answered:
--- answers[i] is {result = value} or {err = nvbridge.Error} for reqs[i]
--- ({method, params}). Pending changes of every buffer are sent first, and
--- the client's $/progress is relayed meanwhile. An operation cancelled
--- (cancel, teardown) answers nvbridge_done itself: finish is not called.
---@param chan integer
---@param id integer
---@param bufnr integer
---@param client vim.lsp.Client
---@param reqs {method: string, params: table?, json: string?}[] json: the params as JSON, sent as they are (params nil)
---@param finish fun(answers: table[])
function M.send(chan, id, bufnr, client, reqs, finish)
  -- Neovim flushes (debounced) didChange only for the request's own buffer;
  -- a request about several files (rename after a multi-buffer edit or
  -- undo) must see every buffer's current text, so send all pending changes.
  compat.flush_changes(client)
  local k = key(chan, id)
  -- pending: request id -> index in reqs, until answered.
  local op = { client = client, bufnr = bufnr, chan = chan, id = id, pending = {}, methods = {} }
  local answers, left = {}, #reqs
  function op.settle(i, answer)
    if answers[i] or in_flight[k] ~= op then
      return
    end
    answers[i] = answer
    for rid, j in pairs(op.pending) do
      if j == i then
        op.pending[rid] = nil
      end
    end
    left = left - 1
    if left == 0 then
      in_flight[k] = nil
      finish(answers)
    end
  end
  in_flight[k] = op
  for i, r in ipairs(reqs) do
    op.methods[i] = r.method
    -- Through the client's RPC connection (vim.lsp.rpc's request), not
    -- client.request: that one runs the LspRequest autocmds twice per
    -- request (sent, answered), which with any handler installed costs more
    -- than the rest of a read's Lua. The reply notice is ours instead:
    -- Neovim drops the result callback of a RequestCancelled (-32800) reply
    -- (it assumes it cancelled the request itself), and both the notice and
    -- the callback are scheduled when the reply arrives, in that order, so
    -- a check scheduled from the notice runs after the callback would have:
    -- a request still pending then got that reply. (On 0.10's connection,
    -- compat.rpc_request calls the notice only for a reply without an
    -- answer, and the callback in the notice's place.)
    local ok, request_id = compat.rpc_request(client, r.method, r.params, function(err, result)
      op.settle(i, err and { err = request_error(client, r.method, err) } or { result = result })
    end, function(request_id)
      vim.schedule(function()
        if op.pending[request_id] then
          op.settle(i, { err = fail('TIMEOUT', string.format(
            '%s cancelled %s (RequestCancelled) without an answer', client.name, r.method)) })
        end
      end)
    end, r.json)
    if ok then
      op.pending[request_id] = i
    else
      op.settle(i, { err = fail('OPERATION_FAILED', client.name .. ' refused ' .. r.method .. ' (server stopped?)') })
    end
  end
  -- A server still loading answers late: relay its $/progress meanwhile
  -- (once per operation: a read sends again about the first answer). Set
  -- up once the requests went (no progress is handled before this
  -- returns), unless they were all answered at once.
  if in_flight[k] == op then
    relays[k] = relays[k] or relay_progress(chan, id, bufnr)
  end
end

--- Sends one request through a client attached to the buffer. The result
--- arrives as nvbridge_done(id, err, json).
---@param client_id integer 0 picks the first attached client supporting method
---@param chan integer
---@param id integer
---@param bufnr integer
---@param method string
---@param params_json string
---@return nil # answers with nvbridge_done
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
  M.send(chan, id, bufnr, chosen, { { method = method, params = params } }, function(answers)
    local a = answers[1]
    if a.err then
      return done(chan, id, a.err)
    end
    -- The result alone: the Go side decodes it once, into its own type.
    done(chan, id, nil, vim.json.encode(a.result == nil and vim.NIL or a.result))
  end)
end

--- Runs one op of start_ops (a function of its own, not a closure made
--- per op: pcall calls it with its arguments).
---@param chan integer
---@param op table
local function start_op(chan, op)
  local module, name = op[1], op[2]
  local fn = require(module)[name]
  if type(fn) ~= 'function' then
    error('not an operation: ' .. tostring(module) .. '.' .. tostring(name), 0)
  end
  fn(chan, op[3], unpack(op, 5, 4 + op[4]))
end

--- Starts several asynchronous operations in one call (the Go side
--- batches the starts its callers make together): each op is {module,
--- name, id, count, args...}, run as require(module)[name](chan, id,
--- args...) under pcall, so that one's error ends that operation
--- (nvbridge_done with the error) and not the others. The Go side names
--- the operations (nvim/entrypoints.go); count, because a nil argument
--- leaves a hole in the table.
---@param ops table[]
---@param chan integer
function M.start_ops(chan, ops)
  for _, op in ipairs(ops) do
    local ok, err = pcall(start_op, chan, op)
    if not ok then
      done(chan, op[3], type(err) == 'table' and err or fail('OPERATION_FAILED', tostring(err)))
    end
  end
end

--- Cancels an operation started by request or a wait (the LSP request gets
--- $/cancelRequest). Completes the operation with a TIMEOUT error unless it
--- has already completed.
---@param chan integer
---@param id integer
---@return boolean found
function M.cancel(chan, id)
  local op = in_flight[key(chan, id)]
  if not op then
    return false
  end
  if op.cancel then
    op.cancel()
    return true
  end
  for request_id in pairs(op.pending) do
    client_cancel(op.client, request_id)
  end
  done(chan, id, fail('TIMEOUT', 'request cancelled'))
  return true
end

--- Ends every operation in flight (teardown): each tracked one is
--- cancelled, requests are forgotten.
function M.cancel_all()
  for k, op in pairs(in_flight) do
    if op.cancel then
      pcall(op.cancel)
    end
    in_flight[k] = nil
  end
end

--- Installs the autocmds that answer requests a server will not answer
--- (bridge.setup), in group.
---@param group integer
function M.install(group)
  M.installed = true
  api.nvim_create_autocmd('LspProgress', { group = group, callback = on_progress })
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
          for _, i in pairs(op.pending) do
            op.settle(i, { err = fail('OPERATION_FAILED', string.format(
              '%s stopped (exited or detached from the buffer) before answering %s', op.client.name, op.methods[i])) })
          end
        end
      end
    end,
  })
end

return M
