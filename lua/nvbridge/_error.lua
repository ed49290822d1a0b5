--- The one error constructor of the Lua bridge. Every failure the Go side
--- reads is this table (nvbridge.Error in _meta.lua; Go: nvim.LuaError,
--- decoded in one place), returned as data (a reply's err field, or
--- nvbridge_done's error argument), never thrown.
local M = {}

--- An error: an apierr code ("CONFLICT", "INVALID_PARAMETER", ...) and a
--- message, with the file it is about, a remediation better than the
--- code's default, or (CONFLICT) whether the buffer moved since the read a
--- change was planned on.
---@param code string
---@param message string
---@param detail? {path?: string, remediation?: string, moved?: boolean}
---@return nvbridge.Error
function M.fail(code, message, detail)
  detail = detail or {}
  return { code = code, message = message, path = detail.path, remediation = detail.remediation, moved = detail.moved }
end

return M
