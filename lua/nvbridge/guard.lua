--- Confinement at the moment of writing: apply.lua and write.lua check a
--- path right before a change reaches it, in the same call.
local M = {}

local uv = vim.uv or vim.loop

local fail = require('nvbridge._error').fail

-- Go resolves every path to its real path inside the workspace root and
-- checks it against the policy on sensitive files right before calling
-- here; between that check and the write, a folder or file may be swapped
-- for a symlink. So every write, creation, rename and deletion below first
-- resolves the path again, in the same call that writes: it must still be
-- the real path Go checked (no symlink appeared on it), inside the root.
-- Neovim's :write follows links, which is why the check comes first.

--- Resolves path as the kernel would open or create it: every symlink is
--- followed, a dangling last one too; '..' applies after the symlinks
--- before it; components that do not exist are kept as written.
---@return string? real, string? err
local function real_path(path)
  local todo = vim.split(path, '/', { plain = true })
  local resolved = ''
  local links, missing = 0, false
  local i = 1
  while i <= #todo do
    local c = todo[i]
    i = i + 1
    if c == '' or c == '.' then
      -- nothing
    elseif c == '..' then
      resolved = resolved:match('^(.*)/[^/]*$') or ''
    elseif missing then
      resolved = resolved .. '/' .. c
    else
      local nxt = resolved .. '/' .. c
      local st, _, errname = uv.fs_lstat(nxt)
      if not st then
        if errname ~= 'ENOENT' and errname ~= 'ENOTDIR' then
          return nil, 'cannot inspect ' .. nxt .. ': ' .. tostring(errname)
        end
        missing = true
        resolved = nxt
      elseif st.type ~= 'link' then
        resolved = nxt
      else
        links = links + 1
        if links > 40 then
          return nil, 'too many levels of symbolic links'
        end
        local target = uv.fs_readlink(nxt)
        if not target then
          return nil, 'cannot read the symlink ' .. nxt
        end
        if target:sub(1, 1) == '/' then
          resolved = ''
        end
        local rest = vim.split(target, '/', { plain = true })
        for j = i, #todo do
          table.insert(rest, todo[j])
        end
        todo, i = rest, 1
      end
    end
  end
  return resolved == '' and '/' or resolved
end

--- Whether path is root or under it (both real paths).
---@param root string
---@param path string
---@return boolean
local function inside(root, path)
  return path == root or path:sub(1, #root + 1) == root .. '/'
end

--- Checks, right before nvbridge writes to, creates, renames or deletes
--- path, that path resolves to expected (the real path Go confined and
--- checked just before this call) inside the root. op 'write' also requires
--- an existing target to be a regular file with no other hard link (a
--- hard link's other name may be outside the root, and no path tells),
--- unless g.allow_hardlinks; op 'remove' requires a regular file.
---@param g nvbridge.Guard
---@param path string
---@param expected string
---@param op 'write'|'remove'|'check'
---@return nvbridge.Error? err
local function guard(g, path, expected, op)
  if type(g) ~= 'table' or type(g.root) ~= 'string' or g.root == '' then
    return fail('OPERATION_FAILED', 'refusing to write ' .. path .. ' without the workspace root to confine it to', { path = path })
  end
  local real, err = real_path(path)
  if not real then
    return fail('INVALID_PARAMETER', 'cannot resolve ' .. path .. ': ' .. err .. ' (nothing was written)', { path = path })
  end
  if not inside(g.root, real) then
    return fail(
      'INVALID_PARAMETER',
      path .. ' resolves (through a symlink) to ' .. real .. ', outside the workspace root ' .. g.root .. ' (nothing was written)',
      {
        path = path,
        remediation = 'nvbridge never writes through a symlink out of the workspace root; remove the link, then preview the change again',
      }
    )
  end
  if real ~= expected then
    return fail(
      'CONFLICT',
      path .. ' now resolves to ' .. real .. ': a symlink was created or changed on it since it was checked (nothing was written)',
      { path = path, remediation = 'check the path, then preview the change again' }
    )
  end
  if op == 'check' then
    return nil
  end
  local st = uv.fs_lstat(real)
  if st and st.type ~= 'file' then
    return fail('INVALID_PARAMETER', real .. ' is a ' .. st.type .. ', not a regular file (nothing was written)', { path = path })
  end
  if op == 'write' and st and st.nlink > 1 and not g.allow_hardlinks then
    return fail(
      'PRECONDITION_FAILED',
      string.format(
        '%s has %d hard links: writing it would also change the file under its other names,'
          .. ' which may lie outside the workspace root (nothing was written)',
        real,
        st.nlink
      ),
      {
        path = path,
        remediation = 'break the link first (cp FILE FILE.tmp && mv FILE.tmp FILE), or, if every name is known to be safe,'
          .. ' restart nvbridge with --allow-hardlinks (or "allow_hardlinks": true in the user config file'
          .. ' $XDG_CONFIG_HOME/nvbridge/config.json, default ~/.config/nvbridge/config.json;'
          .. ' the project file .nvbridge.json cannot allow it)',
      }
    )
  end
end

M.guard = guard
M.inside = inside

return M
