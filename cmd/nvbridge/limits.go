package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/memtrim"
)

// defaultMaxRequestBytes bounds one request (an HTTP body, a stdio line):
// a 100 MB argument used to cost 2.4 GB. --max-request-bytes changes it.
const defaultMaxRequestBytes = 4 << 20

// httpOptions configure the HTTP transport.
type httpOptions struct {
	token           string // required as "Authorization: Bearer <token>"; "" serves without one
	maxRequestBytes int64
	// readTimeout bounds reading one request, headers and body; idleTimeout
	// closes a keep-alive connection that carries no request for that long.
	// Zero means the defaults (tests set them small).
	readTimeout, idleTimeout time.Duration
}

// The HTTP server's bounds: a client that connects and then sends slowly,
// or nothing, holds a connection and a goroutine until one of them ends it.
const (
	httpHeaderTimeout = 10 * time.Second
	httpReadTimeout   = time.Minute // a 4 MiB body at 70 KB/s
	httpIdleTimeout   = 2 * time.Minute
)

// mcpPath is the one path the transport serves; mcpMethods are the
// methods mcp-go's handler answers there (HEAD with 200, as it does).
const (
	mcpPath    = "/mcp"
	mcpMethods = "GET, HEAD, POST, DELETE"
)

// newHTTPServer is the streamable HTTP transport's server: httpHandler and
// the bounds. ReadTimeout does not cut a long tool call or the event
// stream (GET /mcp): net/http clears the read deadline once a request's
// body is read, before the handler's long part. There is no WriteTimeout,
// which would: an answer may take as long as its tool, and the stream
// stays open as long as the session.
func newHTTPServer(srv *server.MCPServer, o httpOptions) *http.Server {
	if o.readTimeout == 0 {
		o.readTimeout = httpReadTimeout
	}
	if o.idleTimeout == 0 {
		o.idleTimeout = httpIdleTimeout
	}
	return &http.Server{
		Handler:           httpHandler(srv, o),
		ReadHeaderTimeout: min(httpHeaderTimeout, o.readTimeout),
		ReadTimeout:       o.readTimeout,
		IdleTimeout:       o.idleTimeout,
	}
}

// httpHandler is the streamable HTTP transport with nvbridge's checks in
// front: a present Origin must be loopback (403), the bearer token (401),
// the MCP endpoint's path (404) and methods (405), a bounded body (413).
// Sessions are tracked, so an id the server did not issue, or one ended by
// DELETE, is answered with 404 as the transport specifies.
func httpHandler(srv *server.MCPServer, o httpOptions) http.Handler {
	var h http.Handler = server.NewStreamableHTTPServer(srv, server.WithEndpointPath(mcpPath),
		server.WithSessionIdManager(&sessionIDs{live: map[string]struct{}{}}),
		server.WithSessionIdleTTL(sessionIdleTTL))
	h = trimAfter(h)
	// Inside limitBody, which buffers and bounds the body it reads.
	h = dropCancelledAnswers(newAnswerFilter(), h)
	h = limitBody(o.maxRequestBytes, h)
	h = onlyMCPEndpoint(h)
	if o.token != "" {
		h = requireToken(o.token, h)
	}
	return requireLoopbackOrigin(h)
}

// trimAfter returns to the OS what a large request left behind, once it
// is answered (memtrim).
func trimAfter(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := memtrim.Begin()
		next.ServeHTTP(w, r)
		call.End()
	})
}

// onlyMCPEndpoint answers what is not for the MCP endpoint: 404 for another
// path, 405 with Allow for a method it does not serve. mcp-go's handler
// ignores the path (its Start puts it behind a mux), so a GET / opened an
// event stream that sent nothing and never ended.
func onlyMCPEndpoint(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != mcpPath {
			http.Error(w, fmt.Sprintf("%s: not found; nvbridge serves MCP at %s only", r.URL.Path, mcpPath), http.StatusNotFound)
			return
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodDelete:
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("Allow", mcpMethods)
			http.Error(w, fmt.Sprintf("%s is not served at %s (allowed: %s)", r.Method, mcpPath, mcpMethods), http.StatusMethodNotAllowed)
		}
	})
}

// sessionIdleTTL ends an HTTP session nobody used for this long (its
// client, answered 404, starts a new one), so that sessions never ended by
// DELETE do not pile up.
const sessionIdleTTL = 24 * time.Hour

// sessionIDs issues session ids and knows the live ones: an id it did not
// issue, or one ended (DELETE, idle), is unknown, which the transport
// answers with 404. Unlike mcp-go's InsecureStatefulSessionIdManager it
// keeps no record of ended sessions, so its memory is bounded by the live
// ones.
type sessionIDs struct {
	mu   sync.Mutex
	live map[string]struct{}
}

func (m *sessionIDs) Generate() string {
	id := "mcp-session-" + randomToken()
	m.mu.Lock()
	m.live[id] = struct{}{}
	m.mu.Unlock()
	return id
}

func (m *sessionIDs) Validate(id string) (isTerminated bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.live[id]; !ok {
		return false, fmt.Errorf("unknown or ended session %q", id)
	}
	return false, nil
}

func (m *sessionIDs) Terminate(id string) (isNotAllowed bool, err error) {
	m.mu.Lock()
	delete(m.live, id)
	m.mu.Unlock()
	return false, nil
}

// requireLoopbackOrigin refuses a request whose Origin header is present and
// not a loopback address (DNS-rebinding protection: a web page's script
// reaching the local server through a rebound name sends its own origin).
func requireLoopbackOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origins, ok := r.Header["Origin"]; ok {
			for _, o := range origins {
				if !loopbackOrigin(o) {
					http.Error(w, fmt.Sprintf("Origin %q is not a loopback address: nvbridge serves local clients only (DNS-rebinding protection)", o), http.StatusForbidden)
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // "null", or not an origin at all
	}
	return isLoopback(strings.Trim(u.Hostname(), "[]"))
}

// limitBody refuses, with 413 and a JSON-RPC error, a body longer than max
// bytes, whether declared (Content-Length) or found while reading (chunked);
// it never holds more than max+1 bytes of one.
func limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > max {
			tooLarge(w, max, nil)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, max+1))
		r.Body.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) { // the server's ReadTimeout
			w.Header().Set("Connection", "close")
			http.Error(w, "the request body was not sent in time", http.StatusRequestTimeout)
			return
		}
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if int64(len(body)) > max {
			tooLarge(w, max, body)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

func tooLarge(w http.ResponseWriter, max int64, prefix []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close") // the rest of the body is not read
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = w.Write(tooLargeMessage(max, prefix))
}

// tooLargeMessage is the JSON-RPC error answering a request past the limit,
// with the request's id when it appears before the bulk of the request.
func tooLargeMessage(max int64, prefix []byte) []byte {
	msg := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: leadingID(prefix)}
	msg.Error.Code = -32600 // invalid request
	msg.Error.Message = fmt.Sprintf("the request is larger than the limit of %d bytes: send less (e.g. a smaller patch or text), or restart nvbridge mcp with a larger --max-request-bytes", max)
	msg.Error.Data = map[string]any{"limit": max, "flag": "--max-request-bytes"}
	b, _ := json.Marshal(msg)
	return b
}

// leadingID returns the top-level "id" of a JSON-RPC message of which only
// a prefix is known, or null when the prefix ends before it.
func leadingID(prefix []byte) json.RawMessage {
	null := json.RawMessage("null")
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return null
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return null
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return null
		}
		if key == "id" {
			switch v[0] {
			case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
				return v
			}
			return null
		}
	}
	return null
}

// lockedWriter serialises the writes of the messages sent on stdio (the
// answers, notifications and requests to the client, each one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
