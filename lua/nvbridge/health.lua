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

local function check_versions()
  local nvbridge = require('nvbridge')
  health.ok('plugin version ' .. nvbridge.version)
  local cmd = nvbridge.config.cmd
  if vim.fn.executable(cmd) ~= 1 then
    health.warn(cmd .. ' is not on PATH', {
      'build it: go build -o ~/.local/bin/nvbridge ./cmd/nvbridge (or make install) in the nvbridge checkout',
      "or point the plugin at it: require('nvbridge').setup({cmd = '/path/to/nvbridge'})",
      'with lazy.nvim: build = "go build -o bin/nvbridge ./cmd/nvbridge" (see :help nvbridge-install)',
    })
    return
  end
  local out = vim.fn.system({ cmd, 'version' })
  local first = vim.split(out or '', '\n', { plain = true })[1] or ''
  if vim.v.shell_error ~= 0 or first == '' then
    health.error(('%s version failed: %s'):format(vim.fn.exepath(cmd), vim.trim(out or '')), { 'rebuild the binary' })
    return
  end
  health.ok(('binary %s: %s'):format(vim.fn.exepath(cmd), first))
end

local function check_server()
  local nvbridge = require('nvbridge')
  local running = nvbridge._running()
  if running and running.ready then
    health.ok(('HTTP server at %s (started by :NvbridgeStart)'):format(running.url or running.http))
  elseif running then
    health.warn('HTTP server starting on ' .. running.http, { 'run :checkhealth nvbridge again in a moment; :NvbridgeLog shows its messages' })
  else
    health.info('no HTTP server (:NvbridgeStart starts one; stdio agents start nvbridge themselves)')
  end
  if vim.v.servername ~= '' then
    health.ok('this Neovim listens at ' .. vim.v.servername .. ' (agents attach with --nvim, $NVIM or --nvim auto)')
  else
    health.warn('this Neovim does not listen on an address', { 'start it with --listen, or run :lua vim.fn.serverstart()' })
  end
  local ok, user = pcall(require, 'nvbridge.user')
  local ok_agents, agents_mod = pcall(require, 'nvbridge.agents')
  if not ok or not ok_agents then
    return
  end
  local agents = agents_mod.agents()
  if #agents == 0 then
    health.info('no agent is connected')
  end
  for _, a in ipairs(agents) do
    local last = a.calls[#a.calls]
    health.ok(('agent on channel %d (%s)%s'):format(a.chan, a.transport, last and (', last call ' .. last.tool) or ''))
  end
  health.info(('approval: %s%s'):format(user.approve_mode(), agents_mod.paused() and '; PAUSED (:NvbridgeResume)' or ''))
  if vim.fn.filereadable(agents_mod.discovery_path()) == 1 then
    health.ok('discovery file for --nvim auto: ' .. agents_mod.discovery_path())
  else
    health.info('no discovery file (nvbridge mcp --nvim auto will not find this Neovim); vim.g.nvbridge_discovery or setup({discovery = ...})')
  end
end

-- What the tools need from a server: capability -> tools.
local needs = {
  { 'definitionProvider', 'find_definition' },
  { 'referencesProvider', 'find_references' },
  { 'hoverProvider', 'get_hover_info' },
  { 'documentSymbolProvider', 'get_symbols' },
  { 'renameProvider', 'rename_symbol' },
  { 'codeActionProvider', 'apply_code_action, organize_imports, extract_*' },
  { 'callHierarchyProvider', 'get_call_hierarchy' },
  { 'implementationProvider', 'find_implementations' },
  { 'typeHierarchyProvider', 'get_type_hierarchy' },
}

local function check_language_servers()
  local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
  if #clients == 0 then
    health.warn('no language server is running', {
      'open a file of your project so your LSP configuration starts its server (vim.lsp.start, nvim-lspconfig)',
      'without a server only the buffer tools (read_file, edit_buffer, ...) work',
    })
    return
  end
  for _, client in ipairs(clients) do
    local fts = {}
    for b in pairs(client.attached_buffers or {}) do
      if vim.api.nvim_buf_is_valid(b) and vim.bo[b].filetype ~= '' then
        fts[vim.bo[b].filetype] = true
      end
    end
    local names = vim.tbl_keys(fts)
    table.sort(names)
    local caps = client.server_capabilities or {}
    local has, missing = {}, {}
    for _, n in ipairs(needs) do
      if caps[n[1]] then
        table.insert(has, (n[1]:gsub('Provider$', '')))
      else
        table.insert(missing, n[2])
      end
    end
    local head = ('%s (id %d, %s) for %s: %s'):format(client.name, client.id, client.offset_encoding or 'utf-16',
      #names > 0 and table.concat(names, ', ') or 'no buffer yet', table.concat(has, ', '))
    if #missing == 0 then
      health.ok(head)
    else
      health.warn(head, { ('%s does not serve: %s (those tools answer UNSUPPORTED for its files)'):format(client.name, table.concat(missing, '; ')) })
    end
  end
end

function M.check()
  health.start('nvbridge')
  check_neovim()
  check_versions()
  health.start('server and agents')
  check_server()
  health.start('language servers')
  check_language_servers()
end

return M
