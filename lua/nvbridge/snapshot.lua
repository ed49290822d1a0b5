--- Snapshots of files as Neovim holds them, what a change is planned on
--- (Go: nvim/snapshot.go): a loaded buffer's text (what a write would
--- produce), else the file on disk as Neovim would show it once loaded.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local buffers = require('nvbridge.buffers')
local compat = require('nvbridge._compat')
local buf_option = compat.buf_option
local fail = require('nvbridge._error').fail
local undo_log = require('nvbridge.undo_log')
local read_file, fingerprint, buffer_text = buffers.read_file, buffers.fingerprint, buffers.buffer_text
local buffer_index, loaded_buffer, reconcile = buffers.buffer_index, buffers.loaded_buffer, buffers.check_disk
local modified_by_user = undo_log.modified_by_user

local BOM = '\239\187\191'

local function strip_bom(data)
  if data and data:sub(1, 3) == BOM then
    return data:sub(4), true
  end
  return data, false
end

--- Whether s is valid UTF-8 (as Neovim's 'fileencodings' entry "utf-8"
--- requires before it picks that encoding).
local function valid_utf8(s)
  if not s:find('[\128-\255]') then
    return true
  end
  local i, n = 1, #s
  local byte = string.byte
  while i <= n do
    local c = byte(s, i)
    local len
    if c < 0x80 then
      len = 1
    elseif c >= 0xC2 and c <= 0xDF then
      len = 2
    elseif c >= 0xE0 and c <= 0xEF then
      len = 3
    elseif c >= 0xF0 and c <= 0xF4 then
      len = 4
    else
      return false
    end
    for k = i + 1, i + len - 1 do
      local cc = byte(s, k)
      if not cc or cc < 0x80 or cc > 0xBF then
        return false
      end
    end
    if len == 3 then
      local c2 = byte(s, i + 1)
      if (c == 0xE0 and c2 < 0xA0) or (c == 0xED and c2 > 0x9F) then
        return false -- overlong, or a UTF-16 surrogate
      end
    elseif len == 4 then
      local c2 = byte(s, i + 1)
      if (c == 0xF0 and c2 < 0x90) or (c == 0xF4 and c2 > 0x8F) then
        return false
      end
    end
    i = i + len
  end
  return true
end

--- The text Neovim shows for a file's bytes when it loads them: converted to
--- UTF-8 by the first 'fileencodings' entry that fits (a Latin-1 file's
--- "caf\xe9" is "café"), without the BOM. Returns the text, whether there
--- was a BOM, and the encoding ('fileencoding' after loading). A buffer
--- loaded later is checked against this (prepare), so a case where Neovim
--- decides otherwise is refused, never edited at the wrong bytes.
---@param data string
---@return string text, boolean bomb, string encoding
local function as_loaded(data)
  for _, enc in ipairs(vim.split(vim.o.fileencodings, ',', { trimempty = true })) do
    if enc == 'ucs-bom' then
      if data:sub(1, 3) == BOM then
        return data:sub(4), true, 'utf-8'
      end
    elseif enc == 'utf-8' or enc == 'utf8' or enc == 'default' then
      if valid_utf8(data) then
        return data, false, 'utf-8'
      end
    else
      local text = vim.iconv(data, enc, 'utf-8')
      if text then
        return text, false, enc
      end
    end
  end
  local text, bomb = strip_bom(data)
  return text, bomb, ''
end

--- A file's bytes as text in a loaded buffer whose 'fileencoding' is fenc
--- (without the BOM), to compare with the buffer's text.
local function decode(data, fenc)
  if data == nil then
    return nil
  end
  if fenc ~= '' and fenc ~= 'utf-8' and fenc ~= 'utf8' then
    local text = vim.iconv(data, fenc, 'utf-8')
    if text then
      return text
    end
  end
  return (strip_bom(data))
end

M.as_loaded = as_loaded

--- Snapshots files as Neovim holds them: a loaded buffer's text (what a write
--- would produce), else the file on disk.
---@param paths string[] absolute, confined to the workspace by the caller
---@param opts nvbridge.SnapshotOptions
---@return nvbridge.FileSnapshot[] one entry per path
function M.files(paths, opts)
  return M.files_found(paths, opts, buffer_index())
end

--- files, with the buffers of the paths found by find: the caller's, when
--- it knows them (a read that just opened its one file), rather than an
--- index of every buffer by name.
---@param paths string[]
---@param opts nvbridge.SnapshotOptions
---@param find fun(path: string): integer?
---@return nvbridge.FileSnapshot[]
function M.files_found(paths, opts, find)
  opts = opts or {}
  local out = {}
  for i, path in ipairs(paths) do
    local s = { path = path }
    local b = loaded_buffer(find, path)
    local stat = uv.fs_stat(path)
    s.exists = stat ~= nil and stat.type == 'file'
    s.is_dir = stat ~= nil and stat.type == 'directory'
    if b and opts.reconcile then
      s.err = reconcile(b, path)
    end
    if b and not s.err then
      s.loaded = true
      s.bufnr = b
      s.changedtick = vim.b[b].changedtick
      s.lsp_version = compat.lsp_version(b)
      s.modified = buf_option(b, 'modified')
      s.user_modified = modified_by_user(b)
      s.modifiable = buf_option(b, 'modifiable')
      s.fileformat = buf_option(b, 'fileformat')
      s.bomb = buf_option(b, 'bomb')
      s.line_count = api.nvim_buf_line_count(b)
      s.eol = buf_option(b, 'eol')
      s.fileencoding = buf_option(b, 'fileencoding')
      local k = opts.known and opts.known[path]
      -- k: the Go side holds a text of this buffer; with these options it
      -- is still its bytes at k.changedtick.
      k = k and k.bufnr == b and k.fileformat == s.fileformat and k.eol == s.eol and k.bomb == s.bomb and k or nil
      -- Since k.changedtick, only the lines that changed (one line may be
      -- the empty buffer, whose text is not its line).
      local delta = k
        and k.changedtick ~= s.changedtick
        and s.line_count > 1
        and buffers.changes(b, k.changedtick)
      if k and k.changedtick == s.changedtick then
        s.same = true -- the caller has this text already
        buffers.track(b)
      elseif delta then
        s.delta = delta
        buffers.track(b)
      elseif opts.api_lines_min and s.line_count >= opts.api_lines_min then
        -- A large buffer: the Go side reads its lines with
        -- nvim_buf_get_lines, which serializes them straight from the
        -- buffer, instead of making a Lua string of every line and
        -- joining them here (3-5 times slower on 100,000 lines).
        s.fetch = true
      else
        s.text = buffer_text(b)
      end
      -- The Go side caches texts from track_min bytes: follow their changes.
      if not (s.same or s.delta) and opts.track_min and api.nvim_buf_get_offset(b, s.line_count) >= opts.track_min then
        buffers.track(b)
      end
      s.renamed_from = vim.b[b].nvbridge_renamed_from
      if opts.with_disk and s.exists then
        s.disk = decode(read_file(path), s.fileencoding)
      end
    elseif s.exists and not s.err then
      local data = read_file(path)
      if data == nil then
        s.err = fail('OPERATION_FAILED', 'cannot read ' .. path, { path = path })
      else
        s.fingerprint = fingerprint(data)
        s.text, s.bomb, s.fileencoding = as_loaded(data)
        s.disk = opts.with_disk and data or nil
        if opts.disk_text and s.text == data and not opts.with_disk and buffers.fingerprint_kind == 'fnv64' then
          -- The text is the file's bytes: the Go side reads them itself
          -- (and checks them against the fingerprint), rather than
          -- Neovim copying them into the answer (its C heap kept what a
          -- rename's 80 files cost it, 5 MB).
          s.text, s.disk_text = nil, true
        end
      end
    end
    out[i] = s
  end
  return out
end

return M
