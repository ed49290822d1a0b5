package tools

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/nvbridge/nvbridge/internal/safego"
	"github.com/nvbridge/nvbridge/nvim"
)

// watcher turns Neovim's changes (nvim.Session.Watch) and the debug
// sessions' into notifications/resources/updated for the sessions
// subscribed to a URI, notifications/resources/list_changed when the set
// of resources changes, and log messages (logging.go). mcp-go's transports
// keep no subscriptions, so they are kept here, per MCP session, from the
// subscribe and unsubscribe hooks.
type watcher struct {
	env *Env
	res *resourceSet
	srv *server.MCPServer

	mu sync.Mutex
	// subs: session id -> the URIs it subscribed to (resources/subscribe,
	// protocol versions up to 2025-11-25).
	subs map[string]map[string]bool
	// listeners: the open subscriptions/listen streams (2026-07-28 on),
	// each with the URIs it opted in to.
	listeners map[*listener]bool
	// sessions: the MCP sessions registered (log messages go to each).
	sessions map[string]bool
	// listed: the dynamic URIs last listed, to tell a change.
	listed map[string]bool
	// told: the sessions told list_changed since they last listed the
	// resources (resources/list). While every session is, no comparison
	// runs: each already knows its list is out of date, and one more
	// notification tells nobody anything (a comparison after every read
	// that loads a file: about 0.2 ms of this process and as much of
	// Neovim's main loop). A session's list makes it untold again.
	told map[string]bool
	// neovimListed: the part of listed that Neovim's state makes
	// (resourceSet.neovimURIs), as last read from Neovim; neovimStale:
	// Neovim reported a change since it was read (or it was not). A
	// comparison reads Neovim only when stale: one after a call that
	// changed only nvbridge's state (a preview's changeset) takes
	// Neovim's part as last read, which the events tell any change of
	// (onEvent: the buffer list, the files holding diagnostics), and not a
	// call to Neovim (most of a millisecond of Neovim's main loop and of
	// this process, beside the call's answer, after every preview).
	neovimListed map[string]bool
	neovimStale  atomic.Bool
	// agents: the initialized sessions' attach data (extensions.go).
	agents map[string]map[string]any
	// user: the user's tools served (extensions.go).
	user userTools
	// events: agent events on their way to Neovim (extensions.go).
	events chan agentEvent

	// relist asks the list loop to compare the resources again now (a
	// change nvbridge made: a changeset, a debug session).
	relist chan struct{}
	// relistNeovim asks the same for a change Neovim reported (a buffer
	// loaded or unloaded, 'modified' flipped, diagnostics published): it
	// is compared once no tool call is in flight (or relistWait after
	// it), as the comparison asks Neovim twice and a read that loads a
	// file brings such changes while its own request is being answered.
	relistNeovim chan struct{}
	// calls: the tool calls in flight, by session and request id; idle
	// is signalled when the last one ends.
	calls map[string]bool
	idle  chan struct{}
	// debugChanged asks the debug loop to tell the debug resources' subscribers.
	debugChanged chan struct{}

	// textsMu guards texts: Neovim tells every buffer text and file's
	// diagnostics that changed (nvim.Session.WatchTexts), which only a
	// subscriber needs; until the first, only the changes that may move
	// the list.
	textsMu sync.Mutex
	texts   bool
}

func newWatcher(env *Env, res *resourceSet) *watcher {
	w := &watcher{env: env, res: res, subs: map[string]map[string]bool{}, sessions: map[string]bool{}, told: map[string]bool{},
		agents: map[string]map[string]any{}, events: make(chan agentEvent, 64), listeners: map[*listener]bool{},
		relist: make(chan struct{}, 1), relistNeovim: make(chan struct{}, 1), debugChanged: make(chan struct{}, 1),
		calls: map[string]bool{}, idle: make(chan struct{}, 1)}
	w.neovimStale.Store(true) // not read yet
	return w
}

// relistWait bounds how long a change Neovim reported waits for the tool
// calls in flight to end before the list is compared anyway.
const relistWait = 500 * time.Millisecond

// inFlightKey names a tool call: its session and request id.
func inFlightKey(ctx context.Context, id any) string {
	sid := ""
	if s := server.ClientSessionFromContext(ctx); s != nil {
		sid = s.SessionID()
	}
	// As fmt's %v writes the id (a JSON id decodes to a float64 or a
	// string), without fmt on every call.
	switch v := id.(type) {
	case string:
		return sid + "\x00" + v
	case float64:
		return sid + "\x00" + strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprintf("%s\x00%v", sid, id)
}

func (w *watcher) callStarted(key string) {
	w.mu.Lock()
	w.calls[key] = true
	w.mu.Unlock()
}

func (w *watcher) callEnded(key string) {
	w.mu.Lock()
	delete(w.calls, key)
	none := len(w.calls) == 0
	w.mu.Unlock()
	if none {
		select {
		case w.idle <- struct{}{}:
		default:
		}
	}
}

// busy reports whether a tool call is in flight.
func (w *watcher) busy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.calls) > 0
}

// addHooks records sessions and subscriptions.
func (w *watcher) addHooks(h *server.Hooks) {
	h.AddOnRegisterSession(func(ctx context.Context, s server.ClientSession) {
		w.mu.Lock()
		w.sessions[s.SessionID()] = true
		w.mu.Unlock()
	})
	h.AddOnUnregisterSession(func(ctx context.Context, s server.ClientSession) {
		w.mu.Lock()
		delete(w.sessions, s.SessionID())
		delete(w.subs, s.SessionID())
		delete(w.told, s.SessionID())
		w.mu.Unlock()
	})
	// The tool calls in flight (a change Neovim reported is compared once
	// none is). A call mcp-go refuses before its handler (arguments that
	// do not decode) ends without having started: callEnded forgets
	// nothing.
	h.AddBeforeCallTool(func(ctx context.Context, id any, _ *mcp.CallToolRequest) {
		w.callStarted(inFlightKey(ctx, id))
	})
	h.AddAfterCallTool(func(ctx context.Context, id any, _ *mcp.CallToolRequest, _ any) {
		w.callEnded(inFlightKey(ctx, id))
	})
	h.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodToolsCall {
			w.callEnded(inFlightKey(ctx, id))
		}
	})
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		s := server.ClientSessionFromContext(ctx)
		if s == nil || req == nil || !w.subscribable(req.Params.URI) {
			// A URI that names a sensitive file, or none of ours, is
			// acknowledged (MCP allows subscribing before a resource
			// exists) and never notified.
			return
		}
		w.followTexts(ctx)
		w.mu.Lock()
		if w.subs[s.SessionID()] == nil {
			w.subs[s.SessionID()] = map[string]bool{}
		}
		w.subs[s.SessionID()][req.Params.URI] = true
		w.mu.Unlock()
	})
	h.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
		s := server.ClientSessionFromContext(ctx)
		if s == nil || req == nil {
			return
		}
		// What cannot be served (a sensitive file's URI) is dropped from
		// the request before mcp-go establishes it: its acknowledgement
		// then does not name it either.
		l := &listener{session: s, id: id, uris: map[string]bool{}}
		kept := []string{}
		for _, u := range req.Params.Notifications.ResourceSubscriptions {
			if w.subscribable(u) {
				l.uris[u] = true
				kept = append(kept, u)
			}
		}
		req.Params.Notifications.ResourceSubscriptions = kept
		if len(l.uris) == 0 {
			return
		}
		w.followTexts(ctx)
		w.mu.Lock()
		w.listeners[l] = true
		w.mu.Unlock()
		// The stream lasts as long as the request (mcp-go holds it open
		// until its context ends).
		safego.Go("ending a resource listener", func() {
			<-ctx.Done()
			w.mu.Lock()
			delete(w.listeners, l)
			w.mu.Unlock()
		}, nil)
	})
	h.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		s := server.ClientSessionFromContext(ctx)
		if s == nil || req == nil {
			return
		}
		w.mu.Lock()
		delete(w.subs[s.SessionID()], req.Params.URI)
		w.mu.Unlock()
	})
}

// subscribable: one of our URIs, and not a file the policy hides.
func (w *watcher) subscribable(uri string) bool {
	if !strings.HasPrefix(uri, resourceScheme) {
		return false
	}
	for _, prefix := range []string{prefixDiagnostics, prefixBuffer, prefixUnsavedDiff} {
		if strings.HasPrefix(uri, prefix) {
			_, _, err := w.res.resolve(prefix, uri)
			return err == nil
		}
	}
	return true
}

// start binds the server and follows Neovim and the debug sessions.
func (w *watcher) start(srv *server.MCPServer) {
	w.srv = srv
	if w.env.Session == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.env.Session.Watch(ctx, !w.env.Session.Embedded(), w.onEvent); err != nil {
		w.env.Logf("resources: cannot follow Neovim's changes: %v", err)
		return
	}
	w.textsMu.Lock()
	if !w.texts {
		// No subscriber yet: the texts and diagnostics are told once one
		// comes (followTexts).
		if err := w.env.Session.WatchTexts(ctx, false); err != nil {
			w.env.Logf("resources: %v", err)
		}
	}
	w.textsMu.Unlock()
	if w.env.DAP != nil {
		w.env.DAP.Watch(func() {
			select {
			case w.debugChanged <- struct{}{}:
			default:
			}
		})
	}
	// The list as of now, before any call: a change made by the first
	// call is then a change from it (compared in the loop, it could be
	// taken for the list itself and never notified).
	w.compareListed()
	safego.Go("the resource list watcher", w.listLoop, nil)
	safego.Go("the debug resource watcher", w.debugLoop, nil)
	safego.Go("the agent events", w.eventLoop, nil)
	safego.Go("forgetting an ended server", func() {
		<-w.env.Session.Done()
		watchers.CompareAndDelete(srv, w)
		watchers.CompareAndDelete(w.env, w)
		dispatchers.Delete(srv)
		transports.Delete(w.env)
	}, nil)
	w.refreshUserTools()
}

// followTexts has Neovim tell every buffer text and file's diagnostics
// that changes from now on, for a subscriber; it returns once Neovim does
// (the subscription is acknowledged after it: no change after the
// acknowledgement goes untold).
func (w *watcher) followTexts(ctx context.Context) {
	if w.env.Session == nil {
		return
	}
	w.textsMu.Lock()
	defer w.textsMu.Unlock()
	if w.texts {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := w.env.Session.WatchTexts(ctx, true); err != nil {
		w.env.Logf("resources: cannot follow the buffers' texts: %v", err)
		return
	}
	w.texts = true
}

func (w *watcher) requestRelist() {
	select {
	case w.relist <- struct{}{}:
	default:
	}
}

// neovimChanged asks for a comparison of a change Neovim reported (see
// relistNeovim).
func (w *watcher) neovimChanged() {
	// Stale before the comparison is asked for: the comparison it asks
	// for (or one already asked) reads Neovim again.
	w.neovimStale.Store(true)
	select {
	case w.relistNeovim <- struct{}{}:
	default:
	}
}

// onEvent runs on the Neovim connection's goroutine: it only sends
// (non-blocking) and hands anything that calls Neovim to a goroutine.
func (w *watcher) onEvent(ev nvim.Event) {
	switch ev.Kind {
	case nvim.EventBuffer:
		var uris []string
		for _, f := range ev.Files {
			if rel, ok := w.res.allowed(f); ok {
				uris = append(uris, fileURI(prefixBuffer, rel), fileURI(prefixUnsavedDiff, rel))
			}
		}
		w.updated(uris...)
	case nvim.EventDiagnostics:
		uris := []string{uriDiagnostics}
		for _, f := range ev.Files {
			if rel, ok := w.res.allowed(f); ok {
				uris = append(uris, fileURI(prefixDiagnostics, rel))
			}
		}
		w.updated(uris...)
		if ev.ListMoved {
			w.neovimChanged()
		}
	case nvim.EventBufferList:
		// A buffer loaded or unloaded, or 'modified' flipped (the unsaved
		// diff is listed while modified).
		w.neovimChanged()
	case nvim.EventEditor:
		w.updated(uriEditor)
	case nvim.EventServer:
		w.serverDown(ev.Data)
	case nvim.EventTools:
		safego.Go("refreshing the user's tools", w.refreshUserTools, nil)
	}
}

// updated tells every session subscribed to one of uris.
func (w *watcher) updated(uris ...string) {
	if w.srv == nil || len(uris) == 0 {
		return
	}
	type send struct{ session, uri string }
	var sends []send
	w.mu.Lock()
	for sid, set := range w.subs {
		for _, u := range uris {
			if set[u] {
				sends = append(sends, send{sid, u})
			}
		}
	}
	var streams []*listener
	for l := range w.listeners {
		streams = append(streams, l)
	}
	w.mu.Unlock()
	for _, s := range sends {
		// Best effort: a session whose queue is full misses this one.
		_ = w.srv.SendNotificationToSpecificClient(s.session, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": s.uri})
	}
	for _, l := range streams {
		for _, u := range uris {
			if l.uris[u] {
				l.send(u)
			}
		}
	}
}

// listener is an open subscriptions/listen stream: mcp-go delivers what
// goes to its session's channel on it, tagged with the request's id.
type listener struct {
	session server.ClientSession
	id      any
	uris    map[string]bool
}

func (l *listener) send(uri string) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: mcp.MethodNotificationResourceUpdated,
		Params: mcp.NotificationParams{Meta: map[string]any{mcp.MetaKeySubscriptionID: l.id}, AdditionalFields: map[string]any{"uri": uri}},
	}}
	select {
	case l.session.NotificationChannel() <- n:
	default: // best effort, as for the other sessions
	}
}

// listLoop compares the listed resources after each change that may move
// them, and tells the clients when they moved. A change nvbridge made is
// compared at once; one Neovim reported waits until no tool call is in
// flight (at most relistWait): its comparison would otherwise share
// Neovim's main loop and the cores with the call that brought it (a read
// that loads a file, then the servers' publishes for it). Every
// comparison is against the set last compared, which the clients were
// told of, so a change coalesced with others is still notified (one
// undone before the comparison leaves the list as the clients know it).
func (w *watcher) listLoop() {
	w.runListLoop(w.env.Session.Done(), w.compareListed)
}

// runListLoop is listLoop's scheduling, with compare the comparison.
func (w *watcher) runListLoop(done <-chan struct{}, compare func()) {
	waiting := false // a change Neovim reported awaits its comparison
	var bound *time.Timer
	var boundC <-chan time.Time
	for {
		var idle <-chan struct{}
		if waiting {
			idle = w.idle
		}
		select {
		case <-w.relist:
		case <-w.relistNeovim:
			if w.busy() {
				if !waiting {
					waiting = true
					bound = time.NewTimer(relistWait)
					boundC = bound.C
				}
				continue
			}
		case <-idle:
			if w.busy() {
				continue
			}
		case <-boundC:
		case <-done:
			if bound != nil {
				bound.Stop()
			}
			return
		}
		if bound != nil {
			bound.Stop()
			bound, boundC = nil, nil
		}
		waiting = false
		// A change Neovim reported before this comparison is in it.
		select {
		case <-w.relistNeovim:
		default:
		}
		compare()
	}
}

// compareListed lists the resources and tells the clients when the set
// moved since the last comparison; nothing while every session was told
// and has not listed since (told).
func (w *watcher) compareListed() {
	w.mu.Lock()
	skip := w.allTold()
	w.mu.Unlock()
	if skip {
		return
	}
	set, err := w.listedNow()
	if err != nil {
		return
	}
	w.mu.Lock()
	changed := w.listed != nil && !maps.Equal(set, w.listed)
	w.listed = set
	if changed {
		for sid := range w.sessions {
			w.told[sid] = true
		}
	}
	w.mu.Unlock()
	if changed {
		w.srv.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
	}
}

// allTold reports whether there are sessions and every one was told
// list_changed since it last listed (w.mu held).
func (w *watcher) allTold() bool {
	for sid := range w.sessions {
		if !w.told[sid] {
			return false
		}
	}
	return len(w.sessions) > 0
}

// listHook adds the resources of the moment to resources/list (the static
// ones are registered; a failure to read them leaves the static ones), and
// makes the session untold. When every session was told, no comparison
// ran since: the list this session got is the one the next compares
// against (after a failure, the last compared: the client is then told
// if that differs), and a comparison is asked for at once (a change
// between this list's read of Neovim and now was not compared).
func (w *watcher) listHook(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, result *mcp.ListResourcesResult) {
	if result == nil || w.env.Session == nil {
		return
	}
	more, err := w.res.dynamic(ctx)
	if err != nil {
		w.env.Logf("resources/list: %v", err)
	} else {
		result.Resources = append(result.Resources, more...)
	}
	s := server.ClientSessionFromContext(ctx)
	if s == nil {
		return
	}
	w.mu.Lock()
	stale := w.allTold()
	delete(w.told, s.SessionID())
	if stale && err == nil {
		set := make(map[string]bool, len(more))
		for _, r := range more {
			set[r.URI] = true
		}
		w.listed = set
	}
	w.mu.Unlock()
	if stale {
		w.requestRelist()
	}
}

// listedNow is the set of dynamic URIs resources/list shows, with the
// part of Neovim's state as last read when Neovim reported no change
// since (neovimListed).
func (w *watcher) listedNow() (map[string]bool, error) {
	w.mu.Lock()
	neovim := w.neovimListed
	w.mu.Unlock()
	// Swapped before the read: a change Neovim reports while it is read
	// leaves it stale for the next comparison.
	if w.neovimStale.Swap(false) || neovim == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var err error
		neovim, err = w.res.neovimURIs(ctx)
		cancel()
		if err != nil {
			w.neovimStale.Store(true)
			return nil, err
		}
		w.mu.Lock()
		w.neovimListed = neovim
		w.mu.Unlock()
	}
	return w.res.withOwnURIs(neovim), nil
}

// debugLoop tells the subscribers of the debug sessions' resources.
func (w *watcher) debugLoop() {
	for {
		select {
		case <-w.debugChanged:
		case <-w.env.Session.Done():
			return
		}
		var uris []string
		for _, id := range w.env.DAP.IDs() {
			uris = append(uris, prefixDebug+id, prefixDebugOutput+id)
		}
		w.updated(uris...)
		w.requestRelist()
	}
}
