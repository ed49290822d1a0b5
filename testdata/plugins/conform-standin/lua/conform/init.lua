-- A stand-in for conform.nvim, written here: conform.nvim cannot be installed
-- on this project's machines (it is on neither npm nor the Go module proxy,
-- and GitHub is out of reach), and a fetched snapshot is for reading, not for
-- copying. It has only the part of conform's public API that
-- lua/nvbridge/format.lua calls, with conform's signatures:
--   list_formatters_to_run(bufnr) -> FormatterInfo[], lsp: boolean
--   format_lines(names, lines, opts, callback(err, new_lines))
-- and formatters given as { command = ... } read the text on stdin and write
-- the formatted text on stdout, as conform's do.
local M = {}

local config = { formatters = {}, formatters_by_ft = {} }

function M.setup(opts)
  config = vim.tbl_deep_extend('force', config, opts or {})
end

function M.list_formatters_to_run(bufnr)
  local infos = {}
  for _, name in ipairs(config.formatters_by_ft[vim.bo[bufnr].filetype] or {}) do
    local f = config.formatters[name]
    table.insert(infos, { name = name, command = f and f.command, available = f ~= nil and vim.fn.executable(f.command) == 1 })
  end
  return infos, false
end

function M.format_lines(names, lines, _, callback)
  local text = table.concat(lines, '\n') .. '\n'
  local function run(i)
    if i > #names then
      -- the text's final newline ends its last line; it adds no empty line
      callback(nil, vim.split(text:gsub('\n$', ''), '\n', { plain = true }))
      return
    end
    local f = config.formatters[names[i]]
    if not f then
      callback({ message = 'no formatter named ' .. names[i] }, nil)
      return
    end
    vim.system({ f.command }, { stdin = text }, function(out)
      if out.code ~= 0 then
        callback({ message = names[i] .. ': ' .. (out.stderr or '') }, nil)
        return
      end
      text = out.stdout
      run(i + 1)
    end)
  end
  run(1)
end

return M
