// Package lsp sends requests to language servers through Neovim's own LSP
// client, converts positions between the tool, LSP and Neovim systems, and
// shapes the servers' answers into results tools return.
package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/nvim"
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
	ID             int             `json:"id"`
	Name           string          `json:"name"`
	OffsetEncoding Encoding        `json:"offset_encoding"`
	RootDir        string          `json:"root_dir,omitempty"`
	Methods        map[string]bool `json:"-"`
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

// Document is a file loaded in a Neovim buffer and reconciled with the disk.
type Document struct {
	Path    string // absolute
	Rel     string // relative to the workspace root, slash-separated
	URI     protocol.DocumentURI
	Buffer  nvim.BufferState
	Servers []Server
}

// Open resolves file inside the workspace, loads it into a buffer (or
// reconciles the loaded buffer with the disk) and waits until the language
// servers for it are ready. A document without servers is not an error
// here; requests on it are.
func (c *Client) Open(ctx context.Context, file string) (*Document, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	abs, err := c.Session.Root().Resolve(file)
	if err != nil {
		return nil, err
	}
	state, err := c.Session.OpenBuffer(ctx, abs, true)
	if err != nil {
		return nil, err
	}
	doc := &Document{Path: abs, Rel: c.Session.Root().Rel(abs), URI: uri.File(abs), Buffer: state}
	raw, err := c.Session.Async(ctx, "wait_clients", state.Bufnr, int(c.AttachGrace/time.Millisecond))
	if err != nil {
		return nil, err
	}
	var wires []serverWire
	if err := decodeList(raw, &wires); err != nil {
		return nil, fmt.Errorf("decode clients: %w", err)
	}
	for _, w := range wires {
		root, _ := w.RootDir.(string)
		doc.Servers = append(doc.Servers, Server{
			ID: w.ID, Name: w.Name, OffsetEncoding: Encoding(w.OffsetEncoding), RootDir: root, Methods: w.Methods,
		})
	}
	return doc, nil
}

// ServerFor picks the first server of doc that supports method, or explains
// why none does.
func (doc *Document) ServerFor(method string) (Server, error) {
	if len(doc.Servers) == 0 {
		return Server{}, apierr.Errorf(apierr.Unsupported,
			"install a language server for this file type (make deps installs gopls, pyright and typescript-language-server) or, attached to your Neovim, configure one there",
			"no language server is attached to %s (filetype %q)", doc.Rel, doc.Buffer.Filetype)
	}
	for _, s := range doc.Servers {
		if s.Supports(method) {
			return s, nil
		}
	}
	// Name the server(s) and what they do offer, so the caller can pick
	// another tool.
	names := make([]string, 0, len(doc.Servers))
	offered := []string{}
	seen := map[string]bool{}
	for _, s := range doc.Servers {
		names = append(names, s.Name)
		for _, m := range navigationMethods {
			if s.Supports(m) && !seen[m] {
				seen[m] = true
				offered = append(offered, m)
			}
		}
	}
	msg := fmt.Sprintf("%s does not support %s", strings.Join(names, ", "), method)
	if len(offered) > 0 {
		msg += "; it offers " + strings.Join(offered, ", ")
	}
	return Server{}, apierr.New(apierr.Unsupported, msg,
		"this operation is not available for this file type with the attached server(s); use one of the offered operations").
		WithDetails(map[string]any{"servers": names, "method": method, "offered": offered})
}

// Request sends method with params to server through Neovim and decodes the
// result into result (which may be *json.RawMessage). The caller's context
// bounds it; cancelling it sends $/cancelRequest to the server.
func (c *Client) Request(ctx context.Context, doc *Document, server Server, method string, params, result any) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	raw, err := c.Session.Async(ctx, "request", doc.Buffer.Bufnr, server.ID, method, string(body))
	if err != nil {
		return err
	}
	var reply struct {
		Client string          `json:"client"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		return fmt.Errorf("decode %s reply: %w", method, err)
	}
	if result == nil {
		return nil
	}
	if rm, ok := result.(*json.RawMessage); ok {
		*rm = reply.Result
		return nil
	}
	if err := json.Unmarshal(reply.Result, result); err != nil {
		return apierr.Errorf(apierr.OperationFailed, "report this: the server's answer has a shape nvbridge does not decode",
			"%s: cannot decode %s result: %v", server.Name, method, err)
	}
	return nil
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

// Lines returns some lines of some files (0-based line numbers) as the
// servers see them: loaded buffers first, else the disk.
//
// Files the workspace policy holds sensitive (.env, keys, .git/...) are not
// read: their lines are absent, so results show where, never what.
func (c *Client) Lines(ctx context.Context, wanted map[string][]int) (map[string]map[int]string, error) {
	// Locations with non-file URIs (PathOf "") have no text to read, and
	// sensitive files are not read. The caller's map is left as it is.
	root := c.Session.Root()
	wanted = maps.Clone(wanted)
	for p := range wanted {
		if p == "" || root.Sensitive(p) {
			delete(wanted, p)
		}
	}
	if len(wanted) == 0 {
		return map[string]map[int]string{}, nil
	}
	var raw string
	if err := c.Session.Call(ctx, "nvbridge.bridge", "get_lines", &raw, wanted); err != nil {
		return nil, err
	}
	var byKey map[string]map[string]string
	if err := json.Unmarshal([]byte(raw), &byKey); err != nil {
		return nil, err
	}
	out := make(map[string]map[int]string, len(byKey))
	for path, lines := range byKey {
		m := make(map[int]string, len(lines))
		for k, text := range lines {
			var n int
			if _, err := fmt.Sscan(k, &n); err == nil {
				m[n] = text
			}
		}
		out[path] = m
	}
	return out, nil
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
	parsed, err := url.ParseRequestURI(string(u))
	if err != nil || parsed.Scheme != uri.FileScheme {
		return ""
	}
	return filepath.Clean(uri.URI(u).Filename())
}
