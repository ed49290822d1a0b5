--- Tree-sitter helpers of nvbridge's structure tools (analyze_dependencies).
--- Called from Go (nvim/entrypoints.go); data arrives as arguments, never
--- as source. Parsing a file is synchronous but short; nothing here waits on
--- anything.
local M = {}

local api = vim.api

-- Import queries come from the Go registry (package lang: ImportSyntax
-- Query), as data: @path captures a workspace-relative import, @system one
-- the compiler resolves (C's <stdio.h>). Parsed once per language and text.
local parsed_queries = {}

local function query_for(lang, src)
  local key = lang .. '\0' .. src
  if parsed_queries[key] == nil then
    local ok, q = pcall(vim.treesitter.query.parse, lang, src)
    parsed_queries[key] = ok and q or false
  end
  return parsed_queries[key] or nil
end

--- Reports whether imports of lang can be read with tree-sitter: Neovim
--- has its parser and the query parses.
---@param lang string tree-sitter language
---@param query string import query
---@return boolean
function M.supports(lang, query)
  vim.validate({ lang = { lang, 'string' }, query = { query, 'string' } })
  return pcall(vim.treesitter.get_string_parser, '', lang) and query_for(lang, query) ~= nil
end

local read_file = require('nvbridge.buffers').read_file

local function imports_in(src, lang, query)
  local q = query_for(lang, query)
  local ok, parser = pcall(vim.treesitter.get_string_parser, src, lang)
  if not q or not ok then
    return nil
  end
  local tree = parser:parse()[1]
  local out = {}
  for id, node in q:iter_captures(tree:root(), src) do
    local name = q.captures[id]
    if name == 'path' or name == 'system' then
      local text = vim.treesitter.get_node_text(node, src)
      local row, col = node:range()
      if name == 'system' then
        text = text:gsub('^<', ''):gsub('>$', '')
        col = col + 1
      end
      table.insert(out, { path = text, line = row, col = col, system = name == 'system' })
    end
  end
  return out
end

--- The imports of one buffer (its current text) or file.
---@param bufnr integer 0 to read path from the disk instead
---@param path string
---@param lang string tree-sitter language
---@param query string import query
---@return string json nvbridge.TSImport[], or {err = message}
function M.imports(bufnr, path, lang, query)
  vim.validate({
    bufnr = { bufnr, 'number' },
    path = { path, 'string' },
    lang = { lang, 'string' },
    query = { query, 'string' },
  })
  local src
  if bufnr ~= 0 and api.nvim_buf_is_loaded(bufnr) then
    src = table.concat(api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
  else
    src = read_file(path)
  end
  local out = src and imports_in(src, lang, query)
  if not out then
    return vim.json.encode({ err = 'cannot parse ' .. path .. ' as ' .. lang })
  end
  return vim.json.encode(out)
end

--- The imports of many files, read from the disk (the importers scan).
---@param paths string[]
---@param lang string tree-sitter language
---@param query string import query
---@return string json {path: [{path, line, col, system}]}
function M.imports_of_files(paths, lang, query)
  vim.validate({ paths = { paths, 'table' }, lang = { lang, 'string' }, query = { query, 'string' } })
  local out = vim.empty_dict()
  for _, path in ipairs(paths) do
    local src = read_file(path)
    local found = src and imports_in(src, lang, query)
    if found and #found > 0 then
      out[path] = found
    end
  end
  return vim.json.encode(out)
end

return M
