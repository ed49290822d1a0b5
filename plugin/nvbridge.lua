-- nvbridge: serve this Neovim's language servers to AI agents over MCP.
-- Commands only; everything loads lazily on first use.
if vim.g.loaded_nvbridge then
  return
end
vim.g.loaded_nvbridge = true

local function cmd(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts)
end

cmd('NvbridgeStart', function(opts)
  require('nvbridge').start({ http = opts.args ~= '' and opts.args or nil })
end, {
  nargs = '?',
  desc = 'Start nvbridge attached to this Neovim (optional arg: HTTP address, e.g. 127.0.0.1:8765)',
  complete = function()
    return { '127.0.0.1:8765' }
  end,
})

cmd('NvbridgeStop', function()
  require('nvbridge').stop()
end, { desc = 'Stop nvbridge: the HTTP server, every connected agent, its autocmds and buffers' })

cmd('NvbridgeStatus', function()
  require('nvbridge').status()
end, { desc = 'Show the nvbridge server and the connected agents (stdio and HTTP) with their last calls' })

cmd('NvbridgePause', function()
  require('nvbridge').pause()
end, { desc = 'Refuse writing tool calls ("paused by the user") until :NvbridgeResume' })

cmd('NvbridgeResume', function()
  require('nvbridge').resume()
end, { desc = 'Let agents change buffers and files again' })

cmd('NvbridgeUndo', function(opts)
  require('nvbridge').undo(opts.args ~= '' and opts.args or nil)
end, { nargs = '?', desc = 'Undo the last changeset an agent applied (or the one named) in every buffer it changed' })

cmd('NvbridgeApprove', function(opts)
  local decision, note = opts.args:match('^(%S+)%s*(.*)$')
  require('nvbridge').approve(decision or 'accept', note ~= '' and note or nil)
end, {
  nargs = '*',
  desc = 'Answer the waiting approval: accept | reject [note] | edit',
  complete = function()
    return { 'accept', 'reject', 'edit' }
  end,
})

cmd('NvbridgeReview', function(opts)
  require('nvbridge').review(opts.args ~= '' and opts.args or nil)
end, {
  nargs = '?',
  desc = 'Review the oldest change waiting for your approval (float, split or tab), hunk by hunk',
  complete = function()
    return { 'float', 'split', 'tab' }
  end,
})

cmd('NvbridgeRevertAll', function()
  require('nvbridge').revert_all()
end, { desc = 'Undo every changeset agents applied in this session that you did not edit after, newest first' })

-- For your own mapping, e.g. vim.keymap.set('n', '<leader>ar', '<Plug>(nvbridge-review)').
vim.keymap.set('n', '<Plug>(nvbridge-review)', '<Cmd>NvbridgeReview<CR>', { desc = 'nvbridge: review the waiting change' })

cmd('NvbridgeChanges', function()
  require('nvbridge').changes()
end, { desc = 'Quickfix list of everything agents changed in this session' })

cmd('NvbridgeLog', function()
  require('nvbridge').log()
end, { desc = "Show nvbridge's log of tool calls, approvals and changes" })

cmd('NvbridgeDebug', function(opts)
  require('nvbridge.debug_ui').command(opts.args)
end, {
  nargs = '?',
  desc = "Show the agent's nvbridge debug session (stop, stack, locals); or continue|step_over|step_into|step_out|pause|stop it",
  complete = function()
    return require('nvbridge.debug_ui').complete()
  end,
})

-- Findable by `nvbridge mcp --nvim auto`: a small discovery file naming
-- this Neovim's address and working directory (see :help nvbridge-auto).
if vim.g.nvbridge_discovery ~= false then
  vim.api.nvim_create_autocmd('VimEnter', {
    once = true,
    callback = function()
      require('nvbridge').advertise()
    end,
  })
  if vim.v.vim_did_enter == 1 then
    require('nvbridge').advertise()
  end
end
