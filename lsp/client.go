// Package lsp sends requests to language servers through Neovim's own LSP
// client and shapes their answers into results tools return: documents and
// the positions tools give in them (converted by preview's Mapper),
// navigation, hierarchies, diagnostics, code actions (listed, resolved,
// their commands' edits captured) and the compound analyses
// (understand_symbol, prepare_change, analyze_dependencies). The
// refactorings built on it are package refactor.
package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/memo"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

// Client issues LSP requests for documents of one Neovim session.
type Client struct {
	Session *nvim.Session
	// Timeout bounds one request when the caller's context has no deadline.
	Timeout time.Duration
	// AttachGrace is how long to wait for a server to attach to a freshly
	// loaded buffer when none was started by nvbridge (attached mode: the
	// user's configuration may start one).
	AttachGrace time.Duration

	// analysed remembers, per buffer and server, that a request already
	// waited for the server's first analysis of the buffer (awaitAnalysis).
	analysedMu sync.Mutex
	analysed   map[analysisKey]bool
	// analysedNames is analysed as read.lua names it (analysedKeys), per
	// buffer, built once per change of analysed (nil: to build); shared
	// by the reads, which only encode it. bufOf is each file's buffer as
	// the last open of it answered (documentOf).
	analysedNames map[int]map[string]bool
	bufOf         map[string]int
	// readClients is the servers of the last read's answer (read_decode.go).
	readClients clientsMemo

	// lastPull is the last pulled delta's answers and the state they
	// describe (verify_pull.go), nil when none holds.
	lastPull atomic.Pointer[pullRecord]
	// lastScope is the last change scope's files and the state of the
	// workspace they were found in (verify_scope.go).
	lastScope atomic.Pointer[scopeRecord]
}

type analysisKey struct{ bufnr, client int }

// NewClient returns a client with default bounds.
func NewClient(s *nvim.Session) *Client {
	grace := 3 * time.Second
	if s.Embedded() {
		grace = 0 // nvbridge knows which servers it starts
	}
	return &Client{Session: s, Timeout: 30 * time.Second, AttachGrace: grace}
}

// Server describes a language server attached to a document's buffer.
type Server struct {
	ID             int              `json:"id"`
	Name           string           `json:"name"`
	OffsetEncoding preview.Encoding `json:"offset_encoding"`
	RootDir        string           `json:"root_dir,omitempty"`
	// Methods are the methods it serves for the buffer: all of them for a
	// document from Open, the navigation ones (and the tool's own) for a
	// navigation tool's (resolve, locateIn, documentSymbols).
	Methods map[string]bool `json:"-"`
}

// Supports reports whether the server serves method for this buffer.
func (s Server) Supports(method string) bool { return s.Methods[method] }

type serverWire struct {
	ID             int             `json:"id"`
	Name           string          `json:"name"`
	OffsetEncoding string          `json:"offset_encoding"`
	RootDir        any             `json:"root_dir"`
	Methods        map[string]bool `json:"methods"`
}

// Request sends method with params to server through Neovim and decodes the
// result into result (which may be *json.RawMessage). params that are a
// json.RawMessage go as they are (valid JSON: the caller's word). The caller's context
// bounds it; cancelling it sends $/cancelRequest to the server.
func (c *Client) Request(ctx context.Context, doc *Document, server Server, method string, params, result any) (err error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	var body []byte
	if pre, ok := params.(json.RawMessage); ok {
		body = pre // encoded by the caller (a hierarchy item sent back as it came)
	} else if body, err = json.Marshal(params); err != nil {
		return err
	}
	raw, err := c.Session.LSPRequest(ctx, doc.Buffer.Bufnr, server.ID, method, string(body))
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if rm, ok := result.(*json.RawMessage); ok {
		*rm = raw
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return undecodable(server, method, err)
	}
	return nil
}

// requestAs is Request with the answer decoded by decode (the LSP answers
// encoding/json cannot take alone: unions, "{}" for an empty list).
func requestAs[T any](ctx context.Context, c *Client, doc *Document, server Server, method string, params any, decode func(json.RawMessage) (T, error)) (T, error) {
	var raw json.RawMessage
	if err := c.Request(ctx, doc, server, method, params, &raw); err != nil {
		var zero T
		return zero, err
	}
	v, err := decode(raw)
	if err != nil {
		return v, undecodable(server, method, err)
	}
	return v, nil
}

// undecodable: an answer that does not decode is the server's fault (or a
// shape nvbridge does not know), never the caller's.
func undecodable(server Server, method string, err error) error {
	return apierr.Errorf(apierr.OperationFailed, "report this: the server's answer has a shape nvbridge does not decode",
		"%s: cannot decode %s result: %v", server.Name, method, err)
}

// RequestFor is Request with the server chosen by ServerFor.
func (c *Client) RequestFor(ctx context.Context, doc *Document, method string, params, result any) (Server, error) {
	server, err := doc.ServerFor(method)
	if err != nil {
		return Server{}, err
	}
	return server, c.Request(ctx, doc, server, method, params, result)
}

func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || c.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.Timeout)
}

// decodeList decodes a JSON array, accepting "{}" (how vim.json encodes an
// empty Lua table) as an empty list.
func decodeList(raw json.RawMessage, out any) error {
	if t := bytes.TrimSpace(raw); bytes.Equal(t, []byte("{}")) || bytes.Equal(t, []byte("null")) || len(t) == 0 {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// PathOf converts a server's file URI to an absolute path. A URI of another
// scheme (untitled:, jdt://, deno:, a malformed one) names no file nvbridge
// can read: PathOf returns "" for it, and tools report such a location by
// its uri (no file) instead of dropping it.
func PathOf(u protocol.DocumentURI) string {
	return pathsOfURIs.Get(u, pathOf)
}

// pathsOfURIs: a result names the same few files many times (a call
// hierarchy's hundred items), each a URI to parse.
var pathsOfURIs memo.Bounded[protocol.DocumentURI, string]

func pathOf(u protocol.DocumentURI) string {
	parsed, err := url.ParseRequestURI(string(u))
	if err != nil || parsed.Scheme != uri.FileScheme {
		return ""
	}
	return filepath.Clean(uri.URI(u).Filename())
}
