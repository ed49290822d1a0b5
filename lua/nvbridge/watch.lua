--- Which files may have changed on disk, told by the kernel (inotify)
--- instead of a stat of each. Before every request, buffers.refresh_others
--- looked at the file of every other loaded buffer: a stat and its table
--- each, 0.15 ms of every read with the 20 read-only buffers nvbridge keeps
--- loaded (measured: Neovim's CPU per find_definition on zap, 0.31 ms with
--- one buffer loaded, 0.46 with twenty), and more in a user's Neovim that
--- holds more.
---
--- A file is covered once its watches are in place: one on the file (a
--- write through another hard link), one on its directory (a save that
--- renames a new file over it, a delete) and one on every directory above
--- (one of them renamed or removed moves the path). Whoever covers a file
--- stats it after cover returned: a change after that stat is in the queue.
--- The queue is read where the question is asked (changed, nonblocking, in
--- the caller), so a change whose write returned before the question is
--- seen, as a stat would see it; an event names a change, never its
--- absence, so more events than changes only cost a stat.
---
--- Where the kernel cannot tell, cover answers false and the caller stats
--- as before: no inotify (not Linux, no LuaJIT FFI), a path through a
--- symbolic link (a link's target can move without an event on the path),
--- a file system whose changes may come from elsewhere (NFS, FUSE, SMB,
--- overlayfs: only the local file systems of the list below), a watch the
--- kernel refused, more than M.max_watches watches. A queue that overflowed
--- forgets every cover.
local M = {}

local uv = vim.uv or vim.loop

local has_ffi, ffi = pcall(require, 'ffi')
local has_bit, bit = pcall(require, 'bit')

-- inotify(7)'s constants.
local IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
local IN_MOVED_FROM, IN_MOVED_TO, IN_DELETE = 0x40, 0x80, 0x200
local IN_DELETE_SELF, IN_MOVE_SELF, IN_UNMOUNT = 0x400, 0x800, 0x2000
local IN_Q_OVERFLOW, IN_IGNORED = 0x4000, 0x8000
local IN_ONLYDIR, IN_DONT_FOLLOW, IN_MASK_ADD = 0x01000000, 0x02000000, 0x20000000
local IN_NONBLOCK, IN_CLOEXEC = 0x800, 0x80000
local EVENT_HEADER = 16 -- struct inotify_event: wd, mask, cookie, len

local SELF = IN_DELETE_SELF + IN_MOVE_SELF
-- The file itself: its bytes, its attributes (times; its link count, which
-- a rename over it or a delete drops), its end.
local FILE_MASK = IN_MODIFY + IN_ATTRIB + IN_CLOSE_WRITE + SELF
-- Its directory and every one above: their entries moved or deleted, and
-- themselves. Not their files' writes (a busy /tmp writes files all the
-- time): only a rename or delete of a name on the path moves it.
local DIR_MASK = IN_MOVED_FROM + IN_MOVED_TO + IN_DELETE + SELF

-- statfs(2) magic numbers of the local file systems whose every change
-- goes through this kernel: ext2/3/4, xfs, btrfs, tmpfs, f2fs (as
-- workspace.Changes trusts them; not overlayfs, whose lower layers change
-- without an event, nor NFS, FUSE, 9p or SMB).
local LOCAL_FS = {
  [0xEF53] = true,
  [0x58465342] = true,
  [0x9123683E] = true,
  [0x01021994] = true,
  [0xF2F52010] = true,
}

--- The watches one Neovim adds at most: inotify's per-user limit (8192 on
--- older kernels) is shared with every program of the user's; beyond, a
--- file is stated as before.
M.max_watches = 1024

local fd -- the inotify descriptor; false: none can be had here
local buf -- the read buffer
local BUF_SIZE = 64 * 1024

local covered = {} -- file path -> true: watched since its cover, no event since
local dir_wd = {} -- directory path -> its watch
local wd_paths = {} -- watch -> { [path] = 'file' | 'dir' }: what it was added for
local on_path = {} -- directory path -> true: on the path of a covered file
local fs_ok = {} -- directory path -> whether a change there is always an event
local watches = 0 -- the watches in place (wd_paths' keys)

--- Opens the inotify descriptor once; false when this Neovim has none.
---@return boolean
local function open()
  if fd ~= nil then
    return fd ~= false
  end
  fd = false
  if not (has_ffi and has_bit) or jit == nil or jit.os ~= 'Linux' then
    return false
  end
  -- Declared under names of their own (asm labels): another plugin may
  -- have declared read or close already, and a second cdef of a name is
  -- an error.
  local ok = pcall(
    ffi.cdef,
    [[
    int nvbridge_inotify_init1(int flags) asm("inotify_init1");
    int nvbridge_inotify_add_watch(int fd, const char *path, uint32_t mask) asm("inotify_add_watch");
    int nvbridge_inotify_rm_watch(int fd, int wd) asm("inotify_rm_watch");
    long nvbridge_inotify_read(int fd, void *buf, size_t count) asm("read");
    int nvbridge_inotify_close(int fd) asm("close");
  ]]
  )
  if not ok then
    return false
  end
  local n = ffi.C.nvbridge_inotify_init1(IN_NONBLOCK + IN_CLOEXEC)
  if n < 0 then
    return false
  end
  fd = n
  buf = ffi.new('uint8_t[?]', BUF_SIZE)
  return true
end

--- Forgets the covers of the files at or under path, and what was found
--- of the directories there (path moved: another directory, or a link, may
--- stand there now).
---@param path string
local function forget_under(path)
  M.generation = M.generation + 1
  covered[path], fs_ok[path] = nil, nil
  local prefix = path == '/' and '/' or path .. '/'
  for _, known in ipairs({ covered, fs_ok }) do
    for p in pairs(known) do
      if p:sub(1, #prefix) == prefix then
        known[p] = nil
      end
    end
  end
end

--- Adds a watch of path for what, with mask (added to what the inode's
--- watch had); false when the kernel refused.
---@param path string
---@param mask integer
---@param what 'file'|'dir'
---@return integer|false
local function add(path, mask, what)
  if watches >= M.max_watches then
    return false
  end
  local wd = ffi.C.nvbridge_inotify_add_watch(fd, path, mask + IN_DONT_FOLLOW + IN_MASK_ADD)
  if wd < 0 then
    return false
  end
  if not wd_paths[wd] then
    watches = watches + 1
  end
  local paths = wd_paths[wd] or {}
  wd_paths[wd] = paths
  paths[path] = what
  return wd
end

--- Watches directory dir unless it is.
---@param dir string
---@return boolean
local function watch_dir(dir)
  if dir_wd[dir] then
    return true
  end
  local wd = add(dir, DIR_MASK + IN_ONLYDIR, 'dir')
  if not wd then
    return false
  end
  dir_wd[dir] = wd
  return true
end

--- Ends watch wd's part: rm_watch when it still watches (its inode moved
--- elsewhere), and the directories it stood for are watched no more.
---@param wd integer
---@param remove boolean
local function drop(wd, remove)
  M.generation = M.generation + 1
  for path, what in pairs(wd_paths[wd] or {}) do
    if what == 'dir' and dir_wd[path] == wd then
      dir_wd[path] = nil
    end
  end
  if wd_paths[wd] then
    watches = watches - 1
  end
  wd_paths[wd] = nil
  if remove then
    ffi.C.nvbridge_inotify_rm_watch(fd, wd)
  end
end

--- Ends path's cover, when it had one (the generation moves).
---@param path string
local function uncover(path)
  if covered[path] then
    covered[path] = nil
    M.generation = M.generation + 1
  end
end

--- Reads what the queue holds and forgets the covers its events name.
--- Nonblocking: an empty queue is one system call.
function M.drain()
  if not fd then
    return
  end
  while true do
    local n = tonumber(ffi.C.nvbridge_inotify_read(fd, buf, BUF_SIZE))
    if n <= 0 then
      -- -1 with EAGAIN: the queue is empty.
      return
    end
    local at = 0
    while at + EVENT_HEADER <= n do
      local head = ffi.cast('const int32_t *', buf + at)
      local wd, mask, len = head[0], head[1], head[3]
      if bit.band(mask, IN_Q_OVERFLOW) ~= 0 then
        -- Events were lost: no cover holds.
        covered = {}
        M.generation = M.generation + 1
      elseif wd_paths[wd] then
        local name = len > 0 and ffi.string(buf + at + EVENT_HEADER) or nil
        for path, what in pairs(wd_paths[wd]) do
          if what == 'file' then
            uncover(path)
          elseif name then
            -- An entry of a watched directory: a covered file, or a
            -- directory on a covered file's path.
            local entry = path == '/' and '/' .. name or path .. '/' .. name
            uncover(entry)
            if on_path[entry] then
              forget_under(entry)
            end
          else
            -- The directory itself.
            forget_under(path)
          end
        end
        if bit.band(mask, IN_IGNORED + IN_UNMOUNT) ~= 0 then
          drop(wd, false)
        elseif bit.band(mask, IN_MOVE_SELF) ~= 0 then
          drop(wd, true)
        end
      end
      at = at + EVENT_HEADER + len
    end
  end
end

--- Moves whenever a cover ended (an event named a covered file, or a
--- directory on the path of one; the queue overflowed; a watch was
--- dropped; the watches were closed): while it stays, every cover holds
--- (buffers.refresh_others). Events about other entries of a watched
--- directory (a temporary file beside the covered ones) leave it.
M.generation = 0

--- Whether path is covered: watched since its cover and no event named it
--- since. The caller reads the queue first (drain), once for all the
--- paths it asks about.
---@param path string
---@return boolean
function M.covered(path)
  return covered[path] == true
end

--- Watches path (absolute) so that a change from now on is an event that
--- drain reads. The caller stats the file after this: what it sees is
--- what no event came for. False when the kernel cannot tell (the caller
--- stats every time).
---@param path string
---@return boolean
function M.cover(path)
  if path:sub(1, 1) ~= '/' or not open() then
    return false
  end
  M.drain()
  local dir = vim.fs.dirname(path)
  if fs_ok[dir] == nil then
    local st = uv.fs_statfs(dir)
    -- No symbolic link on the way: a link's target moves without an event
    -- on the path.
    fs_ok[dir] = st ~= nil and LOCAL_FS[st.type] == true and uv.fs_realpath(dir) == dir
  end
  local lst = fs_ok[dir] and uv.fs_lstat(path)
  if not (lst and lst.type == 'file') then
    return false
  end
  -- From / down, the file last: the file is covered once every watch on
  -- its way is in place.
  local dirs = { dir }
  while dirs[#dirs] ~= '/' do
    table.insert(dirs, vim.fs.dirname(dirs[#dirs]))
  end
  for i = #dirs, 1, -1 do
    if not watch_dir(dirs[i]) then
      return false
    end
  end
  -- Added every time: a file renamed over path is another inode.
  if not add(path, FILE_MASK, 'file') then
    return false
  end
  local d = dir
  while not on_path[d] do
    on_path[d] = true
    if d == '/' then
      break
    end
    d = vim.fs.dirname(d)
  end
  covered[path] = true
  return true
end

--- Closes the descriptor and forgets every watch (teardown): a later cover
--- opens another.
function M.close()
  if fd then
    ffi.C.nvbridge_inotify_close(fd)
  end
  fd, buf = nil, nil
  covered, dir_wd, wd_paths, on_path, fs_ok, watches = {}, {}, {}, {}, {}, 0
  M.generation = M.generation + 1
end

return M
