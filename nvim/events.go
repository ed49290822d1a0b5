package nvim

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/nvbridge/nvbridge/internal/safego"
)

// Event kinds lua/nvbridge/extensions.lua reports (Watch).
const (
	// EventBuffer: the text (or 'modified') of the buffers of Files changed.
	EventBuffer = "buffer"
	// EventBufferList: a file buffer was loaded, renamed or unloaded.
	EventBufferList = "buffer_list"
	// EventDiagnostics: Neovim's diagnostics of Files changed (a publish);
	// ListMoved when a file gained its first or lost its last.
	EventDiagnostics = "diagnostics"
	// EventEditor: the user's cursor, selection, mode or current file moved.
	EventEditor = "editor"
	// EventServer: a language server exited abnormally; Data says which
	// and whether it restarts.
	EventServer = "server"
	// EventTools: the user's own tools (require('nvbridge').tool) changed.
	EventTools = "tools"
)

// Event is one change Neovim reports. Changes are coalesced per kind until
// the end of Neovim's main-loop turn, so an apply of many lines is one
// event.
type Event struct {
	Kind string
	// Files are the absolute paths concerned (buffer, diagnostics).
	Files []string
	// Data is the kind's details as JSON (server), else nil.
	Data json.RawMessage
	// ListMoved (EventDiagnostics): the set of files holding diagnostics
	// may have moved; false when every file of the change held some before
	// and still does, or held none and still does.
	ListMoved bool
}

// watchers holds the Watch callbacks of a session.
type watchers struct {
	once sync.Once
	mu   sync.Mutex
	fns  []func(Event)
}

var sessionWatchers sync.Map // *Session -> *watchers

// Watch calls fn with every change Neovim reports from now on
// (extensions.lua: buffer texts, diagnostics, the buffer list, servers
// that crashed, the user's tools; the editor context too when editor is
// set). fn runs on the connection's goroutine: it must return quickly and
// never call into Neovim (hand such work to a goroutine).
func (s *Session) Watch(ctx context.Context, editor bool, fn func(Event)) error {
	v, _ := sessionWatchers.LoadOrStore(s, &watchers{})
	w := v.(*watchers)
	var regErr error
	w.once.Do(func() {
		safego.Go("forgetting a closed session's watchers", func() {
			<-s.Done()
			sessionWatchers.Delete(s)
		}, nil)
		regErr = s.Handle("nvbridge_event", func(args ...any) {
			defer safego.Recover("nvbridge_event", nil)
			ev, ok := decodeEvent(args)
			if !ok {
				return
			}
			w.mu.Lock()
			fns := append([]func(Event){}, w.fns...)
			w.mu.Unlock()
			for _, f := range fns {
				f(ev)
			}
		})
	})
	if regErr != nil {
		return regErr
	}
	w.mu.Lock()
	w.fns = append(w.fns, fn)
	w.mu.Unlock()
	return luaExtWatch.call(ctx, s, nil, s.Channel(), editor)
}

// WatchTexts says whether Watch's callbacks hear of every change of a
// buffer's text (EventBuffer) and of a file's diagnostics
// (EventDiagnostics), as they do from Watch on, or, off, only of those that
// may move the resource list (EventDiagnostics with ListMoved): off, a
// file's load and its servers' first publishes send no event that nothing
// uses (three or four to read, decode and schedule for, in this process
// and Neovim's main loop). Once it returns, a change is told as on says.
func (s *Session) WatchTexts(ctx context.Context, on bool) error {
	return luaExtTexts.call(ctx, s, nil, s.Channel(), on)
}

// decodeEvent reads nvbridge_event(kind, {files, data}); its arguments
// arrive as interface{} (a notification that does not decode into typed
// parameters closes the connection).
func decodeEvent(args []any) (Event, bool) {
	if len(args) < 1 {
		return Event{}, false
	}
	kind, ok := args[0].(string)
	if !ok {
		return Event{}, false
	}
	ev := Event{Kind: kind}
	if len(args) > 1 {
		if m, ok := args[1].(map[string]any); ok {
			if files, ok := m["files"].([]any); ok {
				for _, f := range files {
					if p, ok := f.(string); ok {
						ev.Files = append(ev.Files, p)
					}
				}
			}
			if d, ok := m["data"].(string); ok {
				ev.Data = json.RawMessage(d)
			}
			ev.ListMoved, _ = m["list"].(bool)
		}
	}
	return ev, true
}
