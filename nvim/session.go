// Package nvim owns nvbridge's connection to Neovim: it attaches to a running
// Neovim or starts an embedded headless one, registers the Lua half of the
// bridge there, and runs Lua calls and asynchronous operations with a
// context.
package nvim

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/neovim/go-client/msgpack"
	"github.com/neovim/go-client/msgpack/rpc"
	"github.com/neovim/go-client/nvim"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/internal/rawio"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/internal/tailbuf"
	"github.com/nvbridge/nvbridge/lang"
	bridgelua "github.com/nvbridge/nvbridge/lua"
	"github.com/nvbridge/nvbridge/workspace"
)

// Options say which Neovim to use.
type Options struct {
	// Addr is a running Neovim's listen address (unix socket path or
	// host:port). Empty means: $NVIM when UseEnv is set and it is set, else
	// start an embedded Neovim.
	Addr string
	// UseEnv allows $NVIM to name the Neovim to attach to.
	UseEnv bool
	// Root is the workspace folder (embedded Neovim's working directory).
	Root workspace.Root
	// Command is the nvim executable for embedded mode ("nvim" when empty).
	Command string
	// Logf receives diagnostics; never stdout (stdio MCP owns it).
	Logf func(format string, args ...any)
	// ExtraServers are language servers the embedded Neovim starts in
	// addition to (and before) the built-in list; see ExtraServersFromEnv.
	ExtraServers []ServerSpec
	// TraceLogf, when set, receives every exchange the session records
	// in its trace (Session.Trace) as it happens (--log).
	TraceLogf func(format string, args ...any)
	// ParserDir holds tree-sitter parsers NAME.so (`make deps` builds
	// .deps/parser): registered for the registry's tree-sitter languages,
	// in attached mode only those the user's Neovim has no parser for
	// (lua/nvbridge/syntax.lua: setup). Empty: only Neovim's own.
	ParserDir string
}

// Session is one connection to Neovim. It is safe for concurrent use.
type Session struct {
	// roundTrips counts the requests sent to Neovim (RoundTrips).
	roundTrips atomic.Int64

	v        *nvim.Nvim
	root     workspace.Root
	embedded bool
	extra    []ServerSpec
	addr     string // the address dialled ("" when embedded)
	command  string // embedded mode's nvim (Options.Command)
	channel  int
	// ep is v's connection, to send notifications (starts.go: notifyBatch);
	// nil when go-client's Nvim is not laid out as endpointOf expects.
	ep *rpc.Endpoint
	// rawPipes: the embedded Neovim's pipes are read and written with raw
	// system calls (rawio).
	rawPipes bool

	// parserDir and parsers: the tree-sitter parsers (Options.ParserDir)
	// and how each language is served (Parsers).
	parserDir string
	parsers   map[string]string
	logf      func(string, ...any)

	cmd    *exec.Cmd
	stderr *tailbuf.Buffer
	// tmpDir: the embedded Neovim's and its servers' $TMPDIR (spawn).
	tmpDir string

	nextID  atomic.Int64
	mu      sync.Mutex
	waiters map[int64]chan asyncResult
	// reporters receive the progress of async operations (progress.go).
	reporters map[int64]progress.Func
	// sinks receive the snapshots taken with reads (read_snapshot.go).
	sinks map[int64]func([]byte)

	// Async starts waiting to be sent, and whether a sender runs
	// (starts.go).
	startMu    sync.Mutex
	startQueue []*asyncStart
	sending    bool

	closed    chan struct{}
	closeOnce sync.Once
	serveErr  error
	// stopped: the user stopped nvbridge (:NvbridgeStop said so before
	// closing the channel).
	stopped atomic.Bool

	// trace keeps the recent RPC and LSP exchanges (Trace).
	trace *traceRing
}

type asyncResult struct {
	err    *apierr.Error
	result json.RawMessage
}

// Open connects to Neovim as opts say and registers the bridge.
func Open(ctx context.Context, opts Options) (*Session, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	addr := opts.Addr
	if addr == "" && opts.UseEnv {
		addr = os.Getenv("NVIM")
	}
	s := &Session{root: opts.Root, logf: logf, extra: opts.ExtraServers, command: opts.Command, parserDir: opts.ParserDir, waiters: map[int64]chan asyncResult{}, closed: make(chan struct{}),
		trace: newTraceRing(opts.TraceLogf)}
	var err error
	if addr != "" {
		s.addr = addr
		err = s.dial(ctx, addr)
	} else {
		err = s.spawn(ctx, opts.Command)
	}
	if err != nil {
		return nil, err
	}
	if err := s.init(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) dial(ctx context.Context, addr string) error {
	v, err := nvim.Dial(addr, nvim.DialContext(ctx), nvim.DialServe(false), nvim.DialLogf(s.logf), nvim.DialNetDial(dialBuffered))
	if err != nil {
		return apierr.Errorf(apierr.ResourceNotFound,
			"start Neovim with a listen address (nvim --listen /tmp/nvim.sock) and pass it with --nvim, or omit --nvim to use an embedded Neovim",
			"cannot connect to Neovim at %s: %v", addr, err)
	}
	s.v, s.ep = v, endpointOf(v)
	safego.Go("the Neovim connection", s.serve, s.servePanicked)
	return nil
}

func (s *Session) spawn(ctx context.Context, command string) error {
	if command == "" {
		command = "nvim"
	}
	// --clean: no user config, shada or plugins, but filetype detection and
	// the builtin runtime, so the embedded default works on any machine.
	cmd := exec.Command(command, "--embed", "--headless", "--clean", "-n", "-i", "NONE")
	cmd.Dir = s.root.Dir()
	// A temporary directory of its own, removed at Close: the servers
	// Neovim starts leave theirs behind (typescript-language-server makes
	// a directory for its cancellation pipes per start and never removes it).
	tmp, err := os.MkdirTemp("", "nvbridge-embedded-")
	if err != nil {
		return apierr.Errorf(apierr.OperationFailed, "check that the temporary directory ($TMPDIR or /tmp) is writable",
			"cannot make the embedded Neovim's temporary directory: %v", err)
	}
	s.tmpDir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	// A process group of its own: Close can end the language servers Neovim
	// started even if Neovim itself hangs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.stderr = tailbuf.New(8192)
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		s.removeTmp()
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		s.removeTmp()
		return err
	}
	if err := cmd.Start(); err != nil {
		s.removeTmp()
		return apierr.Errorf(apierr.PreconditionFailed,
			"install Neovim >= 0.10 (make deps installs a private copy under .deps/) or pass --nvim-cmd",
			"cannot start %s: %v", command, err)
	}
	s.cmd = cmd
	s.embedded = true
	// Read and written with raw system calls (rawio): neither wakes the
	// runtime's monitor thread, as the first system call after the process
	// was idle otherwise does (a read is two: the request sent, the answer
	// read).
	r, w := rawio.NewReader(stdout), rawio.NewWriter(stdin)
	_, rawRead := r.(*rawio.Reader)
	_, rawWrite := w.(*rawio.Writer)
	s.rawPipes = rawRead && rawWrite
	v, err := nvim.New(bufio.NewReaderSize(r, readBuffer), w, stdin, s.logf)
	if err != nil {
		s.Close()
		return err
	}
	s.v, s.ep = v, endpointOf(v)
	safego.Go("the Neovim connection", s.serve, s.servePanicked)
	return nil
}

// readBuffer is how much of Neovim's output one read system call takes in:
// go-client's own buffer is 4 KiB, a read for every 4 KiB of a large
// buffer's lines (a first preview of a 100,000-line buffer: 22 -> 19 ms).
const readBuffer = 256 << 10

// dialBuffered connects to Neovim's address and reads through readBuffer.
func dialBuffered(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return bufferedConn{c, bufio.NewReaderSize(c, readBuffer)}, nil
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// servePanicked ends a session whose connection loop panicked: its calls
// fail with an error instead of waiting forever.
func (s *Session) servePanicked(err error) {
	s.serveErr = err
	s.markClosed()
}

func (s *Session) serve() {
	if err := s.v.RegisterHandler("nvbridge_done", s.onDone); err != nil {
		s.logf("nvbridge: register handler: %v", err)
	}
	if err := s.v.RegisterHandler("nvbridge_progress", s.onProgress); err != nil {
		s.logf("nvbridge: register handler: %v", err)
	}
	if err := s.v.RegisterHandler("nvbridge_snapshot", s.onSnapshot); err != nil {
		s.logf("nvbridge: register handler: %v", err)
	}
	if err := s.v.RegisterHandler("nvbridge_stop", func(...any) { s.stopped.Store(true) }); err != nil {
		s.logf("nvbridge: register handler: %v", err)
	}
	err := s.v.Serve()
	s.serveErr = err
	s.markClosed()
}

func (s *Session) markClosed() {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.mu.Lock()
		defer s.mu.Unlock()
		for id, ch := range s.waiters {
			ch <- asyncResult{err: s.deadError()}
			delete(s.waiters, id)
		}
	})
}

func (s *Session) deadError() *apierr.Error {
	msg := "the connection to Neovim is closed"
	if s.stderr != nil {
		if tail := strings.TrimSpace(s.stderr.String()); tail != "" {
			msg += "; Neovim said: " + tail
		}
	}
	return apierr.New(apierr.OperationFailed, msg, "restart nvbridge (and Neovim, if it was attached)")
}

// init registers the embedded Lua modules and sets the session up.
func (s *Session) init(ctx context.Context) error {
	var ok bool
	if err := s.ExecLua(ctx, "return vim.fn.has('nvim-0.10') == 1", &ok); err != nil {
		return err
	}
	if !ok {
		return apierr.New(apierr.PreconditionFailed, "Neovim is older than 0.10",
			"use Neovim 0.10 or later (make deps installs one under .deps/)")
	}
	modules, err := luaModules()
	if err != nil {
		return err
	}
	// The loader is fixed source; module texts travel as arguments. A module
	// whose source is already registered (another nvbridge of the same
	// version attached to this Neovim) is kept, with its state: replacing it
	// would orphan the other bridge's in-flight requests.
	const loader = `
local modules = ...
local registered = package.loaded['nvbridge._sources'] or {}
package.loaded['nvbridge._sources'] = registered
for name, src in pairs(modules) do
  if registered[name] ~= src then
    registered[name] = src
    package.preload[name] = function()
      return assert(loadstring(src, '@nvbridge/' .. name))()
    end
    package.loaded[name] = nil
  end
end
require('nvbridge.bridge').setup()
`
	if err := s.ExecLua(ctx, loader, nil, modules); err != nil {
		return fmt.Errorf("register the nvbridge Lua modules: %w", err)
	}
	s.channel = s.v.ChannelID()
	if s.channel == 0 {
		return errors.New("cannot read the RPC channel id from Neovim")
	}
	// Tree-sitter parsers: paths and names are arguments (syntax.setup).
	if err := luaSyntaxSetup.call(ctx, s, &s.parsers, s.parserDir, lang.TreeSitterLanguages(), s.embedded); err != nil {
		return fmt.Errorf("register the tree-sitter parsers: %w", err)
	}
	specs, err := serversJSON(s.root.Dir(), s.extra)
	if err != nil {
		return err
	}
	if s.embedded {
		if err := luaEmbeddedConfigure.call(ctx, s, nil, s.root.Dir()); err != nil {
			return fmt.Errorf("configure the embedded Neovim: %w", err)
		}
		if err := luaServersSetup.call(ctx, s, nil, s.root.Dir(), specs); err != nil {
			return fmt.Errorf("set up the embedded Neovim: %w", err)
		}
	} else {
		// The user's configuration starts the servers; the specs still
		// say how they behave (servers.indexes_after_attach).
		if err := luaServersKnown.call(ctx, s, nil, specs); err != nil {
			return fmt.Errorf("register the server specs: %w", err)
		}
	}
	return nil
}

// userSideModules belong to the user plugin (commands, health) and keep
// its state; the binary does not register them.
var userSideModules = map[string]bool{"nvbridge": true, "nvbridge.health": true}

// luaModules maps module names ("nvbridge.bridge") to their source.
func luaModules() (map[string]string, error) {
	out := map[string]string{}
	err := fs.WalkDir(bridgelua.Modules, "nvbridge", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".lua") {
			return err
		}
		src, err := bridgelua.Modules.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.ReplaceAll(strings.TrimSuffix(p, ".lua"), "/", ".")
		name = strings.TrimSuffix(name, ".init")
		if userSideModules[name] {
			return nil
		}
		out[name] = string(src)
		return nil
	})
	return out, err
}

// SiblingOptions are the options of a second, embedded Neovim on the same
// root with the same servers (a verified edit's check runs there, out of
// the user's sight).
func (s *Session) SiblingOptions() Options {
	return Options{Root: s.root, Command: s.command, ExtraServers: s.extra, ParserDir: s.parserDir, Logf: s.logf}
}

// Parsers says how each tree-sitter language of the registry is served:
// "nvbridge" (Options.ParserDir's parser), "user" (the user's or Neovim's
// own), "missing", or why ours did not load.
func (s *Session) Parsers() map[string]string { return s.parsers }

// Root is the workspace root.
func (s *Session) Root() workspace.Root { return s.root }

// Embedded reports whether nvbridge started this Neovim.
func (s *Session) Embedded() bool { return s.embedded }

// Done is closed when the connection to Neovim ends.
func (s *Session) Done() <-chan struct{} { return s.closed }

// StoppedByUser reports whether the user stopped nvbridge from Neovim
// (:NvbridgeStop) rather than Neovim going away.
func (s *Session) StoppedByUser() bool { return s.stopped.Load() }

// ExecLua runs fixed Lua source with data arguments, bounded by ctx.
// go-client calls take no context, so a call outliving ctx is abandoned
// (its reply is dropped) and ctx's error is returned.
func (s *Session) ExecLua(ctx context.Context, code string, result any, args ...any) error {
	first, _, _ := strings.Cut(strings.TrimSpace(code), "\n")
	return s.execLua(ctx, "exec_lua "+first, code, result, args...)
}

// execLua runs code, recording it in the trace under name.
func (s *Session) execLua(ctx context.Context, name, code string, result any, args ...any) error {
	start := time.Now()
	if args == nil {
		args = []any{}
	}
	// go-client decodes the reply from its own goroutine: a call abandoned
	// when ctx ends would write the caller's result after execLua returned
	// (a data race with whatever the caller does next). The reply is
	// decoded into a value of execLua's own and handed over only once the
	// call has ended.
	into, handOver := privateResult(result)
	err := s.bounded(ctx, func() error { return s.v.ExecLua(code, into, args...) })
	if err == nil {
		handOver()
	}
	s.traceRPC(name, start, err)
	return err
}

// privateResult is a fresh destination of result's type and the function
// that copies it into result; result itself when it is not a pointer (nil:
// the value is dropped).
func privateResult(result any) (any, func()) {
	dst := reflect.ValueOf(result)
	if result == nil || dst.Kind() != reflect.Pointer || dst.IsNil() {
		return result, func() {}
	}
	fresh := reflect.New(dst.Type().Elem())
	return fresh.Interface(), func() { dst.Elem().Set(fresh.Elem()) }
}

// traceRPC records a finished call to Neovim, begun at start.
func (s *Session) traceRPC(name string, start time.Time, err error) {
	e := TraceEntry{At: start, Kind: "rpc", Text: name, Took: time.Since(start)}
	if err != nil {
		e.Err = err.Error()
	}
	s.trace.add(e)
}

// RoundTrips is how many requests this session has sent to Neovim: each
// waits for Neovim's answer, so a tool's count is its share of Neovim
// latency (the benchmarks' and the tests' measure of it).
func (s *Session) RoundTrips() int64 { return s.roundTrips.Load() }

func (s *Session) bounded(ctx context.Context, call func() error) error {
	select {
	case <-s.closed:
		return s.deadError()
	default:
	}
	s.roundTrips.Add(1)
	errc := make(chan error, 1)
	safego.Go("a Neovim call", func() { errc <- call() }, func(err error) { errc <- err })
	select {
	case err := <-errc:
		return s.inSessionTerms(err)
	case <-ctx.Done():
		return ctxError(ctx)
	case <-s.closed:
		return s.deadError()
	}
}

// inSessionTerms is err from go-client, or the session's own error when it
// means the connection is gone.
func (s *Session) inSessionTerms(err error) error {
	if err != nil && (s.isClosed() || connectionLost(err)) {
		return s.deadError()
	}
	return err
}

// connectionLost reports errors that mean the connection is gone, which a
// call can return before serve has noticed the end of the stream.
func connectionLost(err error) bool {
	return errors.Is(err, rpc.ErrClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

func (s *Session) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

func ctxError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return apierr.New(apierr.Timeout, "the request timed out",
			"retry with a larger timeout (--timeout or the tool's timeout_ms); the language server may still be loading the workspace")
	}
	return apierr.New(apierr.Cancelled, "the request was cancelled", "retry if the cancellation was not intended")
}

// start runs the asynchronous operation f(channel, id, args...) in Neovim
// and waits for its nvbridge_done notification. When ctx ends first,
// async.cancel stops the operation in Neovim (sending $/cancelRequest for
// LSP requests).
func (s *Session) start(ctx context.Context, f *luaFunc, args ...any) (json.RawMessage, error) {
	return s.startThen(ctx, f, nil, args...)
}

// startThen is start, calling sent (when not nil) once the start's call
// returned (Lua ran the operation's first part) and before its answer is
// waited for, or, when the answer came first, with it.
func (s *Session) startThen(ctx context.Context, f *luaFunc, sent func(), args ...any) (json.RawMessage, error) {
	return s.startSinking(ctx, f, sent, nil, args...)
}

// startSinking is startThen, with sink (when not nil) receiving what the
// operation sends with nvbridge_snapshot before its answer.
func (s *Session) startSinking(ctx context.Context, f *luaFunc, sent func(), sink func([]byte), args ...any) (json.RawMessage, error) {
	if !f.async || len(args) != f.nargs {
		return nil, fmt.Errorf("nvim: %s started with %d arguments, declared with %d", f, len(args), f.nargs)
	}
	id := s.nextID.Add(1)
	ch := make(chan asyncResult, 1)
	s.mu.Lock()
	if s.isClosed() {
		s.mu.Unlock()
		return nil, s.deadError()
	}
	s.waiters[id] = ch
	if sink != nil {
		if s.sinks == nil {
			s.sinks = map[int64]func([]byte){}
		}
		s.sinks[id] = sink
		defer func() {
			s.mu.Lock()
			delete(s.sinks, id)
			s.mu.Unlock()
		}()
	}
	s.mu.Unlock()
	s.watchProgress(id, progress.From(ctx))
	defer s.unwatchProgress(id)
	forget := func() {
		s.mu.Lock()
		delete(s.waiters, id)
		s.mu.Unlock()
	}
	var kind, what string
	if f.trace != nil {
		kind, what = f.trace(args)
	} else {
		kind, what = "async", f.name+"("+describeArgs(args)+")"
	}
	what = "#" + strconv.FormatInt(id, 10) + " " + what
	start := time.Now()
	s.trace.add(TraceEntry{At: start, Kind: kind, Text: what})
	cancelled := func() (json.RawMessage, error) {
		s.trace.add(TraceEntry{Kind: kind, Text: fmt.Sprintf("#%d cancelled", id), Took: time.Since(start), Err: ctx.Err().Error()})
		forget()
		// Queued after the start, the cancel reaches Neovim after it,
		// whether the start had gone yet or not. Waited on for a bound
		// only: ctx is already over.
		cancel := s.queueStart(luaCancel.f, id, nil)
		select {
		case <-cancel.sent:
		case <-s.closed:
		case <-time.After(2 * time.Second):
		}
		return nil, ctxError(ctx)
	}
	// The answer may come before the start's call is seen to return (the
	// goroutine that sent it has yet to run): it is taken as it comes,
	// the call's return not waited for (Lua answered, so it ran).
	started := s.queueStart(f, id, args).sent
	var r asyncResult
	select {
	case err := <-started:
		if err != nil {
			forget()
			return nil, err
		}
		if sent != nil {
			sent()
		}
		select {
		case r = <-ch:
		case <-ctx.Done():
			return cancelled()
		}
	case r = <-ch:
		if sent != nil {
			sent()
		}
	case <-ctx.Done():
		return cancelled()
	}
	// The result's start only (the trace keeps no more, and marks the
	// cut): converting a result of megabytes whole copied it all.
	head := r.result[:min(len(r.result), 4*TraceTextLimit+1)]
	e := TraceEntry{Kind: kind, Text: "#" + strconv.FormatInt(id, 10) + " ← " + string(head), Took: time.Since(start)}
	if r.err != nil {
		e.Text, e.Err = fmt.Sprintf("#%d ← %s", id, r.err.Code), r.err.Message
	}
	s.trace.add(e)
	if r.err != nil {
		return nil, r.err
	}
	return r.result, nil
}

// onDone receives nvbridge_done(id, err, result). id and err are
// interface{}, and result a *doneResult, which takes any value (a
// pointer: go-client's decoder sets nil to the pointer, where setting it
// to a doneResult itself panics): a
// notification whose arguments do not decode into the handler's types
// closes the whole connection (go-client).
func (s *Session) onDone(idArg, errArg any, result *doneResult) {
	// go-client runs this on its own goroutine: a panic here must not end
	// the process (the waiter then meets its own deadline).
	defer safego.Recover("nvbridge_done", nil)
	id, ok := toInt64(idArg)
	if !ok {
		return
	}
	var r asyncResult
	if errArg != nil {
		r.err = luaErrorOf(errArg)
	}
	if result != nil {
		r.result = json.RawMessage(*result)
	}
	s.mu.Lock()
	ch, found := s.waiters[id]
	delete(s.waiters, id)
	s.mu.Unlock()
	if found {
		ch <- r
	}
}

// doneResult is nvbridge_done's result: the operation's JSON, a string
// (or binary) copied once from the decoder's buffer (decoded into an
// interface{}, it was copied into a string, then into the RawMessage);
// nil for any other value, which is skipped, never an error.
type doneResult []byte

func (r *doneResult) UnmarshalMsgPack(d *msgpack.Decoder) error {
	switch d.Type() {
	case msgpack.String, msgpack.Binary:
		*r = append(doneResult(nil), d.BytesNoCopy()...)
		return nil
	}
	*r = nil
	return d.Skip()
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case uint64:
		return int64(n), true
	case int:
		return int64(n), true
	}
	return 0, false
}

// Close ends the session. An embedded Neovim is asked to quit, then its
// whole process group (language servers included) is ended.
func (s *Session) Close() error {
	if s.v == nil {
		s.removeTmp()
		return nil
	}
	if !s.embedded {
		err := s.v.Close()
		s.markClosed()
		return err
	}
	quit := make(chan struct{})
	safego.Go("quitting Neovim", func() {
		defer close(quit)
		_ = s.v.Command("qa!") // returns ErrClosed when Neovim exits
	}, nil)
	select {
	case <-quit:
	case <-time.After(3 * time.Second):
	}
	_ = s.v.Close()
	// Neovim normally stops its servers on exit; make sure nothing survives.
	EndChild(s.cmd, 3*time.Second, 2*time.Second)
	s.removeTmp()
	s.markClosed()
	return nil
}

// removeTmp removes the embedded Neovim's temporary directory, once its
// process group has ended.
func (s *Session) removeTmp() {
	if s.tmpDir == "" {
		return
	}
	if err := os.RemoveAll(s.tmpDir); err != nil {
		s.logf("nvbridge: remove %s: %v", s.tmpDir, err)
	}
	s.tmpDir = ""
}

// Pid returns the embedded Neovim's process id (0 when attached).
func (s *Session) Pid() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}
