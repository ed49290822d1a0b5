package dap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	godap "github.com/google/go-dap"

	"github.com/nvbridge/nvbridge/apierr"
	"github.com/nvbridge/nvbridge/internal/safego"
)

// requestTimeout bounds a request whose context has no deadline (launch
// gets its own, longer bound: dlv builds the program first).
const requestTimeout = 60 * time.Second

// conn is one DAP connection to an adapter: it numbers requests, matches
// responses to them and hands every event to onEvent, in arrival order, on
// the read loop (onEvent must not block).
type conn struct {
	w       io.WriteCloser
	r       *bufio.Reader
	onEvent func(godap.EventMessage)
	logf    func(string, ...any)

	wmu sync.Mutex // WriteProtocolMessage writes header and body separately

	mu      sync.Mutex
	seq     int
	pending map[int]chan godap.ResponseMessage
	err     error // set once the read loop has ended
	done    chan struct{}
}

func newConn(r io.Reader, w io.WriteCloser, onEvent func(godap.EventMessage), logf func(string, ...any)) *conn {
	return &conn{
		w: w, r: bufio.NewReader(r), onEvent: onEvent, logf: logf,
		pending: map[int]chan godap.ResponseMessage{}, done: make(chan struct{}),
	}
}

// serve reads until the stream ends; then every pending and later request
// fails with the error end(readErr) returns (the session's account of why
// the adapter went away).
//
// A panic while reading or handling a message ends the connection like a
// broken stream: readErr is then the OPERATION_FAILED error (a
// *apierr.Error), so the session ends and no waiter is left hanging.
func (c *conn) serve(end func(readErr error) error) {
	readErr := c.readAll()
	final := readErr
	if err := safego.Call("ending the debug adapter's connection", func() { final = end(readErr) }); err != nil {
		final = err
	}
	c.mu.Lock()
	c.err = final
	pending := c.pending
	c.pending = map[int]chan godap.ResponseMessage{}
	c.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	close(c.done)
}

// readAll reads and dispatches messages until the stream ends or a panic
// is recovered, and returns why it stopped.
func (c *conn) readAll() (readErr error) {
	defer safego.Recover("reading the debug adapter's messages", &readErr)
	for {
		msg, err := godap.ReadProtocolMessage(c.r)
		if err != nil {
			var fieldErr *godap.DecodeProtocolMessageFieldError
			if errors.As(err, &fieldErr) {
				// An adapter-specific event or command (debugpy's
				// debugpySockets...): the frame is consumed, keep reading.
				continue
			}
			return err
		}
		switch m := msg.(type) {
		case godap.ResponseMessage:
			r := m.GetResponse()
			c.mu.Lock()
			ch := c.pending[r.RequestSeq]
			delete(c.pending, r.RequestSeq)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case godap.EventMessage:
			c.onEvent(m)
		case godap.RequestMessage:
			// Reverse requests (runInTerminal, startDebugging): nvbridge
			// launches with an internal console and one session per
			// adapter, so it declines them.
			req := m.GetRequest()
			c.logf("dap: declining reverse request %s", req.Command)
			_ = c.send(&godap.ErrorResponse{Response: godap.Response{
				ProtocolMessage: godap.ProtocolMessage{Type: "response"},
				RequestSeq:      req.Seq, Command: req.Command, Success: false,
				Message: "not supported by nvbridge",
			}})
		}
	}
}

// send writes one message, numbering it.
func (c *conn) send(m godap.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	switch x := m.(type) {
	case godap.RequestMessage:
		x.GetRequest().Seq = seq
	case godap.ResponseMessage:
		x.GetResponse().Seq = seq
	}
	return godap.WriteProtocolMessage(c.w, m)
}

// request sends req and waits for its response (bounded by ctx). A failed
// response becomes an OPERATION_FAILED error with the adapter's message.
func (c *conn) request(ctx context.Context, req godap.RequestMessage) (godap.ResponseMessage, error) {
	if _, ok := ctx.Deadline(); !ok {
		// A hung adapter must not hang a tool: every request is bounded.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	r := req.GetRequest()
	r.Type = "request"
	ch := make(chan godap.ResponseMessage, 1)
	c.wmu.Lock()
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		c.wmu.Unlock()
		return nil, err
	}
	c.seq++
	r.Seq = c.seq
	c.pending[r.Seq] = ch
	c.mu.Unlock()
	err := godap.WriteProtocolMessage(c.w, req)
	c.wmu.Unlock()
	if err != nil {
		c.forget(r.Seq)
		// A broken connection ends the read loop too: report why the
		// adapter went away (serve's end) rather than the write error.
		select {
		case <-c.done:
			return nil, c.closedErr()
		case <-ctx.Done():
		}
		return nil, apierr.Errorf(apierr.OperationFailed, "the debug adapter's connection failed; stop the session and start a new one",
			"cannot send %s to the debug adapter: %v", r.Command, err)
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return nil, c.closedErr()
		}
		if e, isErr := resp.(*godap.ErrorResponse); isErr {
			return nil, apierr.Errorf(apierr.OperationFailed, "check the arguments; the debug adapter's message says what it refused",
				"%s failed: %s", r.Command, errorText(e))
		}
		return resp, nil
	case <-ctx.Done():
		c.forget(r.Seq)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, apierr.Errorf(apierr.Timeout, "retry with a larger timeout_ms; the debug adapter may be busy (building the program, for dlv)",
				"the debug adapter did not answer %s in time", r.Command)
		}
		return nil, apierr.Errorf(apierr.Cancelled, "retry if the cancellation was not intended", "%s was cancelled", r.Command)
	}
}

func (c *conn) forget(seq int) {
	c.mu.Lock()
	delete(c.pending, seq)
	c.mu.Unlock()
}

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return apierr.New(apierr.OperationFailed, "the debug adapter's connection is closed", "start a new debug session")
}

// errorText renders an error response: its formatted error message when
// there is one (variables substituted), else its message.
func errorText(e *godap.ErrorResponse) string {
	if e.Body.Error != nil && e.Body.Error.Format != "" {
		text := e.Body.Error.Format
		for k, v := range e.Body.Error.Variables {
			text = strings.ReplaceAll(text, "{"+k+"}", v)
		}
		return text
	}
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("%s refused without a message", e.Command)
}
