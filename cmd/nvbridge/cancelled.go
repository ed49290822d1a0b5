package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
)

// answerFilter drops the answer to a request its client cancelled. MCP
// says a request cancelled with notifications/cancelled gets no response;
// mcp-go v1.2.1 cancels the handler's context but still sends what the
// handler returned (tools answer CANCELLED then). The filter sits in both
// transports, between mcp-go and the client: it sees every message coming
// in (requests, cancellations) and every answer going out, and drops an
// answer whose request was cancelled before the answer left. An answer
// already sent when the cancellation arrives is not recalled (the spec
// allows it: the client ignores it).
//
// Keys are a session (the Mcp-Session-Id header over HTTP, "" on stdio)
// and the request id, normalised (1 and 1.0 are the same id, "1" is not).
type answerFilter struct {
	mu       sync.Mutex
	inflight map[string]bool // key → cancelled
	answered chan struct{}   // signalled when a request's flight ends
}

func newAnswerFilter() *answerFilter {
	return &answerFilter{inflight: map[string]bool{}, answered: make(chan struct{}, 1)}
}

// waitIdle returns once no request is in flight (every one answered), or
// when ctx ends.
func (f *answerFilter) waitIdle(ctx context.Context) {
	for {
		f.mu.Lock()
		n := len(f.inflight)
		f.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-f.answered:
		case <-ctx.Done():
			return
		}
	}
}

// message is the part of a JSON-RPC message the filter reads.
type message struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// messages decodes one JSON-RPC message or a batch (nil when neither).
func messages(body []byte) []message {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil
	}
	if body[0] == '[' {
		var batch []message
		if json.Unmarshal(body, &batch) != nil {
			return nil
		}
		return batch
	}
	m, ok := scanMessage(body)
	if !ok {
		return nil
	}
	return []message{m}
}

// scanMessage reads a message's top-level keys in order and stops once
// it knows the method and the id and the rest is params it need not read
// (any message but a cancellation): a tool call's arguments (1,000 edits,
// 60 KB) are not scanned a second time before mcp-go reads them.
func scanMessage(body []byte) (message, bool) {
	var m message
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return m, false
	}
	seenMethod, seenID := false, false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return m, false
		}
		key, _ := tok.(string)
		switch key {
		case "method":
			if err := dec.Decode(&m.Method); err != nil {
				return m, false
			}
			seenMethod = true
			continue
		case "id":
			if err := dec.Decode(&m.ID); err != nil {
				return m, false
			}
			seenID = true
			continue
		case "params":
			if seenMethod && seenID && m.Method != "notifications/cancelled" {
				return m, true
			}
			if err := dec.Decode(&m.Params); err != nil {
				return m, false
			}
			continue
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return m, false
		}
	}
	return m, true
}

// idKey normalises a request id; "" for none (absent or null).
func idKey(session string, raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if plainID(raw) {
		return session + "\x00" + string(raw)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return session + "\x00" + string(b)
}

// plainID reports whether the id raw reads back as itself through
// idKey's decoding and encoding: an integer of at most 15 digits (exact as
// a float64, written without exponent) or a string of printable ASCII
// without escapes or the characters encoding/json escapes (<, >, &).
func plainID(raw []byte) bool {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		for _, c := range raw[1 : len(raw)-1] {
			if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	}
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(raw) != 1) {
		return false // a leading zero: "0" alone is plain
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// incoming records the requests in a client's message (they are in flight
// until answered) and the cancellations of requests in flight. It reports
// whether the message holds a request.
func (f *answerFilter) incoming(session string, body []byte) (requests bool) {
	for _, m := range messages(body) {
		if f.record(session, m) {
			requests = true
		}
	}
	return requests
}

// record records one message: a request is in flight until answered, a
// cancellation marks the request it names if that is in flight. It
// reports whether the message is a request.
func (f *answerFilter) record(session string, m message) (request bool) {
	switch {
	case m.Method == "notifications/cancelled":
		if k := idKey(session, m.Params.RequestID); k != "" {
			f.mu.Lock()
			if _, ok := f.inflight[k]; ok {
				f.inflight[k] = true
			}
			f.mu.Unlock()
		}
	case m.Method != "":
		if k := idKey(session, m.ID); k != "" {
			f.start(k)
			return true
		}
	}
	return false
}

// cancelled reports whether the client cancelled the request keyed k, in
// flight.
func (f *answerFilter) cancelled(k string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inflight[k]
}

// start puts the request keyed k (idKey) in flight.
func (f *answerFilter) start(k string) {
	f.mu.Lock()
	f.inflight[k] = false
	f.mu.Unlock()
}

// answerID is the id of an outgoing message that answers a request (it has
// a result or an error and no method); nil for anything else (a
// notification, a request to the client, a batch). It reads the top-level
// keys only up to "result" or "error": an answer is written id first
// (mcp-go's JSONRPCResponse), so its result, often the whole payload
// (thousands of references), is never scanned.
func answerID(body []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var id json.RawMessage
	answer := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		switch key {
		case "method":
			return nil
		case "result", "error":
			if id != nil {
				return id
			}
			answer = true
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if key == "id" {
			id = value
		}
	}
	if !answer {
		return nil // an answer always has a result or an error
	}
	return id
}

// drop reports whether an outgoing message is the answer to a cancelled
// request; an answer ends its request's flight either way.
func (f *answerFilter) drop(session string, body []byte) bool {
	k := idKey(session, answerID(body))
	if k == "" {
		return false
	}
	return f.end(k)
}

// end ends the flight of the request keyed k (idKey) and reports whether
// the client cancelled it (its answer is then not sent).
func (f *answerFilter) end(k string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	cancelled, ok := f.inflight[k]
	delete(f.inflight, k)
	select {
	case f.answered <- struct{}{}:
	default:
	}
	return ok && cancelled
}

// dropCancelledAnswers is the streamable HTTP side of the filter: a POST
// carrying a request gets a response writer that drops the answer to it
// when the client cancelled it (in another POST) before it was written.
// Over SSE the stream then ends without the answer; a plain JSON answer
// becomes 202 Accepted with no body.
func dropCancelledAnswers(f *answerFilter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		// limitBody, in front, has bounded and buffered the body.
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		session := r.Header.Get("Mcp-Session-Id")
		if !f.incoming(session, body) {
			next.ServeHTTP(w, r)
			return
		}
		fw := &filterResponse{ResponseWriter: w, f: f, session: session}
		next.ServeHTTP(fw, r)
		fw.finish()
	})
}

// filterResponse holds back a JSON answer's status until its body is
// known, and drops the body (or the SSE event) answering a cancelled
// request.
type filterResponse struct {
	http.ResponseWriter
	f       *answerFilter
	session string
	status  int  // held back (a JSON answer), 0 when none
	wrote   bool // the status went out
	dropped bool
}

func (w *filterResponse) WriteHeader(code int) {
	if w.wrote || w.status != 0 {
		return
	}
	if code == http.StatusOK && w.Header().Get("Content-Type") == "application/json" {
		w.status = code
		return
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *filterResponse) release() {
	if w.status != 0 && !w.wrote {
		w.wrote = true
		w.ResponseWriter.WriteHeader(w.status)
	}
}

func (w *filterResponse) Write(p []byte) (int, error) {
	payload := p
	if data, ok := bytes.CutPrefix(p, []byte("event: message\ndata: ")); ok {
		payload = data // one SSE event per Write (mcp-go's writeSSEEvent)
	}
	if w.f.drop(w.session, payload) {
		w.dropped = true
		return len(p), nil
	}
	w.release()
	w.wrote = true
	return w.ResponseWriter.Write(p)
}

func (w *filterResponse) Flush() {
	if w.status != 0 && !w.wrote {
		return // nothing to flush before the body
	}
	if fl, ok := w.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func (w *filterResponse) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish sends the held-back status, or 202 with no body when the JSON
// answer was dropped.
func (w *filterResponse) finish() {
	if w.dropped && w.status != 0 && !w.wrote {
		w.Header().Del("Content-Type")
		w.wrote = true
		w.ResponseWriter.WriteHeader(http.StatusAccepted)
		return
	}
	w.release()
}
