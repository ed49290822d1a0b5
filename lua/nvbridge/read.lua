--- A read tool's call in one round trip to Neovim: the open (buffers.open:
--- load, or reconcile with the disk), the wait for the servers
--- (wait.when_ready), the request(s) at the target through Neovim's client,
--- and the source lines of the locations the answer names. The Go side
--- locates the target on the line as it read it and sends the position in
--- every offset encoding; this side checks the buffer holds that line and
--- picks the encoding of the server that answers. When something the Go
--- side assumed does not hold (another line, no server for the method, a
--- server not known to have analysed the file), nothing is sent: the answer
--- says why (unsent) and carries what the Go side then goes on from, as
--- open_wait's does. Asynchronous (async.lua: nvbridge_done).
local M = {}

local api = vim.api

local async = require('nvbridge.async')
local buffers = require('nvbridge.buffers')
local settled = require('nvbridge.settled')
local snapshot = require('nvbridge.snapshot')
local status = require('nvbridge.status')
local wait = require('nvbridge.wait')
local done = async.done
local busy = require('nvbridge.observe').busy

--- Adds to wanted[uri] the lines of range: block lines from its start, and
--- its last line.
---@param wanted table<string, table<integer, true>>
---@param uri any
---@param range any
---@param block integer
local function add_range(wanted, uri, range, block)
  if type(uri) ~= 'string' or type(range) ~= 'table' or type(range.start) ~= 'table' or type(range['end']) ~= 'table' then
    return
  end
  local first, last = range.start.line, range['end'].line
  if type(first) ~= 'number' or type(last) ~= 'number' then
    return
  end
  local lines = wanted[uri] or {}
  wanted[uri] = lines
  for l = first, first + math.max(block, 1) - 1 do
    lines[l] = true
  end
  lines[last] = true
end

--- The lines of the locations a definition-like or references answer
--- names (null, Location, Location[] or LocationLink[]), by URI: block
--- lines from each range's start, and its last line.
---@param result any
---@param block integer
---@return table<string, table<integer, true>>
local function location_lines(result, block)
  local wanted = {}
  if type(result) ~= 'table' then
    return wanted
  end
  local list = result
  if result.uri or result.targetUri then
    list = { result }
  end
  for _, loc in ipairs(list) do
    if type(loc) == 'table' then
      -- As the Go side decodes it: range, else the link's selection
      -- range, else its range.
      if loc.range then
        add_range(wanted, loc.uri, loc.range, block)
      elseif loc.targetSelectionRange then
        add_range(wanted, loc.targetUri, loc.targetSelectionRange, block)
      elseif loc.targetRange then
        add_range(wanted, loc.targetUri, loc.targetRange, block)
      end
    end
  end
  return wanted
end

--- Adds to wanted the lines a hierarchy's first level shows (its entries'
--- names and call sites, as the Go side converts them): item's selection
--- range, and for each call of calls (callHierarchy/incomingCalls or
--- outgoingCalls: {from | to, fromRanges}) the called or calling item's
--- selection range and the call sites (in the caller: from's file for an
--- incoming call, item's for an outgoing one).
---@param wanted table<string, table<integer, true>>
---@param item any
---@param calls any
local function call_lines(wanted, item, calls)
  add_range(wanted, item.uri, item.selectionRange, 1)
  if type(calls) ~= 'table' then
    return
  end
  for _, call in ipairs(calls) do
    local other = type(call) == 'table' and (call.from or call.to)
    if type(other) == 'table' then
      add_range(wanted, other.uri, other.selectionRange, 1)
      local sites = call.from and other.uri or item.uri
      for _, r in ipairs(type(call.fromRanges) == 'table' and call.fromRanges or {}) do
        add_range(wanted, sites, r, 1)
      end
    end
  end
end

-- The last loaded_buffers, and settled's generation it was made at: no
-- buffer was loaded, named, unloaded or wiped since while it stays (each
-- moves it), and the same table serves (read only) without a walk of every
-- buffer.
local loaded_kept, loaded_at

--- The loaded buffers by name.
---@return table<string, integer>
local function loaded_buffers()
  local at = settled.installed and settled.generation
  if at and at == loaded_at then
    return loaded_kept
  end
  local loaded = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) then
      loaded[api.nvim_buf_get_name(b)] = b
    end
  end
  loaded_kept, loaded_at = loaded, at or nil
  return loaded
end

-- The file names of the URIs answers named, as vim.uri_to_fname makes
-- them: a function of the URI alone, so a name kept is never stale. Done
-- once the server answered, its pattern matches and the strings they made
-- cost a read's answer more than the rest of loaded_lines (the same few
-- files come back read after read). Bounded: emptied past fnames_max.
local fnames, nfnames, fnames_max = {}, 0, 4096

--- The file name of a file: URI (vim.uri_to_fname), kept.
---@param uri string
---@return string
local function fname_of(uri)
  local name = fnames[uri]
  if not name then
    name = vim.uri_to_fname(uri)
    if nfnames >= fnames_max then
      fnames, nfnames = {}, 0
    end
    fnames[uri] = name
    nfnames = nfnames + 1
  end
  return name
end

--- Reads the wanted lines of the files loaded in buffers (what the servers
--- see), by URI: {uri: {"line": text}}. A file no buffer holds is left out
--- (the Go side reads the disk, as for get_lines). loaded: the loaded
--- buffers by name, as loaded_buffers found them when the request went
--- (made while the server worked); a buffer unloaded or renamed since is
--- left out, and one loaded since is as it was then: not loaded.
---@param wanted table<string, table<integer, true>>
---@param loaded table<string, integer>?
---@return table
local function loaded_lines(wanted, loaded)
  local out = vim.empty_dict()
  if next(wanted) == nil then
    return out
  end
  loaded = loaded or loaded_buffers()
  for uri, lines in pairs(wanted) do
    local name = uri:sub(1, 5) == 'file:' and fname_of(uri)
    local b = name and loaded[name]
    if b and api.nvim_buf_is_loaded(b) and api.nvim_buf_get_name(b) == name then
      local texts = vim.empty_dict()
      for l in pairs(lines) do
        local text = l >= 0 and api.nvim_buf_get_lines(b, l, l + 1, false)[1]
        if text then
          texts[tostring(l)] = text
        end
      end
      out[uri] = texts
    end
  end
  return out
end

-- The offset encodings spec.character stands for when spec.positions is
-- not there.
local encodings = { ['utf-8'] = true, ['utf-16'] = true, ['utf-32'] = true }

--- Gives the answers without a result (null) an explicit one: JSON null.
---@param answers table[]
local function null_results(answers)
  for i, a in ipairs(answers) do
    if a.result == nil and not a.err then
      answers[i] = { result = vim.NIL }
    end
  end
end

--- One read: opens spec.path, waits for its servers, and, when the
--- buffer's line spec.line is spec.text and a ready server that offers
--- spec.method has analysed the file, sends spec.method (params: the JSON
--- spec.params with the position of that server's encoding, from
--- spec.positions) and spec.also (the same position, when that server
--- offers them), then, once it answered with a list, spec.chain with
--- {item = its first item} where that server offers them (a call
--- hierarchy's first level). Answers JSON {buffer, clients, line, client,
--- answers, chained, lines} (client: the server asked; answers[i] and
--- chained[i]: {result} or {err}; chained only when sent; lines: of the
--- locations the first answer names, spec.block lines each, and of the
--- item and the chained answers' entries and call sites, from loaded
--- buffers), or the same without client, answers and lines and
--- with unsent saying why nothing was sent. An error answer to spec.method
--- is answers[1].err (the Go side reports it with the position asked).
---@param chan integer
---@param id integer
---@param spec nvbridge.ReadSpec
---@return nil # answers with nvbridge_done
function M.read(chan, id, spec)
  local st = buffers.open_lazy(spec.path, true)
  if st.err then
    return done(chan, id, st.err)
  end
  local bufnr = st.bufnr
  --- Sends the request once the servers are ready (ready: the ready
  --- clients, as Neovim has them).
  local function request(ready)
    local text = api.nvim_buf_get_lines(bufnr, spec.line, spec.line + 1, false)[1]
    local reply = { line = text == nil and vim.NIL or text }
    -- The reply's members after its first, as JSON, with the buffer's
    -- state and the clients described with the methods they support of
    -- the navigation ones and spec.methods: made once the request went,
    -- while the server works on it (the same as before it: nothing else
    -- ran between). described:
    -- the chosen server's description, whose methods the chain is sent by
    -- (the Go side reads the answers by the same).
    local tail, described
    local chosen
    local function reply_tail()
      if not tail then
        reply.buffer = buffers.state(bufnr, st.state)
        local clients = status.describe(ready, bufnr, status.position_methods(spec.methods))
        for _, c in ipairs(clients) do
          if chosen and c.id == chosen.id then
            described = c
          end
        end
        -- vim.json.encode has no empty array: none is null.
        reply.clients = #clients > 0 and clients or vim.NIL
        tail = vim.json.encode(reply):sub(2)
      end
      return tail
    end
    local function unsent(why)
      reply.unsent = why
      done(chan, id, nil, '{' .. reply_tail())
    end
    for _, c in ipairs(ready) do
      if status.supports_method(c, spec.method, bufnr) then
        chosen = c
        break
      end
    end
    if not chosen then
      return unsent('no server')
    end
    if text ~= spec.text then
      return unsent('line')
    end
    local encoding = chosen.offset_encoding or 'utf-16'
    local character
    if spec.positions then
      character = spec.positions[encoding]
    elseif encodings[encoding] then
      character = spec.character -- the same in every encoding
    end
    if not character then
      return unsent('encoding')
    end
    if not (spec.ready_names[chosen.name] or spec.analysed[bufnr .. ':' .. chosen.id]) then
      return unsent('analysis')
    end
    local client = chosen
    local position = { line = spec.line, character = character }
    -- The request's params: spec.params with the character written where
    -- the Go side left its place (params_at), as JSON the request carries
    -- as it is (compat.rpc_request), not decoded here and encoded again;
    -- decoded when that place is not known, or where a table is needed.
    local params, raw
    local at = spec.params_at
    if type(at) == 'number' and at > 0 then
      raw = spec.params:sub(1, at) .. character .. spec.params:sub(at + 2)
    else
      params = vim.json.decode(spec.params)
      params.position = position
    end
    local reqs = { { method = spec.method, params = params, json = raw } }
    for _, method in ipairs(spec.also or {}) do
      if status.supports_method(client, method, bufnr) then
        if raw and spec.params_bare then
          -- The same text: a TextDocumentPositionParams'.
          table.insert(reqs, { method = method, json = raw })
        else
          params = params or vim.json.decode(raw)
          table.insert(reqs, { method = method, params = { textDocument = params.textDocument, position = position } })
        end
      end
    end
    reply.client = chosen.id
    local loaded
    async.send(chan, id, bufnr, client, reqs, function(answers)
      null_results(answers)
      local wanted = spec.block > 0 and location_lines(answers[1].result, spec.block) or {}
      local function finish(chained)
        local lines = loaded_lines(wanted, loaded)
        -- The answers first: the trace shows an answer's start. No line
        -- of a loaded buffer (the usual definition: its file is not
        -- open) is {} without the encoder.
        done(chan, id, nil, '{"answers":' .. vim.json.encode(answers)
          .. (chained and ',"chained":' .. vim.json.encode(chained) or '')
          .. ',"lines":' .. (next(lines) == nil and '{}' or vim.json.encode(lines)) .. ',' .. reply_tail())
      end
      -- spec.chain: asked about the answer's first item, where the server
      -- offers them (a call hierarchy's first level, in this call).
      local result = answers[1].result
      local item = not answers[1].err and type(result) == 'table' and result[1]
      local chain = {}
      if type(item) == 'table' then
        reply_tail()
        for _, method in ipairs(spec.chain or {}) do
          if described.methods[method] then
            table.insert(chain, { method = method, params = { item = item } })
          end
        end
      end
      if #chain == 0 then
        return finish(nil)
      end
      async.send(chan, id, bufnr, client, chain, function(chained)
        null_results(chained)
        for _, a in ipairs(chained) do
          call_lines(wanted, item, a.result)
        end
        finish(chained)
      end)
    end)
    reply_tail()
    if spec.block > 0 or spec.chain then
      loaded = loaded_buffers()
    end
    if spec.snapshot then
      -- The file's snapshot, where a call of its own made beside this one
      -- would take it (nvim/read_snapshot.go), sent ahead of the answer;
      -- none (nil) when it cannot be taken: the Go side then asks for it.
      local ok, data = pcall(function()
        local function opened(path)
          return path == spec.path and bufnr or nil
        end
        return vim.mpack.encode(snapshot.files_found({ spec.path }, spec.snapshot, opened))
      end)
      vim.rpcnotify(chan, 'nvbridge_snapshot', id, ok and data or nil)
    end
  end
  -- The usual case, as wait.when_ready's first look finds it, with the
  -- clients looked up once: one is ready and none is busy.
  local ready = status.ready(bufnr)
  if #ready > 0 and not busy(ready) then
    return request(ready)
  end
  wait.when_ready(chan, id, bufnr, spec.grace_ms, 10000, function(err, cancelled)
    if cancelled then
      return done(chan, id, require('nvbridge._error').fail('TIMEOUT', 'request cancelled'))
    end
    if err then
      return done(chan, id, err)
    end
    request(status.ready(bufnr))
  end)
end

--- Reads some lines of the files loaded in buffers (what the servers see);
--- a file not loaded is left out of the answer: the Go side reads it from
--- the disk (in parallel, and without splitting every line before the
--- wanted ones into a Lua string).
---@param wanted table<string, integer[]> absolute path -> 0-based line numbers
---@return string json {path: {"line": text}} for the loaded files
function M.get_lines(wanted)
  local loaded = loaded_buffers()
  local out = vim.empty_dict()
  for path, lines in pairs(wanted) do
    local bufnr = loaded[path]
    if bufnr and api.nvim_buf_is_loaded(bufnr) then
      local texts = vim.empty_dict()
      for _, lnum in ipairs(lines) do
        local text = api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, false)[1]
        if text then
          texts[tostring(lnum)] = text
        end
      end
      out[path] = texts
    end
  end
  return vim.json.encode(out)
end

return M
