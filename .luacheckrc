-- luacheck (make lua-check) over lua/ and plugin/: the Lua nvbridge runs in Neovim.
std = 'luajit'
globals = { 'vim' }
-- Messages and remediations stay on one line where they fit: the bound is for what does not.
max_line_length = 150
-- An empty branch with a comment says a case needs nothing, and why (guard's real_path,
-- observe's unsettled_ms, verify's missing): kept as the documentation it is.
ignore = { '542' }
