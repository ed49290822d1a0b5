package lsp

// Documents: a file loaded in a Neovim buffer, reconciled with the disk, with
// the language servers attached to it and the choice of one for a method.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/progress"
	"github.com/nvbridge/nvbridge/lang"
	"github.com/nvbridge/nvbridge/nvim"
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

// docLanguage is the registry's language of a document: by its buffer's
// filetype, else by its file's extension; nil when the registry does not
// know it.
func docLanguage(doc *Document) *lang.Language {
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
	raw, err := c.Session.Async(ctx, "wait_diagnostics", bufnr, []int{server.ID}, int(c.waitBound(ctx)/time.Millisecond))
	if err != nil {
		return false, err
	}
	c.analysedMu.Lock()
	if c.analysed == nil {
		c.analysed = map[analysisKey]bool{}
	}
	c.analysed[key] = true
	c.analysedMu.Unlock()
	return string(raw) == "true", nil
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
