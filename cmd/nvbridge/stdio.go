package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/memtrim"
	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/tools"
)

// stdioServer is the MCP transport on stdio: one JSON-RPC message a line
// in, one a line out, each request dispatched by mcp-go's MCPServer
// (HandleMessage). It does what mcp-go v1.2.1's StdioServer does, with the
// same concurrency (at most stdioWorkers tool calls at once and
// stdioQueue more waiting, other requests each at once, notifications in
// order as they are read), the same answers to a line
// that is not JSON or whose handler panics, and the same session (id
// "stdio": client info, logging level, and the sampling, elicitation and
// roots requests the server sends the client, matched with their
// responses), and adds nvbridge's own: the bound on a line (limits.go) and
// the dropped answer to a cancelled request (cancelled.go).
//
// What it does not do is read each line over and over: mcp-go's server
// decoded a request line about seven times before its dispatch decoded it
// three or four more (three probes for a response to a server request, its
// envelope, its method and id), and the dispatch decodes a tool call's
// arguments twice more (raw, then into a map nobody reads). Here a line is
// decoded once into its envelope, which answers every question the
// routing asks; and a tool call with large arguments (an edit_buffer of
// 1,000 edits is 60 KB) reaches the dispatch with its arguments cut out,
// handed to the tool beside the message (tools.WithCallArguments) instead
// of being decoded by every pass over the message.
//
// Nor does it hand a line from goroutine to goroutine: mcp-go's server read
// a line on one goroutine, routed it on a second and ran a tool call on a
// third (a worker of its pool), and each hand-off is a wake-up (a futex,
// and on a busy machine a wait for a core) on the way of every call. Here
// the goroutine that reads a line serves it, and a request (a tool call
// with a slot in the pool, a ping, ...) runs on the goroutine that read
// it: before running it, that goroutine passes the reading on to a new one
// (reader), so the next line (a cancellation, another call) is read while
// the request runs, as before, and the request's own way from stdin to
// stdout crosses no goroutine. (A request handed to a new goroutine by one
// that then blocks reading stdin waits besides for a core to take it: the
// reading goroutine holds its own while blocked in the read.)
type stdioServer struct {
	srv     *server.MCPServer
	direct  *tools.CallDispatcher // nil: every call through HandleMessage
	logger  *log.Logger
	max     int
	filter  *answerFilter
	out     *lockedWriter
	session *stdioSession

	// pool is the tool calls running (at most stdioWorkers) and those
	// waiting for a slot (at most stdioQueue).
	pool struct {
		sync.Mutex
		running int
		queue   []stdioCall
	}
	// workers counts the goroutines running tool calls; requests the
	// other requests' goroutines.
	workers  sync.WaitGroup
	requests sync.WaitGroup
	// serving is held while a line is served; stopped (under it) says the
	// session has ended: a reader that wakes with a line then drops it.
	serving sync.Mutex
	stopped bool

	// lines is stdin, read by one goroutine at a time (passReading);
	// ended hears how the reading ended.
	lines *lineReader
	ended chan readEnd
	// calls are the cancel funcs of the tool calls run directly
	// (tools.CallDispatcher), by the answer filter's key:
	// notifications/cancelled cancels them, as mcp-go cancels those it
	// runs.
	calls struct {
		sync.Mutex
		cancel map[string]context.CancelFunc
	}

	// idle are the goroutines waiting for their turn to read.
	idle struct {
		sync.Mutex
		turns []chan struct{}
	}
}

// The tool-call pool, as mcp-go's stdio server has it: at most
// stdioWorkers calls at once, stdioQueue more waiting; past that a call is
// served before the next line is read.
const (
	stdioWorkers = 5
	stdioQueue   = 100
)

// splitArgumentsAt is the size of a tool call's params from which its
// arguments are cut out of the message the dispatch decodes.
const splitArgumentsAt = 1024

type stdioCall struct {
	ctx     context.Context
	env     *envelope
	message json.RawMessage
	// req is the call decoded for the direct dispatch; nil: the message
	// goes through HandleMessage.
	req *mcp.CallToolRequest
}

// newStdioServer serves srv on stdio, writing to stdout; a line longer than
// max bytes is refused.
func newStdioServer(srv *server.MCPServer, stdout io.Writer, max int, logger *log.Logger) *stdioServer {
	s := &stdioServer{srv: srv, direct: tools.DispatcherOf(srv), logger: logger, max: max, filter: newAnswerFilter(), out: &lockedWriter{w: stdout}}
	s.calls.cancel = map[string]context.CancelFunc{}
	s.session = &stdioSession{out: s.out, pending: map[int64]func(*envelope){}, notifications: make(chan mcp.JSONRPCNotification, 100)}
	return s
}

// inFlight is the filter that knows the requests not yet answered.
func (s *stdioServer) inFlight() *answerFilter { return s.filter }

// Listen serves the lines of stdin until it ends (nil) or ctx does
// (ctx's error); the calls in flight are then cancelled and waited for.
func (s *stdioServer) Listen(ctx context.Context, stdin io.Reader) error {
	if err := s.srv.RegisterSession(ctx, s.session); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	defer s.srv.UnregisterSession(ctx, s.session.SessionID())
	ctx = s.srv.WithContext(ctx, s.session)
	// Handlers are served on their own goroutines; ending the session
	// cancels them, so none outlives it.
	ctx, cancelRequests := context.WithCancel(ctx)
	defer cancelRequests()

	safego.Go("the stdio notifications", func() { s.notify(ctx) }, nil)

	err := s.readLoop(ctx, stdin)

	// No line is served from here on (a reader blocked on stdin drops
	// what it reads), so no call joins those waited for.
	s.serving.Lock()
	s.stopped = true
	s.serving.Unlock()
	cancelRequests()
	s.workers.Wait()
	s.requests.Wait()
	return err
}

// readEnd is how the reading ended: a read error (io.EOF: the input
// ended) or a line's serving failed.
type readEnd struct {
	err  error
	read bool
}

// readLoop has the lines read and served (reader, on goroutines of their
// own: a read blocked on stdin does not hold up the end of ctx) until the
// input ends, a line's serving fails, or ctx ends.
func (s *stdioServer) readLoop(ctx context.Context, stdin io.Reader) error {
	s.ended = make(chan readEnd, 1)
	s.lines = &lineReader{r: bufio.NewReaderSize(stdin, 64<<10), max: s.max, tooLong: func(prefix []byte) {
		_, _ = s.out.Write(append(tooLargeMessage(int64(s.max), prefix), '\n'))
	}}
	s.passReading(ctx)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case e := <-s.ended:
		switch {
		case e.read && errors.Is(e.err, io.EOF):
			// A last line without its newline is not served, as
			// mcp-go's server does not serve it.
			return nil
		case e.read:
			s.logger.Printf("Error reading input: %v", e.err)
		default:
			s.logger.Printf("Error handling message: %v", e.err)
		}
		return e.err
	}
}

// maxIdleReaders bounds the goroutines kept waiting for their turn to
// read.
const maxIdleReaders = stdioWorkers + 2

// passReading has the next lines read by another goroutine: one that
// waits for its turn, or a new one. One reads at a time: a reader that
// keeps a request to run passes the reading on before it runs it.
//
// A goroutine that has run a request waits for a turn rather than ending:
// its stack has grown to what a call needs (mcp-go's dispatch, the tools'
// middleware, encoding/json), and a new goroutine's would grow again,
// copied at each doubling, on every call.
func (s *stdioServer) passReading(ctx context.Context) {
	s.idle.Lock()
	if n := len(s.idle.turns); n > 0 {
		turn := s.idle.turns[n-1]
		s.idle.turns = s.idle.turns[:n-1]
		s.idle.Unlock()
		turn <- struct{}{}
		return
	}
	s.idle.Unlock()
	safego.Go("the stdio reader", func() { s.readTurns(ctx) }, func(err error) {
		// The loop learns of it as of a read error, and ends.
		select {
		case s.ended <- readEnd{err: err, read: true}:
		default:
		}
	})
}

// readTurns reads (reader) each time it is this goroutine's turn, until
// the reading ends or the session does.
func (s *stdioServer) readTurns(ctx context.Context) {
	turn := make(chan struct{}, 1)
	for {
		if !s.reader(ctx) {
			return
		}
		s.idle.Lock()
		if len(s.idle.turns) >= maxIdleReaders {
			s.idle.Unlock()
			return
		}
		s.idle.turns = append(s.idle.turns, turn)
		s.idle.Unlock()
		select {
		case <-turn:
		case <-ctx.Done():
			return
		}
	}
}

// reader reads lines and serves each in turn, until the input ends, a
// line's serving fails or the session ends (false), or a line is a
// request it runs itself, having passed the reading on (true).
func (s *stdioServer) reader(ctx context.Context) bool {
	for {
		line, err := s.lines.next()
		if err != nil {
			s.ended <- readEnd{err: err, read: true}
			return false
		}
		run, served, err := s.serveLine(ctx, line)
		switch {
		case !served:
			return false // the session has ended
		case err != nil:
			s.ended <- readEnd{err: err}
			return false
		case run != nil:
			s.passReading(ctx)
			run()
			return true
		}
	}
}

// envelope is a JSON-RPC message's top level, each member as sent: every
// question the transport asks of a message is answered from it. The
// members match their names as encoding/json matches them for mcp-go's
// structs (a later duplicate wins, case folded).
type envelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`

	method    string // Method as a string ("" when absent or null)
	methodErr bool   // Method is not a string
	key       string // the answer filter's key of a request (idKey), "" for none
}

// decodeEnvelope fills env from line (a JSON object) as json.Unmarshal
// does; false when line is not JSON. The members are found by a walk over
// the bytes (scanEnvelope) once json.Valid has checked them, encoding/json
// deciding only what the walk leaves to it.
func decodeEnvelope(line []byte, env *envelope) bool {
	if !json.Valid(line) {
		return false
	}
	if scanEnvelope(line, env) {
		return true
	}
	*env = envelope{}
	return json.Unmarshal(line, env) == nil
}

// scanEnvelope sets env's members from b, a valid JSON object, as
// json.Unmarshal matches them (names case folded, a later duplicate
// wins); false, env half set, when a member's name holds an escape or a
// byte past ASCII (whose folding encoding/json decides) or b is not an
// object.
func scanEnvelope(b []byte, env *envelope) bool {
	return scanMembers(b, func(name, value []byte) bool {
		switch {
		case bytes.EqualFold(name, []byte("jsonrpc")):
			env.JSONRPC = value
		case bytes.EqualFold(name, []byte("id")):
			env.ID = value
		case bytes.EqualFold(name, []byte("method")):
			env.Method = value
		case bytes.EqualFold(name, []byte("params")):
			env.Params = value
		case bytes.EqualFold(name, []byte("result")):
			env.Result = value
		case bytes.EqualFold(name, []byte("error")):
			env.Error = value
		}
		return true
	})
}

// scanMembers calls each with the name and the raw value of every member
// of b, a valid JSON object, in order, while each returns true; false
// when b is not an object, a name holds an escape or a byte past ASCII,
// or each stopped.
func scanMembers(b []byte, each func(name, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != '}' {
		if b[i] != '"' {
			return false
		}
		j := i + 1
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' || b[j] >= 0x80 {
				return false
			}
			j++
		}
		if j >= len(b) {
			return false
		}
		name := b[i+1 : j]
		i = skipSpace(b, j+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		start := i
		if i = skipValue(b, i); i < 0 {
			return false
		}
		if !each(name, b[start:i:i]) {
			return false
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return i < len(b)
}

// plainString is the JSON string raw when it holds printable ASCII only,
// without escapes (its text is its bytes); false for any other value.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(raw[1 : len(raw)-1]), true
}

// present reports whether a member was sent as something other than null.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// id is the request id as mcp-go decodes it (float64, string, ...), nil for
// none.
func (e *envelope) id() any {
	if !present(e.ID) {
		return nil
	}
	var v any
	_ = json.Unmarshal(e.ID, &v)
	return v
}

// serveLine serves line unless the session has ended (served false); run
// is a request's serving, for the caller to run once the reading has
// passed on.
func (s *stdioServer) serveLine(ctx context.Context, line []byte) (run func(), served bool, err error) {
	s.serving.Lock()
	defer s.serving.Unlock()
	if s.stopped {
		return nil, false, nil
	}
	run, err = s.serve(ctx, line)
	return run, true, err
}

// serve routes one line: a response to a request the server sent the
// client, a tool call (run returns it when the pool has a slot, else it is
// queued), another request (run returns it), or a notification (served
// here, in order).
func (s *stdioServer) serve(ctx context.Context, line []byte) (run func(), err error) {
	line = bytes.TrimSpace(line)
	env := &envelope{}
	if len(line) == 0 || line[0] != '{' {
		// Not an object: a batch, a scalar, or not JSON. A valid one goes
		// to the dispatch, which answers it as mcp-go's server did; the
		// rest is a parse error.
		if !json.Valid(line) {
			return nil, s.write(nil, mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(nil),
				Error: mcp.NewJSONRPCErrorDetails(mcp.PARSE_ERROR, "Parse error", nil)})
		}
		return nil, s.write(nil, s.dispatch(ctx, nil, line))
	}
	if !decodeEnvelope(line, env) {
		return nil, s.write(nil, mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(nil),
			Error: mcp.NewJSONRPCErrorDetails(mcp.PARSE_ERROR, "Parse error", nil)})
	}
	if len(env.Method) > 0 {
		if m, ok := plainString(env.Method); ok {
			env.method = m
		} else {
			env.methodErr = json.Unmarshal(env.Method, &env.method) != nil
		}
	}
	if !env.methodErr && env.method != "" {
		env.key = idKey("", env.ID)
	}
	if s.session.deliver(env) {
		return nil, nil
	}
	s.incoming(env)
	msg := json.RawMessage(line)
	switch {
	case !env.methodErr && env.method == string(mcp.MethodToolsCall):
		c := stdioCall{ctx: ctx, env: env, message: msg}
		if present(env.ID) {
			if c.req = s.directCall(env); c.req == nil {
				c.message, c.ctx = splitArguments(ctx, env, msg)
			}
		}
		s.pool.Lock()
		switch {
		case s.pool.running < stdioWorkers:
			s.pool.running++
			s.pool.Unlock()
			s.workers.Add(1)
			return func() { s.runCalls(ctx, c) }, nil
		case len(s.pool.queue) < stdioQueue:
			s.pool.queue = append(s.pool.queue, c)
			s.pool.Unlock()
			return nil, nil
		}
		s.pool.Unlock()
		s.logger.Printf("Tool call queue full, processing synchronously")
		return nil, s.write(env, s.call(c))
	case !env.methodErr && present(env.ID):
		s.requests.Add(1)
		return func() {
			defer s.requests.Done()
			_ = safego.Call("a stdio request", func() {
				if err := s.write(env, s.dispatch(ctx, env, msg)); err != nil {
					s.logger.Printf("Error writing response: %v", err)
				}
			})
		}, nil
	}
	// A notification carries no answer and is not queued behind a request.
	if err := s.write(env, s.dispatch(ctx, env, msg)); err != nil {
		return nil, fmt.Errorf("failed to write response: %w", err)
	}
	return nil, nil
}

// runCalls runs c, a slot of the pool being its, then the calls queued
// while every slot was taken, until none waits (or the session has ended:
// those left are not run).
func (s *stdioServer) runCalls(ctx context.Context, c stdioCall) {
	defer s.workers.Done()
	for {
		// A panic is logged (dispatch answers a handler's own).
		_ = safego.Call("a stdio tool call", func() {
			call := memtrim.Begin()
			// What the call asked to run once it answered (the resource
			// list's comparison after a change) runs once the answer is
			// written, not beside its encoding (and after a panic too).
			var after *tools.AfterAnswer
			c.ctx, after = tools.WithAfterAnswer(c.ctx)
			defer after.Run()
			if err := s.write(c.env, s.call(c)); err != nil {
				s.logger.Printf("Error writing tool response: %v", err)
			}
			call.End() // answered: what a large call left is garbage now
		})
		s.pool.Lock()
		if len(s.pool.queue) == 0 || ctx.Err() != nil {
			s.pool.running--
			s.pool.Unlock()
			return
		}
		c = s.pool.queue[0]
		s.pool.queue[0] = stdioCall{}
		s.pool.queue = s.pool.queue[1:]
		s.pool.Unlock()
	}
}

// dispatch runs mcp-go's HandleMessage; a panicking handler is one failed
// request (INTERNAL_ERROR with its id), or nothing for a notification.
func (s *stdioServer) dispatch(ctx context.Context, env *envelope, message json.RawMessage) (response mcp.JSONRPCMessage) {
	defer s.recovered(env, &response)
	return s.srv.HandleMessage(ctx, message)
}

// recovered answers a request whose serving panicked (a hook's panic; a
// tool's is its call's error) as a failed request.
func (s *stdioServer) recovered(env *envelope, response *mcp.JSONRPCMessage) {
	if r := recover(); r != nil {
		s.logger.Printf("panic recovered in stdio message handler: %v", r)
		if env != nil && env.id() != nil {
			*response = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(env.id()),
				Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil)}
		}
	}
}

// call serves a tool call: directly (tools.CallDispatcher) when it was
// decoded for it, else through HandleMessage. A direct call's context is
// cancelled by notifications/cancelled naming it (incoming), as
// HandleMessage's is by mcp-go.
func (s *stdioServer) call(c stdioCall) (response mcp.JSONRPCMessage) {
	if c.req == nil {
		return s.dispatch(c.ctx, c.env, c.message)
	}
	defer s.recovered(c.env, &response)
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	s.calls.Lock()
	s.calls.cancel[c.env.key] = cancel
	s.calls.Unlock()
	// A cancellation read before the call got here (the next line is
	// read while this one starts, or the call waited for a slot) found no
	// cancel func to call: the answer filter has it (incoming records the
	// cancellation before it looks for the func; this looks after
	// registering it, so one of the two sees the other).
	if s.filter.cancelled(c.env.key) {
		cancel()
	}
	defer func() {
		s.calls.Lock()
		delete(s.calls.cancel, c.env.key)
		s.calls.Unlock()
	}()
	return s.direct.Call(ctx, c.env.id(), c.req, c.message)
}

// directCall decodes a tool call for the direct dispatch; nil when the
// server has none or HandleMessage is to serve the call: a jsonrpc member
// other than "2.0" (its error is HandleMessage's to give), params that are
// not an object, a result member, or a call tools.Direct leaves to it (the
// modern protocol era, a task). The arguments are handed to the tool as
// sent (RawArguments), never decoded here; the other params are.
func (s *stdioServer) directCall(env *envelope) *mcp.CallToolRequest {
	if s.direct == nil || string(env.JSONRPC) != `"2.0"` || len(env.Result) > 0 || len(env.Params) == 0 || env.Params[0] != '{' || env.key == "" {
		return nil
	}
	req := &mcp.CallToolRequest{}
	req.Method = string(mcp.MethodToolsCall)
	if !scanCallParams(env.Params, &req.Params) {
		// Other members (_meta, task, ...) or names in other case: the
		// params without their arguments decoded as mcp-go decodes them.
		start, end, ok := argumentsSpan(env.Params)
		rest := env.Params
		if ok {
			rest = make([]byte, 0, len(env.Params)-(end-start)+4)
			rest = append(rest, env.Params[:start]...)
			rest = append(rest, "null"...)
			rest = append(rest, env.Params[end:]...)
		}
		if json.Unmarshal(rest, &req.Params) != nil {
			return nil
		}
		if ok {
			args := env.Params[start:end]
			req.Params.Arguments, req.Params.RawArguments = json.RawMessage(args), json.RawMessage(args)
		}
	}
	if !tools.Direct(&req.Params) {
		return nil
	}
	return req
}

// scanCallParams reads params made of a name (a plain string) and
// arguments only, each once, names as sent (the common call); false for
// anything else.
func scanCallParams(b []byte, p *mcp.CallToolParams) bool {
	var name, args []byte
	ok := scanMembers(b, func(key, value []byte) bool {
		switch {
		case string(key) == "name" && name == nil:
			name = value
		case string(key) == "arguments" && args == nil:
			args = value
		default:
			return false
		}
		return true
	})
	if !ok || name == nil {
		return false
	}
	n, ok := plainString(name)
	if !ok {
		return false
	}
	p.Name = n
	if args != nil {
		p.Arguments, p.RawArguments = json.RawMessage(args), json.RawMessage(args)
	}
	return true
}

// incoming tells the answer filter of a request (in flight until
// answered) or a cancellation.
func (s *stdioServer) incoming(env *envelope) {
	switch {
	case env.method == "notifications/cancelled":
		m := message{Method: env.method}
		if len(env.Params) > 0 {
			_ = json.Unmarshal(env.Params, &m.Params)
		}
		s.filter.record("", m)
		if k := idKey("", m.Params.RequestID); k != "" {
			s.calls.Lock()
			cancel := s.calls.cancel[k]
			s.calls.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	case env.key != "":
		s.filter.start(env.key)
	}
}

// write sends one message as a line; when it answers env's request, the
// request's flight ends, and the answer is dropped if the client
// cancelled the request.
func (s *stdioServer) write(env *envelope, msg mcp.JSONRPCMessage) error {
	key := ""
	if env != nil {
		key = env.key
	}
	if msg == nil {
		if key != "" {
			s.filter.end(key)
		}
		return nil
	}
	buf := linePool.Get().(*bytes.Buffer)
	defer putLine(buf)
	if err := appendLine(buf, msg); err != nil {
		if key != "" {
			s.filter.end(key)
		}
		return err
	}
	if key != "" && s.filter.end(key) {
		return nil // cancelled: no answer (cancelled.go)
	}
	_, err := s.out.Write(buf.Bytes())
	return err
}

// linePool holds the buffers the answers are written into.
var linePool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putLine gives a buffer back to the pool, unless it grew past what a
// common answer needs (a large answer's buffer is not kept).
func putLine(buf *bytes.Buffer) {
	if buf.Cap() > 256<<10 {
		return
	}
	buf.Reset()
	linePool.Put(buf)
}

// encodeLine is msg's line (appendLine) in a slice of its own.
func encodeLine(msg mcp.JSONRPCMessage) ([]byte, error) {
	var buf bytes.Buffer
	if err := appendLine(&buf, msg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// appendLine writes msg to buf as json.Encoder writes it (a line, HTML
// characters escaped). A tool call's answer is written in one pass into
// buf, member by member (appendCallToolResult), each value encoded
// straight into it: no result encoded apart and then copied around its
// envelope, and no second pass of the encoder over a result that came
// from a MarshalJSON (it checks and compacts such an encoding again).
func appendLine(buf *bytes.Buffer, msg mcp.JSONRPCMessage) error {
	if r, ok := msg.(mcp.JSONRPCResponse); ok && r.JSONRPC == mcp.JSONRPC_VERSION {
		var res *mcp.CallToolResult
		switch v := r.Result.(type) {
		case *mcp.CallToolResult:
			res = v
		case mcp.CallToolResult:
			res = &v
		}
		if res != nil {
			enc := json.NewEncoder(buf)
			buf.WriteString(`{"jsonrpc":"2.0","id":`)
			if err := encodeValue(enc, buf, r.ID); err != nil {
				return err
			}
			buf.WriteString(`,"result":`)
			if err := appendCallToolResult(enc, buf, res); err != nil {
				return err
			}
			buf.WriteString("}\n")
			return nil
		}
	}
	return json.NewEncoder(buf).Encode(msg) // the line's newline too
}

// encodeValue writes v's encoding (json.Marshal's) to buf through enc,
// which writes to buf, without the newline Encode ends it with.
func encodeValue(enc *json.Encoder, buf *bytes.Buffer, v any) error {
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}

// appendCallToolResult writes r as r.MarshalJSON() does: mcp-go's puts
// the members in a map, to be sorted and encoded by reflection, then
// copied out; a result with only content, structured content and isError
// (every one nvbridge's tools give) is written here in the same order,
// each member encoded as the map's encoding encodes it. Any other goes to
// MarshalJSON.
func appendCallToolResult(enc *json.Encoder, buf *bytes.Buffer, r *mcp.CallToolResult) error {
	if r.Meta != nil || r.ResultType != "" || len(r.InputRequests) > 0 || r.RequestState != "" || len(r.RawStructuredContent) > 0 {
		b, err := r.MarshalJSON()
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
	buf.WriteString(`{"content":`)
	if len(r.Content) == 0 {
		buf.WriteString("[]")
	} else if err := encodeValue(enc, buf, r.Content); err != nil {
		return err
	}
	if r.IsError {
		buf.WriteString(`,"isError":true`)
	}
	if r.StructuredContent != nil {
		buf.WriteString(`,"structuredContent":`)
		if err := encodeValue(enc, buf, r.StructuredContent); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// notify writes the notifications mcp-go queues for the session.
func (s *stdioServer) notify(ctx context.Context) {
	for {
		select {
		case n := <-s.session.notifications:
			if err := s.write(nil, n); err != nil {
				s.logger.Printf("Error writing notification: %v", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// splitArguments cuts a tool call's arguments out of the message the
// dispatch decodes (several times over) and hands them to the tool through
// ctx: the message keeps every other member as sent, its arguments become
// null, and tools' first before-call hook puts the arguments back as they
// were sent before any tool or middleware sees the request. A call with
// small params, or whose params are not a plain object with one member
// named arguments, is left whole.
func splitArguments(ctx context.Context, env *envelope, message json.RawMessage) (json.RawMessage, context.Context) {
	if len(env.Params) < splitArgumentsAt || env.Params[0] != '{' {
		return message, ctx
	}
	start, end, ok := argumentsSpan(env.Params)
	if !ok {
		return message, ctx
	}
	args := env.Params[start:end]
	params := make([]byte, 0, len(env.Params)-len(args)+4)
	params = append(params, env.Params[:start]...)
	params = append(params, "null"...)
	params = append(params, env.Params[end:]...)
	out := struct {
		JSONRPC json.RawMessage `json:"jsonrpc,omitempty"`
		ID      json.RawMessage `json:"id,omitempty"`
		Method  json.RawMessage `json:"method,omitempty"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   json.RawMessage `json:"error,omitempty"`
	}{env.JSONRPC, env.ID, env.Method, params, env.Result, env.Error}
	b, err := json.Marshal(out)
	if err != nil {
		return message, ctx
	}
	return b, tools.WithCallArguments(ctx, args)
}

// argumentsSpan finds the value of the member "arguments" in params (a
// JSON object): its start and end offsets. It answers false when there is
// none, or another member whose name encoding/json would take for it too
// (a duplicate, or the name in other case).
func argumentsSpan(params []byte) (start, end int, ok bool) {
	start, end, ok, sure := scanArguments(params)
	if sure {
		return start, end, ok
	}
	return decodeArguments(params)
}

// scanArguments is argumentsSpan by a walk over the bytes of params, which
// the envelope's decoding has validated as JSON: the members' names are
// read, their values skipped (strings, nesting) without being decoded.
// sure is false when a name holds an escape or a non-ASCII byte (whose
// folding encoding/json decides), or params is not an object: then
// decodeArguments answers.
func scanArguments(params []byte) (start, end int, ok, sure bool) {
	i := skipSpace(params, 0)
	if i >= len(params) || params[i] != '{' {
		return 0, 0, false, false
	}
	i = skipSpace(params, i+1)
	found := false
	for i < len(params) && params[i] != '}' {
		if params[i] != '"' {
			return 0, 0, false, false
		}
		j := i + 1
		for j < len(params) && params[j] != '"' {
			if params[j] == '\\' || params[j] >= 0x80 {
				return 0, 0, false, false
			}
			j++
		}
		if j >= len(params) {
			return 0, 0, false, false
		}
		key := params[i+1 : j]
		i = skipSpace(params, j+1)
		if i >= len(params) || params[i] != ':' {
			return 0, 0, false, false
		}
		i = skipSpace(params, i+1)
		vstart := i
		i = skipValue(params, i)
		if i < 0 {
			return 0, 0, false, false
		}
		if bytes.EqualFold(key, []byte("arguments")) {
			if string(key) != "arguments" || found {
				return 0, 0, false, true
			}
			start, end, found = vstart, i, true
		}
		i = skipSpace(params, i)
		if i < len(params) && params[i] == ',' {
			i = skipSpace(params, i+1)
		}
	}
	return start, end, found, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the offset just past the valid JSON value at b[i:]
// (-1 when it runs off the end).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	// A number or a literal.
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the offset just past the string at b[i:] (b[i] is
// its opening quote), -1 when it runs off the end.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// decodeArguments is argumentsSpan through encoding/json's tokens.
func decodeArguments(params []byte) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(params))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, false
	}
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return 0, 0, false
		}
		if !strings.EqualFold(key, "arguments") {
			continue
		}
		if key != "arguments" || found {
			return 0, 0, false
		}
		end = int(dec.InputOffset())
		start = end - len(value)
		if start < 0 || !bytes.Equal(params[start:end], value) {
			return 0, 0, false
		}
		found = true
	}
	return start, end, found
}

// lineReader reads the lines of stdin, each at most max bytes; a longer
// line is skipped without being held (only its first max bytes are, to
// find its id) and answered through tooLong.
type lineReader struct {
	r       *bufio.Reader
	max     int
	tooLong func(prefix []byte)
}

// next returns the next line of at most max bytes (with its newline), in
// a slice of its own; at the end of the input, the error (and what came
// before it on the last line).
func (l *lineReader) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(line)+len(chunk) > l.max {
			room := l.max - len(line)
			line = append(line, chunk[:min(room, len(chunk))]...)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = l.r.ReadSlice('\n')
			}
			l.tooLong(line)
			if err != nil {
				return nil, err
			}
			line = line[:0:0]
			continue
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}

// stdioSession is the one client session on stdio (mcp-go's own is not
// exported): what the server knows of its client, its logging level, the
// notifications queued for it, and the requests sent to it.
type stdioSession struct {
	out           io.Writer
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	logLevel      atomic.Value // mcp.LoggingLevel
	clientInfo    atomic.Value // mcp.Implementation
	clientCaps    atomic.Value // mcp.ClientCapabilities
	protocol      atomic.Value // string

	requestID atomic.Int64
	mu        sync.Mutex
	pending   map[int64]func(*envelope) // request id → what takes its response
}

var (
	_ server.ClientSession              = (*stdioSession)(nil)
	_ server.SessionWithLogging         = (*stdioSession)(nil)
	_ server.SessionWithClientInfo      = (*stdioSession)(nil)
	_ server.SessionWithProtocolVersion = (*stdioSession)(nil)
	_ server.SessionWithSampling        = (*stdioSession)(nil)
	_ server.SessionWithElicitation     = (*stdioSession)(nil)
	_ server.SessionWithRoots           = (*stdioSession)(nil)
)

func (s *stdioSession) SessionID() string { return "stdio" }

func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

func (s *stdioSession) Initialize() {
	s.logLevel.Store(mcp.LoggingLevelError)
	s.initialized.Store(true)
}

func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.Store(level) }

func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

func (s *stdioSession) GetClientInfo() mcp.Implementation {
	v, _ := s.clientInfo.Load().(mcp.Implementation)
	return v
}

func (s *stdioSession) SetClientInfo(info mcp.Implementation) { s.clientInfo.Store(info) }

func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	v, _ := s.clientCaps.Load().(mcp.ClientCapabilities)
	return v
}

func (s *stdioSession) SetClientCapabilities(caps mcp.ClientCapabilities) { s.clientCaps.Store(caps) }

func (s *stdioSession) ProtocolVersion() string {
	v, _ := s.protocol.Load().(string)
	return v
}

func (s *stdioSession) SetProtocolVersion(version string) { s.protocol.Store(version) }

// responseError is a JSON-RPC error in a client's response.
type responseError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// deliver hands a response to a request the server sent the client to
// what waits for it; false when env is no such response. A response is
// recognised as mcp-go's server recognises it: an id that reads as an
// integer, a result or an error, and a jsonrpc member that is a string
// when present.
func (s *stdioSession) deliver(env *envelope) bool {
	if len(env.Result) == 0 && !present(env.Error) {
		return false
	}
	if len(env.JSONRPC) > 0 {
		var v string
		if json.Unmarshal(env.JSONRPC, &v) != nil {
			return false
		}
	}
	if len(env.Error) > 0 {
		var e *responseError
		if json.Unmarshal(env.Error, &e) != nil {
			return false
		}
	}
	id, ok := responseID(env.ID)
	if !ok {
		return false
	}
	s.mu.Lock()
	take, ok := s.pending[id]
	s.mu.Unlock()
	if !ok {
		return false
	}
	take(env)
	return true
}

// responseID reads a response's id as mcp-go's server does (json.Number:
// a number, or a string holding one), when it is an integer.
func responseID(raw json.RawMessage) (int64, bool) {
	var n json.Number
	if len(raw) == 0 || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	id, err := strconv.ParseInt(string(n), 10, 64)
	return id, err == nil
}

// askClient sends the client a request and waits for its response (or ctx).
func askClient[R any](ctx context.Context, s *stdioSession, method mcp.MCPMethod, params any, what, failed string, parse func(json.RawMessage) (*R, error)) (*R, error) {
	id := s.requestID.Add(1)
	type answer struct {
		result *R
		err    error
	}
	got := make(chan answer, 1)
	s.mu.Lock()
	s.pending[id] = func(env *envelope) {
		var a answer
		var e *responseError
		if len(env.Error) > 0 {
			_ = json.Unmarshal(env.Error, &e)
		}
		if e != nil {
			a.err = fmt.Errorf("%s: %s", failed, e.Message)
		} else {
			a.result, a.err = parse(env.Result)
		}
		select {
		case got <- a:
		default:
		}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	msg := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, id, string(method), params}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal %s request: %w", what, err)
	}
	if _, err := s.out.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("failed to write %s request: %w", what, err)
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case a := <-got:
		return a.result, a.err
	}
}

func (s *stdioSession) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return askClient(ctx, s, mcp.MethodSamplingCreateMessage, req.CreateMessageParams, "sampling", "sampling request failed", func(raw json.RawMessage) (*mcp.CreateMessageResult, error) {
		var r mcp.CreateMessageResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("failed to unmarshal sampling response: %w", err)
		}
		content, err := mcp.ParseSamplingContent(r.Content)
		if err != nil {
			return nil, fmt.Errorf("failed to parse sampling response content: %w", err)
		}
		r.Content = content
		return &r, nil
	})
}

func (s *stdioSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return askClient(ctx, s, mcp.MethodElicitationCreate, req.Params, "elicitation", "elicitation request failed", func(raw json.RawMessage) (*mcp.ElicitationResult, error) {
		var r mcp.ElicitationResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("failed to unmarshal elicitation response: %w", err)
		}
		return &r, nil
	})
}

func (s *stdioSession) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return askClient(ctx, s, mcp.MethodListRoots, nil, "list roots", "list root request failed", func(raw json.RawMessage) (*mcp.ListRootsResult, error) {
		var r mcp.ListRootsResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("failed to unmarshal list root response: %w", err)
		}
		return &r, nil
	})
}
