// Package side is the side-by-side harness of `make bench-side` and `make
// bench-report`: every read tool through nvbridge, called by a real MCP
// client session over stdio against the built binary, next to the same LSP
// requests sent by a minimal client straight to gopls, and sent through
// Neovim's own LSP client with nothing else on the way (ViaNeovim: the floor
// of a bridge built on Neovim's client), at the same positions, in
// interleaved rounds, on the bundled sample and on large real modules
// fetched from the Go module proxy.
package side

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/lang"
)

// Straight is a minimal LSP client driving gopls over stdio: no editor, no
// bridge, only the requests. It gives gopls the settings nvbridge's Neovim
// gives it (lang's ServerSpec), answers the server's other requests with
// null and keeps the publishes of diagnostics.
type Straight struct {
	rooted
	Conn jsonrpc2.Conn
	Cmd  *exec.Cmd

	mu      sync.Mutex
	opened  map[string]bool
	diags   map[string]json.RawMessage
	loaded  chan struct{} // closed when gopls's workspace load progress ends
	loadEnd bool
	tokens  map[string]bool
	// settings are gopls's settings from lang (initializationOptions and
	// the answer to workspace/configuration).
	settings map[string]any
	// ChangeAndWait's waiters (under mu): each publish's URI and version;
	// each progress begin with its title, and the end of a "diagnosing"
	// one.
	waitPub      func(uri string, version int)
	waitProgress func(kind, title string)
	titles       map[string]string
}

type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

// startPiped starts cmd with pipes to its stdin and from its stdout (a
// side's server or Neovim, spoken to over them).
func startPiped(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return stdin, stdout, nil
}

func (p pipes) Close() error {
	p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

// StartStraight starts gopls in root and initializes it with the
// capabilities Neovim 0.10 declares for the requests measured.
func StartStraight(ctx context.Context, root string) (*Straight, error) {
	return StartStraightWith(ctx, root, nil)
}

// StartStraightWith is StartStraight with settings over nvbridge's gopls
// settings (the edits' references: verboseWorkDoneProgress, so that the
// end of gopls's whole diagnosis of a change is seen; diagnosticsDelay 0
// for it at once).
func StartStraightWith(ctx context.Context, root string, settings map[string]any) (*Straight, error) {
	return startStraight(ctx, root, true, settings)
}

// StartStraightPlain is StartStraight with no settings at all: gopls's
// defaults, as a user's Neovim that starts it with vim.lsp.start and no
// settings has it (the attached apply's floor; nvbridge's own gopls has
// no settings either).
func StartStraightPlain(ctx context.Context, root string) (*Straight, error) {
	return startStraight(ctx, root, false, nil)
}

// startStraight starts gopls in root with settings over lang's (withLang)
// or over gopls's defaults.
func startStraight(ctx context.Context, root string, withLang bool, settings map[string]any) (*Straight, error) {
	cmd := exec.Command("gopls", "serve")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	stdin, stdout, err := startPiped(cmd)
	if err != nil {
		return nil, err
	}
	s := &Straight{rooted: rooted{root}, Cmd: cmd, Conn: jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin})),
		opened: map[string]bool{}, diags: map[string]json.RawMessage{}, loaded: make(chan struct{}), tokens: map[string]bool{},
		settings: map[string]any{}}
	for _, spec := range lang.ServerSpecs() {
		if spec.Name == "gopls" && withLang {
			if g, ok := spec.Settings["gopls"].(map[string]any); ok {
				for k, v := range g {
					s.settings[k] = v
				}
			}
		}
	}
	for k, v := range settings {
		s.settings[k] = v
	}
	s.Conn.Go(context.Background(), s.handle)
	rootURI := uri.File(root)
	init := map[string]any{
		"initializationOptions": s.settings,
		"processId":             os.Getpid(),
		"rootUri":               rootURI,
		"workspaceFolders":      []map[string]any{{"uri": rootURI, "name": filepath.Base(root)}},
		"capabilities": map[string]any{
			"window": map[string]any{"workDoneProgress": true},
			"textDocument": map[string]any{
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"callHierarchy":      map[string]any{},
				"publishDiagnostics": map[string]any{"relatedInformation": true},
				"definition":         map[string]any{"linkSupport": true},
				"implementation":     map[string]any{"linkSupport": true},
			},
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		},
	}
	var res json.RawMessage
	if _, err := s.Conn.Call(ctx, protocol.MethodInitialize, init, &res); err != nil {
		s.Close()
		return nil, fmt.Errorf("gopls initialize: %w", err)
	}
	if err := s.Conn.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Straight) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodWorkspaceConfiguration:
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		out := make([]any, len(p.Items))
		for i := range out {
			out[i] = s.settings
		}
		return reply(ctx, out, nil)
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			s.mu.Lock()
			s.diags[p.URI] = append(json.RawMessage(nil), req.Params()...)
			if s.waitPub != nil {
				s.waitPub(publishVersion(req.Params()))
			}
			s.mu.Unlock()
		}
	case protocol.MethodProgress:
		var p struct {
			Token any `json:"token"`
			Value struct {
				Kind  string `json:"kind"`
				Title string `json:"title"`
			} `json:"value"`
		}
		if json.Unmarshal(req.Params(), &p) == nil {
			tok := fmt.Sprint(p.Token)
			s.mu.Lock()
			if s.titles == nil {
				s.titles = map[string]string{}
			}
			if p.Value.Kind == "begin" {
				s.titles[tok] = p.Value.Title
			}
			if s.waitProgress != nil {
				switch p.Value.Kind {
				case "begin":
					s.waitProgress("begin", p.Value.Title)
				case "end":
					if strings.HasPrefix(s.titles[tok], "diagnosing") {
						s.waitProgress("end-diagnosing", s.titles[tok])
					}
				}
			}
			switch p.Value.Kind {
			case "begin":
				s.tokens[tok] = true
			case "end":
				if s.tokens[tok] && !s.loadEnd {
					delete(s.tokens, tok)
					if len(s.tokens) == 0 {
						s.loadEnd = true
						close(s.loaded)
					}
				}
			}
			s.mu.Unlock()
		}
	}
	return reply(ctx, nil, nil)
}

// WaitLoaded waits for gopls's first work-done progress (the workspace
// load) to end, bounded by ctx.
func (s *Straight) WaitLoaded(ctx context.Context) error {
	return waitClosed(ctx, s.loaded)
}

// rooted is a side's copy of the module: its root and the URIs of its
// files.
type rooted struct{ Root string }

// URI of a file relative to the root.
func (r rooted) URI(rel string) protocol.DocumentURI {
	return uri.File(filepath.Join(r.Root, rel))
}

func (r rooted) rootDir() string { return r.Root }

// waitClosed waits for ch to be closed, bounded by ctx.
func waitClosed(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Open sends didOpen for rel at version 0, as Neovim 0.10 does (once).
func (s *Straight) Open(ctx context.Context, rel string) error {
	s.mu.Lock()
	done := s.opened[rel]
	s.opened[rel] = true
	s.mu.Unlock()
	if done {
		return nil
	}
	text, err := os.ReadFile(filepath.Join(s.Root, rel))
	if err != nil {
		return err
	}
	return s.Conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: s.URI(rel), LanguageID: "go", Version: 0, Text: string(text)},
	})
}

// Diagnostics returns the last publish for rel (nil before any).
func (s *Straight) Diagnostics(rel string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.diags[string(s.URI(rel))]
}

// Call sends one request and returns its raw answer.
func (s *Straight) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	_, err := s.Conn.Call(ctx, method, params, &raw)
	return raw, err
}

// Close shuts gopls down (shutdown, exit), killing it if it lingers.
func (s *Straight) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, _ = s.Conn.Call(ctx, protocol.MethodShutdown, nil, nil)
	_ = s.Conn.Notify(ctx, protocol.MethodExit, nil)
	exited := make(chan struct{})
	safego.Go("waiting for gopls to exit", func() {
		defer close(exited)
		_ = s.Cmd.Wait()
	}, nil)
	select {
	case <-exited:
	case <-ctx.Done():
		_ = s.Cmd.Process.Kill()
		<-exited
	}
	s.Conn.Close()
}
