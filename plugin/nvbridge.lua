-- nvbridge: serve this Neovim's language servers to AI agents over MCP.
-- Commands only; everything loads lazily on first use.
if vim.g.loaded_nvbridge then
  return
end
vim.g.loaded_nvbridge = true

vim.api.nvim_create_user_command('NvbridgeStart', function(opts)
  require('nvbridge').start({ http = opts.args ~= '' and opts.args or nil })
end, {
  nargs = '?',
  desc = 'Start nvbridge attached to this Neovim (optional arg: HTTP address, e.g. 127.0.0.1:8765)',
  complete = function()
    return { '127.0.0.1:8765' }
  end,
})

vim.api.nvim_create_user_command('NvbridgeStop', function()
  require('nvbridge').stop()
end, { desc = 'Stop the nvbridge server started by :NvbridgeStart' })

vim.api.nvim_create_user_command('NvbridgeStatus', function()
  require('nvbridge').status()
end, { desc = 'Show whether nvbridge runs and how to connect an MCP client' })

vim.api.nvim_create_user_command('NvbridgeDebug', function(opts)
  require('nvbridge.debug_ui').command(opts.args)
end, {
  nargs = '?',
  desc = "Show the agent's nvbridge debug session (stop, stack, locals); or continue|step_over|step_into|step_out|pause|stop it",
  complete = function()
    return require('nvbridge.debug_ui').complete()
  end,
})
