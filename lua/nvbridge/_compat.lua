--- Differences between the Neovim versions nvbridge supports (0.10 and
--- later), in one place. Neovim 0.11 turned client functions into methods
--- (client:request), changed vim.str_utfindex's signature and versions LSP
--- documents by changedtick; vim.lsp._changetracking is private API.
local M = {}

M.has_011 = vim.fn.has('nvim-0.11') == 1

-- Whether each option read through buf_option is a boolean (by name).
local is_boolean = {}

--- Buffer b's local option name, as vim.bo[b][name] reads it, without its
--- cost: for a buffer that is not the current one, vim.bo and
--- nvim_get_option_value switch into Neovim's autocmd window and back
--- (aucmd_prepbuf: window state, two getcwd calls) for every option read,
--- five times the cost of getbufvar, which makes the buffer current for the
--- read alone. For the buffer-local options nvbridge reads (modified, eol,
--- filetype, buftype, ...); b must be a valid buffer.
---@param b integer
---@param name string
---@return any
function M.buf_option(b, name)
  local boolean = is_boolean[name]
  if boolean == nil then
    boolean = vim.api.nvim_get_option_info2(name, {}).type == 'boolean'
    is_boolean[name] = boolean
  end
  local v = vim.fn.getbufvar(b, '&' .. name)
  if boolean then
    return v == 1
  end
  return v
end

--- The LSP clients, as vim.lsp.get_clients (0.9's get_active_clients).
---@param filter table? as vim.lsp.get_clients
---@return vim.lsp.Client[]
function M.get_clients(filter)
  return (vim.lsp.get_clients or vim.lsp.get_active_clients)(filter)
end

--- Whether client supports method for bufnr (static and dynamic registrations).
---@param client vim.lsp.Client
---@param method string
---@param bufnr integer
---@return boolean
function M.supports(client, method, bufnr)
  if M.has_011 then
    return client:supports_method(method, bufnr)
  end
  -- 0.10 checks the static capability, then, for a method the server does
  -- not offer statically, whether it may register it dynamically (a
  -- vim.split and two table walks: ten times the static check, and a read
  -- asks about eleven methods) before looking for a registration. With
  -- none registered for the method, its answer is the static one: the
  -- same check, without the detour.
  local to_capability = vim.lsp._request_name_to_capability
  local dynamic = client.dynamic_capabilities
  if type(to_capability) == 'table' and type(dynamic) == 'table' and type(dynamic.capabilities) == 'table' then
    local registered = dynamic.capabilities[method]
    if not (type(registered) == 'table' and registered[1] ~= nil) then
      local capability = to_capability[method]
      if not capability then
        return true -- a method Neovim does not know: it assumes support
      end
      -- vim.tbl_get(server_capabilities, unpack(capability)), without its
      -- argument checks: nil through a missing key or a value that is no
      -- table before the last key.
      local v = client.server_capabilities
      if #capability == 0 or type(v) ~= 'table' then
        return false
      end
      for i = 1, #capability do
        if type(v) ~= 'table' then
          return false
        end
        v = v[capability[i]]
        if v == nil then
          return false
        end
      end
      return v and true or false
    end
  end
  return client.supports_method(method, { bufnr = bufnr })
end

--- Sends a request through client (client:request in 0.11).
---@param client vim.lsp.Client
---@param method string
---@param params table?
---@param handler fun(err: table?, result: any, ctx: table)
---@param bufnr integer?
---@return boolean ok, integer? request_id
function M.request(client, method, params, handler, bufnr)
  if M.has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

-- The rpc connections of 0.10's clients (vim.lsp.rpc's Client, an upvalue
-- of client.rpc.request), by that function; false where it has none of
-- the shape rpc_request writes to (a function put in its place, by a
-- plugin or a test, that wraps it: rpc_request then calls it). Weak: a
-- stopped client's goes with it.
local rpc_conns = setmetatable({}, { __mode = 'k' })

--- The rpc connection behind client.rpc.request, as 0.10's vim.lsp.rpc
--- has it ({message_index, message_callbacks, notify_reply_callbacks,
--- transport = {write, is_closing}}), or nil.
---@param request function
---@return table?
local function rpc_conn(request)
  local conn = rpc_conns[request]
  if conn == nil then
    conn = false
    for i = 1, debug.getinfo(request, 'u').nups do
      local name, value = debug.getupvalue(request, i)
      if name == 'client' then
        if type(value) == 'table' and type(value.message_index) == 'number'
          and type(value.message_callbacks) == 'table' and type(value.notify_reply_callbacks) == 'table'
          and type(value.transport) == 'table' and type(value.transport.write) == 'function'
          and type(value.transport.is_closing) == 'function' then
          conn = value
        end
        break
      end
    end
    rpc_conns[request] = conn
  end
  return conn or nil
end

--- Sends a request through client's RPC connection, as
--- client.rpc.request(method, params, callback, notice) does. 0.10's
--- (vim.lsp.rpc's Client:encode_and_send) formats vim.inspect(payload) for
--- an assert message on every message it sends, whether the encoding
--- failed or not (it never returns a false value): about 30 us for a
--- definition's request, ahead of the request on every read. On 0.10 this
--- sends it as that does without it, on the same connection (its message
--- ids, its callbacks, its log); on 0.11 (which dropped it) or a
--- connection of another shape, through client.rpc.request.
--- json, when given (params nil), is the params as JSON: on 0.10's
--- connection the message is written around it, the params neither
--- decoded nor encoded (a read's request, made by the Go side); decoded
--- for client.rpc.request, and when the LSP log keeps debug messages (it
--- logs the payload as a table).
---@param client vim.lsp.Client
---@param method string
---@param params table?
---@param callback fun(err: table?, result: any)
---@param notice fun(request_id: integer)? called (scheduled) once a reply came (0.10's connection: one without an answer)
---@param json string?
---@return boolean ok, integer? request_id
function M.rpc_request(client, method, params, callback, notice, json)
  local request = client.rpc.request
  local conn = not M.has_011 and type(request) == 'function' and rpc_conn(request)
  if not conn then
    return client.rpc.request(method, params or vim.json.decode(json), callback, notice)
  end
  local log = require('vim.lsp.log')
  if json and log.should_log(log.levels.DEBUG) then
    params, json = vim.json.decode(json), nil
  end
  conn.message_index = conn.message_index + 1
  local id = conn.message_index
  local message
  if json then
    message = '{"id":' .. id .. ',"jsonrpc":"2.0","method":' .. vim.json.encode(method) .. ',"params":' .. json .. '}'
  else
    local payload = { id = id, jsonrpc = '2.0', method = method, params = params }
    log.debug('rpc.send', payload)
    message = vim.json.encode(payload)
  end
  if conn.transport.is_closing() then
    return false, nil
  end
  conn.transport.write('Content-Length: ' .. #message .. '\r\n\r\n' .. message)
  if not notice then
    conn.message_callbacks[id] = vim.schedule_wrap(callback)
    return true, id
  end
  -- The reply in one scheduled call. Neovim calls, as the reply is read
  -- (a fast event: no API), the notice, then, unless the reply is a
  -- RequestCancelled (it drops those), the callback. Scheduled each, as
  -- rpc.request has them, the notice (which schedules its own check) ran
  -- ahead of the callback: two scheduled calls and a third after, on the
  -- way of every answer. Here the notice schedules the one call and the
  -- callback, called before that runs, leaves it the answer: the call runs
  -- the callback with it, or, with none, the notice (a reply without an
  -- answer). A callback called without the notice first (not from a
  -- reply) is scheduled as before.
  local noticed, answered, answer_err, answer_result = false, false, nil, nil
  conn.message_callbacks[id] = function(err, result)
    if noticed then
      answered, answer_err, answer_result = true, err, result
    else
      vim.schedule(function()
        callback(err, result)
      end)
    end
  end
  conn.notify_reply_callbacks[id] = function()
    noticed = true
    vim.schedule(function()
      if answered then
        callback(answer_err, answer_result)
      else
        notice(id)
      end
    end)
  end
  return true, id
end

--- Cancels a request of client's ($/cancelRequest).
---@param client vim.lsp.Client
---@param request_id integer
---@return boolean
function M.cancel_request(client, request_id)
  if M.has_011 then
    return client:cancel_request(request_id)
  end
  return client.cancel_request(request_id)
end

--- Whether client is stopped or stopping.
---@param client vim.lsp.Client
---@return boolean
function M.is_stopped(client)
  if M.has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- A byte column of line in the client's units ('utf-8', 'utf-16', 'utf-32').
---@param line string
---@param enc 'utf-8'|'utf-16'|'utf-32'
---@param col integer byte column
---@return integer
function M.utfindex(line, enc, col)
  col = math.min(col, #line)
  if enc == 'utf-8' then
    return col
  end
  if M.has_011 then
    return vim.str_utfindex(line, enc, col, false)
  end
  local utf32, utf16 = vim.str_utfindex(line, col)
  return enc == 'utf-32' and utf32 or utf16
end

--- A column of line in the client's units as a byte column (the inverse of
--- utfindex); past the line's end: the line's length.
---@param line string
---@param enc 'utf-8'|'utf-16'|'utf-32'
---@param col integer
---@return integer
function M.byteindex(line, enc, col)
  if enc == 'utf-8' or col <= 0 then
    return math.max(0, math.min(col, #line))
  end
  local ok, b
  if M.has_011 then
    ok, b = pcall(vim.str_byteindex, line, enc, col, false)
  else
    ok, b = pcall(vim.str_byteindex, line, col, enc == 'utf-16')
  end
  return ok and b or #line
end

--- The buffer's document version as its language servers know it, or nil
--- when no server has it open (then a server cannot have versioned it).
---@param bufnr integer
---@return integer?
function M.lsp_version(bufnr)
  if not M.has_011 then
    -- 0.10 keeps a version per buffer while a client is attached.
    return vim.lsp.util.buf_versions[bufnr]
  end
  if #M.get_clients({ bufnr = bufnr }) == 0 then
    return nil
  end
  return vim.b[bufnr].changedtick -- 0.11 versions documents by changedtick
end

--- Sends the client every pending (debounced) didChange, of every buffer:
--- Neovim flushes only the requested buffer's before a request. Private
--- API; a Neovim without it sends changes unbatched anyway.
---@param client vim.lsp.Client
function M.flush_changes(client)
  local changetracking = vim.lsp._changetracking
  if changetracking and changetracking.flush then
    pcall(changetracking.flush, client)
  end
end

return M
