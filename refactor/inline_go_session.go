package refactor

// One gopls for all of an inline's call sites: a language server started on
// the scratch copy of the module (never the user's gopls, never the user's
// files), spoken to over stdio. It loads and type-checks the module once;
// each call site is then its refactor.inline.call code action (resolved to
// its edit), applied to the scratch text and sent back as a didChange, so
// the next site is computed on the text the earlier ones left, as the
// command line did with one gopls process per site (about 2 s each on zap:
// each process loaded the module again). The result is the same edit gopls
// computes; only the loading is shared.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/nvim"
	"github.com/nvbridge/nvbridge/preview"
)

type goplsSession struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex // guards pending, nextID, closed and writes
	pending map[int]chan rpcReply
	nextID  int
	closed  error
	done    chan struct{}
	// versions of the documents opened in the session (by URI).
	versions map[string]int
}

type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	rpcReply
}

// startGoplsSession starts gopls serving the module at dir and initializes
// it.
func startGoplsSession(ctx context.Context, gopls, dir string) (*goplsSession, error) {
	cmd := exec.Command(gopls, "serve")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &goplsSession{cmd: cmd, in: in, pending: map[int]chan rpcReply{}, done: make(chan struct{}), versions: map[string]int{}}
	safego.Go("gopls session reader", func() { s.read(bufio.NewReaderSize(out, 1<<16)) }, func(err error) { s.fail(err) })
	root := fileURI(dir)
	init := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          root,
		"workspaceFolders": []map[string]any{{"uri": root, "name": "m"}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"textDocument": map[string]any{
				"codeAction": map[string]any{
					"dataSupport":    true,
					"resolveSupport": map[string]any{"properties": []string{"edit"}},
					"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{
						"valueSet": []string{"refactor", "refactor.inline", "refactor.inline.call"}}},
				},
			},
			"workspace": map[string]any{"workspaceEdit": map[string]any{"documentChanges": true}, "configuration": true},
		},
		"initializationOptions": map[string]any{},
	}
	if _, err := s.call(ctx, "initialize", init); err != nil {
		s.close()
		return nil, err
	}
	if err := s.notify("initialized", map[string]any{}); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func fileURI(path string) string { return "file://" + path }

func (s *goplsSession) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed == nil {
		s.closed = err
		close(s.done)
	}
	for id, ch := range s.pending {
		ch <- rpcReply{Error: &struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}{Code: -1, Message: err.Error()}}
		delete(s.pending, id)
	}
}

// read dispatches the server's messages: answers to our requests, and
// answers to its requests (configuration, progress tokens, edits it would
// apply: acknowledged, never applied).
func (s *goplsSession) read(r *bufio.Reader) {
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				s.fail(fmt.Errorf("gopls closed its output: %v", err))
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
				length, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if length < 0 {
			s.fail(fmt.Errorf("gopls sent a message without Content-Length"))
			return
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			s.fail(fmt.Errorf("gopls closed its output: %v", err))
			return
		}
		var m rpcMessage
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			var result any
			if m.Method == "workspace/configuration" {
				var p struct {
					Items []any `json:"items"`
				}
				_ = json.Unmarshal(m.Params, &p)
				cfg := make([]any, len(p.Items))
				for i := range cfg {
					cfg[i] = map[string]any{}
				}
				result = cfg
			}
			if m.Method == "workspace/applyEdit" {
				result = map[string]any{"applied": false}
			}
			_ = s.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		case m.Method == "" && len(m.ID) > 0:
			id, err := strconv.Atoi(string(m.ID))
			if err != nil {
				continue
			}
			s.mu.Lock()
			ch := s.pending[id]
			delete(s.pending, id)
			s.mu.Unlock()
			if ch != nil {
				ch <- m.rpcReply
			}
		}
	}
}

func (s *goplsSession) write(msg any) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	_, err = s.in.Write(b.Bytes())
	return err
}

func (s *goplsSession) notify(method string, params any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed != nil {
		return s.closed
	}
	return s.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (s *goplsSession) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s.mu.Lock()
	if s.closed != nil {
		s.mu.Unlock()
		return nil, s.closed
	}
	s.nextID++
	id := s.nextID
	ch := make(chan rpcReply, 1)
	s.pending[id] = ch
	err := s.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("%s", r.Error.Message)
		}
		return r.Result, nil
	case <-ctx.Done():
		_ = s.notify("$/cancelRequest", map[string]any{"id": id})
		return nil, ctx.Err()
	}
}

// sync makes the session hold text for path (didOpen once, then a full
// didChange when it differs).
func (s *goplsSession) sync(path, text string) error {
	uri := fileURI(path)
	v, open := s.versions[uri]
	if !open {
		s.versions[uri] = 1
		return s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "go", "version": 1, "text": text}})
	}
	s.versions[uri] = v + 1
	return s.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": v + 1},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

type lspTextEdit struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
		End   struct{ Line, Character int } `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

// inlineAt asks for the inline of the call at byte off of path (text) and
// returns the new texts of the files its edit changes (by path); why says
// why there is none.
func (s *goplsSession) inlineAt(ctx context.Context, path, text string, off int, read func(path string) (string, error)) (map[string]string, string, error) {
	if err := s.sync(path, text); err != nil {
		return nil, "", err
	}
	m := preview.NewMapper(text)
	line, units := m.UnitsPosition(off, preview.UTF16)
	pos := map[string]any{"line": line, "character": units}
	raw, err := s.call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": fileURI(path)},
		"range":        map[string]any{"start": pos, "end": pos},
		"context":      map[string]any{"diagnostics": []any{}, "only": []string{"refactor.inline.call"}, "triggerKind": 1},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "gopls cannot inline this call: " + err.Error(), nil
	}
	var actions []json.RawMessage
	_ = json.Unmarshal(raw, &actions)
	var action json.RawMessage
	for _, a := range actions {
		var probe struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(a, &probe) == nil && probe.Kind == "refactor.inline.call" {
			action = a
			break
		}
	}
	if action == nil {
		return nil, "gopls offered no inline for this call", nil
	}
	var withEdit struct {
		Edit *struct {
			DocumentChanges []struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Edits []lspTextEdit `json:"edits"`
			} `json:"documentChanges"`
			Changes map[string][]lspTextEdit `json:"changes"`
		} `json:"edit"`
		Command *json.RawMessage `json:"command"`
	}
	_ = json.Unmarshal(action, &withEdit)
	if withEdit.Edit == nil {
		resolved, err := s.call(ctx, "codeAction/resolve", action)
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			return nil, "gopls cannot inline this call: " + err.Error(), nil
		}
		_ = json.Unmarshal(resolved, &withEdit)
	}
	if withEdit.Edit == nil {
		return nil, "gopls gave no edit for this call", nil
	}
	byURI := map[string][]lspTextEdit{}
	for _, dc := range withEdit.Edit.DocumentChanges {
		byURI[dc.TextDocument.URI] = append(byURI[dc.TextDocument.URI], dc.Edits...)
	}
	for u, es := range withEdit.Edit.Changes {
		byURI[u] = append(byURI[u], es...)
	}
	out := map[string]string{}
	for u, es := range byURI {
		p := strings.TrimPrefix(u, "file://")
		cur := text
		if p != path {
			if cur, err = read(p); err != nil {
				return nil, "", err
			}
		}
		cm := preview.NewMapper(cur)
		var bes []preview.ByteEdit
		for _, e := range es {
			start, err1 := unitsOffset(cm, e.Range.Start.Line, e.Range.Start.Character)
			end, err2 := unitsOffset(cm, e.Range.End.Line, e.Range.End.Character)
			if err1 != nil || err2 != nil {
				return nil, "gopls's edit does not fit the text", nil
			}
			bes = append(bes, preview.ByteEdit{Start: start, End: end, Text: e.NewText})
		}
		nt, err := preview.ApplyByteEdits(cur, bes)
		if err != nil {
			return nil, "gopls's edit does not apply: " + err.Error(), nil
		}
		out[p] = nt
	}
	for p, t := range out {
		if err := s.sync(p, t); err != nil {
			return nil, "", err
		}
	}
	return out, "", nil
}

func unitsOffset(m *preview.Mapper, line, units int) (int, error) {
	col, err := m.UnitsColumn(line, units, preview.UTF16)
	if err != nil {
		return 0, err
	}
	return m.Offset(line, col)
}

// close shuts gopls down (its process group ended when it does not exit).
func (s *goplsSession) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _ = s.call(ctx, "shutdown", nil)
	_ = s.notify("exit", nil)
	_ = s.in.Close()
	waited := make(chan struct{})
	safego.Go("gopls session wait", func() { _ = s.cmd.Wait(); close(waited) }, nil)
	select {
	case <-waited:
	case <-time.After(2 * time.Second):
		nvim.EndProcessGroup(s.cmd.Process.Pid, time.Second)
		<-waited
	}
}
