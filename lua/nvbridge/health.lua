--- :checkhealth nvbridge
local M = {}

local health = vim.health

local function check_neovim()
  if vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim ' .. tostring(vim.version()) .. ' is too old', { 'nvbridge needs Neovim 0.10 or later' })
  end
end

local function check_binary()
  local cmd = require('nvbridge').config.cmd
  if vim.fn.executable(cmd) == 1 then
    health.ok('nvbridge binary: ' .. vim.fn.exepath(cmd))
  else
    health.warn(cmd .. ' is not on PATH', { 'build it: go build -o ~/.local/bin/nvbridge ./cmd/nvbridge', "or require('nvbridge').setup({cmd = '/path/to/nvbridge'})" })
  end
end

local function check_server()
  if vim.v.servername ~= '' then
    health.ok('listening at ' .. vim.v.servername .. ' (MCP clients can attach with --nvim or $NVIM)')
  else
    health.info('not listening yet; :NvbridgeStart starts a server address')
  end
end

local function check_language_servers()
  local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  if #clients == 0 then
    health.warn('no language server is running', { 'open a file of your project so your LSP config starts one' })
    return
  end
  for _, client in ipairs(clients) do
    health.ok(('%s (id %d, %s)'):format(client.name, client.id, client.offset_encoding or 'utf-16'))
  end
end

function M.check()
  health.start('nvbridge')
  check_neovim()
  check_binary()
  check_server()
  health.start('language servers')
  check_language_servers()
end

return M
