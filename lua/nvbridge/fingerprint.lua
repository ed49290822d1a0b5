--- The content fingerprint that decides whether a file's bytes changed
--- (buffers.reconcile, snapshot, apply, write), and its kind: 'fnv64' under
--- LuaJIT, which nvbridge's commit computes too for the bytes it writes,
--- else 'sha256'.
local M = {}

local has_ffi, ffi = pcall(require, 'ffi')
local has_bit, bit = pcall(require, 'bit')

--- A content fingerprint, to tell whether a file's bytes changed (not a
--- defence against crafted collisions: whoever can write the file can
--- change it anyway). Under LuaJIT, FNV-1a over 64-bit words plus the
--- length: a change confined to one word always changes it, others collide
--- with odds of 2^-64; about 0.7 ms per MB, where vim.fn.sha256 takes 22
--- ms and the NUL substitution it needs 50 ms (measured on a 5 MB file). Without LuaJIT, sha256; Vim strings cannot
--- hold NUL, so NUL bytes are hashed as \1 there.
---@type fun(s: string): string
local fingerprint
if has_ffi and has_bit then
  local PRIME, BASIS = 0x100000001b3ULL, 0xcbf29ce484222325ULL
  fingerprint = function(s)
    local n = #s
    local words = math.floor(n / 8)
    local p = ffi.cast('const uint64_t *', s)
    local h = BASIS
    for i = 0, words - 1 do
      h = bit.bxor(h, p[i]) * PRIME
    end
    for i = words * 8 + 1, n do
      h = bit.bxor(h, s:byte(i)) * PRIME
    end
    return 'fnv64:' .. bit.tohex(h) .. ':' .. n
  end
else
  fingerprint = function(s)
    if s:find('\0', 1, true) then
      s = s:gsub('%z', '\1')
    end
    return 'sha256:' .. vim.fn.sha256(s) .. ':' .. #s
  end
end

M.fingerprint = fingerprint
M.kind = (has_ffi and has_bit) and 'fnv64' or 'sha256'

return M
