package side

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
	nvbnvim "github.com/nvbridge/nvbridge/nvim"
)

// ViaNeovim sends the same requests as Straight, but through Neovim's own
// LSP client: an embedded Neovim of its own, set up by the very code that
// sets up nvbridge's embedded Neovim (lua/nvbridge/embedded.lua: no
// syntax, filetype plugins or indent scripts; the client capabilities it
// declares and its on_init; gopls's settings from lang), gopls
// started with vim.lsp.start, one nvim_exec_lua per request and the answer
// back as a notification, with nothing else on the way (no MCP, no
// open/reconcile, no context lines, no shaping). It is the floor of the
// architecture the guide fixes (every request through Neovim's client):
// nvbridge's time over it plus the MCP exchange is what nvbridge itself
// adds.
type ViaNeovim struct {
	rooted
	v   *nvim.Nvim
	cmd *exec.Cmd

	mu      sync.Mutex
	buffers map[string]int // rel -> bufnr, opened and attached
	first   int            // a buffer for requests about no document
	nextID  atomic.Int64
	waiters map[int64]chan viaAnswer
	loaded  chan struct{} // closed when gopls's first work-done progress ends
	once    sync.Once
}

type viaAnswer struct {
	err    string
	result json.RawMessage
}

// viaLua is the Neovim half: constant source, every value an argument.
const viaLua = `
local chan, root, settings, init_options = ...
local S = { client = nil }
-- nvbridge's embedded Neovim as it is set up (lua/nvbridge/embedded.lua,
-- configured by Go before this runs: nvbnvim.ConfigureAsEmbedded): no
-- remote plugin providers, filetype detection without syntax, filetype
-- plugins or indent scripts, no LSP log; its client capabilities and
-- on_init below. The floor is Neovim's client as nvbridge configures it,
-- not Neovim's defaults (syntax and the Go filetype plugin cost a file's
-- load about 2 ms more).
local embedded = require('nvbridge.embedded')
-- gopls answers "no views" until its workspace load is under way: say when
-- its first work-done progress ends (as Straight.WaitLoaded waits).
vim.api.nvim_create_autocmd('LspProgress', {
  pattern = 'end',
  callback = function(ev)
    if ev.data and ev.data.client_id == S.client then
      vim.rpcnotify(chan, 'side_loaded')
      return true
    end
  end,
})
local function request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end
function S.open(path)
  local b = vim.fn.bufadd(path)
  vim.fn.bufload(b)
  if not S.client then
    -- The capabilities and on_init nvbridge's embedded Neovim starts its
    -- servers with (servers.lua takes them from the same module).
    S.client = vim.lsp.start({ name = 'gopls', cmd = { 'gopls' }, root_dir = root,
      settings = settings, init_options = init_options, capabilities = embedded.capabilities(),
      on_init = embedded.on_init }, { bufnr = b })
  else
    vim.lsp.buf_attach_client(b, S.client)
  end
  return b
end
function S.request(id, bufnr, method, params_json)
  local client = vim.lsp.get_client_by_id(S.client)
  local ok = request(client, method, vim.json.decode(params_json), function(err, result)
    if err then
      return vim.rpcnotify(chan, 'side_done', id, vim.json.encode(err), '')
    end
    vim.rpcnotify(chan, 'side_done', id, '', vim.json.encode(result == nil and vim.NIL or result))
  end, bufnr)
  if not ok then
    vim.rpcnotify(chan, 'side_done', id, 'request refused', '')
  end
end
-- Several requests at once, in one call (a hover and the definition
-- nvbridge asks beside it), each answered with side_done.
function S.request_all(ids, bufnr, methods, params_json)
  for i, id in ipairs(ids) do
    S.request(id, bufnr, methods[i], params_json)
  end
end
-- The first request in a new file: the open and the request in one call,
-- as nvbridge makes them (no round trip between them).
function S.open_request(path, id, method, params_json)
  local b = S.open(path)
  S.request(id, b, method, params_json)
  return b
end
-- The same with several requests at once (the hover and the definition
-- nvbridge asks beside it), each answered with side_done.
function S.open_request_all(path, ids, methods, params_json)
  local b = S.open(path)
  S.request_all(ids, b, methods, params_json)
  return b
end
package.loaded['nvbridge_side'] = S
`

// StartViaNeovim starts `nvim --embed --headless --clean` in root (as
// nvbridge's embedded mode does) and loads the Neovim half; gopls starts
// with the first Open.
func StartViaNeovim(ctx context.Context, root string) (*ViaNeovim, error) {
	cmd := exec.Command("nvim", "--embed", "--headless", "--clean", "-n", "-i", "NONE")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, stdout, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	v, err := nvim.New(bufio.NewReaderSize(stdout, 256<<10), stdin, stdin, func(string, ...any) {})
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	s := &ViaNeovim{rooted: rooted{root}, v: v, cmd: cmd, buffers: map[string]int{}, waiters: map[int64]chan viaAnswer{}, loaded: make(chan struct{})}
	if err := v.RegisterHandler("side_done", s.onDone); err != nil {
		s.Close()
		return nil, err
	}
	if err := v.RegisterHandler("side_loaded", func(...any) { s.once.Do(func() { close(s.loaded) }) }); err != nil {
		s.Close()
		return nil, err
	}
	safego.Go("side: the Neovim connection", func() { _ = v.Serve() }, nil)
	var spec lang.ServerSpec
	for _, sp := range lang.ServerSpecs() {
		if sp.Name == "gopls" {
			spec = sp
		}
	}
	settings, init := spec.Settings, spec.InitOptions
	if settings == nil {
		settings = map[string]any{}
	}
	if init == nil {
		init = map[string]any{}
	}
	if err := nvbnvim.ConfigureAsEmbedded(v, root); err != nil {
		s.Close()
		return nil, fmt.Errorf("via Neovim: configure as nvbridge's embedded Neovim: %w", err)
	}
	if err := v.ExecLua(viaLua, nil, v.ChannelID(), root, settings, init); err != nil {
		s.Close()
		return nil, fmt.Errorf("via Neovim: load: %w", err)
	}
	return s, nil
}

// onDone takes interface{} arguments: a notification that does not decode
// into the handler's types would close go-client's connection.
func (s *ViaNeovim) onDone(args ...any) {
	if len(args) < 3 {
		return
	}
	var id int64
	switch n := args[0].(type) {
	case int64:
		id = n
	case uint64:
		id = int64(n)
	default:
		return
	}
	e, _ := args[1].(string)
	r, _ := args[2].(string)
	s.mu.Lock()
	ch := s.waiters[id]
	delete(s.waiters, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- viaAnswer{err: e, result: json.RawMessage(r)}
	}
}

// WaitLoaded opens rel (starting gopls) and waits for gopls's workspace
// load to end, bounded by ctx.
func (s *ViaNeovim) WaitLoaded(ctx context.Context, rel string) error {
	if err := s.Open(ctx, rel); err != nil {
		return err
	}
	return waitClosed(ctx, s.loaded)
}

// Open loads rel into a buffer and attaches gopls to it (didOpen), once.
func (s *ViaNeovim) Open(ctx context.Context, rel string) error {
	s.mu.Lock()
	_, done := s.buffers[rel]
	s.mu.Unlock()
	if done {
		return nil
	}
	var b int
	if err := s.v.ExecLua("return require('nvbridge_side').open(...)", &b, filepath.Join(s.Root, rel)); err != nil {
		return err
	}
	s.opened(rel, b)
	return nil
}

// opened records buffer b as rel's (and the first buffer, for requests
// about no document).
func (s *ViaNeovim) opened(rel string, b int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buffers[rel] = b
	if s.first == 0 {
		s.first = b
	}
}

// OpenCall is Open and Call in one call to Neovim: the first request in a
// file not opened yet, made as nvbridge makes it (one round trip), so the
// floor carries no exchange nvbridge does not make.
func (s *ViaNeovim) OpenCall(ctx context.Context, rel, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	_, open := s.buffers[rel]
	s.mu.Unlock()
	if open {
		return s.Call(ctx, method, params)
	}
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	id, ch := s.await()
	var b int
	if err := s.v.ExecLua("return require('nvbridge_side').open_request(...)", &b, filepath.Join(s.Root, rel), id, method, string(body)); err != nil {
		s.forget(id)
		return nil, err
	}
	s.opened(rel, b)
	return s.answer(ctx, id, method, ch)
}

// OpenCallAll is Open and CallAll in one call to Neovim: the first
// request in a file not opened yet with every request nvbridge's answer
// needs beside it (get_hover_info: the hover and the definition), all sent
// at once as nvbridge sends them.
func (s *ViaNeovim) OpenCallAll(ctx context.Context, rel string, methods []string, params any) ([]json.RawMessage, error) {
	s.mu.Lock()
	_, open := s.buffers[rel]
	s.mu.Unlock()
	if open {
		return s.CallAll(ctx, methods, params)
	}
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(methods))
	chans := make([]chan viaAnswer, len(methods))
	for i := range methods {
		ids[i], chans[i] = s.await()
	}
	var b int
	if err := s.v.ExecLua("return require('nvbridge_side').open_request_all(...)", &b, filepath.Join(s.Root, rel), ids, methods, string(body)); err != nil {
		for _, id := range ids {
			s.forget(id)
		}
		return nil, err
	}
	s.opened(rel, b)
	return s.answers(ctx, ids, methods, chans)
}

// answers waits for the answers of ids (methods), in order; the ids not
// waited for are forgotten on an error.
func (s *ViaNeovim) answers(ctx context.Context, ids []int64, methods []string, chans []chan viaAnswer) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(methods))
	var err error
	for i, m := range methods {
		if out[i], err = s.answer(ctx, ids[i], m, chans[i]); err != nil {
			for _, id := range ids[i+1:] {
				s.forget(id)
			}
			return nil, err
		}
	}
	return out, nil
}

// await registers a waiter for the answer of a new request id.
func (s *ViaNeovim) await() (int64, chan viaAnswer) {
	id := s.nextID.Add(1)
	ch := make(chan viaAnswer, 1)
	s.mu.Lock()
	s.waiters[id] = ch
	s.mu.Unlock()
	return id, ch
}

func (s *ViaNeovim) forget(id int64) {
	s.mu.Lock()
	delete(s.waiters, id)
	s.mu.Unlock()
}

// answer waits for request id's answer (onDone), bounded by ctx.
func (s *ViaNeovim) answer(ctx context.Context, id int64, method string, ch chan viaAnswer) (json.RawMessage, error) {
	select {
	case a := <-ch:
		if a.err != "" {
			return nil, fmt.Errorf("%s through Neovim: %s", method, a.err)
		}
		return a.result, nil
	case <-ctx.Done():
		s.forget(id)
		return nil, ctx.Err()
	}
}

// bufferOf is the buffer of the document params (JSON) name when it is
// open, else the first buffer opened.
func (s *ViaNeovim) bufferOf(params []byte) int {
	var doc struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	_ = json.Unmarshal(params, &doc)
	s.mu.Lock()
	defer s.mu.Unlock()
	bufnr := s.first
	for rel, b := range s.buffers {
		if string(s.URI(rel)) == doc.TextDocument.URI {
			bufnr = b
		}
	}
	return bufnr
}

// Call sends one request through Neovim's client (on the buffer of the
// params' document when it is open) and returns its raw answer.
// It stays the floor's minimal path (not CallAll of one method: a list
// made and read in Neovim for nothing).
func (s *ViaNeovim) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	id, ch := s.await()
	if err := s.v.ExecLua("return require('nvbridge_side').request(...)", nil, id, s.bufferOf(body), method, string(body)); err != nil {
		s.forget(id)
		return nil, err
	}
	return s.answer(ctx, id, method, ch)
}

// CallAll sends methods with the same params through Neovim's client (on
// the buffer of the params' document when it is open) in one call to
// Neovim, all at once (as nvbridge sends a hover and the definition it
// asks beside it, in one read), and waits for every answer.
func (s *ViaNeovim) CallAll(ctx context.Context, methods []string, params any) ([]json.RawMessage, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	bufnr := s.bufferOf(body)
	ids := make([]int64, len(methods))
	chans := make([]chan viaAnswer, len(methods))
	for i := range methods {
		ids[i], chans[i] = s.await()
	}
	if err := s.v.ExecLua("return require('nvbridge_side').request_all(...)", nil, ids, bufnr, methods, string(body)); err != nil {
		for _, id := range ids {
			s.forget(id)
		}
		return nil, err
	}
	return s.answers(ctx, ids, methods, chans)
}

// Close ends Neovim (which stops gopls), killing the group if it lingers.
func (s *ViaNeovim) Close() {
	_ = s.v.Close()
	// Its own process group: a gopls that outlived Neovim goes too.
	nvbnvim.EndChild(s.cmd, 3*time.Second, 2*time.Second)
}

// Pid is Neovim's process id.
func (s *ViaNeovim) Pid() int { return s.cmd.Process.Pid }
