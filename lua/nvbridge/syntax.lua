--- The syntax layer: tree-sitter parses and queries for the refactorings
--- (inline_function, move_symbol, change_signature) in Python and
--- TypeScript. Called from Go (package syntax, through
--- nvim/entrypoints.go); texts, queries and positions arrive as arguments,
--- never as source. Parsing is synchronous and short; nothing here waits.
---
--- Positions are Neovim's: 0-based rows, byte columns (and byte offsets into
--- the text). The parsers come from `make deps` (.deps/parser/NAME.so, built
--- from the npm grammars) and are registered by setup.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local fail = require('nvbridge._error').fail

--- How each language was registered by setup: 'nvbridge' (our parser),
--- 'user' (the user's own, left alone), 'missing' (none anywhere) or an
--- error message. Kept across calls: setup runs once per bridge.
---@type table<string, string>
M.registered = M.registered or {}

local function loaded(lang)
  return pcall(vim.treesitter.language.inspect, lang)
end

--- Whether Neovim can find a parser for lang by itself: one already loaded,
--- or a parser/LANG.* on the runtimepath (nvim-treesitter's, a distro's).
local function user_has(lang)
  if vim._ts_has_language and vim._ts_has_language(lang) then
    return true
  end
  return #api.nvim_get_runtime_file('parser/' .. lang .. '.*', false) > 0
end

--- Registers nvbridge's parsers. Embedded mode (own = true) registers each
--- one found in parser_dir, explicitly by path; attached mode only the
--- languages for which the user's Neovim has no parser, so a user's parser
--- (nvim-treesitter's) is never replaced.
---@param parser_dir string folder holding NAME.so ("" for none)
---@param langs string[] tree-sitter language names
---@param own boolean the embedded Neovim: nvbridge's parsers first
---@return table<string, string> how each language is served (M.registered)
function M.setup(parser_dir, langs, own)
  vim.validate({ parser_dir = { parser_dir, 'string' }, langs = { langs, 'table' }, own = { own, 'boolean' } })
  for _, lang in ipairs(langs) do
    local path = parser_dir ~= '' and (parser_dir .. '/' .. lang .. '.so') or nil
    local state
    if M.registered[lang] == 'nvbridge' and vim._ts_has_language and vim._ts_has_language(lang) then
      state = 'nvbridge' -- another bridge of this Neovim registered it
    elseif not own and user_has(lang) then
      state = 'user'
    elseif path and uv.fs_stat(path) then
      -- filetype = {}: no filetype mapping is added (the user's stay as they are).
      local ok, err = pcall(vim.treesitter.language.add, lang, { path = path, filetype = {} })
      if ok and err ~= nil and err ~= true then
        ok = false -- 0.11 returns nil, message instead of throwing
      end
      state = ok and 'nvbridge' or ('cannot load ' .. path .. ': ' .. tostring(err))
    elseif user_has(lang) then
      state = 'user'
    else
      state = 'missing'
    end
    M.registered[lang] = state
  end
  return M.registered
end

--- The text of a source: a loaded buffer's current lines, or the text given.
---@param src nvbridge.SyntaxSource
---@return string? text
---@return table? err
local function text_of(src)
  if src.bufnr and src.bufnr ~= 0 then
    if not api.nvim_buf_is_loaded(src.bufnr) then
      return nil, { err = fail('RESOURCE_NOT_FOUND', 'buffer ' .. src.bufnr .. ' is not loaded') }
    end
    return table.concat(api.nvim_buf_get_lines(src.bufnr, 0, -1, false), '\n')
  end
  return src.text or ''
end

--- Parses a source: its text and the tree's root, or an error table.
local function parse(src)
  vim.validate({ src = { src, 'table' }, lang = { src.lang, 'string' } })
  local text, err = text_of(src)
  if not text then
    return nil, nil, err
  end
  if not loaded(src.lang) then
    local how = M.registered[src.lang]
    return nil,
      nil,
      {
        err = fail(
          'UNSUPPORTED',
          'no tree-sitter parser for ' .. src.lang .. (how and how ~= 'missing' and (' (' .. how .. ')') or ''),
          {
            remediation = 'run `make deps` in the nvbridge checkout (it builds .deps/parser/'
              .. src.lang
              .. '.so), or install the parser in Neovim (nvim-treesitter :TSInstall '
              .. src.lang
              .. ')',
          }
        ),
      }
  end
  -- A string parser, also for buffers: vim.treesitter.get_parser(bufnr)
  -- would attach a parser to the user's buffer.
  local ok, parser = pcall(vim.treesitter.get_string_parser, text, src.lang)
  if not ok then
    return nil, nil, { err = fail('OPERATION_FAILED', 'cannot parse as ' .. src.lang .. ': ' .. tostring(parser)) }
  end
  local tree = parser:parse()[1]
  return text, tree:root()
end

local get_text = vim.treesitter.get_node_text

--- A node as data, with its children (named ones and those with a field
--- name) down to depth levels.
---@return nvbridge.SyntaxNode
local function node_data(node, text, depth, field)
  local sr, sc, sb = node:start()
  local er, ec, eb = node:end_()
  local t = {
    type = node:type(),
    field = field or '',
    named = node:named(),
    start_row = sr,
    start_col = sc,
    end_row = er,
    end_col = ec,
    start_byte = sb,
    end_byte = eb,
    text = get_text(node, text),
  }
  if depth > 0 then
    local children = {}
    for child, name in node:iter_children() do
      if child:named() or name then
        table.insert(children, node_data(child, text, depth - 1, name))
      end
    end
    t.children = children
  end
  return t
end

local parsed_queries = {}

local function query_for(lang, src)
  local key = lang .. '\0' .. src
  if parsed_queries[key] == nil then
    local ok, q = pcall(vim.treesitter.query.parse, lang, src)
    parsed_queries[key] = ok and q or { err = tostring(q) }
  end
  return parsed_queries[key]
end

--- Runs a query over a source: every match with its captures.
---@param src nvbridge.SyntaxSource
---@param query string a tree-sitter query (data, from Go)
---@param opts nvbridge.SyntaxQueryOpts
---@return nvbridge.SyntaxMatches
function M.query(src, query, opts)
  vim.validate({ query = { query, 'string' }, opts = { opts, 'table' } })
  local text, root, err = parse(src)
  if not text then
    return err
  end
  local q = query_for(src.lang, query)
  if q.err then
    return { err = fail('INVALID_PARAMETER', 'bad ' .. src.lang .. ' query: ' .. q.err) }
  end
  local start_row, end_row = opts.start_row, opts.end_row
  if end_row then
    end_row = end_row + 1 -- exclusive for iter_matches
  end
  local matches = {}
  -- all = true: each capture maps to a list of nodes (0.10 opt-in; the only
  -- behaviour from 0.11 on).
  for pattern, match in q:iter_matches(root, text, start_row, end_row, { all = true }) do
    local captures = {}
    for id, nodes in pairs(match) do
      if type(nodes) ~= 'table' then
        nodes = { nodes }
      end
      for _, node in ipairs(nodes) do
        table.insert(captures, { name = q.captures[id], node = node_data(node, text, opts.depth or 0) })
      end
    end
    table.sort(captures, function(a, b)
      if a.node.start_byte ~= b.node.start_byte then
        return a.node.start_byte < b.node.start_byte
      end
      return a.name < b.name
    end)
    table.insert(matches, { pattern = pattern, captures = captures })
  end
  return { matches = matches }
end

--- The smallest node enclosing a position whose type is one of types (any
--- named node when types is empty), and the types of its ancestors.
---@param src nvbridge.SyntaxSource
---@param row integer 0-based
---@param col integer byte column
---@param types string[]
---@param depth integer levels of children to include
---@return nvbridge.SyntaxEnclosing
function M.enclosing(src, row, col, types, depth)
  vim.validate({
    row = { row, 'number' },
    col = { col, 'number' },
    types = { types, 'table' },
    depth = { depth, 'number' },
  })
  local text, root, err = parse(src)
  if not text then
    return err
  end
  local want = {}
  for _, t in ipairs(types) do
    want[t] = true
  end
  local node = root:named_descendant_for_range(row, col, row, col)
  while node and next(want) and not want[node:type()] do
    node = node:parent()
  end
  if not node then
    return vim.empty_dict()
  end
  local ancestors = {}
  local p = node:parent()
  while p do
    table.insert(ancestors, p:type())
    p = p:parent()
  end
  return { node = node_data(node, text, depth), ancestors = ancestors }
end

--- The syntax errors of a source (ERROR and MISSING nodes), at most limit.
---@param src nvbridge.SyntaxSource
---@param limit integer
---@return nvbridge.SyntaxErrors
function M.errors(src, limit)
  vim.validate({ limit = { limit, 'number' } })
  local text, root, err = parse(src)
  if not text then
    return err
  end
  local out = {}
  local function walk(node)
    if #out >= limit or not node:has_error() and not node:missing() then
      return
    end
    if node:type() == 'ERROR' or node:missing() then
      table.insert(out, node_data(node, text, 0))
      return
    end
    for child in node:iter_children() do
      walk(child)
    end
  end
  walk(root)
  return { errors = out }
end

return M
