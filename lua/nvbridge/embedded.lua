--- How nvbridge configures the Neovim it embeds (nobody sees it; nothing
--- here runs in a user's Neovim): its options, and the client capabilities
--- and on_init its language servers are started with (servers.lua). The
--- bench's floor (bench/side/vianvim.go: Neovim's own client with nothing
--- of nvbridge's on the way) loads this module alone and starts its gopls
--- with the same, so the floor is Neovim configured exactly as nvbridge's
--- embedded one. It requires no other nvbridge module.
local M = {}

--- Configures the embedded Neovim and makes workspace_root its current
--- directory.
---@param workspace_root string
function M.configure(workspace_root)
  vim.validate({ workspace_root = { workspace_root, 'string' } })
  -- No remote plugin providers: Python's ftplugin asks has('python3'), which
  -- otherwise probes python3 for pynvim in subprocesses, synchronously (a
  -- minute on a busy machine with a pyenv shim), on every first .py buffer.
  vim.g.loaded_python3_provider = 0
  vim.g.loaded_ruby_provider = 0
  vim.g.loaded_perl_provider = 0
  vim.g.loaded_node_provider = 0
  vim.cmd('filetype on')
  -- Filetype detection only (servers attach on FileType): no syntax
  -- highlighting, filetype plugins or indent scripts. Nobody sees this
  -- Neovim and nothing here reads what they set; they were three quarters of
  -- what loading a file costs (zap's 39 files: 2.2 ms each, 0.45 without).
  vim.cmd('syntax off')
  vim.cmd('filetype plugin indent off')
  -- No prompt for an existing swap file, once for all (buffers.load sets
  -- it around every load otherwise: two option sets a file).
  vim.o.shortmess = vim.o.shortmess .. 'A'
  vim.cmd.cd(vim.fn.fnameescape(workspace_root))
  vim.lsp.set_log_level('OFF')
end

--- Neovim's client capabilities, plus what nvbridge handles that Neovim
--- 0.10 does not declare (LSP 3.17 type hierarchy: nvbridge sends those
--- requests itself), minus semantic tokens: they only colour a window, and
--- this Neovim has none to colour.
---@return table
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.textDocument = caps.textDocument or {}
  caps.textDocument.typeHierarchy = caps.textDocument.typeHierarchy or { dynamicRegistration = false }
  caps.textDocument.semanticTokens = nil
  -- Diagnostics are waited for as publishes (bridge.lua). A server that
  -- sees pull support registers it dynamically, which Neovim 0.10 does
  -- not take (dynamicRegistration = false), and then publishes nothing
  -- (vscode-langservers-extracted's JSON, CSS and HTML servers).
  caps.textDocument.diagnostic = nil
  -- rust-analyzer then says when it is loading or indexing the project
  -- (experimental/serverStatus, quiescent); the bridge waits on it.
  caps.experimental = vim.tbl_extend('force', caps.experimental or {}, { serverStatusNotification = true })
  return caps
end

--- A client's on_init. Neovim asks a server that offers semantic tokens for
--- every buffer it attaches to, and again 200 ms after every change: in a
--- headless Neovim, work for the server that nobody sees, competing with
--- the requests that follow an open or an edit (gopls tokenizes the whole
--- file). Removing the provider before any attach is Neovim's documented
--- opt-out.
---@param client vim.lsp.Client
function M.on_init(client)
  client.server_capabilities.semanticTokensProvider = nil
end

return M
