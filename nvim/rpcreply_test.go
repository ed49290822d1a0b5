package nvim_test

import (
	"testing"

	"github.com/nvbridge/nvbridge/internal/testenv"
)

// TestRPCRequestReplyInOneCall: on Neovim 0.10's RPC connection, a
// request's reply reaches its callback in one scheduled call (Neovim calls
// the reply notice, then the callback, as it reads the reply), the notice
// not called; a reply without an answer (a RequestCancelled, whose
// callback Neovim drops) reaches the notice; a callback called without the
// notice first, and an error answer, reach the callback.
func TestRPCRequestReplyInOneCall(t *testing.T) {
	testenv.Require(t, "nvim")
	s, _ := testenv.Embedded(t, t.TempDir())
	const code = `
local compat = require('nvbridge._compat')
if compat.has_011 then
  return { skipped = true }
end
local conn = { message_index = 0, message_callbacks = {}, notify_reply_callbacks = {},
  transport = { write = function() end, is_closing = function() return false end } }
local client = conn
local fake = { name = 'fake', rpc = { request = function() return client end } }
local scheduled, schedule = 0, vim.schedule
vim.schedule = function(f)
  scheduled = scheduled + 1
  return schedule(f)
end
local got = {}
local function send(name)
  local ok, id = compat.rpc_request(fake, 'x/y', {}, function(err, result)
    table.insert(got, string.format('%s: callback %s %s after %d', name, err and err.message or 'nil', tostring(result), scheduled))
  end, function(rid)
    table.insert(got, string.format('%s: notice after %d', name, scheduled))
  end)
  assert(ok, 'not sent')
  return id
end
-- As vim.lsp.rpc's handle_body calls them, the notice first.
local function reply(id, err, result, cancelled)
  scheduled = 0
  local notice = conn.notify_reply_callbacks[id]
  conn.notify_reply_callbacks[id] = nil
  notice(id)
  local callback = conn.message_callbacks[id]
  conn.message_callbacks[id] = nil
  if not cancelled then
    callback(err, result)
  end
  vim.wait(1000, function() return #got > 0 end)
  vim.wait(20)
end
local out = {}
local function case(f)
  got = {}
  f()
  table.insert(out, table.concat(got, '; '))
end
case(function() reply(send('answer'), nil, 42) end)
case(function() reply(send('error'), { message = 'boom' }, nil) end)
case(function() reply(send('cancelled'), nil, nil, true) end)
case(function()
  local id = send('direct')
  scheduled = 0
  local callback = conn.message_callbacks[id]
  conn.message_callbacks[id] = nil
  callback(nil, 7)
  vim.wait(1000, function() return #got > 0 end)
end)
vim.schedule = schedule
return { out = out }`
	var got struct {
		Skipped bool     `msgpack:"skipped"`
		Out     []string `msgpack:"out"`
	}
	if err := s.ExecLua(testenv.Context(t), code, &got); err != nil {
		t.Fatal(err)
	}
	if got.Skipped {
		t.Skip("Neovim 0.11 sends through client.rpc.request")
	}
	want := []string{
		"answer: callback nil 42 after 1",
		"error: callback boom nil after 1",
		"cancelled: notice after 1",
		"direct: callback nil 7 after 1",
	}
	for i, w := range want {
		if i >= len(got.Out) || got.Out[i] != w {
			t.Errorf("got %q, want %q", got.Out, want)
			break
		}
	}
}
