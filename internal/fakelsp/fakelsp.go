// Package fakelsp is a scripted fake language server for fault injection
// (hangs, crashes, error replies, malformed results). Tests never use it for
// behaviour a real server can show: real servers cover that.
//
// The fake runs as the test binary itself: a test package's TestMain calls
// MaybeServe first, and Spec returns a server description (for
// nvim.Options.ExtraServers) whose command re-executes the test binary with
// the script in its environment.
//
//	func TestMain(m *testing.M) {
//		fakelsp.MaybeServe()
//		os.Exit(m.Run())
//	}
package fakelsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/nvbridge/nvbridge/nvim"
)

// ScriptEnv is the environment variable that carries the script (JSON) to
// the re-executed test binary.
const ScriptEnv = "NVBRIDGE_FAKELSP_SCRIPT"

// Behaviours a script assigns to a method.
const (
	// OK answers with a small valid result.
	OK = "ok"
	// Hang never answers; the request stays pending (a later
	// $/cancelRequest is logged).
	Hang = "hang"
	// Crash exits the process (status 3) as soon as the request arrives.
	Crash = "crash"
	// Log answers with the messages received so far, one per line (as
	// hover contents for textDocument/hover, else a list of strings).
	Log = "log"
	// ErrorPrefix + code answers with that JSON-RPC error, e.g. "error:-32801".
	ErrorPrefix = "error:"
	// RawPrefix + JSON answers with that JSON verbatim (malformed or
	// overlapping edits, odd unions).
	RawPrefix = "raw:"
	// AwaitPrefix + METHOD [":" + behaviour] holds the request until a
	// message with METHOD has been received (at once if one already was),
	// then answers with behaviour (default OK), e.g.
	// "await:$/cancelRequest:log". Tests wait on it for an event inside the
	// fake (a request that reached it, a cancellation) without polling.
	AwaitPrefix = "await:"
)

// Script says how the fake answers.
type Script struct {
	// Methods maps an LSP method to a behaviour (OK, Hang, Crash, Log,
	// ErrorPrefix+code, RawPrefix+json). Every listed method is advertised
	// in the server's capabilities; unlisted requests get MethodNotFound.
	Methods map[string]string `json:"methods"`
	// Lifetime bounds the fake's life: it exits after it even if nobody
	// stops it (default 2 minutes), so it never outlives a test.
	Lifetime time.Duration `json:"lifetime,omitempty"`
	// NoDiagnostics stops the fake from publishing (empty) diagnostics
	// after didOpen/didChange.
	NoDiagnostics bool `json:"no_diagnostics,omitempty"`
}

// Spec describes the fake as a server for nvim.Options.ExtraServers: the
// current (test) binary re-executed with script in its environment. The
// calling package's TestMain must call MaybeServe.
func Spec(name string, filetypes []string, script Script) (nvim.ServerSpec, error) {
	exe, err := os.Executable()
	if err != nil {
		return nvim.ServerSpec{}, err
	}
	body, err := json.Marshal(script)
	if err != nil {
		return nvim.ServerSpec{}, err
	}
	return nvim.ServerSpec{
		Name:      name,
		Cmd:       []string{exe},
		Filetypes: filetypes,
		Env:       map[string]string{ScriptEnv: string(body)},
	}, nil
}

// MaybeServe serves the script in $NVBRIDGE_FAKELSP_SCRIPT on stdio and
// exits when that variable is set; otherwise it returns at once.
func MaybeServe() {
	raw := os.Getenv(ScriptEnv)
	if raw == "" {
		return
	}
	var script Script
	if err := json.Unmarshal([]byte(raw), &script); err != nil {
		fmt.Fprintln(os.Stderr, "fakelsp: bad script:", err)
		os.Exit(2)
	}
	err := Serve(context.Background(), os.Stdin, os.Stdout, script)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakelsp:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

type rwc struct {
	io.Reader
	io.Writer
}

func (c rwc) Close() error {
	if cl, ok := c.Reader.(io.Closer); ok {
		cl.Close()
	}
	if cl, ok := c.Writer.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// capabilityOf maps a request method to the server capability announcing it.
var capabilityOf = map[string]struct {
	key   string
	value any
}{
	protocol.MethodTextDocumentDefinition:     {"definitionProvider", true},
	protocol.MethodTextDocumentDeclaration:    {"declarationProvider", true},
	protocol.MethodTextDocumentTypeDefinition: {"typeDefinitionProvider", true},
	protocol.MethodTextDocumentImplementation: {"implementationProvider", true},
	protocol.MethodTextDocumentReferences:     {"referencesProvider", true},
	protocol.MethodTextDocumentHover:          {"hoverProvider", true},
	protocol.MethodTextDocumentDocumentSymbol: {"documentSymbolProvider", true},
	protocol.MethodWorkspaceSymbol:            {"workspaceSymbolProvider", true},
	protocol.MethodTextDocumentRename:         {"renameProvider", true},
	protocol.MethodTextDocumentCodeAction:     {"codeActionProvider", true},
	protocol.MethodTextDocumentCompletion:     {"completionProvider", map[string]any{}},
	protocol.MethodTextDocumentSignatureHelp:  {"signatureHelpProvider", map[string]any{}},
	protocol.MethodTextDocumentFormatting:     {"documentFormattingProvider", true},
}

// Capabilities returns the server capabilities the script announces.
func (s Script) Capabilities() map[string]any {
	caps := map[string]any{
		"textDocumentSync": map[string]any{"openClose": true, "change": 1},
	}
	for method := range s.Methods {
		if c, ok := capabilityOf[method]; ok {
			caps[c.key] = c.value
		}
	}
	return caps
}

type server struct {
	script Script
	conn   jsonrpc2.Conn
	mu     sync.Mutex
	log    []string
	// pending keeps the repliers of hung requests (never called).
	pending []jsonrpc2.Replier
	// awaiting holds the requests of Await behaviours not yet released.
	awaiting []awaiting
}

// awaiting is a request held until a message with method arrives.
type awaiting struct {
	method string
	then   string
	req    jsonrpc2.Request
	reply  jsonrpc2.Replier
}

// parseAwait splits an AwaitPrefix behaviour into the awaited method and the
// behaviour that answers once it arrived.
func parseAwait(behaviour string) (method, then string) {
	method, then, _ = strings.Cut(strings.TrimPrefix(behaviour, AwaitPrefix), ":")
	if then == "" {
		then = OK
	}
	return method, then
}

// received reports whether log holds a message with method.
func received(log []string, method string) bool {
	for _, entry := range log {
		if entry == method || strings.HasPrefix(entry, method+" ") {
			return true
		}
	}
	return false
}

// release answers the held requests whose awaited method is the one just
// received (log includes it).
func (s *server) release(ctx context.Context, method string, log []string) {
	s.mu.Lock()
	var ready []awaiting
	kept := s.awaiting[:0]
	for _, a := range s.awaiting {
		if a.method == method {
			ready = append(ready, a)
		} else {
			kept = append(kept, a)
		}
	}
	s.awaiting = kept
	s.mu.Unlock()
	for _, a := range ready {
		_ = s.answer(ctx, a.reply, a.req, a.then, log)
	}
}

// Serve answers LSP messages on r/w as script says until the peer closes
// the stream, sends exit, or the lifetime ends.
func Serve(ctx context.Context, r io.Reader, w io.Writer, script Script) error {
	life := script.Lifetime
	if life <= 0 {
		life = 2 * time.Minute
	}
	kill := time.AfterFunc(life, func() {
		fmt.Fprintln(os.Stderr, "fakelsp: lifetime over, exiting")
		os.Exit(4)
	})
	defer kill.Stop()
	s := &server{script: script}
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(rwc{r, w}))
	// A plain (synchronous) handler: it never blocks, so a hung request
	// does not stall the messages behind it.
	s.conn.Go(ctx, s.handle)
	<-s.conn.Done()
	if err := s.conn.Err(); err != nil && !isEOF(err) {
		return err
	}
	return nil
}

func isEOF(err error) bool {
	return err == io.EOF || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")
}

func (s *server) record(req jsonrpc2.Request) []string {
	entry := req.Method()
	if call, ok := req.(*jsonrpc2.Call); ok {
		entry += " id=" + fmt.Sprint(call.ID())
	}
	if req.Method() == protocol.MethodCancelRequest {
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		entry += " id=" + strings.Trim(string(p.ID), `"`)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, entry)
	return append([]string(nil), s.log...)
}

func (s *server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	log := s.record(req)
	s.release(ctx, req.Method(), log)
	switch req.Method() {
	case protocol.MethodInitialize:
		return reply(ctx, map[string]any{
			"capabilities": s.script.Capabilities(),
			"serverInfo":   map[string]any{"name": "fakelsp"},
		}, nil)
	case protocol.MethodShutdown:
		return reply(ctx, nil, nil)
	case protocol.MethodExit:
		os.Exit(0)
	}
	behaviour, scripted := s.script.Methods[req.Method()]
	if _, isCall := req.(*jsonrpc2.Call); !isCall {
		switch req.Method() {
		case protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange:
			if !s.script.NoDiagnostics {
				s.publish(ctx, req)
			}
		}
		return reply(ctx, nil, nil) // notifications: nothing to answer
	}
	if !scripted {
		return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
	}
	return s.answer(ctx, reply, req, behaviour, log)
}

// answer replies to the request req as behaviour says; log is the messages
// received so far.
func (s *server) answer(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request, behaviour string, log []string) error {
	switch {
	case strings.HasPrefix(behaviour, AwaitPrefix):
		method, then := parseAwait(behaviour)
		s.mu.Lock()
		if !received(s.log, method) {
			s.awaiting = append(s.awaiting, awaiting{method: method, then: then, req: req, reply: reply})
			s.mu.Unlock()
			return nil
		}
		log = append([]string(nil), s.log...)
		s.mu.Unlock()
		return s.answer(ctx, reply, req, then, log)
	case behaviour == Hang:
		s.mu.Lock()
		s.pending = append(s.pending, reply)
		s.mu.Unlock()
		return nil
	case behaviour == Crash:
		os.Exit(3)
	case behaviour == Log:
		if req.Method() == protocol.MethodTextDocumentHover {
			return reply(ctx, map[string]any{
				"contents": map[string]any{"kind": "plaintext", "value": strings.Join(log, "\n")},
			}, nil)
		}
		return reply(ctx, log, nil)
	case strings.HasPrefix(behaviour, ErrorPrefix):
		code, err := strconv.Atoi(strings.TrimPrefix(behaviour, ErrorPrefix))
		if err != nil {
			code = int(jsonrpc2.InternalError)
		}
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.Code(code), "fakelsp: scripted error"))
	case strings.HasPrefix(behaviour, RawPrefix):
		return reply(ctx, json.RawMessage(strings.TrimPrefix(behaviour, RawPrefix)), nil)
	case behaviour == OK:
		return reply(ctx, okResult(req), nil)
	}
	return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InternalError, "fakelsp: unknown behaviour "+behaviour))
}

// publish sends empty diagnostics for the document version just received,
// as real servers do once they have analysed a file (nvbridge waits for
// that before the first request on a buffer).
func (s *server) publish(ctx context.Context, req jsonrpc2.Request) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version *int32 `json:"version"`
		} `json:"textDocument"`
	}
	if err := json.Unmarshal(req.Params(), &p); err != nil {
		return
	}
	_ = s.conn.Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, map[string]any{
		"uri": p.TextDocument.URI, "version": p.TextDocument.Version, "diagnostics": []any{},
	})
}

// okResult is a small valid answer: locations point at the request's own
// position.
func okResult(req jsonrpc2.Request) any {
	var p protocol.TextDocumentPositionParams
	_ = json.Unmarshal(req.Params(), &p)
	loc := protocol.Location{URI: p.TextDocument.URI, Range: protocol.Range{Start: p.Position, End: p.Position}}
	switch req.Method() {
	case protocol.MethodTextDocumentDefinition, protocol.MethodTextDocumentDeclaration,
		protocol.MethodTextDocumentTypeDefinition, protocol.MethodTextDocumentImplementation,
		protocol.MethodTextDocumentReferences:
		return []protocol.Location{loc}
	case protocol.MethodTextDocumentHover:
		return map[string]any{"contents": map[string]any{"kind": "plaintext", "value": "fakelsp hover"}}
	case protocol.MethodTextDocumentDocumentSymbol, protocol.MethodWorkspaceSymbol, protocol.MethodTextDocumentCodeAction:
		return []any{}
	}
	return nil
}
