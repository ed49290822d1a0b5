package lsp

// Documents: a file loaded in a Neovim buffer, reconciled with the disk, with
// the language servers attached to it and the choice of one for a method.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

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
	doc, _, err := c.openAt(ctx, file, -1, nil)
	return doc, err
}

// openWaitReply is bridge.open_wait's answer.
type openWaitReply struct {
	Buffer  nvim.BufferState `json:"buffer"`
	Clients []serverWire     `json:"clients"`
	Line    *string          `json:"line"`
}

// openAt is Open that also reads 0-based line (when line >= 0) once the
// servers are ready, in the same round trip to Neovim: a position tool's
// open, wait and target line in one call. The line is nil when the buffer
// has no such line. methods narrows the servers' Methods to those of the
// list (nil: all): checking and decoding every LSP method costs a position
// tool more than its request.
func (c *Client) openAt(ctx context.Context, file string, line int, methods []string) (*Document, *string, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	abs, err := c.Session.Root().Resolve(file)
	if err != nil {
		return nil, nil, err
	}
	var wanted any // nil (every method) unless a list is given
	if methods != nil {
		wanted = methods
	}
	raw, err := c.Session.OpenWait(ctx, abs, true, line, int(c.AttachGrace/time.Millisecond), wanted)
	if err != nil {
		// Paths in messages are the workspace's, as tools speak.
		return nil, nil, c.relativeMessage(err)
	}
	var reply openWaitReply
	if err := json.Unmarshal(raw, &reply); err != nil {
		return nil, nil, fmt.Errorf("decode open_wait: %w", err)
	}
	return c.documentOf(abs, reply), reply.Line, nil
}

// documentOf is the document of abs as an open (open_wait, read) found it.
func (c *Client) documentOf(abs string, reply openWaitReply) *Document {
	c.noteBuffer(abs, reply.Buffer.Bufnr)
	doc := &Document{Path: abs, Rel: c.Session.Root().Rel(abs), URI: uri.File(abs), Buffer: reply.Buffer}
	for _, w := range reply.Clients {
		root, _ := w.RootDir.(string)
		doc.Servers = append(doc.Servers, Server{
			ID: w.ID, Name: w.Name, OffsetEncoding: preview.Encoding(w.OffsetEncoding), RootDir: root, Methods: w.Methods,
		})
	}
	return doc
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

// ServersFor lists the document's servers that support method.
func (doc *Document) ServersFor(method string) []Server {
	var out []Server
	for _, s := range doc.Servers {
		if s.Supports(method) {
			out = append(out, s)
		}
	}
	return out
}

// Language is the registry's language of a document: by its buffer's
// filetype, else by its file's extension; nil when the registry does not
// know it.
func (doc *Document) Language() *lang.Language {
	if l := lang.ForFiletype(doc.Buffer.Filetype); l != nil {
		return l
	}
	return lang.ForFile(doc.Path)
}

// awaitAnalysis waits, once per buffer and server, until the server has
// published diagnostics for the buffer's current text (bounded by
// DiagnosticWait), and reports whether it did. Servers answer requests made
// while they are still loading the project with partial or empty results
// and no error: typescript-language-server's first references right after
// opening a file find only that file's, its first signature help nothing;
// pyright's workspace/symbol is empty for ~2 s. A server's first publish
// for a buffer means it has analysed that file (and loaded its project).
// The wait happens once: a server that never publishes for a file costs the
// bound only the first time. A server that answers from the opened text and
// waits for its own workspace load (lang.ServerSpec.AnswersAfterOpen:
// gopls) is not waited for.
func (c *Client) awaitAnalysis(ctx context.Context, bufnr int, server Server) (bool, error) {
	if lang.AnswersAfterOpen(server.Name) {
		return true, nil
	}
	key := analysisKey{bufnr, server.ID}
	c.analysedMu.Lock()
	done := c.analysed[key]
	c.analysedMu.Unlock()
	if done {
		return true, nil
	}
	progress.Report(ctx, 0, 0, "waiting for "+server.Name+" to analyse the file (its first diagnostics)")
	raw, err := c.Session.WaitDiagnostics(ctx, bufnr, []int{server.ID}, int(c.waitBound(ctx)/time.Millisecond))
	if err != nil {
		return false, err
	}
	c.markAnalysed(key)
	return string(raw) == "true", nil
}

// markAnalysed records that a request waited for key's analysis.
func (c *Client) markAnalysed(key analysisKey) {
	c.analysedMu.Lock()
	defer c.analysedMu.Unlock()
	if c.analysed == nil {
		c.analysed = map[analysisKey]bool{}
	}
	if !c.analysed[key] {
		c.analysed[key] = true
		c.analysedNames = nil
	}
}

// noteBuffer records abs's buffer as an open answered it (analysedKeys).
func (c *Client) noteBuffer(abs string, bufnr int) {
	if bufnr <= 0 {
		return
	}
	c.analysedMu.Lock()
	defer c.analysedMu.Unlock()
	if c.bufOf[abs] != bufnr {
		if c.bufOf == nil {
			c.bufOf = map[string]int{}
		}
		c.bufOf[abs] = bufnr
	}
}

// serverFor is Document.ServerFor with a feature-specific remediation.
func serverFor(doc *Document, method, hint string) (Server, error) {
	s, err := doc.ServerFor(method)
	if err != nil && hint != "" && len(doc.Servers) > 0 {
		e := *apierr.As(err)
		e.Remediation = hint
		return Server{}, &e
	}
	return s, err
}
